#!/usr/bin/env python3
"""Test fixture: sends one line with invalid UTF-8 after hello.

The host must skip that line and keep going: the valid note after it, the
"utf" command and ready must all arrive.
"""
import json
import sys


def send(frame):
    sys.stdout.buffer.write(json.dumps(frame, separators=(",", ":")).encode("utf-8") + b"\n")
    sys.stdout.buffer.flush()


def main():
    send({"type": "hello", "name": "py-invalid-utf8", "version": "1.0.0",
          "capabilities": ["commands"]})
    sys.stdout.buffer.write(b'{"type":"notify","level":"info","message":"\xff\xfe"}\n')
    sys.stdout.buffer.flush()
    send({"type": "notify", "level": "info", "message": "after-invalid"})
    send({"type": "register_command", "name": "utf",
          "description": "Answers after the invalid line"})
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
            send({"type": "command_response", "id": frame.get("id"),
                  "action": "display", "display": "utf ok"})
        elif kind == "shutdown":
            send({"type": "shutdown_ack"})
            return 0


if __name__ == "__main__":
    sys.exit(main())
