#!/usr/bin/env python3
"""Checks the source tree for rules that a compiler cannot see.

1. Layers: a file in src/core/LAYER may include headers only from its own
   layer and the layers listed before it in src/core/meson.build.
2. Translations: every source file that marks a string with _() or N_() is
   listed in po/POTFILES.in, and every listed file exists.
3. Marked strings are whole: no macro (G_GSIZE_FORMAT and the like) between
   the literals inside _(), N_() or C_(), where xgettext would cut the msgid
   at the macro and translators would never see the rest.
4. The README's paragraph on the examples names every folder of
   examples/extensions/ and gives their number.
5. No source file in src/ is over SOURCE_MAX_LINES lines: a file that
   grows past it is split into files over a private header, as the
   extension manager is.
6. The README stays a front door: under README_MAX_LINES lines, every
   local link in it leads to a file that exists.

Prints one line per breach and exits 1 if there is any.
"""
import os
import re
import sys

root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), '..')
core = os.path.join(root, 'src', 'core')
problems = []

layer_line = re.search(r"zot_core_layers\s*=\s*\[([^\]]*)\]",
                       open(os.path.join(core, 'meson.build')).read())
layers = re.findall(r"'([^']+)'", layer_line.group(1))
rank = {name: i for i, name in enumerate(layers)}

home = {}
for layer in layers:
    for name in os.listdir(os.path.join(core, layer)):
        if name.endswith(('.c', '.h')):
            home[name] = layer

for name, layer in sorted(home.items()):
    path = os.path.join(core, layer, name)
    for number, line in enumerate(open(path, encoding='utf-8'), 1):
        match = re.match(r'\s*#\s*include\s+"([^"]+)"', line)
        if not match or match.group(1) not in home:
            continue
        other = home[match.group(1)]
        if rank[other] > rank[layer]:
            problems.append(f'src/core/{layer}/{name}:{number}: includes {match.group(1)} '
                            f'from {other}/, a later layer than {layer}/')

listed = set()
for line in open(os.path.join(root, 'po', 'POTFILES.in'), encoding='utf-8'):
    line = line.strip()
    if line and not line.startswith('#'):
        listed.add(line)
        if not os.path.exists(os.path.join(root, line)):
            problems.append(f'po/POTFILES.in: lists {line}, which does not exist')

marker = re.compile(r'\bN?_\s*\(\s*"')
for folder, _, names in os.walk(os.path.join(root, 'src')):
    for name in names:
        if not name.endswith('.c'):
            continue
        path = os.path.join(folder, name)
        relative = os.path.relpath(path, root)
        if relative not in listed and marker.search(open(path, encoding='utf-8').read()):
            problems.append(f'{relative}: has translatable strings but is not in po/POTFILES.in')



def marked_calls(text):
    """Yields (offset, argument text) of each _(), N_(), C_() and NC_() call."""
    for match in re.finditer(r'\b(?:N?C?_)\s*\(', text):
        depth, i, in_string = 1, match.end(), False
        while i < len(text) and depth:
            c = text[i]
            if in_string:
                if c == '\\':
                    i += 1
                elif c == '"':
                    in_string = False
            elif c == '"':
                in_string = True
            elif c in '()':
                depth += 1 if c == '(' else -1
            i += 1
        yield match.start(), text[match.end():i - 1]


literal = re.compile(r'"(?:\\.|[^"\\])*"')
for folder, _, names in os.walk(os.path.join(root, 'src')):
    for name in names:
        if not name.endswith('.c'):
            continue
        path = os.path.join(folder, name)
        text = open(path, encoding='utf-8').read()
        for offset, argument in marked_calls(text):
            # The msgid is the last comma-separated piece (C_ puts a context first).
            pieces = literal.sub('""', argument).split(',')
            if any(re.search(r'""\s*[A-Za-z_]\w*|[A-Za-z_]\w*\s*""', piece) for piece in pieces):
                line = text.count('\n', 0, offset) + 1
                problems.append(f'{os.path.relpath(path, root)}:{line}: a macro inside a translatable '
                                'string cuts its msgid; format the number with a plain '
                                'conversion (%zu, %lld with a cast) instead')

# 4. The README's list of examples names each one, and counts them right.
examples = sorted(name for name in os.listdir(os.path.join(root, 'examples', 'extensions'))
                  if os.path.isfile(os.path.join(root, 'examples', 'extensions', name, 'extension.json')))
readme = open(os.path.join(root, 'README.md'), encoding='utf-8').read()
counted = re.search(r'(\w+) examples? lives? in \[`examples/extensions/`\]', readme)
numbers = ['no', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten',
           'eleven', 'twelve', 'thirteen', 'fourteen', 'fifteen', 'sixteen', 'seventeen',
           'eighteen', 'nineteen', 'twenty']
if counted is None:
    problems.append('README.md: no "N examples live in [`examples/extensions/`]" sentence')
else:
    paragraph = readme[counted.start():readme.find('\n\n', counted.start())]
    said = counted.group(1).lower()
    if said not in numbers or numbers.index(said) != len(examples):
        problems.append(f'README.md: says "{counted.group(1)} examples" but examples/extensions/ '
                        f'has {len(examples)}')
    for name in examples:
        if f'`{name}`' not in paragraph:
            problems.append(f'README.md: the examples paragraph does not name `{name}`')

# 5. No file in src/ grows into a hub.
SOURCE_MAX_LINES = 1200
for folder, _, names in os.walk(os.path.join(root, 'src')):
    for name in sorted(names):
        if not name.endswith(('.c', '.h')):
            continue
        path = os.path.join(folder, name)
        with open(path, encoding='utf-8') as source:
            count = sum(1 for _ in source)
        if count > SOURCE_MAX_LINES:
            problems.append(f'{os.path.relpath(path, root)}: {count} lines, over {SOURCE_MAX_LINES}; '
                            'split it into files over a private header')

# 6. The README is short, and its links lead somewhere.
README_MAX_LINES = 250
readme_lines = readme.count('\n')
if readme_lines >= README_MAX_LINES:
    problems.append(f'README.md: {readme_lines} lines, not under {README_MAX_LINES}; '
                    'move the detail to docs/ and link to it')
for link in re.finditer(r'\]\(([^)#\s]+)(?:#[^)]*)?\)', readme):
    target = link.group(1)
    if '://' not in target and not os.path.exists(os.path.join(root, target)):
        problems.append(f'README.md: the link to {target} leads nowhere')

for problem in problems:
    print(problem)
sys.exit(1 if problems else 0)
