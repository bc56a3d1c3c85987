#!/usr/bin/env python3
"""Test fixture: an extension with a line panel (PROTOCOL.md section 10).

Commands: "Board" opens the panel "board"; "Closeboard" closes it from the
extension's side; "Crash" exits at once without answering.

Every panel_key is answered with a panel_render whose lines show the key
("last key: up", "last key: rune x"); every panel_resize with one that
shows the size ("size: 80x24"). Every line received is appended to the
file named by $ZOT_PY_PANEL_RECORD (or the first argument), when set.
"""
import json
import os
import sys

ESC = "\u001b"
RECORD = os.environ.get("ZOT_PY_PANEL_RECORD") or (sys.argv[1] if len(sys.argv) > 1 else None)

state = {"last": "none", "size": "unknown"}


def send(frame):
    sys.stdout.write(json.dumps(frame, separators=(",", ":")) + "\n")
    sys.stdout.flush()


def record(raw):
    if RECORD:
        with open(RECORD, "ab") as out:
            out.write(raw if raw.endswith(b"\n") else raw + b"\n")


def lines():
    return [
        ESC + "[1mbold" + ESC + "[0m line",
        ESC + "[31mred" + ESC + "[0m",
        "last key: " + state["last"],
        "size: " + state["size"],
    ]


def render():
    send({"type": "panel_render", "panel_id": "board", "title": "Board",
          "lines": lines(), "footer": "q to quit"})


def main():
    send({"type": "hello", "name": "py-panel", "version": "1.0.0",
          "capabilities": ["commands", "panels"]})
    send({"type": "register_command", "name": "Board",
          "description": "Open the board panel"})
    send({"type": "register_command", "name": "Closeboard",
          "description": "Close the board panel"})
    send({"type": "register_command", "name": "Crash",
          "description": "Exit at once"})
    send({"type": "ready"})

    while True:
        raw = sys.stdin.buffer.readline()
        if not raw:
            return 0
        record(raw)
        try:
            frame = json.loads(raw.decode("utf-8", "replace"))
        except ValueError:
            continue
        if not isinstance(frame, dict):
            continue

        kind = frame.get("type")
        if kind == "command_invoked":
            cid = frame.get("id")
            name = str(frame.get("name", "")).lower()
            if name == "board":
                send({"type": "command_response", "id": cid, "action": "open_panel",
                      "open_panel": {"id": "board", "title": "Board",
                                     "lines": [ESC + "[1mbold" + ESC + "[0m line",
                                               ESC + "[31mred" + ESC + "[0m"],
                                     "footer": "q to quit"}})
            elif name == "closeboard":
                send({"type": "panel_close", "panel_id": "board"})
                send({"type": "command_response", "id": cid, "action": "noop"})
            elif name == "crash":
                sys.stdout.flush()
                os._exit(3)
            else:
                send({"type": "command_response", "id": cid, "action": "noop",
                      "error": "py-panel: unknown command " + name})
        elif kind == "panel_key":
            key = str(frame.get("key", ""))
            if key == "rune":
                key += " " + str(frame.get("text", ""))
            state["last"] = key
            render()
        elif kind == "panel_resize":
            state["size"] = "%sx%s" % (frame.get("width"), frame.get("height"))
            render()
        elif kind == "shutdown":
            send({"type": "shutdown_ack"})
            return 0


if __name__ == "__main__":
    sys.exit(main())
