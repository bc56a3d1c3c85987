"""Unit tests of zotext over OS pipes: run() in a thread, a fake host here."""

import ast
import json
import os
import subprocess
import sys
import textwrap
import threading
import unittest

from harness import DEADLINE, SDK, LogSink, ProcessHost, ThreadHost, zotext


def new_ext(**kw):
    log = LogSink()
    ext = zotext.Extension("test-ext", "0.1.0", stderr=log, **kw)

    @ext.tool("ping", "Answers at once")
    def ping(args):
        return "pong"
    return ext, log


class Case(unittest.TestCase):
    def start(self, ext, caps=("call_tool",), **ack):
        host = ThreadHost(ext)
        self.addCleanup(host.close)
        self.hello, self.regs = host.handshake(caps, **ack)
        return host


class Handshake(Case):
    def test_capabilities_from_registrations(self):
        ext, _ = new_ext()

        @ext.command("hi", "Say hi")
        def hi(args):
            return zotext.noop()

        @ext.on("turn_end")
        def on_turn_end(ev):
            pass

        @ext.intercept_tool_call
        def guard(name, args):
            return None

        @ext.intercept_before_agent_start
        def bas(ev):
            return None

        self.start(ext)
        self.assertEqual(self.hello["name"], "test-ext")
        self.assertEqual(self.hello["version"], "0.1.0")
        for cap in ("commands", "tools", "panels", "tool_cancel", "call_tool", "events"):
            self.assertIn(cap, self.hello["capabilities"])
        types = [f["type"] for f in self.regs]
        self.assertEqual(types, ["register_command", "register_tool", "subscribe"])
        self.assertEqual(self.regs[2]["events"], ["turn_end"])
        self.assertEqual(self.regs[2]["intercept"], ["tool_call", "before_agent_start"])

    def test_only_events_advertise_no_tools(self):
        ext = zotext.Extension("quiet", "1", stderr=LogSink())

        @ext.on("session_start")
        def s(ev):
            pass

        self.start(ext)
        self.assertEqual(self.hello["capabilities"], ["events"])
        self.assertEqual(self.regs, [{"type": "subscribe", "events": ["session_start"]}])

    def test_host_info_and_on_hello(self):
        ext, _ = new_ext()
        got = []

        @ext.on_hello
        def hello(host):
            got.append(host)

            @ext.tool("late_tool", "Registered once the host is known")
            def late(args):
                return "x"

        self.start(ext, caps=("call_tool", "panels"), provider="p", model="m", data_dir="/d")
        self.assertEqual(got[0].provider, "p")
        self.assertEqual(ext.host.model, "m")
        self.assertEqual(ext.host.data_dir, "/d")
        self.assertIn("panels", ext.host.capabilities)
        self.assertIn("late_tool", [f.get("name") for f in self.regs])

    def test_garbage_and_unknown_frames_are_skipped(self):
        ext, log = new_ext()
        host = self.start(ext)
        host.send_raw(b"not json\n[1,2]\n\n{\"no_type\":1}\r\n" + b"[" * 100000 + b"\n")
        host.send({"type": "something_new", "id": "x"})
        host.ping()
        log.wait_for("not JSON")
        log.wait_for("unknown frame type 'something_new'")


    def test_late_registrations_and_call_tool_choice(self):
        ext = zotext.Extension("late", "1", stderr=LogSink(), call_tool=False)
        ext.tool("ping", "P")(lambda a: "pong")
        host = self.start(ext)
        self.assertNotIn("call_tool", self.hello["capabilities"])
        ext.tool("later", "L")(lambda a: "x")
        ext.command("cmd", "C")(lambda a: None)
        ext.on("turn_end")(lambda ev: None)
        self.assertEqual(host.expect("register_tool")["name"], "later")
        self.assertEqual(host.expect("register_command")["name"], "cmd")
        self.assertEqual(host.expect("subscribe"), {"type": "subscribe", "events": ["turn_end"]})

    def test_stdout_carries_frames_only(self):
        script = os.path.join(self.tmpdir(), "main.py")
        with open(script, "w", encoding="utf-8") as f:
            f.write(textwrap.dedent("""\
                import os, subprocess, sys
                sys.path.insert(0, %r)
                import zotext
                ext = zotext.Extension("noisy", "1")

                @ext.tool("noisy", "Prints")
                def noisy(args):
                    print("from a handler")
                    subprocess.run(["echo", "from a child"], check=True)
                    return "quiet"

                sys.exit(ext.run())
                """ % SDK))
        host = ProcessHost([sys.executable, script], os.path.dirname(script))
        self.addCleanup(host.close)
        host.handshake()
        host.send({"type": "tool_call", "id": "n", "name": "noisy", "args": {}})
        self.assertEqual(host.expect("tool_result", id="n")["content"][0]["text"], "quiet")
        host.log.wait_for("from a child")
        host.send({"type": "shutdown"})
        host.expect("shutdown_ack")
        host.expect_eof()  # every line on stdout parsed as a frame
        self.assertEqual(host.wait_exit(), 0)
        for line in ("from a handler", "from a child"):
            self.assertIn(line, host.log.text)

    def tmpdir(self):
        import tempfile
        d = tempfile.mkdtemp(prefix="zotext-test-")
        self.addCleanup(lambda: __import__("shutil").rmtree(d, ignore_errors=True))
        return d


class Tools(Case):
    def test_registration_fields(self):
        ext, _ = new_ext()
        ext.tool("plain", "P", {"type": "object"})(lambda a: "x")
        ext.tool("structured", "S", '{"type":"object"}', output_schema={"type": "object"},
                 namespace="ns", namespace_description="d", namespace_instructions="i",
                 exposure="codemode", replay="idempotent")(lambda a: "x")
        ext.interactive_tool("inter", "I")(lambda a, c: "x")
        ext.deferred_tool("later", "L")(lambda a: "x")
        self.start(ext)
        by = {f["name"]: f for f in self.regs if f["type"] == "register_tool"}
        self.assertEqual(by["plain"]["schema"], {"type": "object"})
        self.assertNotIn("interactive", by["plain"])
        s = by["structured"]
        self.assertEqual((s["output_schema"], s["namespace"], s["namespace_description"],
                          s["namespace_instructions"], s["exposure"], s["replay"]),
                         ({"type": "object"}, "ns", "d", "i", "codemode", "idempotent"))
        self.assertTrue(by["inter"]["interactive"])
        self.assertTrue(by["later"]["deferred"])

    def test_annotations_and_unregister(self):
        ext, _ = new_ext()
        ext.tool("wipe", "W", read_only=False, destructive=True)(lambda a: "x")
        ext.tool("look", "L", read_only=True)(lambda a: "x")
        ext.command("Go", "G")(lambda a: None)
        with self.assertRaises(TypeError):
            ext.tool("bad", "B", destructive="yes")
        host = self.start(ext)
        by = {f["name"]: f for f in self.regs if f["type"] == "register_tool"}
        self.assertEqual(by["wipe"]["annotations"], {"read_only": False, "destructive": True})
        self.assertEqual(by["look"]["annotations"], {"read_only": True})
        self.assertNotIn("annotations", by["ping"])

        ext.unregister_tool("wipe")
        self.assertEqual(host.expect("unregister_tool"), {"type": "unregister_tool", "name": "wipe"})
        ext.unregister_command("/go")
        self.assertEqual(host.expect("unregister_command"), {"type": "unregister_command", "name": "Go"})
        with self.assertRaises(ValueError):
            ext.unregister_tool("wipe")
        with self.assertRaises(ValueError):
            ext.unregister_command("go")
        # Registered again with another schema, and answered again.
        ext.tool("wipe", "W2", {"type": "object", "properties": {"x": {}}})(lambda a: "again")
        self.assertEqual(host.expect("register_tool", name="wipe")["schema"]["properties"], {"x": {}})
        host.send({"type": "tool_call", "id": "w", "name": "wipe", "args": {}})
        self.assertEqual(host.expect("tool_result", id="w")["content"][0]["text"], "again")

    def test_progress(self):
        ext, _ = new_ext()
        seen = {}
        finished = threading.Event()

        @ext.tool("slow", "S")
        def slow(args, ctx):
            seen["sent"] = ctx.progress("half way")
            ctx.reply("done")
            seen["late"] = ctx.progress("too late")
            finished.set()
            return None

        host = self.start(ext)
        host.send({"type": "tool_call", "id": "p1", "name": "slow", "args": {}})
        self.assertEqual(host.expect("tool_progress"), {"type": "tool_progress", "id": "p1", "text": "half way"})
        host.expect("tool_result", id="p1")
        self.assertTrue(finished.wait(DEADLINE))
        host.ping()
        self.assertEqual(seen, {"sent": True, "late": False})
        self.assertFalse(any(f.get("type") == "tool_progress" and f.get("text") == "too late"
                             for f in host.seen))

    def test_results(self):
        ext, _ = new_ext()

        @ext.tool("add", "Add", output_schema={"type": "object"})
        def add(args):
            return zotext.structured_result({"sum": args["a"] + args["b"]}, str(args["a"] + args["b"]))

        @ext.tool("pic", "Image")
        def pic(args, ctx):
            ext.activate_tools("hidden")
            return zotext.ToolResult([zotext.text("a"), zotext.image_bytes("image/png", b"\x89PNG")],
                                     activate_tools=["other"])

        @ext.tool("fail", "Fails")
        def fail(args):
            return zotext.text_error_result("nope")

        @ext.tool("nothing", "Returns None")
        def nothing(args):
            return None

        host = self.start(ext)
        host.send({"type": "tool_call", "id": "1", "name": "add", "args": {"a": 1, "b": 2}})
        r = host.expect("tool_result", id="1")
        self.assertEqual(r["content"], [{"type": "text", "text": "3"}])
        self.assertEqual(r["structured_content"], {"sum": 3})
        self.assertFalse(r["is_error"])
        host.send({"type": "tool_call", "id": "2", "name": "pic"})
        r = host.expect("tool_result", id="2")
        self.assertEqual(r["content"][1], {"type": "image", "mime_type": "image/png", "data": "iVBORw=="})
        self.assertEqual(r["activate_tools"], ["other", "hidden"])
        self.assertNotIn("structured_content", r)
        host.send({"type": "tool_call", "id": "3", "name": "fail", "args": {}})
        self.assertTrue(host.expect("tool_result", id="3")["is_error"])
        host.send({"type": "tool_call", "id": "4", "name": "nothing", "args": {}})
        r = host.expect("tool_result", id="4")
        self.assertTrue(r["is_error"])
        self.assertIn("returned no result", r["content"][0]["text"])
        host.send({"type": "tool_call", "id": "5", "name": "missing", "args": {}})
        r = host.expect("tool_result", id="5")
        self.assertTrue(r["is_error"])
        self.assertIn("no handler", r["content"][0]["text"])

    def test_exception_becomes_error_result(self):
        ext, log = new_ext()

        @ext.tool("boom", "Raises")
        def boom(args):
            raise KeyError("missing")

        host = self.start(ext)
        host.send({"type": "tool_call", "id": "b", "name": "boom", "args": {}})
        r = host.expect("tool_result", id="b")
        self.assertTrue(r["is_error"])
        self.assertTrue(r["content"][0]["text"].startswith("boom: KeyError"), r)
        log.wait_for("Traceback")
        host.ping()  # still running

    def test_blocking_handler_does_not_stall_the_loop(self):
        ext, _ = new_ext()
        release = threading.Event()

        @ext.tool("block", "Blocks")
        def block(args):
            release.wait(DEADLINE)
            return "released"

        host = self.start(ext)
        host.send({"type": "tool_call", "id": "blk", "name": "block", "args": {}})
        host.ping()
        release.set()
        self.assertEqual(host.expect("tool_result", id="blk")["content"][0]["text"], "released")

    def test_at_most_max_workers_handlers_run(self):
        ext, _ = new_ext(max_workers=2)
        release = threading.Event()
        lock = threading.Lock()
        running = [0, 0]  # now, most

        @ext.tool("hold", "Blocks until released")
        def hold(args):
            with lock:
                running[0] += 1
                running[1] = max(running[1], running[0])
            release.wait(DEADLINE)
            with lock:
                running[0] -= 1
            return "done"

        host = self.start(ext)
        for i in range(5):
            host.send({"type": "tool_call", "id": "h%d" % i, "name": "hold", "args": {}})
        # The reading goes on while every worker is busy: an unknown tool
        # is answered by the read loop itself.
        host.send({"type": "tool_call", "id": "sync", "name": "missing"})
        host.expect("tool_result", id="sync")
        release.set()
        done = {host.expect("tool_result")["id"] for _ in range(5)}
        self.assertEqual(done, {"h%d" % i for i in range(5)})
        self.assertEqual(running[1], 2)

    def test_cancel_before_the_handler_starts(self):
        ext, log = new_ext(max_workers=1)
        release = threading.Event()
        saw = {}

        @ext.tool("block", "Holds the only worker")
        def block(args):
            release.wait(DEADLINE)
            return "released"

        @ext.tool("late", "Queued behind block")
        def late(args, ctx):
            saw["cancelled_at_start"] = ctx.is_cancelled
            saw["reason"] = ctx.reason
            return "should not be sent"

        host = self.start(ext)
        host.send({"type": "tool_call", "id": "b", "name": "block", "args": {}})
        host.send({"type": "tool_call", "id": "x", "name": "late", "args": {}})
        host.send({"type": "tool_cancel", "id": "x"})
        host.send({"type": "tool_cancel", "id": "never-seen"})  # ignored
        # The cancel has been read once a frame after it is answered by
        # the loop itself: an unknown tool is answered without a worker.
        host.send({"type": "tool_call", "id": "sync", "name": "missing"})
        host.expect("tool_result", id="sync")
        release.set()
        host.expect("tool_result", id="b")
        log.wait_for("reply to finished tool 'x' (cancelled by tool_cancel) dropped")
        host.ping()
        self.assertTrue(saw["cancelled_at_start"])
        self.assertEqual(saw["reason"], "tool_cancel")
        self.assertEqual(host.frames_for("x"), [])

    def test_cancel_after_start_sends_nothing(self):
        ext, log = new_ext()
        started = threading.Event()
        fired = []

        @ext.tool("wait", "Waits")
        def wait(args, ctx):
            ctx.on_cancel(lambda: fired.append("callback"))
            started.set()
            self.assertTrue(ctx.wait(DEADLINE))
            return zotext.text_error_result("cancelled")

        host = self.start(ext)
        host.send({"type": "tool_call", "id": "w", "name": "wait", "args": {}})
        self.assertTrue(started.wait(DEADLINE))
        host.send({"type": "tool_cancel", "id": "w"})
        log.wait_for("reply to finished tool 'w' (cancelled by tool_cancel) dropped")
        host.ping()
        self.assertEqual(host.frames_for("w"), [])
        self.assertEqual(fired, ["callback"])

    def test_reply_to_finished_invocation_is_dropped_and_logged(self):
        ext, log = new_ext()

        @ext.tool("twice", "Answers twice")
        def twice(args, ctx):
            self.assertTrue(ctx.reply("first"))
            return "second"

        host = self.start(ext)
        host.send({"type": "tool_call", "id": "t", "name": "twice", "args": {}})
        self.assertEqual(host.expect("tool_result", id="t")["content"][0]["text"], "first")
        log.wait_for("reply to finished tool 't' (already answered) dropped")
        host.ping()
        self.assertEqual(len(host.frames_for("t")), 1)

    def test_answer_later_from_another_thread(self):
        ext, log = new_ext(max_workers=1)
        waiting = {}

        @ext.interactive_tool("ask", "Answered from a panel callback")
        def ask(args, ctx):
            waiting[ctx.id] = ctx
            ext.open_panel("q", "Question", ["?"])
            return zotext.LATER

        @ext.on_panel_key("q")
        def key(k, text):
            for ctx in list(waiting.values()):
                ctx.reply("answer " + k)

        host = self.start(ext)
        host.send({"type": "tool_call", "id": "a1", "name": "ask", "args": {}})
        host.expect("open_panel")
        # The only worker is free again: another call runs meanwhile.
        host.ping()
        host.send({"type": "panel_key", "panel_id": "q", "key": "enter"})
        self.assertEqual(host.expect("tool_result", id="a1")["content"][0]["text"], "answer enter")

    def test_oversized_result_becomes_error_result(self):
        ext, log = new_ext()

        @ext.tool("huge", "Too big")
        def huge(args):
            return "x" * zotext.MAX_FRAME_BYTES

        host = self.start(ext)
        host.send({"type": "tool_call", "id": "h", "name": "huge", "args": {}})
        r = host.expect("tool_result", id="h")
        self.assertTrue(r["is_error"])
        self.assertIn("too large", r["content"][0]["text"])
        log.wait_for("replaced by an error")

    def test_reconcile(self):
        ext, _ = new_ext()
        done = {"op-1"}

        def settle_reconcile(args, ctx):
            if ctx.operation_key in done:
                return zotext.reconcile_completed(zotext.text_result("settled before"))
            return zotext.reconcile_not_started()

        @ext.tool("settle", "Settles", replay="reconcile", reconcile=settle_reconcile)
        def settle(args, ctx):
            return "settled " + ctx.operation_key

        host = self.start(ext)
        host.send({"type": "tool_call", "id": "r1", "name": "settle", "args": {},
                   "reconcile": True, "operation_key": "op-1"})
        r = host.expect("tool_result", id="r1")
        self.assertEqual(r["structured_content"], {"state": "completed"})
        self.assertEqual(r["content"][0]["text"], "settled before")
        host.send({"type": "tool_call", "id": "r2", "name": "settle", "args": {},
                   "reconcile": True, "operation_key": "op-2"})
        self.assertEqual(host.expect("tool_result", id="r2")["structured_content"],
                         {"state": "not_started"})
        host.send({"type": "tool_call", "id": "r3", "name": "settle", "args": {},
                   "operation_key": "op-2"})
        self.assertEqual(host.expect("tool_result", id="r3")["content"][0]["text"], "settled op-2")


class Lifecycle(Case):
    def test_shutdown_cancels_acks_and_returns_zero(self):
        ext, _ = new_ext()
        started = threading.Event()
        saw = {}

        finished = threading.Event()

        @ext.tool("wait", "Waits")
        def wait(args, ctx):
            started.set()
            ctx.wait(DEADLINE)
            saw["reason"] = ctx.reason
            finished.set()
            return "late"

        host = self.start(ext)
        host.send({"type": "tool_call", "id": "w", "name": "wait", "args": {}})
        self.assertTrue(started.wait(DEADLINE))
        host.send({"type": "shutdown"})
        host.expect("shutdown_ack")
        self.assertEqual(host.wait_exit(), 0)
        host.expect_eof()
        self.assertTrue(finished.wait(DEADLINE))
        self.assertEqual(saw["reason"], "shutdown")
        self.assertEqual(host.frames_for("w"), [])

    def test_eof_cancels_and_returns(self):
        ext, _ = new_ext()
        started = threading.Event()
        finished = threading.Event()
        saw = {}

        @ext.tool("wait", "Waits")
        def wait(args, ctx):
            started.set()
            ctx.wait(DEADLINE)
            saw["reason"] = ctx.reason
            finished.set()
            return "late"

        host = self.start(ext)
        host.send({"type": "tool_call", "id": "w", "name": "wait", "args": {}})
        self.assertTrue(started.wait(DEADLINE))
        host.close_input()
        self.assertEqual(host.wait_exit(), 0)
        self.assertTrue(finished.wait(DEADLINE))
        host.expect_eof()
        self.assertEqual(saw["reason"], "eof")
        self.assertEqual([f["type"] for f in host.seen], [])

    def test_oversized_inbound_line_is_skipped(self):
        ext, log = new_ext()
        got = []

        @ext.on("big")
        def big(ev):
            got.append(len(ev.raw["pad"]))

        host = self.start(ext)
        # A frame of exactly 4 MiB is still a frame...
        head = b'{"type":"event","event":"big","pad":"'
        pad = zotext.MAX_FRAME_BYTES - len(head) - 2
        host.send_raw(head + b"a" * pad + b'"}\n')
        # ...one byte more is skipped, with a log line, and the next works.
        host.send_raw(head + b"a" * (pad + 1) + b'"}\n')
        host.send_raw(b"y" * (3 * zotext.MAX_FRAME_BYTES) + b"\n")
        host.ping()
        log.wait_for("skipped a line of %d bytes" % (zotext.MAX_FRAME_BYTES + 1))
        log.wait_for("skipped a line of %d bytes" % (3 * zotext.MAX_FRAME_BYTES))
        # Events run in order on their own thread: wait for the one after.
        seen = threading.Event()
        ext.on("mark")(lambda ev: seen.set())
        host.send({"type": "event", "event": "mark"})
        self.assertTrue(seen.wait(DEADLINE))
        self.assertEqual(got, [pad])


class Registration(unittest.TestCase):
    def test_invalid_names_and_schemas(self):
        ext = zotext.Extension("e", "1", stderr=LogSink())
        for bad in ("", "has space", "a" * 65, "dot.name", "slash/name", "line\n", None):
            with self.assertRaises(ValueError) as cm:
                ext.tool(bad, "d")
            self.assertIn("[A-Za-z0-9_-]{1,64}", str(cm.exception))
            self.assertIn(repr(bad), str(cm.exception))
        ext.tool("a" * 64, "d")(lambda a: "x")
        for schema in ([], "[1]", 3, "not json"):
            with self.assertRaises(ValueError) as cm:
                ext.tool("t", "d", schema)
            self.assertIn("'t'", str(cm.exception))
        with self.assertRaises(ValueError):
            ext.tool("t", "d", output_schema=[1])
        with self.assertRaises(ValueError):
            ext.tool("t", "d", exposure="everywhere")
        with self.assertRaises(ValueError):
            ext.tool("t", "d", replay="sometimes")
        with self.assertRaises(ValueError):
            ext.tool("t", "d", namespace="a b")
        ext.tool("t", "d")(lambda a: "x")
        with self.assertRaises(ValueError):
            ext.tool("t", "d")(lambda a: "x")
        for bad in ("", "two words", "-x"):
            with self.assertRaises(ValueError):
                ext.command(bad)
        ext.command("Hi")(lambda a: None)
        with self.assertRaises(ValueError):
            ext.command("hi")(lambda a: None)

    def test_checks_before_the_wire(self):
        ext = zotext.Extension("e", "1", stderr=LogSink())
        with self.assertRaises(ValueError):
            ext.notify("loud", "x")
        with self.assertRaises(ValueError):
            ext.submit_slash("no slash")
        with self.assertRaises(RuntimeError):
            ext.activate_tools("x")
        self.assertEqual(zotext.tool_prompt("t", [1], "p").error,
                         "tool_prompt args must be a JSON object")
        self.assertEqual(zotext.tool_prompt("", {}, "p").error,
                         "tool_prompt requires a name and prompt")
        with self.assertRaises(ValueError):
            ext.call_tool("read", key="a/b")
        with self.assertRaises(ValueError):
            ext.call_tool("read", key="k" * 129)
        with self.assertRaises(TypeError):
            ext.call_tool("read", [1])

    def test_source_parses_as_python_3_9(self):
        for rel in ("zotext.py", "scenario/main.py", "bench/sdk/main.py", "bench/raw/main.py"):
            path = os.path.join(SDK, rel)
            with open(path, encoding="utf-8") as f:
                ast.parse(f.read(), path, feature_version=(3, 9))


class CallTool(Case):
    def make(self, **kw):
        ext, log = new_ext(**kw)
        self.out = {}
        return ext, log

    def test_parent_id_and_key_on_durable_host(self):
        ext, _ = self.make()

        @ext.tool("outer", "Calls read")
        def outer(args, ctx):
            r = ext.call_tool("read", {"path": "a"}, key="step-1")
            return "%s|%s|%s" % (r.text, r.is_error, r.truncated)

        host = self.start(ext, caps=("call_tool", "call_tool_durable"))
        host.send({"type": "tool_call", "id": "p1", "name": "outer", "args": {}})
        c = host.expect("call_tool")
        self.assertEqual((c["name"], c["args"], c["parent_id"], c["key"]),
                         ("read", {"path": "a"}, "p1", "step-1"))
        host.send({"type": "tool_result", "id": c["id"], "name": "read",
                   "content": [{"type": "text", "text": "A"}], "is_error": False, "truncated": True})
        self.assertEqual(host.expect("tool_result", id="p1")["content"][0]["text"], "A|False|True")

    def test_key_left_out_without_durable_and_no_parent_from_command(self):
        ext, _ = self.make()

        @ext.command("look", "Calls read")
        def look(args):
            r = ext.call_tool("read", {"path": args}, key="k1")
            return zotext.display(r.text)

        host = self.start(ext)
        host.send({"type": "command_invoked", "id": "c1", "name": "look", "args": "f"})
        c = host.expect("call_tool")
        self.assertNotIn("key", c)
        self.assertNotIn("parent_id", c)
        host.send({"type": "tool_result", "id": c["id"], "content": [{"type": "text", "text": "F"}],
                   "is_error": True})
        self.assertEqual(host.expect("command_response", id="c1")["display"], "F")

    def test_refused_at_once_without_host_capability(self):
        ext, _ = self.make()

        @ext.tool("outer", "Calls read")
        def outer(args):
            try:
                ext.call_tool("read", {})
            except zotext.CallToolError as e:
                return zotext.text_error_result(str(e))
            return "called"

        host = self.start(ext, caps=())
        host.send({"type": "tool_call", "id": "p", "name": "outer", "args": {}})
        r = host.expect("tool_result", id="p")
        self.assertEqual(r["content"][0]["text"], "the host does not offer call_tool")
        self.assertEqual([f for f in host.seen if f["type"] == "call_tool"], [])

    def test_concurrent_calls_get_their_own_replies(self):
        ext, _ = self.make()

        @ext.tool("fan", "Two calls at once")
        def fan(args, ctx):
            results = {}

            def one(path):
                results[path] = ext.call_tool("read", {"path": path}, parent=ctx).text
            threads = [threading.Thread(target=one, args=(p,)) for p in ("a", "b")]
            for t in threads:
                t.start()
            for t in threads:
                t.join(DEADLINE)
            return json.dumps(results, sort_keys=True)

        host = self.start(ext)
        host.send({"type": "tool_call", "id": "f", "name": "fan", "args": {}})
        calls = [host.expect("call_tool"), host.expect("call_tool")]
        self.assertNotEqual(calls[0]["id"], calls[1]["id"])
        self.assertEqual({c["parent_id"] for c in calls}, {"f"})
        for c in reversed(calls):
            host.send({"type": "tool_result", "id": c["id"],
                       "content": [{"type": "text", "text": c["args"]["path"].upper()}]})
        r = host.expect("tool_result", id="f")
        self.assertEqual(json.loads(r["content"][0]["text"]), {"a": "A", "b": "B"})

    def test_parent_cancel_cancels_the_call(self):
        ext, log = self.make()
        saw = {}

        @ext.tool("outer", "Calls read")
        def outer(args, ctx):
            try:
                ext.call_tool("read", {})
            except zotext.CallCancelled as e:
                saw["error"] = str(e)
            return "late"

        host = self.start(ext)
        host.send({"type": "tool_call", "id": "p", "name": "outer", "args": {}})
        c = host.expect("call_tool")
        host.send({"type": "tool_cancel", "id": "p"})
        host.expect("call_tool_cancel", id=c["id"])
        log.wait_for("reply to finished tool 'p'")
        # The host's own terminal reply for the cancelled call is dropped.
        host.send({"type": "tool_result", "id": c["id"], "is_error": True,
                   "content": [{"type": "text", "text": "cancelled"}]})
        log.wait_for("tool_result for unknown or finished call")
        self.assertIn("cancelled (tool_cancel)", saw["error"])
        self.assertEqual(host.frames_for("p")[1:], [])

    def test_timeout_cancels_the_call(self):
        ext, _ = self.make()

        @ext.tool("outer", "Calls read")
        def outer(args):
            try:
                ext.call_tool("read", {}, timeout=0.05)
            except zotext.CallTimeout as e:
                return zotext.text_error_result(str(e))
            return "answered"

        host = self.start(ext)
        host.send({"type": "tool_call", "id": "p", "name": "outer", "args": {}})
        c = host.expect("call_tool")
        host.expect("call_tool_cancel", id=c["id"])
        self.assertIn("no reply within", host.expect("tool_result", id="p")["content"][0]["text"])

    def test_shutdown_ends_a_waiting_call(self):
        ext, _ = self.make()
        saw = threading.Event()

        @ext.tool("outer", "Calls read")
        def outer(args):
            try:
                ext.call_tool("read", {})
            except zotext.CallCancelled:
                saw.set()
            return "late"

        host = self.start(ext)
        host.send({"type": "tool_call", "id": "p", "name": "outer", "args": {}})
        host.expect("call_tool")
        host.send({"type": "shutdown"})
        host.expect("shutdown_ack")
        self.assertTrue(saw.wait(DEADLINE))
        self.assertEqual(host.wait_exit(), 0)
        host.expect_eof()
        self.assertEqual([f["type"] for f in host.seen if f["type"] == "call_tool_cancel"], [])


class Commands(Case):
    def test_responses(self):
        ext, log = new_ext()
        ext.command("p")(lambda a: zotext.prompt("hello " + a))
        ext.command("i")(lambda a: zotext.insert(a))
        ext.command("d")(lambda a: zotext.display("shown " + a))
        ext.command("n")(lambda a: None)
        ext.command("e")(lambda a: zotext.errorf("failed: %s", a))
        ext.command("tp")(lambda a: zotext.tool_prompt("sc_echo", {"text": a}, "run echo"))
        ext.command("panel")(lambda a: zotext.open_panel("pid", "T", ["l1"], "f"))

        @ext.command("Raise")
        def raising(args):
            raise ValueError("bad args")

        host = self.start(ext)

        def run(name, args=""):
            host.send({"type": "command_invoked", "id": "c-" + name, "name": name, "args": args})
            r = host.expect("command_response", id="c-" + name)
            del r["type"], r["id"]
            return r

        self.assertEqual(run("p", "x"), {"action": "prompt", "prompt": "hello x"})
        self.assertEqual(run("i", "x"), {"action": "insert", "insert": "x"})
        self.assertEqual(run("d", "x"), {"action": "display", "display": "shown x"})
        self.assertEqual(run("n"), {"action": "noop"})
        self.assertEqual(run("e", "50%"), {"action": "noop", "error": "failed: 50%"})
        self.assertEqual(run("tp", "y"), {"action": "tool_prompt", "prompt": "run echo",
                                          "tool_name": "sc_echo", "tool_args": {"text": "y"}})
        self.assertEqual(run("panel"), {"action": "open_panel", "open_panel": {
            "id": "pid", "title": "T", "lines": ["l1"], "footer": "f"}})
        r = run("Raise")
        self.assertEqual(r["action"], "noop")
        self.assertEqual(r["error"], "/Raise: ValueError: bad args")
        self.assertIn("no handler", run("unknown")["error"])
        self.assertEqual(run("RAISE")["error"], "/Raise: ValueError: bad args")


class EventsAndInterceptors(Case):
    def test_events_in_order_with_absent_fields(self):
        ext, _ = new_ext()
        got = []
        done = threading.Event()

        @ext.on("tool_result")
        def tr(ev):
            got.append(ev)

        @ext.on("turn_end")
        def te(ev):
            got.append(ev)
            done.set()

        host = self.start(ext)
        host.send({"type": "event", "event": "tool_result", "sequence": 4, "session_id": "s",
                   "tool_id": "t", "executed": False, "status": "failed",
                   "result": {"content": [{"type": "text", "text": "r"}], "is_error": True}})
        host.send({"type": "event", "event": "tool_result", "sequence": 5})
        host.send({"type": "event", "event": "not_subscribed"})
        host.send({"type": "event", "event": "turn_end", "stop": "end_turn", "sequence": 6})
        self.assertTrue(done.wait(DEADLINE))
        self.assertEqual([e.sequence for e in got], [4, 5, 6])
        self.assertIs(got[0].executed, False)
        self.assertTrue(got[0].result.is_error)
        self.assertIsNone(got[1].executed)
        self.assertIsNone(got[1].result)
        self.assertIsNone(got[1].message_count)
        self.assertEqual(got[2].stop, "end_turn")

    def test_tool_call_interceptor(self):
        ext, log = new_ext()

        @ext.intercept_tool_call
        def guard(name, args, frame):
            if frame.get("origin_extension") == "other":
                return zotext.ToolCallDecision(block=True, reason="not from other")
            if name == "bash":
                return (False, "no shell")
            if name == "edit":
                return zotext.ToolCallDecision(modified_args={"path": "safe"})
            if name == "explode":
                raise RuntimeError("guard bug")
            if name == "bad":
                return "yes"
            return None

        host = self.start(ext)

        def ask(name, args=None):
            host.send({"type": "event_intercept", "id": name, "event": "tool_call",
                       "tool_name": name, "tool_args": args or {}})
            r = host.expect("event_intercept_response", id=name)
            del r["type"], r["id"]
            return r

        self.assertEqual(ask("bash"), {"block": True, "reason": "no shell"})
        self.assertEqual(ask("edit"), {"modified_args": {"path": "safe"}})
        self.assertEqual(ask("read"), {})
        r = ask("explode")
        self.assertTrue(r["block"])
        self.assertEqual(r["reason"], "interceptor for tool_call raised RuntimeError: guard bug")
        self.assertTrue(ask("bad")["block"])
        host.send({"type": "event_intercept", "id": "o", "event": "tool_call", "tool_name": "read",
                   "tool_args": {}, "origin_extension": "other"})
        self.assertEqual(host.expect("event_intercept_response", id="o")["reason"], "not from other")

    def test_other_interceptors(self):
        ext, _ = new_ext()

        @ext.intercept_turn_start
        def turn(step):
            return zotext.TurnStartDecision(block=step > 2, reason="quota")

        @ext.intercept_assistant_message
        def msg(body):
            return zotext.AssistantMessageDecision(replace_text=body.replace("secret", "***"))

        prompts = {"keep": None, "drop": "", "swap": "new prompt"}

        @ext.intercept_before_agent_start
        def bas(ev):
            return prompts[ev.session_id]

        host = self.start(ext)
        self.assertEqual(self.regs[-1]["intercept"],
                         ["turn_start", "assistant_message", "before_agent_start"])

        def ask(frame):
            host.send(dict(frame, type="event_intercept"))
            r = host.expect("event_intercept_response", id=frame["id"])
            del r["type"], r["id"]
            return r

        self.assertEqual(ask({"id": "1", "event": "turn_start", "step": 1}), {})
        self.assertEqual(ask({"id": "2", "event": "turn_start", "step": 3}),
                         {"block": True, "reason": "quota"})
        self.assertEqual(ask({"id": "3", "event": "assistant_message", "text": "a secret"}),
                         {"replace_text": "a ***"})
        self.assertEqual(ask({"id": "4", "event": "assistant_message", "text": "plain"}), {})
        base = {"event": "before_agent_start", "system_prompt": "P"}
        self.assertEqual(ask(dict(base, id="5", session_id="keep")), {})
        self.assertEqual(ask(dict(base, id="6", session_id="drop")), {"system_prompt": ""})
        self.assertEqual(ask(dict(base, id="7", session_id="swap")), {"system_prompt": "new prompt"})
        # Not subscribed: answered at once with the default.
        self.assertEqual(ask({"id": "8", "event": "other"}), {})

    def test_slow_interceptor_is_answered_by_its_deadline(self):
        ext, log = new_ext(intercept_timeout=0.05)
        release = threading.Event()

        @ext.intercept_tool_call
        def slow(name, args):
            release.wait(DEADLINE)
            return False

        host = self.start(ext)
        host.send({"type": "event_intercept", "id": "s", "event": "tool_call", "tool_name": "x"})
        r = host.expect("event_intercept_response", id="s")
        self.assertNotIn("block", r)
        release.set()
        log.wait_for("answered after its deadline; dropped")
        host.ping()
        self.assertEqual(len(host.frames_for("s")), 1)

    def test_interceptors_answer_while_every_worker_is_busy(self):
        ext, _ = new_ext(max_workers=1)
        release = threading.Event()

        @ext.tool("block", "Holds the worker")
        def block(args):
            release.wait(DEADLINE)
            return "done"

        ext.intercept_tool_call(lambda name, args: (False, "busy but answering"))
        host = self.start(ext)
        host.send({"type": "tool_call", "id": "b", "name": "block", "args": {}})
        host.send({"type": "event_intercept", "id": "i", "event": "tool_call", "tool_name": "x"})
        self.assertEqual(host.expect("event_intercept_response", id="i")["reason"],
                         "busy but answering")
        release.set()
        host.expect("tool_result", id="b")


class PanelsNotesSubmit(Case):
    def test_panels_lines_and_keys(self):
        ext, _ = new_ext()
        keys = []
        closed = threading.Event()

        @ext.on_panel_key("p")
        def key(k, t):
            keys.append((k, t))

        ext.on_panel_close("p")(closed.set)

        @ext.interactive_tool("show", "Opens a panel")
        def show(args):
            ext.open_panel("p", "Title", widgets=[{"id": "h", "type": "heading", "text": "Hi"},
                                                  {"id": "b", "type": "button", "label": "Go"}])
            ext.render_panel("p", "", ["two"], "foot")
            ext.close_panel("p")
            return "shown"

        host = self.start(ext)
        host.send({"type": "tool_call", "id": "s", "name": "show", "args": {}})
        o = host.expect("open_panel")
        self.assertEqual(o["panel"], {"id": "p", "title": "Title", "lines": ["Hi", "[ Go ]"],
                                      "footer": "", "tool_call_id": "s"})
        self.assertEqual(host.expect("panel_render"),
                         {"type": "panel_render", "panel_id": "p", "title": "", "lines": ["two"],
                          "footer": "foot"})
        self.assertEqual(host.expect("panel_close"), {"type": "panel_close", "panel_id": "p"})
        host.expect("tool_result", id="s")
        ext.open_panel("p", "From elsewhere", ["x"])
        self.assertNotIn("tool_call_id", host.expect("open_panel")["panel"])
        host.send({"type": "panel_key", "panel_id": "p", "key": "down"})
        host.send({"type": "panel_key", "panel_id": "p", "key": "rune", "text": "q"})
        host.send({"type": "panel_key", "panel_id": "other", "key": "up"})
        host.send({"type": "panel_close", "panel_id": "p"})
        self.assertTrue(closed.wait(DEADLINE))
        self.assertEqual(keys, [("down", ""), ("rune", "q")])

    def test_widgets_when_the_host_offers_them(self):
        ext, _ = new_ext()
        events = []
        done = threading.Event()
        tree = [{"id": "name", "type": "entry", "label": "Name"}]

        @ext.on_panel_event("w")
        def on_event(widget, event, value):
            events.append((widget, event, value))
            done.set()

        @ext.command("form")
        def form(args):
            return zotext.open_panel("w", "Form", ["fallback"], widgets=tree)

        host = self.start(ext, caps=("call_tool", "panels", "panel_widgets"))
        host.send({"type": "command_invoked", "id": "c", "name": "form", "args": ""})
        r = host.expect("command_response", id="c")
        self.assertEqual(r["open_panel"]["widgets"], tree)
        self.assertNotIn("lines", r["open_panel"])
        host.send({"type": "panel_event", "panel_id": "w", "widget_id": "name",
                   "event": "submit", "value": "milk"})
        self.assertTrue(done.wait(DEADLINE))
        self.assertEqual(events, [("name", "submit", "milk")])

    def test_notes_and_submit(self):
        ext, _ = new_ext()

        @ext.command("go")
        def go(args):
            ext.notify("warn", "careful")
            ext.clear_notes()
            ext.submit("submitted " + args)
            ext.submit_slash("/other x")
            return zotext.noop()

        host = self.start(ext)
        host.send({"type": "command_invoked", "id": "g", "name": "go", "args": "a"})
        host.expect("command_response", id="g")
        self.assertEqual([f for f in host.seen if f["type"] != "command_response"], [
            {"type": "notify", "level": "warn", "message": "careful"},
            {"type": "clear_notes"},
            {"type": "submit", "text": "submitted a"},
            {"type": "submit_slash", "text": "/other x"},
        ])


if __name__ == "__main__":
    unittest.main()
