#!/usr/bin/env python3
"""todo: a zot extension that keeps a to-do list.

In the desktop window (the host advertises "panels"):

    /todo            open the To-do panel (also /todo panel)

    With native widgets (the host also advertises "panel_widgets"): a list
    with a check box and a delete button per item, an entry to add items,
    and a button that removes the done ones. Otherwise lines: up/down move,
    enter toggles done, a adds a sample item, d or delete deletes, esc
    closes.

Everywhere (and headless, e.g. zot -p):

    /todo add TEXT   add an item
    /todo list       show the list (also what a bare /todo does headless)
    /todo done N     mark item N as done
    /todo clear      empty the list and remove this extension's notes

Tools for the model: todo_add {"text": ...} and todo_list {}.

The list lives in todo.json in the extension's own directory, which is also
the process's working directory and hello_ack's data_dir. It is written to a
temporary file first and renamed over the old one, so a crash never leaves
half a file behind. Every operation reads the file again, so two zot
processes sharing the directory see each other's changes.

Written on zotext.py (sdk/python), copied beside this file. The SDK runs
tool calls on a pool of threads and panel callbacks on a thread of their
own, so every read-modify-write of the list holds `lock`.
"""
import json
import os
import tempfile
import threading
import unicodedata

import zotext

USAGE = "usage: /todo [panel] | /todo add TEXT | /todo list | /todo done N | /todo clear"
STORE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "todo.json")

PANEL_ID = "todo"
PANEL_TITLE = "To-do"
PANEL_FOOTER = "↑↓ move · enter toggle · a add sample · d delete · esc close"
WIDGETS_FOOTER = "Items are saved in todo.json beside the extension"
SAMPLES = ["water the plants", "read the protocol", "call the dentist",
           "buy milk", "back up the laptop", "answer the email from Sam"]

# ANSI SGR parameters used in panel lines.
BOLD, DIM, STRIKE, GREEN = "1", "2", "9", "32"

ext = zotext.Extension("todo", "1.1.0", call_tool=False)

# Held around every read-modify-write of todo.json and the panel state.
lock = threading.RLock()
# The open panel (None when closed): the selected line of the lines panel.
panel = None  # {"selected": int}


def log(message):
    ext.log("%s", message)


def save_or_note(items):
    """Saves; on failure notes it and returns the list as it is on disk."""
    try:
        save_items(items)
    except OSError as e:
        log("cannot save %s: %s" % (STORE, e))
        ext.notify("error", "todo: cannot save the list: %s" % (e,))
        return load_items()
    return items


# ---- storage ---------------------------------------------------------------

def one_line(text):
    """New item text: one line, no control characters (ESC included), trimmed."""
    text = "".join(" " if unicodedata.category(c) == "Cc" else c for c in text)
    return " ".join(text.split())


def load_items():
    """Returns the list of {"text": str, "done": bool} items."""
    try:
        with open(STORE, encoding="utf-8") as f:
            data = json.load(f)
    except FileNotFoundError:
        return []
    except (OSError, ValueError) as e:
        log("cannot read %s (%s); starting with an empty list" % (STORE, e))
        return []

    items = []
    for item in data.get("items", []) if isinstance(data, dict) else []:
        if isinstance(item, dict) and isinstance(item.get("text"), str):
            items.append({"text": item["text"], "done": bool(item.get("done"))})
    return items


def save_items(items):
    """Writes the list atomically: temp file in the same directory, then rename."""
    directory = os.path.dirname(STORE)
    fd, tmp = tempfile.mkstemp(prefix=".todo-", suffix=".tmp", dir=directory)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump({"items": items}, f, ensure_ascii=False, indent=2)
            f.write("\n")
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, STORE)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def render(items):
    """The plain-text list: command displays and the todo_list tool."""
    if not items:
        return "Todo list is empty. Add an item with /todo add TEXT"
    lines = ["Todo list:"]
    for number, item in enumerate(items, 1):
        lines.append("%d. [%s] %s" % (number, "x" if item["done"] else " ", item["text"]))
    return "\n".join(lines)


# ---- the panel ----------------------------------------------------------------

def styled(segments):
    """Joins (text, sgr) segments into one line; neighbours with the same
    style share one escape."""
    merged = []
    for text, sgr in segments:
        if merged and merged[-1][1] == sgr:
            merged[-1] = (merged[-1][0] + text, sgr)
        else:
            merged.append((text, sgr))
    return "".join("\x1b[%sm%s\x1b[0m" % (sgr, text) if sgr else text
                   for text, sgr in merged)


def summary(items):
    done = sum(1 for item in items if item["done"])
    return "%d item%s · %d done · %d open" % (
        len(items), "" if len(items) == 1 else "s", done, len(items) - done)


def panel_lines(items):
    selected = panel["selected"] if panel else 0
    if not items:
        return [styled([("No items yet. Press a to add a sample, or type /todo add TEXT.", DIM)])]

    lines = []
    for index, item in enumerate(items):
        here = index == selected
        done = item["done"]
        base = BOLD if here else ""
        if done:
            text_sgr = ";".join(p for p in (base, "" if here else DIM, STRIKE) if p)
            check_sgr = ";".join(p for p in (base, GREEN) if p)
        else:
            text_sgr, check_sgr = base, base
        # one_line again: todo.json may have been edited by hand.
        lines.append(styled([
            ("▸ " if here else "  ", base),
            ("[", base),
            ("✓" if done else " ", check_sgr),
            ("] ", base),
            (one_line(item["text"]), text_sgr),
        ]))
    lines.append("")
    lines.append(styled([(summary(items), DIM)]))
    return lines


def panel_widgets(items, clear_entry=False):
    """The panel as native widgets: an entry to add, the list, a summary.
    The entry keeps what the user typed unless clear_entry sets its value."""
    entry = {"id": "new", "type": "entry", "label": "New item",
             "placeholder": "Add an item and press Enter", "submit_label": "Add"}
    if clear_entry:
        entry["value"] = ""
    rows = [{"id": "item-%d" % index, "title": one_line(item["text"]), "checked": item["done"],
             "buttons": [{"id": "delete", "label": "Delete", "icon": "user-trash-symbolic"}]}
            for index, item in enumerate(items)]
    return [
        entry,
        {"id": "items", "type": "list", "label": "To-do items", "max_height": 480,
         "placeholder": "No items yet. Type one above, or ask the model to add some.",
         "rows": rows},
        {"id": "footer", "type": "box", "orientation": "horizontal", "spacing": 12, "children": [
            {"id": "summary", "type": "text", "style": "dim", "text": summary(items)},
            {"id": "clear-done", "type": "button", "label": "Remove done items", "style": "flat",
             "icon": "edit-clear-all-symbolic", "sensitive": any(item["done"] for item in items)},
        ]},
    ]


def panel_content(items, clear_entry=False):
    """(title, lines, footer, widgets): the SDK sends the widgets where the
    host offers panel_widgets, else the lines; the footers differ too."""
    if panel is not None:
        panel["selected"] = max(0, min(panel["selected"], len(items) - 1))
    if "panel_widgets" in ext.host.capabilities:
        return PANEL_TITLE, None, WIDGETS_FOOTER, panel_widgets(items, clear_entry)
    return PANEL_TITLE, panel_lines(items), PANEL_FOOTER, None


def refresh_panel(items, clear_entry=False):
    """Sends panel_render when the panel is open."""
    if panel is not None:
        ext.render_panel(PANEL_ID, *panel_content(items, clear_entry))


def row_index(items, row_id):
    """The index of row "item-N", or None when the list changed under it."""
    if isinstance(row_id, str) and row_id.startswith("item-"):
        try:
            index = int(row_id[len("item-"):])
        except ValueError:
            return None
        if 0 <= index < len(items):
            return index
    return None


def set_done(item, done):
    item["done"] = done
    ext.notify("success" if done else "info", ("Done: " if done else "Reopened: ") + item["text"])


@ext.on_panel_event(PANEL_ID)
def panel_event(widget, event, value):
    """What the user did with a native widget; every change is saved."""
    with lock:
        if panel is None:
            return
        items = load_items()
        clear_entry = False
        if widget == "new" and event == "submit":
            text = one_line(value) if isinstance(value, str) else ""
            if not text:
                return
            items.append({"text": text, "done": False})
            ext.notify("success", "Added: " + text)
            clear_entry = True
        elif widget == "items" and event == "toggled" and isinstance(value, dict):
            index = row_index(items, value.get("row"))
            if index is None:
                return
            set_done(items[index], bool(value.get("checked")))
        elif widget == "items" and event == "activated":
            index = row_index(items, value)
            if index is None:
                return
            set_done(items[index], not items[index]["done"])
        elif widget == "items" and event == "button" and isinstance(value, dict):
            index = row_index(items, value.get("row"))
            if index is None or value.get("button") != "delete":
                return
            del items[index]
        elif widget == "clear-done" and event == "clicked":
            items = [item for item in items if not item["done"]]
        else:
            return  # typing ("changed") and anything else: nothing to save
        refresh_panel(save_or_note(items), clear_entry)


def next_sample(items):
    present = {item["text"] for item in items}
    for text in SAMPLES:
        if text not in present:
            return text
    number = len(items) + 1
    while "sample item %d" % number in present:
        number += 1
    return "sample item %d" % number


@ext.on_panel_close(PANEL_ID)
def panel_closed():
    global panel
    with lock:
        panel = None  # the user closed it in the window


@ext.on_panel_key(PANEL_ID)
def panel_key(key, text):
    global panel
    text = text.lower()  # a and A, d and D
    with lock:
        if panel is None:
            return
        if key == "esc":
            panel = None
            ext.close_panel(PANEL_ID)
            return

        items = load_items()
        selected = max(0, min(panel["selected"], len(items) - 1))
        changed = False
        if key == "up":
            panel["selected"] = max(selected - 1, 0)
        elif key == "down":
            panel["selected"] = min(selected + 1, max(len(items) - 1, 0))
        elif key == "home":
            panel["selected"] = 0
        elif key == "end":
            panel["selected"] = max(len(items) - 1, 0)
        elif key == "enter" and items:
            set_done(items[selected], not items[selected]["done"])
            changed = True
        elif key == "rune" and text == "a":
            items.append({"text": next_sample(items), "done": False})
            panel["selected"] = len(items) - 1
            changed = True
        elif (key == "delete" or (key == "rune" and text == "d")) and items:
            del items[selected]
            changed = True
        else:
            return  # a key this panel does not use: nothing to redraw
        refresh_panel(save_or_note(items) if changed else items)


# ---- the command ------------------------------------------------------------

@ext.command("Todo", "To-do list: open the panel, or add TEXT, list, done N, clear")
def todo_command(args):
    global panel
    verb, _, rest = args.strip().partition(" ")
    verb = verb.lower()
    rest = rest.strip()
    try:
        with lock:
            if verb in ("", "panel") and "panels" in ext.host.capabilities:
                if panel is None:
                    panel = {"selected": 0}
                title, lines, footer, widgets = panel_content(load_items())
                return zotext.open_panel(PANEL_ID, title, lines, footer, widgets)

            if verb in ("", "panel", "list"):
                return zotext.display(render(load_items()))

            if verb == "add":
                rest = one_line(rest)
                if not rest:
                    return zotext.errorf("nothing to add; %s", USAGE)
                items = load_items()
                items.append({"text": rest, "done": False})
                save_items(items)
                ext.notify("success", "Added: " + rest)
                refresh_panel(items)
                return zotext.display(render(items))

            if verb == "done":
                items = load_items()
                try:
                    number = int(rest)
                except ValueError:
                    number = 0
                if not 1 <= number <= len(items):
                    return zotext.errorf("no item %r (the list has %d); %s", rest, len(items), USAGE)
                items[number - 1]["done"] = True
                save_items(items)
                ext.notify("success", "Done: " + items[number - 1]["text"])
                refresh_panel(items)
                return zotext.display(render(items))

            if verb == "clear":
                save_items([])
                ext.clear_notes()
                refresh_panel([])
                return zotext.display(render([]))
    except OSError as e:
        log("cannot save %s: %s" % (STORE, e))
        return zotext.errorf("todo: cannot save the list: %s", e)
    return zotext.errorf("unknown subcommand %r; %s", verb, USAGE)


# ---- the tools ----------------------------------------------------------------

@ext.structured_tool("todo_add", "Add an item to the user's to-do list",
                     {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]},
                     {"type": "object", "properties": {"count": {"type": "integer"}}})
def todo_add(args):
    text = args.get("text")
    text = one_line(text) if isinstance(text, str) else ""
    with lock:
        items = load_items()
        if not text:
            return zotext.structured_result({"count": len(items)},
                                            'todo_add needs a non-empty "text" string', is_error=True)
        items.append({"text": text, "done": False})
        try:
            save_items(items)
        except OSError as e:
            log("cannot save %s: %s" % (STORE, e))
            return zotext.text_error_result("todo: cannot save the list: %s" % (e,))
        refresh_panel(items)
    count = len(items)
    ext.notify("success", "Added: " + text)
    return zotext.structured_result({"count": count},
                                    "Added: %s (%d item%s)" % (text, count, "" if count == 1 else "s"))


@ext.structured_tool("todo_list", "Show the user's to-do list (numbered, [x] marks done items)",
                     {"type": "object", "properties": {}},
                     {"type": "object",
                      "properties": {"count": {"type": "integer"},
                                     "items": {"type": "array",
                                               "items": {"type": "object",
                                                         "properties": {"text": {"type": "string"},
                                                                        "done": {"type": "boolean"}}}}}})
def todo_list(args):
    items = load_items()
    return zotext.structured_result({"count": len(items), "items": items}, render(items))


if __name__ == "__main__":
    ext.run()
