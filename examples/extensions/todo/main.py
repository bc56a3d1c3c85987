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

Protocol: newline-delimited JSON on stdin/stdout (zot protocol version 1).
stdout carries frames only; diagnostics go to stderr (the extension's log).
Python 3 standard library only.
"""
import json
import os
import sys
import tempfile
import traceback
import unicodedata

NAME = "todo"
VERSION = "1.1.0"
COMMAND = "Todo"
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

TOOLS = [
    {"type": "register_tool", "name": "todo_add",
     "description": "Add an item to the user's to-do list",
     "schema": {"type": "object",
                "properties": {"text": {"type": "string"}},
                "required": ["text"]},
     "output_schema": {"type": "object",
                       "properties": {"count": {"type": "integer"}}}},
    {"type": "register_tool", "name": "todo_list",
     "description": "Show the user's to-do list (numbered, [x] marks done items)",
     "schema": {"type": "object", "properties": {}},
     "output_schema": {"type": "object",
                       "properties": {"count": {"type": "integer"},
                                      "items": {"type": "array",
                                                "items": {"type": "object",
                                                          "properties": {"text": {"type": "string"},
                                                                         "done": {"type": "boolean"}}}}}}},
]

# What the host told us in hello_ack, and the open panel (None when closed).
host_capabilities = set()
panel = None  # {"selected": int, "width": int or None}


def log(message):
    print("todo: " + message, file=sys.stderr, flush=True)


def send(frame):
    # Frames are UTF-8 whatever the locale says.
    line = json.dumps(frame, ensure_ascii=False, separators=(",", ":")) + "\n"
    sys.stdout.buffer.write(line.encode("utf-8"))
    sys.stdout.buffer.flush()


def respond(command_id, action="noop", **fields):
    frame = {"type": "command_response", "id": command_id, "action": action}
    frame.update(fields)
    send(frame)


def notify(level, message):
    send({"type": "notify", "level": level, "message": message})


def one_line(text):
    """New item text: one line, no control characters (ESC included), trimmed."""
    text = "".join(" " if unicodedata.category(c) == "Cc" else c for c in text)
    return " ".join(text.split())


# ---- storage ---------------------------------------------------------------

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



def columns(c):
    if unicodedata.combining(c):
        return 0
    return 2 if unicodedata.east_asian_width(c) in ("W", "F") else 1


def styled(segments, width):
    """Joins (text, sgr) segments into one line, cut to `width` visible columns
    (None: no cut) with an ellipsis. Escapes never count towards the width."""
    if width is not None:
        total = sum(columns(c) for text, _ in segments for c in text)
        if total > width:
            budget = max(width - 1, 0)  # room for "…"
            cut = []
            for text, sgr in segments:
                kept = ""
                for c in text:
                    w = columns(c)
                    if w > budget:
                        budget = -1
                        break
                    budget -= w
                    kept += c
                if kept:
                    cut.append((kept, sgr))
                if budget < 0:
                    break
            tail = cut[-1][1] if cut else segments[-1][1]
            segments = cut + ([("…", tail)] if width >= 1 else [])
    merged = []  # neighbours with the same style share one escape
    for text, sgr in segments:
        if merged and merged[-1][1] == sgr:
            merged[-1] = (merged[-1][0] + text, sgr)
        else:
            merged.append((text, sgr))
    return "".join("\x1b[%sm%s\x1b[0m" % (sgr, text) if sgr else text
                   for text, sgr in merged)


def panel_lines(items):
    selected = panel["selected"] if panel else 0
    width = panel["width"] if panel else None
    if not items:
        return [styled([("No items yet. Press a to add a sample, or type /todo add TEXT.", DIM)], width)]

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
        ], width))

    done = sum(1 for item in items if item["done"])
    summary = "%d item%s · %d done · %d open" % (
        len(items), "" if len(items) == 1 else "s", done, len(items) - done)
    lines.append("")
    lines.append(styled([(summary, DIM)], width))
    return lines


def clamp_selection(items):
    if panel is not None:
        panel["selected"] = max(0, min(panel["selected"], len(items) - 1))


def native():
    return "panel_widgets" in host_capabilities


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
    done = sum(1 for item in items if item["done"])
    summary = "%d item%s · %d done · %d open" % (
        len(items), "" if len(items) == 1 else "s", done, len(items) - done)
    return [
        entry,
        {"id": "items", "type": "list", "label": "To-do items", "max_height": 480,
         "placeholder": "No items yet. Type one above, or ask the model to add some.",
         "rows": rows},
        {"id": "footer", "type": "box", "orientation": "horizontal", "spacing": 12, "children": [
            {"id": "summary", "type": "text", "style": "dim", "text": summary},
            {"id": "clear-done", "type": "button", "label": "Remove done items", "style": "flat",
             "icon": "edit-clear-all-symbolic", "sensitive": done > 0},
        ]},
    ]


def panel_content(items, clear_entry=False):
    clamp_selection(items)
    if native():
        return {"title": PANEL_TITLE, "widgets": panel_widgets(items, clear_entry),
                "footer": WIDGETS_FOOTER}
    return {"title": PANEL_TITLE, "lines": panel_lines(items), "footer": PANEL_FOOTER}


def open_panel_frame(items):
    frame = {"id": PANEL_ID}
    frame.update(panel_content(items))
    return frame


def refresh_panel(items=None, clear_entry=False):
    """Sends panel_render when the panel is open."""
    if panel is None:
        return
    if items is None:
        items = load_items()
    frame = {"type": "panel_render", "panel_id": PANEL_ID}
    frame.update(panel_content(items, clear_entry))
    send(frame)


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
    if done:
        notify("success", "Done: " + item["text"])
    else:
        notify("info", "Reopened: " + item["text"])


def panel_event(frame):
    """What the user did with a native widget; every change is saved."""
    widget, event, value = frame.get("widget_id"), frame.get("event"), frame.get("value")
    items = load_items()
    clear_entry = False

    if widget == "new" and event == "submit":
        text = one_line(value) if isinstance(value, str) else ""
        if not text:
            return
        items.append({"text": text, "done": False})
        notify("success", "Added: " + text)
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

    try:
        save_items(items)
    except OSError as e:
        log("cannot save %s: %s" % (STORE, e))
        notify("error", "todo: cannot save the list: %s" % (e,))
        items = load_items()
    refresh_panel(items, clear_entry)


def next_sample(items):
    present = {item["text"] for item in items}
    for text in SAMPLES:
        if text not in present:
            return text
    number = len(items) + 1
    while "sample item %d" % number in present:
        number += 1
    return "sample item %d" % number


def panel_key(frame):
    global panel
    key = frame.get("key")
    text = frame.get("text") if isinstance(frame.get("text"), str) else ""
    text = text.lower()  # a and A, d and D
    if not isinstance(key, str):
        return
    if key == "esc":
        panel = None
        send({"type": "panel_close", "panel_id": PANEL_ID})
        return

    items = load_items()
    clamp_selection(items)
    selected = panel["selected"]
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
        item = items[selected]
        item["done"] = not item["done"]
        changed = True
        if item["done"]:
            notify("success", "Done: " + item["text"])
        else:
            notify("info", "Reopened: " + item["text"])
    elif key == "rune" and text == "a":
        items.append({"text": next_sample(items), "done": False})
        panel["selected"] = len(items) - 1
        changed = True
    elif (key == "delete" or (key == "rune" and text == "d")) and items:
        del items[selected]
        changed = True
    else:
        return  # a key this panel does not use: nothing to redraw

    if changed:
        try:
            save_items(items)
        except OSError as e:
            log("cannot save %s: %s" % (STORE, e))
            notify("error", "todo: cannot save the list: %s" % (e,))
            items = load_items()
    refresh_panel(items)


def panel_frame(kind, frame):
    global panel
    if frame.get("panel_id") != PANEL_ID or panel is None:
        return  # not ours, or already closed
    if kind == "panel_key":
        panel_key(frame)
    elif kind == "panel_event":
        panel_event(frame)
    elif kind == "panel_resize":
        width = frame.get("width")
        if isinstance(width, int) and not isinstance(width, bool) and width > 0:
            if width != panel["width"]:
                panel["width"] = width
                refresh_panel()
    elif kind == "panel_close":
        panel = None  # the user closed it in the window


# ---- the command ------------------------------------------------------------

def run_todo(command_id, args):
    global panel
    verb, _, rest = args.strip().partition(" ")
    verb = verb.lower()
    rest = rest.strip()

    if verb in ("", "panel") and "panels" in host_capabilities:
        if panel is None:
            panel = {"selected": 0, "width": None}
        respond(command_id, "open_panel", open_panel=open_panel_frame(load_items()))

    elif verb in ("", "panel", "list"):
        respond(command_id, "display", display=render(load_items()))

    elif verb == "add":
        rest = one_line(rest)
        if not rest:
            respond(command_id, error="nothing to add; " + USAGE)
            return
        items = load_items()
        items.append({"text": rest, "done": False})
        save_items(items)
        notify("success", "Added: " + rest)
        respond(command_id, "display", display=render(items))
        refresh_panel(items)

    elif verb == "done":
        items = load_items()
        try:
            number = int(rest)
        except ValueError:
            number = 0
        if not 1 <= number <= len(items):
            respond(command_id, error="no item %r (the list has %d); %s" % (rest, len(items), USAGE))
            return
        item = items[number - 1]
        item["done"] = True
        save_items(items)
        notify("success", "Done: " + item["text"])
        respond(command_id, "display", display=render(items))
        refresh_panel(items)

    elif verb == "clear":
        save_items([])
        send({"type": "clear_notes"})
        respond(command_id, "display", display=render([]))
        refresh_panel([])

    else:
        respond(command_id, error="unknown subcommand %r; %s" % (verb, USAGE))


# ---- the tools ----------------------------------------------------------------

def tool_result(call_id, text, structured=None, is_error=False):
    frame = {"type": "tool_result", "id": call_id,
             "content": [{"type": "text", "text": text}], "is_error": is_error}
    if structured is not None:
        frame["structured_content"] = structured
    send(frame)


def run_tool(call_id, name, args):
    if name == "todo_add":
        text = args.get("text")
        text = one_line(text) if isinstance(text, str) else ""
        items = load_items()
        if not text:
            tool_result(call_id, 'todo_add needs a non-empty "text" string',
                        {"count": len(items)}, is_error=True)
            return
        items.append({"text": text, "done": False})
        save_items(items)
        count = len(items)
        tool_result(call_id, "Added: %s (%d item%s)" % (text, count, "" if count == 1 else "s"),
                    {"count": count})
        refresh_panel(items)
        notify("success", "Added: " + text)

    elif name == "todo_list":
        items = load_items()
        tool_result(call_id, render(items), {"count": len(items), "items": items})

    else:
        tool_result(call_id, "todo: unknown tool %r" % (name,), is_error=True)


def handle(frame):
    """Handles one frame; returns False when the extension should exit."""
    global host_capabilities
    kind = frame.get("type")

    if kind == "hello_ack":
        caps = frame.get("capabilities")
        if isinstance(caps, list):
            host_capabilities = {c for c in caps if isinstance(c, str)}

    elif kind == "command_invoked":
        command_id = frame.get("id")
        name = frame.get("name")
        args = frame.get("args")
        if not isinstance(command_id, str):
            return True  # nothing to answer to
        if not isinstance(args, str):
            args = ""
        if not isinstance(name, str) or name.lower() != COMMAND.lower():
            respond(command_id, error="todo: unknown command %r" % (name,))
            return True
        try:
            run_todo(command_id, args)
        except OSError as e:
            log("cannot save %s: %s" % (STORE, e))
            respond(command_id, error="todo: cannot save the list: %s" % (e,))

    elif kind == "tool_call":
        call_id = frame.get("id")
        if not isinstance(call_id, str):
            return True
        args = frame.get("args")
        if isinstance(args, str):  # tolerate arguments sent as a JSON string
            try:
                args = json.loads(args)
            except ValueError:
                args = {}
        if not isinstance(args, dict):
            args = {}
        try:
            run_tool(call_id, frame.get("name"), args)
        except OSError as e:
            log("cannot save %s: %s" % (STORE, e))
            tool_result(call_id, "todo: cannot save the list: %s" % (e,), is_error=True)

    elif kind == "tool_cancel":
        pass  # our tools answer at once; a late cancel has nothing to stop

    elif kind in ("panel_key", "panel_resize", "panel_close", "panel_event"):
        panel_frame(kind, frame)

    elif kind == "shutdown":
        send({"type": "shutdown_ack"})
        return False

    # events and frame types this extension does not know: ignore.
    return True


def main():
    send({"type": "hello", "name": NAME, "version": VERSION,
          "capabilities": ["commands", "tools", "panels", "tool_cancel"]})
    send({"type": "register_command", "name": COMMAND,
          "description": "To-do list: open the panel, or add TEXT, list, done N, clear"})
    for tool in TOOLS:
        send(tool)
    send({"type": "ready"})

    while True:
        raw = sys.stdin.buffer.readline()
        if not raw:
            return 0  # the host closed our stdin: it is gone, so are we
        try:
            frame = json.loads(raw.decode("utf-8"))
        except ValueError:  # includes UnicodeDecodeError
            log("skipping a line that is not JSON")
            continue
        if not isinstance(frame, dict):
            continue
        try:
            if not handle(frame):
                return 0
        except (BrokenPipeError, KeyboardInterrupt):
            raise
        except Exception:
            # A bug or a frame shaped like nothing we expect: log it, keep going.
            log("error handling a %r frame:\n%s" % (frame.get("type"), traceback.format_exc()))


if __name__ == "__main__":
    try:
        sys.exit(main())
    except (BrokenPipeError, KeyboardInterrupt):
        sys.exit(0)
