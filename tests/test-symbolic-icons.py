#!/usr/bin/env python3
"""Checks the symbolic icons under data/icons against what GTK can recolour.

GTK recolours a symbolic icon by restyling its fills; a stroke keeps its own
colour and, in GTK 4.8, turns into a brown outline around a filled blob. So
every *-symbolic.svg is drawn with filled shapes only: no stroke attribute,
no stroke in a style attribute or <style> element, and the 16x16 grid the
symbolic icon guidelines draw on.

Usage: test-symbolic-icons.py SOURCE_ROOT
"""

import os
import re
import sys
import xml.etree.ElementTree as ElementTree

root = sys.argv[1]
icons = os.path.join(root, 'data', 'icons')
problems = []
checked = 0


def local(name):
    return name.rsplit('}', 1)[-1]


def check(path):
    relative = os.path.relpath(path, root)
    svg = ElementTree.parse(path).getroot()
    if svg.get('viewBox', '').split() != ['0', '0', '16', '16']:
        problems.append(f'{relative}: viewBox is "{svg.get("viewBox")}", not "0 0 16 16"')
    for element in svg.iter():
        tag = local(element.tag)
        for name, value in element.attrib.items():
            name = local(name)
            if name.startswith('stroke'):
                problems.append(f'{relative}: <{tag}> has {name}="{value}"; '
                                'draw the outline as a filled path instead')
            elif name == 'style' and re.search(r'(^|;)\s*stroke', value):
                problems.append(f'{relative}: <{tag}> style "{value}" sets a stroke; '
                                'draw the outline as a filled path instead')
        if tag == 'style' and 'stroke' in (element.text or ''):
            problems.append(f'{relative}: <style> sets a stroke; draw the outline as a filled path instead')


for folder, _, names in os.walk(icons):
    for name in sorted(names):
        if name.endswith('-symbolic.svg'):
            check(os.path.join(folder, name))
            checked += 1

if checked == 0:
    problems.append(f'no *-symbolic.svg under {os.path.relpath(icons, root)}')
for problem in problems:
    print(problem)
print(f'# {checked} symbolic icons')
print('not ok' if problems else 'ok', '- symbolic icons')
sys.exit(1 if problems else 0)
