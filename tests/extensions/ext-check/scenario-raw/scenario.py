#!/usr/bin/env python3
"""The shared scenario (sdk/SCENARIO.md) written by hand, with raw frames.

It is the reference `zot ext check --scenario` is tested against before
any SDK exists: no SDK, no threads. Nothing here blocks, so one loop
serves everything: a waiting tool, a question panel and a nested call each
leave a record that a later frame (tool_cancel, panel_key, the host's
tool_result) completes.
"""

import json
import sys

TOOLS = [
    {"name": "sc_echo", "description": "Echo text",
     "schema": {"type": "object", "properties": {"text": {"type": "string"}},
                "required": ["text"]}},
    {"name": "sc_add", "description": "Add two numbers",
     "schema": {"type": "object",
                "properties": {"a": {"type": "number"}, "b": {"type": "number"}},
                "required": ["a", "b"]},
     "output_schema": {"type": "object", "properties": {"sum": {"type": "number"}}},
     "namespace": "scenario", "namespace_description": "Scenario arithmetic",
     "exposure": "codemode"},
    {"name": "sc_fail", "description": "Always fails", "schema": {"type": "object"}},
    {"name": "sc_progress", "description": "Reports progress", "schema": {"type": "object"},
     "annotations": {"read_only": True}},
    {"name": "sc_panic", "description": "Raises", "schema": {"type": "object"}},
    {"name": "sc_wait", "description": "Waits until cancelled", "schema": {"type": "object"}},
    {"name": "sc_nested", "description": "Reads through the host",
     "schema": {"type": "object", "properties": {"path": {"type": "string"}}}},
    {"name": "sc_ask", "description": "Asks a question", "interactive": True,
     "schema": {"type": "object", "properties": {"question": {"type": "string"}}}},
]

COMMANDS = ["sc-prompt", "sc-insert", "sc-display", "sc-noop", "sc-error",
            "sc-tool-prompt", "sc-panel", "sc-submit"]

PANEL_LINES = [["> one", "  two"], ["  one", "> two"]]

REPLY_AT_SHUTDOWN = "--reply-at-shutdown" in sys.argv[1:]


def send(frame):
    sys.stdout.write(json.dumps(frame, separators=(",", ":")) + "\n")
    sys.stdout.flush()


def text_result(call_id, text, is_error=False, **extra):
    frame = {"type": "tool_result", "id": call_id,
             "content": [{"type": "text", "text": text}], "is_error": is_error}
    frame.update(extra)
    send(frame)


def format_number(value):
    return str(int(value)) if float(value).is_integer() else repr(value)


class Scenario:
    def __init__(self):
        self.durable = False
        self.running = {}       # tool_call id -> name, while it may still answer
        self.cancelled = set()  # ids cancelled before or while running
        self.asks = {}          # panel id -> tool_call id
        self.nested = {}        # our call_tool id -> the tool_call id it serves
        self.next_request = 0
        self.panel_row = 0

    # tools

    def tool_call(self, frame):
        call_id, name = frame.get("id"), frame.get("name")
        args = frame.get("args") or {}
        if call_id in self.cancelled:
            return
        self.running[call_id] = name
        try:
            getattr(self, "tool_" + name)(call_id, args)
        except Exception as error:  # a handler's exception is an error result
            self.reply(call_id, "%s: %s" % (name, error), True)

    def reply(self, call_id, text, is_error=False, **extra):
        # Only a live invocation answers: never after its cancel.
        if self.running.pop(call_id, None) is None or call_id in self.cancelled:
            return
        text_result(call_id, text, is_error, **extra)

    def tool_sc_echo(self, call_id, args):
        send({"type": "tool_progress", "id": call_id, "text": "echoing"})
        self.reply(call_id, args.get("text", ""))

    def tool_sc_progress(self, call_id, args):
        send({"type": "tool_progress", "id": call_id, "text": "sc_progress half way"})
        self.reply(call_id, "sc_progress done")

    def tool_sc_add(self, call_id, args):
        total = args["a"] + args["b"]
        self.reply(call_id, format_number(total), structured_content={"sum": total})

    def tool_sc_fail(self, call_id, args):
        self.reply(call_id, "sc_fail always fails", True)

    def tool_sc_panic(self, call_id, args):
        raise RuntimeError("deliberate failure")

    def tool_sc_wait(self, call_id, args):
        send({"type": "notify", "level": "info", "message": "sc_wait started"})
        # It answers only through its cancel, and then not at all.

    def tool_sc_nested(self, call_id, args):
        self.next_request += 1
        request_id = "nested-%d" % self.next_request
        self.nested[request_id] = call_id
        call = {"type": "call_tool", "id": request_id, "name": "read",
                "args": {"path": args.get("path", "scenario.txt")}, "parent_id": call_id}
        if self.durable:
            call["key"] = "k1"
        send(call)

    def tool_sc_ask(self, call_id, args):
        self.asks["sc-ask"] = call_id
        send({"type": "open_panel", "panel": {
            "id": "sc-ask", "title": "Question", "lines": [args.get("question", "")],
            "footer": "enter answers, esc dismisses"}})

    def nested_result(self, frame):
        call_id = self.nested.pop(frame.get("id"), None)
        if call_id is None:
            return
        text = "\n".join(block.get("text", "") for block in frame.get("content", [])
                         if block.get("type") == "text")
        if frame.get("is_error"):
            self.reply(call_id, "nested failed: " + text, True)
        else:
            self.reply(call_id, "nested: " + text)

    def cancel(self, frame):
        call_id = frame.get("id")
        self.cancelled.add(call_id)
        self.running.pop(call_id, None)

    def end_ask(self, panel_id, answer):
        call_id = self.asks.pop(panel_id, None)
        if call_id is None:
            return
        send({"type": "panel_close", "panel_id": panel_id})
        if answer:
            self.reply(call_id, "yes")
        else:
            self.reply(call_id, "dismissed", True)

    # commands

    def command(self, frame):
        name, args = frame.get("name"), frame.get("args", "")
        reply = {"type": "command_response", "id": frame.get("id")}
        if name == "sc-prompt":
            reply.update(action="prompt", prompt="hello " + args)
        elif name == "sc-insert":
            reply.update(action="insert", insert=args)
        elif name == "sc-display":
            reply.update(action="display", display="shown: " + args)
        elif name == "sc-error":
            reply.update(action="noop", error="failed: " + args)
        elif name == "sc-tool-prompt":
            reply.update(action="tool_prompt", prompt="run echo", tool_name="sc_echo",
                         tool_args={"text": args})
        elif name == "sc-panel":
            self.panel_row = 0
            reply.update(action="open_panel", open_panel={
                "id": "sc-panel", "title": "Scenario", "lines": PANEL_LINES[0],
                "footer": "esc closes"})
        elif name == "sc-submit":
            reply.update(action="noop")
            send(reply)
            send({"type": "submit", "text": "submitted " + args})
            return
        else:
            reply.update(action="noop")
        send(reply)

    def panel_key(self, frame):
        panel_id, key = frame.get("panel_id"), frame.get("key")
        if panel_id in self.asks:
            if key == "enter":
                self.end_ask(panel_id, True)
            elif key == "esc":
                self.end_ask(panel_id, False)
        elif panel_id == "sc-panel":
            if key in ("down", "up"):
                self.panel_row = 1 if key == "down" else 0
                send({"type": "panel_render", "panel_id": "sc-panel", "title": "Scenario",
                      "lines": PANEL_LINES[self.panel_row], "footer": "esc closes"})
            elif key == "esc":
                send({"type": "panel_close", "panel_id": "sc-panel"})

    # events

    def event(self, frame):
        if frame.get("event") == "turn_end":
            send({"type": "notify", "level": "info",
                  "message": "turn ended: %s" % frame.get("stop", "")})

    def intercept(self, frame):
        reply = {"type": "event_intercept_response", "id": frame.get("id")}
        event = frame.get("event")
        if event == "tool_call":
            name, args = frame.get("tool_name"), frame.get("tool_args") or {}
            if name == "bash" and "rm -rf" in str(args.get("command", "")):
                reply.update(block=True, reason="scenario guard: refused")
            elif name == "sc_echo" and args.get("text") == "rewrite":
                reply.update(modified_args={"text": "rewritten"})
        elif event == "before_agent_start":
            reply["system_prompt"] = frame.get("system_prompt", "") + "\n(scenario)"
        send(reply)

    # the loop

    def run(self):
        send({"type": "hello", "name": "scenario-raw", "version": "1.0.0",
              "capabilities": ["commands", "tools", "panels", "tool_cancel", "call_tool"]})
        handlers = {
            "hello_ack": self.hello_ack,
            "tool_call": self.tool_call,
            "tool_cancel": self.cancel,
            "tool_result": self.nested_result,
            "command_invoked": self.command,
            "panel_key": self.panel_key,
            "panel_close": lambda frame: self.end_ask(frame.get("panel_id"), False),
            "event": self.event,
            "event_intercept": self.intercept,
        }
        for line in sys.stdin:
            try:
                frame = json.loads(line)
            except ValueError:
                print("skipped a line that is not JSON", file=sys.stderr)
                continue
            if not isinstance(frame, dict):
                continue
            if frame.get("type") == "shutdown":
                if REPLY_AT_SHUTDOWN:
                    # The rule tests/extensions/ext-check/broken/reply-after-shutdown
                    # breaks: a handler answering after shutdown.
                    for call_id in list(self.running):
                        self.reply(call_id, "cancelled", True)
                self.running.clear()
                send({"type": "shutdown_ack"})
                return
            handler = handlers.get(frame.get("type"))
            if handler is not None:
                handler(frame)

    def hello_ack(self, frame):
        self.durable = "call_tool_durable" in frame.get("capabilities", [])
        for tool in TOOLS:
            send(dict(tool, type="register_tool"))
        for name in COMMANDS:
            send({"type": "register_command", "name": name, "description": name})
        # Withdrawn at once: the check must accept both frames.
        send({"type": "register_tool", "name": "sc_gone", "schema": {"type": "object"},
              "annotations": {"read_only": True, "destructive": False}})
        send({"type": "unregister_tool", "name": "sc_gone"})
        send({"type": "register_command", "name": "sc-gone"})
        send({"type": "unregister_command", "name": "SC-GONE"})
        send({"type": "subscribe", "events": ["turn_end"],
              "intercept": ["tool_call", "before_agent_start"]})
        send({"type": "ready"})


if __name__ == "__main__":
    Scenario().run()
