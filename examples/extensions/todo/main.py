#!/usr/bin/env python3
"""todo: a zot extension that keeps a to-do list behind the /todo command.

    /todo add TEXT   add an item
    /todo list       show the list (also what a bare /todo does)
    /todo done N     mark item N as done
    /todo clear      empty the list and remove this extension's notes

The list lives in todo.json in the extension's own directory, which is also
the process's working directory and hello_ack's data_dir. It is written to a
temporary file first and renamed over the old one, so a crash never leaves
half a file behind.

Protocol: newline-delimited JSON on stdin/stdout (zot protocol version 1).
stdout carries frames only; diagnostics go to stderr (the extension's log).
Python 3 standard library only.
"""
import json
import os
import sys
import tempfile

NAME = "todo"
VERSION = "1.0.0"
COMMAND = "Todo"
USAGE = "usage: /todo add TEXT | /todo list | /todo done N | /todo clear"
STORE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "todo.json")


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
    if not items:
        return "Todo list is empty. Add an item with /todo add TEXT"
    lines = ["Todo list:"]
    for number, item in enumerate(items, 1):
        lines.append("%d. [%s] %s" % (number, "x" if item["done"] else " ", item["text"]))
    return "\n".join(lines)


# ---- the command ------------------------------------------------------------

def run_todo(command_id, args):
    verb, _, rest = args.strip().partition(" ")
    verb = verb.lower()
    rest = rest.strip()

    if verb in ("", "list"):
        respond(command_id, "display", display=render(load_items()))

    elif verb == "add":
        if not rest:
            respond(command_id, error="nothing to add; " + USAGE)
            return
        items = load_items()
        items.append({"text": rest, "done": False})
        save_items(items)
        notify("success", "Added: " + rest)
        respond(command_id, "display", display=render(items))

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

    elif verb == "clear":
        save_items([])
        send({"type": "clear_notes"})
        respond(command_id, "display", display=render([]))

    else:
        respond(command_id, error="unknown subcommand %r; %s" % (verb, USAGE))


def handle(frame):
    """Handles one frame; returns False when the extension should exit."""
    kind = frame.get("type")

    if kind == "command_invoked":
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

    elif kind == "shutdown":
        send({"type": "shutdown_ack"})
        return False

    # hello_ack, events and frame types this extension does not know: ignore.
    return True


def main():
    send({"type": "hello", "name": NAME, "version": VERSION, "capabilities": ["commands"]})
    send({"type": "register_command", "name": COMMAND,
          "description": "To-do list: add TEXT, list, done N, clear"})
    send({"type": "ready"})

    while True:
        raw = sys.stdin.buffer.readline()
        if not raw:
            return 0  # the host closed our stdin: it is gone, so are we
        try:
            frame = json.loads(raw.decode("utf-8"))
        except ValueError:
            log("skipping a line that is not JSON")
            continue
        if not isinstance(frame, dict):
            continue
        if not handle(frame):
            return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except (BrokenPipeError, KeyboardInterrupt):
        sys.exit(0)
