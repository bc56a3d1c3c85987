#!/usr/bin/env python3
"""A small client for `zot rpc`: copy it into your program and change it.

Usage:
    python3 client.py [--zot PATH] [ZOT FLAGS…] PROMPT

It starts `zot rpc` (with the flags you give, such as --provider or
--model), sends one prompt, prints the model's text as it streams to
stdout and tool calls, progress and usage to stderr, and returns when the
prompt's `done` event arrives. When ZOTCORE_RPC_TOKEN is set it says
hello with the token first, as zot then requires. Standard library only.
The schema is in docs/rpc.md.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from typing import Iterator


class ZotRpc:
    """One `zot rpc` process: send commands, read events and responses."""

    def __init__(self, zot: str = "zot", flags: list[str] | None = None) -> None:
        self.proc = subprocess.Popen(
            [zot, *(flags or []), "rpc"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            encoding="utf-8",
            bufsize=1,
        )
        self._next_id = 0
        self._lock = threading.Lock()

    def send(self, type: str, **fields) -> str:
        """Send one command and return its id; the response echoes it."""
        with self._lock:
            self._next_id += 1
            command_id = str(self._next_id)
            line = json.dumps({"type": type, "id": command_id, **fields})
            assert self.proc.stdin is not None
            self.proc.stdin.write(line + "\n")
            self.proc.stdin.flush()
        return command_id

    def lines(self) -> Iterator[dict]:
        """Every object zot writes, in order, until it exits."""
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            if line.strip():
                yield json.loads(line)

    def request(self, type: str, **fields) -> dict:
        """Send a command and wait for its response (events in between
        are dropped: use lines() while a prompt runs)."""
        command_id = self.send(type, **fields)
        for message in self.lines():
            if message.get("type") == "response" and message.get("id") == command_id:
                if not message.get("success"):
                    raise RuntimeError(f"{type}: {message.get('error')}")
                return message.get("data") or {}
        raise RuntimeError("zot rpc exited")

    def close(self) -> int:
        """Close stdin: zot finishes what it accepted and exits."""
        if self.proc.stdin is not None:
            self.proc.stdin.close()
        return self.proc.wait(timeout=60)


def run_prompt(client: ZotRpc, prompt: str) -> bool:
    """Run one prompt to its `done`; return whether it went well."""
    prompt_id = client.send("prompt", message=prompt)
    ok = True
    for event in client.lines():
        kind = event.get("type")
        if kind == "response" and event.get("id") == prompt_id:
            if not event.get("success"):
                print(f"[refused] {event.get('error')}", file=sys.stderr)
                return False
        elif kind == "text_delta":
            sys.stdout.write(event["delta"])
            sys.stdout.flush()
        elif kind == "tool_call":
            print(f"\n[tool] {event['name']} {json.dumps(event['args'])}", file=sys.stderr)
        elif kind == "tool_progress":
            print(f"[progress] {event['text']}", file=sys.stderr)
        elif kind == "retry":
            print(f"[retry] {event['message']}", file=sys.stderr)
        elif kind == "tool_result" and event.get("is_error"):
            print("[tool failed]", file=sys.stderr)
        elif kind == "usage":
            total = event["cumulative"]
            print(f"\n[usage] input {total['input']}, output {total['output']}, "
                  f"cache read {total['cache_read']}, ${total['cost_usd']:.4f}", file=sys.stderr)
        elif kind == "error":
            # Not fatal: the turn still ends with turn_end and done.
            print(f"\n[error] {event['message']}", file=sys.stderr)
            ok = False
        elif kind == "turn_end" and event.get("stop") in ("error", "aborted"):
            ok = False
        elif kind == "done":
            print()
            return ok
    return False


def main(argv: list[str]) -> int:
    zot = "zot"
    if len(argv) >= 2 and argv[0] == "--zot":
        zot, argv = argv[1], argv[2:]
    if not argv:
        print("usage: client.py [--zot PATH] [ZOT FLAGS…] PROMPT", file=sys.stderr)
        return 2
    flags, prompt = argv[:-1], argv[-1]

    client = ZotRpc(zot, flags)
    try:
        token = os.environ.get("ZOTCORE_RPC_TOKEN")
        hello = client.request("hello", **({"token": token} if token else {}))
        print(f"[zot {hello['version']}: {hello['provider']} {hello['model']}]", file=sys.stderr)
        ok = run_prompt(client, prompt)
    finally:
        status = client.close()
    return 0 if ok and status == 0 else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
