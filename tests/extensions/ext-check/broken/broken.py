#!/usr/bin/env python3
"""An extension that breaks one protocol rule, for zot ext check's tests.

Each folder beside this file is one fixture: its extension.json runs this
script with the rule's name. Apart from that one rule the extension is
well-behaved, so that the checker must find exactly that violation: it
registers a tool `probe`, a command `probe` and a `tool_call` interceptor,
answers each, and acknowledges shutdown.
"""

import json
import signal
import sys

RULE = sys.argv[1]


def send(frame):
    sys.stdout.write(json.dumps(frame) + "\n")
    sys.stdout.flush()


def result(call_id, text="ok"):
    send({"type": "tool_result", "id": call_id,
          "content": [{"type": "text", "text": text}], "is_error": False})


def main():
    if RULE == "no-hello":
        # Silent: the checker's hello deadline must end the run.
        for _ in sys.stdin:
            pass
        return

    capabilities = ["commands", "tools", "tool_cancel", "call_tool"]
    if RULE == "no-call-tool-capability":
        capabilities.remove("call_tool")
    send({"type": "hello", "name": "broken-" + RULE, "version": "1.0.0",
          "capabilities": capabilities})
    nested = {}
    for line in sys.stdin:
        frame = json.loads(line)
        kind = frame.get("type")
        if kind == "hello_ack":
            if RULE == "frame-too-large":
                send({"type": "notify", "level": "info", "message": "x" * (5 * 1024 * 1024)})
            send({"type": "register_tool", "name": "probe", "schema": {"type": "object"}})
            if RULE == "invalid-registration":
                send({"type": "register_tool", "name": "bad_schema", "schema": "object"})
                send({"type": "register_tool", "name": "bad_hint", "schema": {},
                      "annotations": {"destructive": "yes"}})
                send({"type": "unregister_tool", "name": "never_registered"})
            send({"type": "register_command", "name": "probe", "description": "probe"})
            send({"type": "subscribe", "intercept": ["tool_call"]})
            send({"type": "ready"})
        elif kind == "tool_call":
            call_id = frame["id"]
            if RULE == "reply-after-cancel":
                continue  # answers only once cancelled, below
            if RULE == "early-exit":
                return
            if RULE in ("nested-without-parent", "nested-dead-parent", "key-without-durable",
                        "no-call-tool-capability", "bad-key"):
                request = {"type": "call_tool", "id": "n-" + call_id, "name": "read",
                           "args": {"path": "a.txt"}, "parent_id": call_id}
                if RULE == "nested-without-parent":
                    del request["parent_id"]
                elif RULE == "nested-dead-parent":
                    request["parent_id"] = "no-such-call"
                elif RULE == "key-without-durable":
                    request["key"] = "k1"
                elif RULE == "bad-key":
                    request["key"] = "a/b"  # run with --durable
                nested[request["id"]] = call_id
                send(request)
                continue
            if RULE == "not-a-frame":
                print("handling probe")
            if RULE == "unknown-id":
                result("no-such-id")
            result(call_id)
            if RULE == "second-reply":
                result(call_id, "again")
        elif kind == "tool_cancel":
            if RULE == "reply-after-cancel":
                result(frame["id"], "too late")
        elif kind == "tool_result":
            call_id = nested.pop(frame.get("id"), None)
            if call_id is not None:
                result(call_id)
        elif kind == "command_invoked":
            action = {"unknown-action": "explode",
                      "bad-command-response": "tool_prompt"}.get(RULE, "noop")
            send({"type": "command_response", "id": frame["id"], "action": action})
        elif kind == "event_intercept":
            if RULE == "bad-intercept-reply":
                send({"type": "event_intercept_response", "id": frame["id"],
                      "modified_args": "rm -rf /"})
            elif RULE != "slow-interceptor":
                send({"type": "event_intercept_response", "id": frame["id"]})
        elif kind == "shutdown":
            if RULE != "no-shutdown-ack":
                send({"type": "shutdown_ack"})
            if RULE == "no-exit":
                # Stays, as a stuck process would, until the checker's SIGTERM.
                signal.pause()
            return


if __name__ == "__main__":
    main()
