#!/usr/bin/env python3
"""Test fixture: conflicting command registrations.

Registers "Dup" then "dup" (same name up to case: the host keeps the first)
and "Echo" (conflicts with py-echo's "Echo" across extensions).
"""
import json
import sys


def send(frame):
    sys.stdout.write(json.dumps(frame, separators=(",", ":")) + "\n")
    sys.stdout.flush()


def main():
    send({"type": "hello", "name": "py-dupcase", "version": "1.0.0",
          "capabilities": ["commands"]})
    for name in ("Dup", "dup", "Echo"):
        send({"type": "register_command", "name": name,
              "description": "py-dupcase " + name})
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
            name = str(frame.get("name", ""))
            if name == "Echo":
                text = "dupcase-echo"
            else:
                # "Dup" is the expected spelling; anything else shows up as-is.
                text = "dupcase: " + name
            send({"type": "command_response", "id": cid,
                  "action": "display", "display": text})
        elif kind == "shutdown":
            send({"type": "shutdown_ack"})
            return 0


if __name__ == "__main__":
    sys.exit(main())
