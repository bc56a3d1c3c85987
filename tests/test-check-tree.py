#!/usr/bin/env python3
"""tools/check-tree.py must catch what it is there to catch.

The tree test runs the check on the real tree, where it passes; this one
runs it on a copy of the parts it reads, clean and then with each breach
put in, so that a rule that stopped working would be noticed. Prints TAP.
"""
import os
import shutil
import subprocess
import sys
import tempfile

source = sys.argv[1]
check = os.path.join(source, 'tools', 'check-tree.py')
results = []


def copy_tree(into):
    for part in ('src', 'po', 'data', 'flatpak', 'examples', 'docs', 'sdk', 'extensions'):
        if os.path.isdir(os.path.join(source, part)):
            shutil.copytree(os.path.join(source, part), os.path.join(into, part),
                            ignore=shutil.ignore_patterns('*.mo', 'node_modules', '__pycache__'))
    for name in ('README.md', 'CONTRIBUTING.md'):
        shutil.copy(os.path.join(source, name), into)


def run(root):
    done = subprocess.run([sys.executable, check, root], capture_output=True, text=True, timeout=120)
    return done.returncode, done.stdout


def case(name, breach, expected):
    with tempfile.TemporaryDirectory() as root:
        copy_tree(root)
        if breach:
            breach(root)
        status, output = run(root)
        if expected is None:
            good = status == 0 and output == ''
        else:
            good = status == 1 and expected in output
        results.append((good, name, output))


def long_source(root):
    path = os.path.join(root, 'src', 'core', 'base', 'zot-limits.c')
    with open(path, 'a', encoding='utf-8') as f:
        f.write('\n' * 1300)


def long_readme(root):
    with open(os.path.join(root, 'README.md'), 'a', encoding='utf-8') as f:
        f.write('line\n' * 300)


def dead_link(root):
    with open(os.path.join(root, 'README.md'), 'a', encoding='utf-8') as f:
        f.write('See [the gone page](docs/gone.md).\n')


def unlisted_strings(root):
    with open(os.path.join(root, 'src', 'core', 'base', 'zot-new.c'), 'w', encoding='utf-8') as f:
        f.write('static const char *s = _("a string");\n')


case('a clean copy passes', None, None)
case('a source file over the line limit', long_source, 'src/core/base/zot-limits.c: ')
case('a README over the line limit', long_readme, 'README.md: ')
case('a README link to nothing', dead_link, 'the link to docs/gone.md leads nowhere')
case('translatable strings outside POTFILES.in', unlisted_strings, 'zot-new.c')

print(f'1..{len(results)}')
for number, (good, name, output) in enumerate(results, 1):
    print(f'{"ok" if good else "not ok"} {number} - {name}')
    if not good:
        for line in output.splitlines():
            print(f'# {line}')
sys.exit(0 if all(good for good, _, _ in results) else 1)
