#!/usr/bin/env python3
"""weather: a zot extension whose tool is meant for codemode scripts.

    weather {"city": "Oslo"}     (callable from scripts; discoverable)

The tool is the one of the protocol page's "Structured results and
codemode": it declares an `output_schema`, answers with a text block for
the model and `structured_content` for scripts, lives in the `weather`
namespace (with a description and instructions that discovery ranks and
`describeNamespace` returns) and has `exposure: "codemode"`, so the model
gets no direct definition of it and reaches it through a script:

    const result = await tools.weather({})
    return result.temperature

The data is synthetic: the same city always has the same weather, from a
checksum of its name. An unknown kind of city (an empty name) is an error
result that still carries structured content, which a script can inspect
as data instead of catching a rejection.

Protocol: newline-delimited JSON on stdin/stdout (zot protocol version 1).
Python 3 standard library only.
"""
import json
import sys
import zlib

NAME = "weather"
VERSION = "1.0.0"
DEFAULT_CITY = "Berlin"

REGISTRATIONS = [
    {"type": "register_tool", "name": "weather",
     "description": "Get synthetic weather data",
     "schema": {"type": "object",
                "properties": {"city": {"type": "string",
                                        "description": "The city (default %s)" % DEFAULT_CITY}}},
     "output_schema": {"type": "object",
                       "properties": {"city": {"type": "string"},
                                      "temperature": {"type": "number"},
                                      "conditions": {"type": "string"}}},
     "namespace": "weather",
     "namespace_description": "Weather observations",
     "namespace_instructions": "Temperatures are in Celsius",
     "exposure": "codemode"},
]

CONDITIONS = ["sunny", "cloudy", "rainy", "windy", "snowy"]


def send(frame):
    line = json.dumps(frame, ensure_ascii=False, separators=(",", ":")) + "\n"
    sys.stdout.buffer.write(line.encode("utf-8"))
    sys.stdout.buffer.flush()


def observe(city):
    # The seed's example reading, 20 C, for the default city.
    if city == DEFAULT_CITY:
        return {"city": city, "temperature": 20, "conditions": "sunny"}
    checksum = zlib.crc32(city.encode("utf-8"))
    return {"city": city, "temperature": checksum % 35 - 5,
            "conditions": CONDITIONS[checksum % len(CONDITIONS)]}


def tool_call(frame):
    args = frame.get("args") if isinstance(frame.get("args"), dict) else {}
    city = args.get("city", DEFAULT_CITY)
    if not isinstance(city, str) or city.strip() == "":
        send({"type": "tool_result", "id": frame.get("id"),
              "content": [{"type": "text", "text": "No such city"}],
              "structured_content": {"error": "unknown city", "city": city},
              "is_error": True})
        return
    reading = observe(city.strip())
    send({"type": "tool_result", "id": frame.get("id"),
          "content": [{"type": "text",
                       "text": "%s: %s C, %s" % (reading["city"], reading["temperature"],
                                                  reading["conditions"])}],
          "structured_content": reading,
          "is_error": False})


def main():
    send({"type": "hello", "name": NAME, "version": VERSION, "capabilities": ["tools"]})
    for frame in REGISTRATIONS:
        send(frame)
    send({"type": "ready"})

    for line in sys.stdin.buffer:
        try:
            frame = json.loads(line)
        except ValueError:
            continue
        if not isinstance(frame, dict):
            continue
        if frame.get("type") == "tool_call":
            tool_call(frame)
        elif frame.get("type") == "shutdown":
            send({"type": "shutdown_ack"})
            return


if __name__ == "__main__":
    main()
