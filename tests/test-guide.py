#!/usr/bin/env python3
"""docs/writing-extensions.md works as written: every fenced block in it
is written out, built or run here, so the guide cannot rot.

Usage: test-guide.py SOURCE_ROOT [GUIDE]   (ZOT_BIN names the zot to run)

The convention: a fence's info string is the language, then words that
say what the block is. Every block needs one of these markers; a block
without one fails the test, so nothing in the guide goes unchecked.

  file=PATH   the block is the file PATH (relative, no ..), written into
              the test's work folder in document order. A folder whose
              extension.json comes from the guide is an extension.
  run         shell commands, run with `sh -e` in the work folder once
              the blocks above it are written; exit status 0 expected.
  output      (after a run block) lines the run must print: each
              non-empty line must be a substring of a line of its
              stdout and stderr, in this order.
  frames      protocol frames: each line a JSON object with a "type",
              after an optional arrow (→ or ←) saying who writes it.
  cli         commands shown but not run (they open the window or never
              end): each `zot …` line must name a real command, and each
              --option must be in that command's --help.
  needs=X     skip the block unless X is here: ext-new (`zot ext new
              --help` exits 0), node, tsc, go, libzot-ext (pkg-config
              finds zot-ext-1, outside sanitized builds). A skipped file
              block skips its extension; a skipped run skips its output
              and the extensions it names. ZOT_GUIDE_WITHOUT=tsc,go (a
              list) takes words away, to try the skips.

The runs see `zot` on PATH (ZOT_BIN), ZOT_SRC (the source tree),
ZOT_HOME and HOME in the work folder, no provider keys, a git author, Go offline with
its caches in ZOT_GUIDE_GO_CACHE (GOTOOLCHAIN=local, GOPROXY=off), and
PKG_CONFIG_PATH/LD_LIBRARY_PATH from ZOT_GUIDE_PKG_CONFIG_PATH and
ZOT_GUIDE_LD_LIBRARY_PATH for libzot-ext-1 in the build tree.

Then every extension the guide wrote passes `zot ext check` (with
--durable when its code names operation_key), and each one is run
headless by some run block (`--ext NAME`). Prints TAP.
"""
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile

RUN_TIMEOUT = 300
FENCE = re.compile(r'^(```+)(.*)$')
PROVIDER_KEYS = ('ANTHROPIC_API_KEY', 'OPENAI_API_KEY', 'GEMINI_API_KEY')


class Block:
    def __init__(self, line, lang, attrs, text):
        self.line = line
        self.lang = lang
        self.attrs = attrs
        self.text = text

    def where(self):
        return 'line %d (```%s %s)' % (self.line, self.lang,
                                     ' '.join(k if v is True else '%s=%s' % (k, v)
                                              for k, v in self.attrs.items()))


def parse_blocks(text):
    """The fenced blocks of a Markdown text, with their info strings."""
    blocks = []
    lines = text.split('\n')
    i = 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        fence, info = m.group(1), m.group(2).split()
        start = i + 1
        i += 1
        while i < len(lines) and lines[i] != fence:
            i += 1
        if i >= len(lines):
            raise SystemExit('guide line %d: the fence opened here is never closed' % start)
        attrs = {}
        for word in info[1:]:
            key, eq, value = word.partition('=')
            attrs[key] = value if eq else True
        blocks.append(Block(start, info[0] if info else '', attrs, '\n'.join(lines[start:i]) + '\n'))
        i += 1
    return blocks


class Tap:
    def __init__(self):
        self.count = 0
        self.failed = 0

    def result(self, good, name, detail=''):
        self.count += 1
        if not good:
            self.failed += 1
        print('%s %d - %s' % ('ok' if good else 'not ok', self.count, name))
        if not good and detail:
            for line in detail.rstrip().splitlines():
                print('# ' + line)
        sys.stdout.flush()

    def skip(self, name, why):
        self.count += 1
        print('ok %d - %s # SKIP %s' % (self.count, name, why))


def available(env, zot):
    """Which needs= words hold here."""
    have = set()
    if subprocess.run([zot, 'ext', 'new', '--help'], env=env, capture_output=True).returncode == 0:
        have.add('ext-new')
    for program in ('node', 'tsc', 'go'):
        if shutil.which(program, path=env['PATH']):
            have.add(program)
    if (not os.environ.get('ZOT_GUIDE_SANITIZED') and shutil.which('cc') and shutil.which('pkg-config') and
            subprocess.run(['pkg-config', '--exists', 'zot-ext-1'], env=env).returncode == 0):
        have.add('libzot-ext')
    return have - set(os.environ.get('ZOT_GUIDE_WITHOUT', '').split(','))


def make_env(work, source, zot):
    bindir = os.path.join(work, '.bin')
    os.makedirs(bindir)
    os.symlink(zot, os.path.join(bindir, 'zot'))
    home = os.path.join(work, '.home')
    os.makedirs(home)
    env = {k: v for k, v in os.environ.items() if k not in PROVIDER_KEYS}
    go_cache = os.environ.get('ZOT_GUIDE_GO_CACHE') or os.path.join(work, '.go')
    env.update({
        'PATH': bindir + os.pathsep + os.environ.get('PATH', '/usr/bin:/bin'),
        'ZOT_SRC': source,
        'ZOT_HOME': home,
        'HOME': home,
        'GOCACHE': os.path.join(go_cache, 'cache'),
        'GOPATH': os.path.join(go_cache, 'path'),
        'GOFLAGS': '',
        'GOPROXY': 'off',
        'GOTOOLCHAIN': 'local',
        'GO111MODULE': 'on',
        'GIT_CONFIG_NOSYSTEM': '1',
        # A reader's git knows who they are; this HOME has no config.
        'GIT_AUTHOR_NAME': 'Guide', 'GIT_AUTHOR_EMAIL': 'guide@example.com',
        'GIT_COMMITTER_NAME': 'Guide', 'GIT_COMMITTER_EMAIL': 'guide@example.com',
    })
    for var in ('PKG_CONFIG_PATH', 'LD_LIBRARY_PATH'):
        extra = os.environ.get('ZOT_GUIDE_' + var)
        if extra:
            env[var] = extra + (os.pathsep + env[var] if env.get(var) else '')
    # The core tests' fatal warnings are for the host's own tests, not
    # for the programs a reader runs.
    env.pop('G_DEBUG', None)
    env.pop('MALLOC_CHECK_', None)
    return env


def check_output(expected, got):
    """None when every expected line is found in order, else what is missing."""
    lines = got.splitlines()
    at = 0
    for want in (line.strip() for line in expected.splitlines()):
        if not want:
            continue
        for index in range(at, len(lines)):
            if want in lines[index]:
                at = index + 1
                break
        else:
            return 'missing, in order: %r' % want
    return None


def check_cli(block, env, zot):
    """Each `zot` command of a cli block exists, with the options it uses."""
    problems = []
    for raw in block.text.splitlines():
        line = raw.split('#', 1)[0].strip()
        if not line or not line.startswith('zot'):
            continue
        words = shlex.split(line)
        command = ['zot']
        if len(words) > 1 and words[1] == 'ext':
            command = words[:3]
        elif len(words) > 1 and words[1] in ('rpc', 'update'):
            command = words[:2]
        helptext = subprocess.run([zot] + command[1:] + ['--help-all' if command == ['zot'] else '--help'],
                                  env=env, capture_output=True, text=True)
        if helptext.returncode != 0:
            problems.append('%s: no such command (%s)' % (' '.join(command), helptext.stderr.strip()))
            continue
        for word in words[len(command):]:
            if word.startswith('-'):
                option = word.split('=', 1)[0]
                if not re.search(r'(^|[\s,])%s([\s=,]|$)' % re.escape(option), helptext.stdout, re.M):
                    problems.append('%s: unknown option %s' % (' '.join(command), option))
    return problems


def main():
    source = os.path.abspath(sys.argv[1])
    guide_path = sys.argv[2] if len(sys.argv) > 2 else os.path.join(source, 'docs', 'writing-extensions.md')
    zot = os.path.abspath(os.environ['ZOT_BIN'])
    blocks = parse_blocks(open(guide_path, encoding='utf-8').read())
    tap = Tap()
    print('# %d blocks in %s' % (len(blocks), guide_path))

    with tempfile.TemporaryDirectory(prefix='zot-guide-') as work:
        env = make_env(work, source, zot)
        have = available(env, zot)
        print('# available: %s' % ' '.join(sorted(have)))
        extensions = {}    # folder → None, or why it is skipped
        ran_with = set()   # folders a run block gave to --ext
        last_run = None    # (block, output) of the last run block, None when skipped

        for block in blocks:
            markers = [m for m in ('file', 'run', 'output', 'frames', 'cli') if m in block.attrs]
            if len(markers) != 1:
                tap.result(False, block.where(), 'a block needs exactly one of file=, run, output, frames, cli')
                continue
            need = block.attrs.get('needs')
            skipped = need is not None and need not in have
            marker = markers[0]

            if marker == 'file':
                path = block.attrs['file']
                if not isinstance(path, str) or os.path.isabs(path) or '..' in path.split('/'):
                    tap.result(False, block.where(), 'file= needs a relative path inside the work folder')
                    continue
                folder = path.split('/')[0] if '/' in path else None
                if skipped:
                    if folder:
                        extensions[folder] = 'needs %s' % need
                    tap.skip(block.where(), 'needs %s' % need)
                    continue
                target = os.path.join(work, path)
                os.makedirs(os.path.dirname(target), exist_ok=True)
                with open(target, 'w', encoding='utf-8') as f:
                    f.write(block.text)
                if os.path.basename(path) == 'extension.json':
                    extensions.setdefault(folder or '.', None)
                    try:
                        json.loads(block.text)
                        tap.result(True, block.where())
                    except ValueError as e:
                        tap.result(False, block.where(), 'not JSON: %s' % e)
                continue

            if marker == 'frames':
                bad = []
                for n, line in enumerate(block.text.splitlines()):
                    if not line.strip():
                        continue
                    try:
                        frame = json.loads(re.sub(r'^\s*[→←]\s*', '', line))
                        if not isinstance(frame, dict) or not isinstance(frame.get('type'), str):
                            bad.append('line %d: no string "type"' % (n + 1))
                    except ValueError as e:
                        bad.append('line %d: %s' % (n + 1, e))
                tap.result(not bad, block.where(), '\n'.join(bad))
                continue

            if marker == 'cli':
                problems = check_cli(block, env, zot)
                tap.result(not problems, block.where(), '\n'.join(problems))
                continue

            if marker == 'output':
                if last_run is None:
                    tap.skip(block.where(), 'its run block was skipped')
                    continue
                run_block, got = last_run
                missing = check_output(block.text, got)
                tap.result(missing is None, '%s, the output of line %d' % (block.where(), run_block.line),
                           '%s\n--- the run printed:\n%s' % (missing, got))
                continue

            # run
            last_run = None
            if skipped:
                # What it would have built or run is not there to check.
                for folder in extensions:
                    if extensions[folder] is None and re.search(r'(^|[\s/(])%s\b' % re.escape(folder), block.text):
                        extensions[folder] = 'needs %s' % need
                tap.skip(block.where(), 'needs %s' % need)
                continue
            for folder in re.findall(r'--ext[= ]+(\S+)', block.text):
                ran_with.add(folder.strip('\'"').rstrip('/'))
            try:
                done = subprocess.run(['sh', '-e', '-c', block.text], cwd=work, env=env, stdin=subprocess.DEVNULL,
                                      stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                      timeout=RUN_TIMEOUT)
                got, status = done.stdout, done.returncode
            except subprocess.TimeoutExpired as e:
                got, status = (e.stdout or b'').decode('utf-8', 'replace') + '\n(timed out)', -1
            last_run = (block, got)
            tap.result(status == 0, block.where(), 'exit status %d\n%s' % (status, got))

        for folder, why in sorted(extensions.items()):
            name = 'zot ext check %s' % folder
            if why:
                tap.skip(name, why)
                continue
            directory = os.path.join(work, folder)
            sources = ''.join(open(os.path.join(directory, f), encoding='utf-8', errors='replace').read()
                              for f in os.listdir(directory)
                              if os.path.isfile(os.path.join(directory, f)) and not f.startswith('zotext'))
            argv = [zot, 'ext', 'check'] + (['--durable'] if re.search(r'operation_?key|OperationKey', sources,
                                                                         re.I) else []) + [directory]
            done = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=RUN_TIMEOUT)
            tap.result(done.returncode == 0, name, done.stdout + done.stderr)
            tap.result(folder in ran_with, '%s runs headless in a run block' % folder,
                       'no run block has --ext %s' % folder)

    print('1..%d' % tap.count)
    return 1 if tap.failed else 0


if __name__ == '__main__':
    sys.exit(main())
