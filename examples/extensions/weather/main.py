#!/usr/bin/env python3
"""weather: a zot extension whose tool is meant for codemode scripts.

    weather {"city": "Oslo"}     (callable from scripts; discoverable)

The tool declares an `output_schema`, answers with a text block for the
model and `structured_content` for scripts, lives in the `weather`
namespace and has `exposure: "codemode"`, so the model reaches it through a
script:

    const result = await tools.weather({})
    return result.temperature

The data is synthetic: the same city always has the same weather, from a
checksum of its name. An empty city is an error result that still carries
structured content, which a script can inspect as data.

Written on zotext.py (sdk/python), copied beside this file.
"""
import zlib

import zotext

DEFAULT_CITY = "Berlin"
CONDITIONS = ["sunny", "cloudy", "rainy", "windy", "snowy"]

ext = zotext.Extension("weather", "1.0.0", call_tool=False)


def observe(city):
    # The seed's example reading, 20 C, for the default city.
    if city == DEFAULT_CITY:
        return {"city": city, "temperature": 20, "conditions": "sunny"}
    checksum = zlib.crc32(city.encode("utf-8"))
    return {"city": city, "temperature": checksum % 35 - 5,
            "conditions": CONDITIONS[checksum % len(CONDITIONS)]}


@ext.tool("weather", "Get synthetic weather data",
          {"type": "object",
           "properties": {"city": {"type": "string",
                                   "description": "The city (default %s)" % DEFAULT_CITY}}},
          output_schema={"type": "object",
                         "properties": {"city": {"type": "string"},
                                        "temperature": {"type": "number"},
                                        "conditions": {"type": "string"}}},
          namespace="weather",
          namespace_description="Weather observations",
          namespace_instructions="Temperatures are in Celsius",
          exposure="codemode")
def weather(args):
    city = args.get("city", DEFAULT_CITY) if isinstance(args, dict) else DEFAULT_CITY
    if not isinstance(city, str) or city.strip() == "":
        return zotext.structured_result({"error": "unknown city", "city": city}, "No such city",
                                        is_error=True)
    reading = observe(city.strip())
    return zotext.structured_result(
        reading, "%s: %s C, %s" % (reading["city"], reading["temperature"], reading["conditions"]))


if __name__ == "__main__":
    ext.run()
