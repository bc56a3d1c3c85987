#!/usr/bin/env python3
"""summarize-file: a zot extension whose tool calls another tool.

    summarize_file {"path": "README.md", "max_lines": 5}   (a tool for the model)
    /summarize PATH                                         (a slash command)

Neither reads the file itself: both ask the host to run its built-in `read`
tool through `call_tool`, and summarise what comes back (lines, words,
Markdown headings, the first lines). The tool passes its own tool_call id as
`parent_id`, so the read is a nested call of the model's call: it goes
through the same interception and approval as the model's calls, and its
lifecycle events have the tool_id "<parent tool_id>/1" and origin_extension
"summarize-file". A command has no tool call above it, so /summarize asks
without a parent.

One thread, no blocking waits: every request to the host is remembered with
what to do when its tool_result comes, and the loop goes on reading frames
meanwhile, so several tool calls (and a command) can be under way at once,
and a tool_cancel or a shutdown is heard while a read is out.

Protocol: newline-delimited JSON on stdin/stdout (zot protocol version 1).
stdout carries frames only; diagnostics go to stderr (the extension's log).
Python 3 standard library only.
"""
import json
import sys

NAME = "summarize-file"
VERSION = "1.0.0"
TOOL = "summarize_file"
COMMAND = "summarize"
DEFAULT_LINES = 5
MAX_LINES = 50
MAX_HEADINGS = 10
# Keeps a summary short whatever the file's lines are like.
MAX_LINE_CHARS = 160

REGISTRATIONS = [
    {"type": "register_command", "name": COMMAND,
     "description": "Summarize a file: /summarize PATH (lines, words, headings, first lines)"},
    {"type": "register_tool", "name": TOOL,
     "description": "Summarize a text file: its line and word counts, its Markdown headings "
                    "and its first lines. Reads the file with the host's read tool.",
     "schema": {"type": "object",
                "properties": {
                    "path": {"type": "string",
                             "description": "The file, relative to the working directory or absolute"},
                    "max_lines": {"type": "integer", "minimum": 0, "maximum": MAX_LINES,
                                  "description": "How many first lines to quote (default %d)"
                                                 % DEFAULT_LINES}},
                "required": ["path"]},
     "output_schema": {"type": "object",
                       "properties": {"path": {"type": "string"},
                                      "lines": {"type": "integer"},
                                      "words": {"type": "integer"},
                                      "headings": {"type": "array", "items": {"type": "string"}},
                                      "complete": {"type": "boolean"}}}},
]

# What the host offered in hello_ack.
host_capabilities = set()
# Our call_tool requests still out: request id -> function taking the tool_result frame.
waiting = {}
# The host's tool calls we are working on: tool_call id -> our request id.
tool_calls = {}
next_request = 0


def log(message):
    print("summarize-file: " + message, file=sys.stderr, flush=True)


def send(frame):
    # Frames are UTF-8 whatever the locale says.
    line = json.dumps(frame, ensure_ascii=False, separators=(",", ":")) + "\n"
    sys.stdout.buffer.write(line.encode("utf-8"))
    sys.stdout.buffer.flush()


def tool_result(call_id, text, structured=None, is_error=False):
    frame = {"type": "tool_result", "id": call_id,
             "content": [{"type": "text", "text": text}], "is_error": is_error}
    if structured is not None:
        frame["structured_content"] = structured
    send(frame)


def call_host_tool(name, args, parent_id, then):
    """Sends call_tool; `then(result_frame)` runs when its tool_result comes."""
    global next_request
    next_request += 1
    request_id = "read-%d" % next_request
    frame = {"type": "call_tool", "id": request_id, "name": name, "args": args}
    if parent_id is not None:
        frame["parent_id"] = parent_id
    waiting[request_id] = then
    send(frame)
    return request_id


def no_call_tool_message():
    return ("summarize-file needs a host that runs tools for extensions: this one did not "
            "offer \"call_tool\" in hello_ack.capabilities")


# ---- the summary ----------------------------------------------------------------

def result_text(frame):
    """The text blocks of a tool_result, joined, and whether it failed."""
    blocks = frame.get("content")
    texts = []
    images = 0
    for block in blocks if isinstance(blocks, list) else []:
        if not isinstance(block, dict):
            continue
        if block.get("type") == "text" and isinstance(block.get("text"), str):
            texts.append(block["text"])
        elif block.get("type") == "image":
            images += 1
    return "".join(texts), images, frame.get("is_error") is True


def split_read_note(text):
    """read ends a partial window with a note ("\\n\\n[Showing lines A-B of N…]"
    or "[Line A of N is longer…]") and answers "[PATH is empty.]" for an empty
    file. Returns the file text, the total line count when the note gave one,
    and the note."""
    if text.startswith("[") and text.endswith(" is empty.]") and "\n" not in text:
        return "", 0, None
    cut = text.rfind("\n\n[")
    note = text[cut + 2:] if cut >= 0 else ""
    if not (note.startswith("[Showing lines ") or note.startswith("[Line ")) or not note.endswith("]"):
        return text, None, None
    words = note.split()
    total = None
    if "of" in words[:-1]:
        number = words[words.index("of") + 1].rstrip(".:]")
        if number.isdigit():
            total = int(number)
    return text[:cut + 1], total, note


def shorten(line):
    line = line.rstrip()
    return line if len(line) <= MAX_LINE_CHARS else line[:MAX_LINE_CHARS - 1] + "…"


def markdown_headings(lines):
    """ATX headings ("# Title"), outside fenced code blocks."""
    headings = []
    fence = None
    for line in lines:
        stripped = line.lstrip()
        if stripped.startswith("```") or stripped.startswith("~~~"):
            if fence is None:
                fence = stripped[:3]
            elif stripped.startswith(fence):
                fence = None
        elif fence is None and line.startswith("#") and line.lstrip("#").startswith(" "):
            headings.append(shorten(line))
    return headings


def summarize(path, text, max_lines, truncated):
    """Returns (summary text, structured content)."""
    body, total, note = split_read_note(text)
    lines = body.splitlines()
    complete = note is None and not truncated
    line_count = total if total is not None else len(lines)
    words = sum(len(line.split()) for line in lines)
    headings = markdown_headings(lines)[:MAX_HEADINGS]

    out = ["%s: %d line%s, %d word%s%s" % (
        path, line_count, "" if line_count == 1 else "s",
        words, "" if words == 1 else "s",
        "" if complete else " in the %d lines read" % len(lines))]
    if headings:
        out.append("Headings:")
        out.extend("  " + heading for heading in headings)
    if max_lines > 0 and lines:
        shown = lines[:max_lines]
        out.append("First %d line%s:" % (len(shown), "" if len(shown) == 1 else "s"))
        out.extend("  " + shorten(line) for line in shown)
    if not complete:
        out.append("(read returned part of the file%s)" % (": " + note if note else ""))

    structured = {"path": path, "lines": line_count, "words": words,
                  "headings": headings, "complete": complete}
    return "\n".join(out), structured


def summary_of(path, max_lines, frame):
    """(ok, text, structured) for the tool_result of a read of `path`."""
    text, images, failed = result_text(frame)
    if failed:
        return False, "cannot summarize %s: %s" % (path, text or "the read failed"), None
    if images and not text:
        return True, "%s is an image; there is no text to summarize" % path, \
            {"path": path, "lines": 0, "words": 0, "headings": [], "complete": True}
    summary, structured = summarize(path, text, max_lines, frame.get("truncated") is True)
    return True, summary, structured


# ---- the tool and the command ---------------------------------------------------

def run_tool(call_id, args):
    path = args.get("path")
    max_lines = args.get("max_lines", DEFAULT_LINES)
    if not isinstance(path, str) or not path.strip():
        tool_result(call_id, 'summarize_file needs a non-empty "path" string', is_error=True)
        return
    if isinstance(max_lines, bool) or not isinstance(max_lines, int) or not 0 <= max_lines <= MAX_LINES:
        tool_result(call_id, '"max_lines" must be an integer from 0 to %d' % MAX_LINES, is_error=True)
        return
    if "call_tool" not in host_capabilities:
        tool_result(call_id, no_call_tool_message(), is_error=True)
        return

    def then(frame):
        tool_calls.pop(call_id, None)
        ok, text, structured = summary_of(path, max_lines, frame)
        tool_result(call_id, text, structured, is_error=not ok)

    # parent_id: this read is a nested call of the host's call_id.
    tool_calls[call_id] = call_host_tool("read", {"path": path}, call_id, then)


def run_command(command_id, args):
    path = args.strip()
    if not path:
        send({"type": "command_response", "id": command_id, "action": "noop",
              "error": "usage: /summarize PATH"})
        return
    if "call_tool" not in host_capabilities:
        send({"type": "command_response", "id": command_id, "action": "noop",
              "error": no_call_tool_message()})
        return

    def then(frame):
        ok, text, _ = summary_of(path, DEFAULT_LINES, frame)
        if ok:
            send({"type": "command_response", "id": command_id, "action": "display", "display": text})
        else:
            send({"type": "command_response", "id": command_id, "action": "noop", "error": text})

    # A command runs outside any tool call: no parent_id.
    call_host_tool("read", {"path": path}, None, then)


def handle(frame):
    """Handles one frame; returns False when the extension should exit."""
    global host_capabilities
    kind = frame.get("type")

    if kind == "hello_ack":
        caps = frame.get("capabilities")
        if isinstance(caps, list):
            host_capabilities = {c for c in caps if isinstance(c, str)}

    elif kind == "tool_call":
        call_id = frame.get("id")
        if not isinstance(call_id, str):
            return True
        args = frame.get("args")
        if not isinstance(args, dict):
            args = {}
        if frame.get("name") != TOOL:
            tool_result(call_id, "summarize-file: unknown tool %r" % (frame.get("name"),), is_error=True)
        else:
            run_tool(call_id, args)

    elif kind == "tool_result":
        # The answer to one of our call_tool requests.
        then = waiting.pop(frame.get("id"), None)
        if then is not None:
            then(frame)

    elif kind == "tool_cancel":
        # The host gave up on a call: stop its read; no answer is expected.
        request_id = tool_calls.pop(frame.get("id"), None)
        if request_id is not None and waiting.pop(request_id, None) is not None:
            send({"type": "call_tool_cancel", "id": request_id})

    elif kind == "command_invoked":
        command_id = frame.get("id")
        if not isinstance(command_id, str):
            return True
        args = frame.get("args")
        name = frame.get("name")
        if not isinstance(name, str) or name.lower() != COMMAND:
            send({"type": "command_response", "id": command_id, "action": "noop",
                  "error": "summarize-file: unknown command %r" % (name,)})
        else:
            run_command(command_id, args if isinstance(args, str) else "")

    elif kind == "shutdown":
        send({"type": "shutdown_ack"})
        return False

    # events and frame types this extension does not know: ignore.
    return True


def main():
    send({"type": "hello", "name": NAME, "version": VERSION,
          "capabilities": ["commands", "tools", "tool_cancel", "call_tool"]})
    for frame in REGISTRATIONS:
        send(frame)
    send({"type": "ready"})

    while True:
        raw = sys.stdin.buffer.readline()
        if not raw:
            return 0  # the host closed our stdin: it is gone, so are we
        try:
            frame = json.loads(raw.decode("utf-8"))
        except ValueError:  # includes UnicodeDecodeError
            log("skipping a line that is not JSON")
            continue
        if not isinstance(frame, dict):
            continue
        if not handle(frame):
            return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except BrokenPipeError:
        sys.exit(0)  # the host went away mid-write
