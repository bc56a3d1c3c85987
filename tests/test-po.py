#!/usr/bin/env python3
"""Checks the translations against the sources.

1. Every string in data/ UI files that people read (labels, titles,
   tooltips, placeholders, accessible names, menu items) is marked
   translatable="yes".
2. Every catalogue in po/LINGUAS compiles (msgfmt --check) and translates
   every string the sources mark today: a new or changed string shows up as
   untranslated or fuzzy after merging with a fresh extraction.

Usage: test-po.py SOURCE_DIR
"""
import os
import re
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ElementTree

root = sys.argv[1]
problems = []

HUMAN = {'label', 'title', 'subtitle', 'tooltip-text', 'tooltip-markup', 'placeholder-text',
         'description', 'text', 'secondary-text', 'heading', 'body'}


def check_ui(path):
    relative = os.path.relpath(path, root)
    tree = ElementTree.parse(path)
    for element in tree.iter():
        if element.tag not in ('property', 'attribute'):
            continue
        name = element.get('name')
        text = (element.text or '').strip()
        if name not in HUMAN or not re.search(r'[A-Za-z]', text):
            continue
        if element.get('translatable') != 'yes':
            problems.append(f'{relative}: "{text}" ({name}) is not marked translatable="yes"')


for folder, _, names in os.walk(os.path.join(root, 'data')):
    for name in sorted(names):
        if name.endswith('.ui'):
            check_ui(os.path.join(folder, name))

linguas = []
for line in open(os.path.join(root, 'po', 'LINGUAS'), encoding='utf-8'):
    linguas += line.split('#')[0].split()

HOW = 'run tools/update-po.sh, then translate what it marks in po/{}.po'

with tempfile.TemporaryDirectory() as scratch:
    pot = os.path.join(scratch, 'zot.pot')
    if linguas:
        # The same keywords and flags as meson's i18n "glib" preset.
        subprocess.run(['xgettext', '--from-code=UTF-8', '--add-comments', '--package-name=zot',
                        '--keyword=_', '--keyword=N_', '--keyword=C_:1c,2', '--keyword=NC_:1c,2',
                        '--keyword=g_dcgettext:2', '--keyword=g_dngettext:2,3',
                        '--keyword=g_dpgettext2:2c,3', '--flag=N_:1:pass-c-format',
                        '--flag=C_:2:pass-c-format', '--flag=NC_:2:pass-c-format',
                        '--flag=g_dngettext:2:pass-c-format', '--flag=g_strdup_printf:1:c-format',
                        '--flag=g_string_printf:2:c-format', '--flag=g_string_append_printf:2:c-format',
                        '--flag=g_error_new:3:c-format', '--flag=g_set_error:4:c-format',
                        '--directory', root, '--files-from', os.path.join(root, 'po', 'POTFILES.in'),
                        '--output', pot], check=True)
    for lang in linguas:
        po = os.path.join(root, 'po', f'{lang}.po')
        if not os.path.exists(po):
            problems.append(f'po/LINGUAS lists {lang}, but po/{lang}.po does not exist')
            continue
        checked = subprocess.run(['msgfmt', '--check', '--statistics', '-o', os.devnull, po],
                                 capture_output=True, text=True)
        if checked.returncode != 0:
            problems.append(f'po/{lang}.po does not compile:\n{checked.stderr}')
            continue
        merged = os.path.join(scratch, f'{lang}.po')
        subprocess.run(['msgmerge', '--quiet', '--no-fuzzy-matching', '-o', merged, po, pot], check=True)
        stats = subprocess.run(['msgfmt', '--check', '--statistics', '-o', os.devnull, merged],
                               capture_output=True, text=True)
        report = stats.stderr.strip()
        if stats.returncode != 0 or 'untranslated' in report or 'fuzzy' in report:
            problems.append(f'po/{lang}.po against the sources: {report}; ' + HOW.format(lang))
        print(f'# {lang}: {report}')

for problem in problems:
    print(problem)
print('not ok' if problems else 'ok', '- translations')
sys.exit(1 if problems else 0)
