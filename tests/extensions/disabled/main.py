#!/usr/bin/env python3
"""Test fixture: "enabled": false in its manifest, so the host never runs it.

If it does run, it says so loudly: a note "disabled extension was started".
"""
import json
import sys


def send(frame):
    sys.stdout.write(json.dumps(frame, separators=(",", ":")) + "\n")
    sys.stdout.flush()


def main():
    send({"type": "hello", "name": "disabled", "version": "1.0.0",
          "capabilities": ["commands"]})
    send({"type": "register_command", "name": "disabled",
          "description": "Should never be registered"})
    send({"type": "ready"})
    send({"type": "notify", "level": "error",
          "message": "disabled extension was started"})

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
        if frame.get("type") == "command_invoked":
            send({"type": "command_response", "id": frame.get("id"),
                  "action": "display", "display": "disabled ran"})
        elif frame.get("type") == "shutdown":
            send({"type": "shutdown_ack"})
            return 0


if __name__ == "__main__":
    sys.exit(main())
