#!/usr/bin/env python3
"""bench_echo as a hand-written loop: the baseline the SDK is measured
against. It answers the same frames and nothing more."""

import json
import os
import sys


def main():
    out = sys.stdout.buffer

    def send(frame):
        out.write(json.dumps(frame, ensure_ascii=False, separators=(",", ":")).encode() + b"\n")
        out.flush()

    send({"type": "hello", "name": "bench-python-raw", "version": "1.0.0",
          "capabilities": ["tools", "tool_cancel"]})
    send({"type": "register_tool", "name": "bench_echo", "description": "Echo the text argument",
          "schema": {"type": "object"}})
    send({"type": "ready"})
    for line in sys.stdin.buffer:
        try:
            frame = json.loads(line)
        except ValueError:
            continue
        kind = frame.get("type")
        if kind == "tool_call":
            args = frame.get("args") or {}
            send({"type": "tool_result", "id": frame.get("id"),
                  "content": [{"type": "text", "text": args.get("text", "")}], "is_error": False})
        elif kind == "shutdown":
            send({"type": "shutdown_ack"})
            return 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
