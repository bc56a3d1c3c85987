"""The scenario extension (sdk/SCENARIO.md) run as the host runs it: a
python3 subprocess in its own directory, driven over its stdin/stdout."""

import json
import os
import sys
import unittest

from harness import SDK, ProcessHost

SCENARIO = os.path.join(SDK, "scenario")

TOOLS = {
    "sc_echo": {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]},
    "sc_add": {"type": "object", "properties": {"a": {"type": "number"}, "b": {"type": "number"}},
               "required": ["a", "b"]},
    "sc_fail": {"type": "object"},
    "sc_panic": {"type": "object"},
    "sc_progress": {"type": "object"},
    "sc_wait": {"type": "object"},
    "sc_nested": {"type": "object", "properties": {"path": {"type": "string"}}},
    "sc_ask": {"type": "object", "properties": {"question": {"type": "string"}}},
}
COMMANDS = ["sc-prompt", "sc-insert", "sc-display", "sc-noop", "sc-error", "sc-tool-prompt",
            "sc-panel", "sc-submit"]


class Scenario(unittest.TestCase):
    caps = ("call_tool", "call_tool_durable", "panels", "interactive_tools")

    def setUp(self):
        with open(os.path.join(SCENARIO, "extension.json"), encoding="utf-8") as f:
            manifest = json.load(f)
        self.assertEqual(manifest["name"], "scenario-python")
        self.assertEqual(manifest["exec"], "python3")
        self.host = ProcessHost([sys.executable] + manifest.get("args", []), SCENARIO)
        self.addCleanup(self.host.close)
        self.hello, self.regs = self.host.handshake(self.caps)

    def call(self, name, args=None, id_=None):
        id_ = id_ or "call-" + name
        self.host.send({"type": "tool_call", "id": id_, "name": name, "args": args or {}})
        return self.host.expect("tool_result", id=id_)

    def command(self, name, args=""):
        self.host.send({"type": "command_invoked", "id": "cmd-" + name, "name": name, "args": args})
        r = self.host.expect("command_response", id="cmd-" + name)
        del r["type"], r["id"]
        return r

    def text(self, result):
        return result["content"][0]["text"]

    def test_handshake(self):
        self.assertEqual(self.hello["name"], "scenario-python")
        for cap in ("commands", "tools", "panels", "tool_cancel", "call_tool"):
            self.assertIn(cap, self.hello["capabilities"])
        tools = {f["name"]: f for f in self.regs if f["type"] == "register_tool"}
        self.assertEqual({n: t["schema"] for n, t in tools.items()}, TOOLS)
        add = tools["sc_add"]
        self.assertEqual((add["output_schema"], add["namespace"], add["namespace_description"],
                          add["exposure"]),
                         ({"type": "object", "properties": {"sum": {"type": "number"}}},
                          "scenario", "Scenario arithmetic", "codemode"))
        self.assertTrue(tools["sc_ask"]["interactive"])
        self.assertEqual([f["name"] for f in self.regs if f["type"] == "register_command"],
                         COMMANDS)
        subs = [f for f in self.regs if f["type"] == "subscribe"]
        self.assertEqual(len(subs), 1)
        self.assertEqual(subs[0]["events"], ["turn_end"])
        self.assertEqual(sorted(subs[0]["intercept"]), ["before_agent_start", "tool_call"])

    def test_tools(self):
        r = self.call("sc_echo", {"text": "hi there"})
        self.assertEqual((self.text(r), r["is_error"]), ("hi there", False))
        r = self.call("sc_add", {"a": 1, "b": 2})
        self.assertEqual((self.text(r), r["structured_content"]), ("3", {"sum": 3}))
        r = self.call("sc_fail")
        self.assertEqual((self.text(r), r["is_error"]), ("sc_fail always fails", True))
        r = self.call("sc_panic")
        self.assertTrue(r["is_error"])
        self.assertTrue(self.text(r).startswith("sc_panic:"), r)
        self.assertEqual(self.text(self.call("sc_echo", {"text": "still alive"})), "still alive")

    def test_wait_is_cancelled_without_a_reply(self):
        self.host.send({"type": "tool_call", "id": "w", "name": "sc_wait", "args": {}})
        self.host.expect("notify", level="info", message="sc_wait started")
        self.host.send({"type": "tool_cancel", "id": "w"})
        self.host.log.wait_for("reply to finished tool 'w' (cancelled by tool_cancel) dropped")
        self.call("sc_echo", {"text": "sync"})
        self.assertEqual(self.host.frames_for("w"), [])

    def test_nested(self):
        self.host.send({"type": "tool_call", "id": "n1", "name": "sc_nested", "args": {}})
        c = self.host.expect("call_tool")
        self.assertEqual((c["name"], c["args"], c["parent_id"], c["key"]),
                         ("read", {"path": "scenario.txt"}, "n1", "k1"))
        self.host.send({"type": "tool_result", "id": c["id"], "name": "read",
                        "content": [{"type": "text", "text": "file text"}], "is_error": False})
        r = self.host.expect("tool_result", id="n1")
        self.assertEqual((self.text(r), r["is_error"]), ("nested: file text", False))

        self.host.send({"type": "tool_call", "id": "n2", "name": "sc_nested",
                        "args": {"path": "gone.txt"}})
        c = self.host.expect("call_tool")
        self.assertEqual(c["args"], {"path": "gone.txt"})
        self.host.send({"type": "tool_result", "id": c["id"], "name": "read",
                        "content": [{"type": "text", "text": "no such file"}], "is_error": True})
        r = self.host.expect("tool_result", id="n2")
        self.assertEqual((self.text(r), r["is_error"]), ("nested failed: no such file", True))

    def ask(self, id_, then):
        self.host.send({"type": "tool_call", "id": id_, "name": "sc_ask",
                        "args": {"question": "Proceed?"}})
        o = self.host.expect("open_panel")
        self.assertEqual({k: o["panel"][k] for k in ("id", "title", "lines", "footer")},
                         {"id": "sc-ask", "title": "Question", "lines": ["Proceed?"],
                          "footer": "enter answers, esc dismisses"})
        self.host.send(then)
        self.host.expect("panel_close", panel_id="sc-ask")
        return self.host.expect("tool_result", id=id_)

    def test_ask(self):
        r = self.ask("a1", {"type": "panel_key", "panel_id": "sc-ask", "key": "enter"})
        self.assertEqual((self.text(r), r["is_error"]), ("yes", False))
        r = self.ask("a2", {"type": "panel_key", "panel_id": "sc-ask", "key": "esc"})
        self.assertEqual((self.text(r), r["is_error"]), ("dismissed", True))
        r = self.ask("a3", {"type": "panel_close", "panel_id": "sc-ask"})
        self.assertEqual((self.text(r), r["is_error"]), ("dismissed", True))

    def test_ask_cancelled_closes_its_panel(self):
        self.host.send({"type": "tool_call", "id": "a4", "name": "sc_ask",
                        "args": {"question": "Proceed?"}})
        self.host.expect("open_panel")
        self.host.send({"type": "tool_cancel", "id": "a4"})
        self.host.expect("panel_close", panel_id="sc-ask")
        self.host.log.wait_for("reply to finished tool 'a4' (cancelled by tool_cancel) dropped")
        self.call("sc_echo", {"text": "sync"})
        self.assertEqual(self.host.frames_for("a4"), [])

    def test_commands(self):
        self.assertEqual(self.command("sc-prompt", "world"), {"action": "prompt", "prompt": "hello world"})
        self.assertEqual(self.command("sc-insert", "a b"), {"action": "insert", "insert": "a b"})
        self.assertEqual(self.command("sc-display", "x"), {"action": "display", "display": "shown: x"})
        self.assertEqual(self.command("sc-noop"), {"action": "noop"})
        self.assertEqual(self.command("sc-error", "why"), {"action": "noop", "error": "failed: why"})
        self.assertEqual(self.command("sc-tool-prompt", "t"),
                         {"action": "tool_prompt", "prompt": "run echo", "tool_name": "sc_echo",
                          "tool_args": {"text": "t"}})
        self.assertEqual(self.command("sc-submit", "now"), {"action": "noop"})
        self.assertIn({"type": "submit", "text": "submitted now"}, self.host.seen)

    def test_panel(self):
        r = self.command("sc-panel")
        self.assertEqual(r, {"action": "open_panel", "open_panel": {
            "id": "sc-panel", "title": "Scenario", "lines": ["> one", "  two"],
            "footer": "esc closes"}})
        self.host.send({"type": "panel_key", "panel_id": "sc-panel", "key": "down"})
        self.assertEqual(self.host.expect("panel_render")["lines"], ["  one", "> two"])
        self.host.send({"type": "panel_key", "panel_id": "sc-panel", "key": "up"})
        self.assertEqual(self.host.expect("panel_render")["lines"], ["> one", "  two"])
        self.host.send({"type": "panel_key", "panel_id": "sc-panel", "key": "esc"})
        self.host.expect("panel_close", panel_id="sc-panel")

    def test_events_and_interception(self):
        self.host.send({"type": "event", "event": "turn_end", "stop": "tool_use", "sequence": 3})
        self.host.expect("notify", level="info", message="turn ended: tool_use")

        def intercept(id_, **fields):
            self.host.send(dict(fields, type="event_intercept", id=id_))
            r = self.host.expect("event_intercept_response", id=id_)
            del r["type"], r["id"]
            return r

        self.assertEqual(intercept("i1", event="tool_call", tool_name="bash",
                                   tool_args={"command": "sudo rm -rf /"}),
                         {"block": True, "reason": "scenario guard: refused"})
        self.assertEqual(intercept("i2", event="tool_call", tool_name="bash",
                                   tool_args={"command": "ls"}), {})
        self.assertEqual(intercept("i3", event="tool_call", tool_name="sc_echo",
                                   tool_args={"text": "rewrite"}),
                         {"modified_args": {"text": "rewritten"}})
        self.assertEqual(intercept("i4", event="tool_call", tool_name="sc_echo",
                                   tool_args={"text": "keep"}), {})
        self.assertEqual(intercept("i5", event="before_agent_start", system_prompt="Base.",
                                   session_id="s", agent_run_id="r"),
                         {"system_prompt": "Base.\n(scenario)"})

    def test_shutdown(self):
        self.host.send({"type": "tool_call", "id": "w", "name": "sc_wait", "args": {}})
        self.host.expect("notify", message="sc_wait started")
        self.host.send({"type": "shutdown"})
        self.host.expect("shutdown_ack")
        self.host.expect_eof()
        self.assertEqual(self.host.wait_exit(), 0)
        self.assertEqual(self.host.frames_for("w"), [])
        self.assertEqual(self.host.seen[-1], {"type": "shutdown_ack"})

    def test_eof(self):
        self.host.send({"type": "tool_call", "id": "w", "name": "sc_wait", "args": {}})
        self.host.expect("notify", message="sc_wait started")
        self.host.close_input()
        self.host.expect_eof()
        self.assertEqual(self.host.wait_exit(), 0)
        self.assertEqual(self.host.frames_for("w"), [])


if __name__ == "__main__":
    unittest.main()
