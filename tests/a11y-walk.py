#!/usr/bin/env python3
"""Walks one application's accessibility tree over AT-SPI and prints it.

Usage: a11y-walk.py PID [DEADLINE_SECONDS]

Run by test-gui-a11y, from outside the process it inspects: GTK 4.8 exposes
the names it computes only over the accessibility bus. Waits (up to the
deadline) for the application with process id PID to register with the
accessibility registry, then prints one JSON document:

  {"nodes": [{"path", "role", "name", "description", "states", "shown"}, ...],
   "unnamed": [paths of widgets the keyboard reaches that have no name],
   "mnemonic": [paths of shown nodes whose name has a mnemonic underscore],
   "doubled": [paths of shown nodes whose name says the same words twice]}

A widget counts as reached by the keyboard when it is focusable, sensitive
and visible along with all its ancestors. It counts as unnamed when its
name is empty or only its GObject type name, which GTK 4.8 reports when it
has nothing better ("GtkButton"). Lists, list items and scroll panes are
named by their content, as screen readers speak them: they pass when
something in them has a name or text. What is inside a button or check box
is its content, not a place the keyboard goes, unless it takes the focus
itself (the toggle inside a menu button does).

A name has a mnemonic underscore when a word of it holds "_" and that word
is not shown as text anywhere in the tree ("_Restart" where the button
shows "Restart"; "read_file" is shown as it is). A name is doubled when it
is one text said twice ("Restart Restart"), which GTK 4.8 makes of a label
property and a labelled-by relation that say the same; labels are left
out, since their name is what they show.

Exits 0 after printing, 2 on a usage error, 3 when the application never
registered or the tree could not be read before the deadline.
"""
import json
import re
import sys
import time

import gi

gi.require_version('Atspi', '2.0')
from gi.repository import Atspi, GLib  # noqa: E402

TYPE_NAME = re.compile(r'^(Gtk|Adw|GtkSource|Zot)[A-Z]\w*$')
NAMED_BY_CONTENT = {'list', 'list item', 'scroll pane', 'table cell', 'tree item'}
# Tab stops at these and goes no deeper: what is inside is their content.
CONTROLS = {'push button', 'toggle button', 'check box', 'radio button', 'menu item', 'link'}
# Bounds, so that a broken tree cannot keep the walk going forever.
MAX_NODES = 20000
MAX_DEPTH = 100
# Roles whose name is the text they show, and roles that show text.
NAME_IS_TEXT = {'label', 'paragraph', 'heading'}
TEXT_ROLES = NAME_IS_TEXT | {'text'}


def real_name(name):
    return bool(name) and not TYPE_NAME.match(name)


def strip_mnemonics(name):
    return re.sub(r'_(.)', r'\1', name)


def is_doubled(name):
    words = strip_mnemonics(name).split()
    half = len(words) // 2
    return half > 0 and len(words) % 2 == 0 and words[:half] == words[half:]


def find_application(pid, deadline):
    """The application with @pid on the registry's desktop, or None."""
    found = None
    loop = GLib.MainLoop()

    def look():
        nonlocal found
        desktop = Atspi.get_desktop(0)
        for i in range(desktop.get_child_count()):
            app = desktop.get_child_at_index(i)
            try:
                if app is not None and app.get_process_id() == pid:
                    found = app
            except GLib.Error:
                continue  # an application that went away meanwhile
        if found is not None or time.monotonic() > deadline:
            loop.quit()
            return GLib.SOURCE_REMOVE
        return GLib.SOURCE_CONTINUE

    # Registration is the application's doing; look again until it is done.
    GLib.timeout_add(50, look)
    loop.run()
    return found


def walk(app):
    nodes = []
    unnamed = []
    shown_texts = set()

    def visit(accessible, path, depth, shown, in_control=False):
        if len(nodes) >= MAX_NODES or depth > MAX_DEPTH:
            raise RuntimeError(f'the tree is larger than {MAX_NODES} nodes or {MAX_DEPTH} levels')
        states = accessible.get_state_set()
        role = accessible.get_role_name()
        name = accessible.get_name() or ''
        # The application itself has no states; its windows and widgets do.
        shown = shown and (role == 'application' or states.contains(Atspi.StateType.VISIBLE))
        node = {
            'path': path,
            'role': role,
            'name': name,
            'description': accessible.get_description() or '',
            'states': sorted(s.value_nick for s in states.get_states()),
            'shown': shown,
        }
        nodes.append(node)
        if shown and role in TEXT_ROLES:
            if role in NAME_IS_TEXT:
                shown_texts.add(name)
            text = accessible.get_text_iface() if hasattr(accessible, 'get_text_iface') else None
            if text is not None:
                shown_texts.add(Atspi.Text.get_text(text, 0, Atspi.Text.get_character_count(text)))

        named_inside = False
        for i in range(accessible.get_child_count()):
            child = accessible.get_child_at_index(i)
            if child is None:
                continue
            if visit(child, f'{path}/{child.get_role_name()}[{i}]', depth + 1, shown,
                     in_control or (role in CONTROLS and states.contains(Atspi.StateType.FOCUSABLE))):
                named_inside = True

        has_text = False
        if role in NAMED_BY_CONTENT or role == 'label':
            text = accessible.get_text_iface() if hasattr(accessible, 'get_text_iface') else None
            if text is not None and Atspi.Text.get_character_count(text) > 0:
                has_text = True

        reachable = (shown and not in_control and states.contains(Atspi.StateType.FOCUSABLE) and
                     states.contains(Atspi.StateType.SENSITIVE))
        named = real_name(name) or (role in NAMED_BY_CONTENT and named_inside)
        if reachable and not named:
            unnamed.append(f'{path} ({role}, reported name "{name}")')
        return real_name(name) or has_text or named_inside

    visit(app, 'app', 0, True)

    words = set(w for text in shown_texts for w in text.split())
    mnemonic = []
    doubled = []
    for node in nodes:
        if not node['shown'] or not real_name(node['name']):
            continue
        described = f'{node["path"]} ({node["role"]}, named "{node["name"]}")'
        if any('_' in w and w.strip('.,:;()"') not in words and w not in words for w in node['name'].split()):
            mnemonic.append(described)
        if node['role'] not in NAME_IS_TEXT and is_doubled(node['name']):
            doubled.append(described)
    return nodes, unnamed, mnemonic, doubled


def main():
    if len(sys.argv) not in (2, 3):
        print(__doc__, file=sys.stderr)
        return 2
    pid = int(sys.argv[1])
    deadline = time.monotonic() + (float(sys.argv[2]) if len(sys.argv) == 3 else 60)

    # Each call waits for the application's main loop, which may be busy.
    Atspi.set_timeout(20000, 20000)
    app = find_application(pid, deadline)
    if app is None:
        print(f'a11y-walk: process {pid} did not register with the accessibility registry; '
              'is GTK_A11Y=none set, or the registry daemon missing (at-spi2-core)?',
              file=sys.stderr)
        return 3
    try:
        nodes, unnamed, mnemonic, doubled = walk(app)
    except (GLib.Error, RuntimeError) as error:
        print(f'a11y-walk: cannot read the tree of process {pid}: {error}', file=sys.stderr)
        return 3
    json.dump({'nodes': nodes, 'unnamed': unnamed, 'mnemonic': mnemonic, 'doubled': doubled}, sys.stdout)
    return 0


if __name__ == '__main__':
    sys.exit(main())
