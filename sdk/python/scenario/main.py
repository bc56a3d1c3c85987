#!/usr/bin/env python3
"""scenario-python: the shared SDK scenario (sdk/SCENARIO.md) written with
zotext, the Python SDK, which it imports from the folder above."""

import os
import queue
import sys
import threading

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

import zotext  # noqa: E402

ext = zotext.Extension("scenario-python", "1.0.0")

OBJECT = {"type": "object"}


@ext.tool("sc_echo", "Echo the text back",
          {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]})
def sc_echo(args):
    return zotext.text_result(args.get("text", ""))


@ext.tool("sc_add", "Add two numbers",
          {"type": "object", "properties": {"a": {"type": "number"}, "b": {"type": "number"}},
           "required": ["a", "b"]},
          output_schema={"type": "object", "properties": {"sum": {"type": "number"}}},
          namespace="scenario", namespace_description="Scenario arithmetic", exposure="codemode")
def sc_add(args):
    total = args["a"] + args["b"]
    return zotext.structured_result({"sum": total}, str(total))


@ext.tool("sc_fail", "Always fails", OBJECT)
def sc_fail(args):
    return zotext.text_error_result("sc_fail always fails")


@ext.tool("sc_progress", "Reports progress", OBJECT, read_only=True)
def sc_progress(args, ctx):
    ctx.progress("sc_progress half way")
    return "sc_progress done"


@ext.tool("sc_panic", "Raises", OBJECT)
def sc_panic(args):
    raise RuntimeError("sc_panic raised on purpose")


@ext.tool("sc_wait", "Waits until cancelled", OBJECT)
def sc_wait(args, ctx):
    ext.notify("info", "sc_wait started")
    ctx.wait()
    return zotext.text_error_result("cancelled")


@ext.tool("sc_nested", "Reads a file through the host's read tool",
          {"type": "object", "properties": {"path": {"type": "string"}}})
def sc_nested(args, ctx):
    try:
        reply = ext.call_tool("read", {"path": args.get("path") or "scenario.txt"}, key="k1")
    except zotext.CallToolError as e:
        return zotext.text_error_result("nested failed: %s" % e)
    if reply.is_error:
        return zotext.text_error_result("nested failed: %s" % reply.text)
    return zotext.text_result("nested: " + reply.text)


# One question at a time: the panel id is fixed by the scenario.
asked = {"answers": None}
asked_lock = threading.Lock()


def answer(value):
    with asked_lock:
        q = asked["answers"]
    if q is not None:
        q.put(value)


ext.on_panel_key("sc-ask", lambda key, text: answer(key) if key in ("enter", "esc") else None,
                 lambda: answer("close"))


@ext.interactive_tool("sc_ask", "Ask the user a question",
                      {"type": "object", "properties": {"question": {"type": "string"}}})
def sc_ask(args, ctx):
    answers = queue.Queue()
    with asked_lock:
        asked["answers"] = answers
    ctx.on_cancel(lambda: answers.put("cancel"))
    try:
        ext.open_panel("sc-ask", "Question", [args.get("question", "")],
                       "enter answers, esc dismisses")
        got = answers.get()
    finally:
        with asked_lock:
            if asked["answers"] is answers:
                asked["answers"] = None
    if ctx.reason not in ("shutdown", "eof"):  # after those nothing may be sent
        ext.close_panel("sc-ask")
    if got == "enter":
        return zotext.text_result("yes")
    return zotext.text_error_result("dismissed")


@ext.command("sc-prompt", "Prompt hello")
def sc_prompt(args):
    return zotext.prompt("hello " + args)


@ext.command("sc-insert", "Insert the args")
def sc_insert(args):
    return zotext.insert(args)


@ext.command("sc-display", "Display the args")
def sc_display(args):
    return zotext.display("shown: " + args)


@ext.command("sc-noop", "Nothing")
def sc_noop(args):
    return zotext.noop()


@ext.command("sc-error", "An error")
def sc_error(args):
    return zotext.errorf("failed: %s", args)


@ext.command("sc-tool-prompt", "Run sc_echo through the model's path")
def sc_tool_prompt(args):
    return zotext.tool_prompt("sc_echo", {"text": args}, "run echo")


MENU = ["one", "two"]
menu = {"cursor": 0}


def menu_lines():
    return [("> " if i == menu["cursor"] else "  ") + item for i, item in enumerate(MENU)]


@ext.command("sc-panel", "A panel with a cursor")
def sc_panel(args):
    menu["cursor"] = 0
    return zotext.open_panel("sc-panel", "Scenario", menu_lines(), "esc closes")


@ext.on_panel_key("sc-panel")
def sc_panel_key(key, text):
    if key == "down":
        menu["cursor"] = min(menu["cursor"] + 1, len(MENU) - 1)
    elif key == "up":
        menu["cursor"] = max(menu["cursor"] - 1, 0)
    elif key == "esc":
        ext.close_panel("sc-panel")
        return
    else:
        return
    ext.render_panel("sc-panel", "Scenario", menu_lines(), "esc closes")


@ext.command("sc-submit", "Submit a prompt")
def sc_submit(args):
    ext.submit("submitted " + args)
    return zotext.noop()


@ext.on("turn_end")
def turn_end(ev):
    ext.notify("info", "turn ended: " + ev.stop)


@ext.intercept_tool_call
def guard(tool_name, args):
    args = args if isinstance(args, dict) else {}
    if tool_name == "bash" and "rm -rf" in str(args.get("command", "")):
        return zotext.ToolCallDecision(block=True, reason="scenario guard: refused")
    if tool_name == "sc_echo" and args.get("text") == "rewrite":
        return zotext.ToolCallDecision(modified_args={"text": "rewritten"})
    return None


@ext.intercept_before_agent_start
def before_agent_start(ev):
    return ev.system_prompt + "\n(scenario)"


if __name__ == "__main__":
    sys.exit(ext.run())
