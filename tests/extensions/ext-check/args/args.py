#!/usr/bin/env python3
"""Two tools that answer with the arguments they were called with, for
zot ext check's example arguments: `filled` has a schema whose required
properties the checker fills by type, `given` has an example in the
manifest."""

import json
import sys


def send(frame):
    sys.stdout.write(json.dumps(frame) + "\n")
    sys.stdout.flush()


FILLED = {
    "type": "object",
    "properties": {
        "s": {"type": "string"}, "n": {"type": "number"}, "i": {"type": "integer"},
        "b": {"type": "boolean"}, "o": {"type": "object"}, "a": {"type": "array"},
        "e": {"type": "string", "enum": ["first", "second"]},
        "optional": {"type": "string"},
    },
    "required": ["s", "n", "i", "b", "o", "a", "e"],
}

send({"type": "hello", "name": "args", "version": "1.0.0", "capabilities": ["tools"]})
for line in sys.stdin:
    frame = json.loads(line)
    if frame["type"] == "hello_ack":
        send({"type": "register_tool", "name": "filled", "schema": FILLED})
        send({"type": "register_tool", "name": "given",
              "schema": {"type": "object", "properties": {"city": {"type": "string"}}}})
        send({"type": "ready"})
    elif frame["type"] == "tool_call":
        send({"type": "tool_result", "id": frame["id"],
              "content": [{"type": "text", "text": json.dumps(frame["args"], sort_keys=True)}]})
    elif frame["type"] == "shutdown":
        send({"type": "shutdown_ack"})
        break
