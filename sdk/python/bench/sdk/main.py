#!/usr/bin/env python3
"""bench_echo with zotext: the benchmark's SDK side."""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))

import zotext  # noqa: E402

ext = zotext.Extension("bench-python-sdk", "1.0.0")


@ext.tool("bench_echo", "Echo the text argument", {"type": "object"})
def bench_echo(args):
    return zotext.text_result(args.get("text", ""))


if __name__ == "__main__":
    sys.exit(ext.run())
