#!/usr/bin/env python3
"""Test fixture: a well-behaved zot extension.

Commands: "Echo" displays "echo: <args>"; "pynote" sends an info note with
the args and answers noop.
"""
import json
import sys


def send(frame):
    sys.stdout.write(json.dumps(frame, separators=(",", ":")) + "\n")
    sys.stdout.flush()


def main():
    send({"type": "hello", "name": "py-echo", "version": "1.0.0",
          "capabilities": ["commands"]})
    send({"type": "register_command", "name": "Echo",
          "description": "Echo the arguments back"})
    send({"type": "register_command", "name": "pynote",
          "description": "Push a status note"})
    send({"type": "ready"})

    while True:
        raw = sys.stdin.buffer.readline()
        if not raw:
            return 0
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
            args = frame.get("args") or ""
            if name == "echo":
                send({"type": "command_response", "id": cid,
                      "action": "display", "display": "echo: " + args})
            elif name == "pynote":
                send({"type": "notify", "level": "info", "message": args})
                send({"type": "command_response", "id": cid, "action": "noop"})
            else:
                send({"type": "command_response", "id": cid, "action": "noop",
                      "error": "py-echo: unknown command " + name})
        elif kind == "shutdown":
            send({"type": "shutdown_ack"})
            return 0


if __name__ == "__main__":
    sys.exit(main())
