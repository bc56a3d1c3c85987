#!/usr/bin/env python3
"""summarize-file: a zot extension whose tool calls another tool.

    summarize_file {"path": "README.md", "max_lines": 5}   (a tool for the model)
    /summarize PATH                                         (a slash command)

Neither reads the file itself: both ask the host to run its built-in `read`
tool through `call_tool`, and summarise what comes back (lines, words,
Markdown headings, the first lines). From the tool's handler the SDK sends
the model's call id as `parent_id`, so the read is a nested call of the
model's call: it goes through the same interception and approval as the
model's calls, and its lifecycle events have the tool_id
"<parent tool_id>/1" and origin_extension "summarize-file". A command has no
tool call above it, so /summarize asks without a parent.

`ext.call_tool` blocks its handler's thread only: the SDK goes on reading
frames meanwhile, so several tool calls (and a command) can be under way at
once, and a tool_cancel (which the SDK passes on as call_tool_cancel) or a
shutdown is heard while a read is out.

Written on zotext.py (sdk/python), copied beside this file.
"""
import zotext

TOOL = "summarize_file"
COMMAND = "summarize"
DEFAULT_LINES = 5
MAX_LINES = 50
MAX_HEADINGS = 10
# Keeps a summary short whatever the file's lines are like.
MAX_LINE_CHARS = 160

NO_CALL_TOOL = ("summarize-file needs a host that runs tools for extensions: this one did not "
                "offer \"call_tool\" in hello_ack.capabilities")

ext = zotext.Extension("summarize-file", "1.0.0")


# ---- the summary ----------------------------------------------------------------

def result_text(result):
    """The text blocks of a read's result, joined, and whether it failed."""
    blocks = result.content
    texts = []
    images = 0
    for block in blocks if isinstance(blocks, list) else []:
        if not isinstance(block, dict):
            continue
        if block.get("type") == "text" and isinstance(block.get("text"), str):
            texts.append(block["text"])
        elif block.get("type") == "image":
            images += 1
    return "".join(texts), images, result.is_error


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


def summary_of(path, max_lines, result):
    """(ok, text, structured) for the CallResult of a read of `path`."""
    text, images, failed = result_text(result)
    if failed:
        return False, "cannot summarize %s: %s" % (path, text or "the read failed"), None
    if images and not text:
        return True, "%s is an image; there is no text to summarize" % path, \
            {"path": path, "lines": 0, "words": 0, "headings": [], "complete": True}
    summary, structured = summarize(path, text, max_lines, result.truncated)
    return True, summary, structured


def read_and_summarize(path, max_lines):
    """(ok, text, structured) of `path` read through the host's read tool."""
    try:
        result = ext.call_tool("read", {"path": path})
    except zotext.CallCancelled:
        raise  # the caller was cancelled: nothing will be sent
    except zotext.CallToolError:
        return False, NO_CALL_TOOL, None
    return summary_of(path, max_lines, result)


@ext.tool(TOOL,
          "Summarize a text file: its line and word counts, its Markdown headings "
          "and its first lines. Reads the file with the host's read tool.",
          {"type": "object",
           "properties": {
               "path": {"type": "string",
                        "description": "The file, relative to the working directory or absolute"},
               "max_lines": {"type": "integer", "minimum": 0, "maximum": MAX_LINES,
                             "description": "How many first lines to quote (default %d)" % DEFAULT_LINES}},
           "required": ["path"]},
          output_schema={"type": "object",
                         "properties": {"path": {"type": "string"},
                                        "lines": {"type": "integer"},
                                        "words": {"type": "integer"},
                                        "headings": {"type": "array", "items": {"type": "string"}},
                                        "complete": {"type": "boolean"}}})
def summarize_file(args):
    path = args.get("path")
    max_lines = args.get("max_lines", DEFAULT_LINES)
    if not isinstance(path, str) or not path.strip():
        return zotext.text_error_result('summarize_file needs a non-empty "path" string')
    if isinstance(max_lines, bool) or not isinstance(max_lines, int) or not 0 <= max_lines <= MAX_LINES:
        return zotext.text_error_result('"max_lines" must be an integer from 0 to %d' % MAX_LINES)
    ok, text, structured = read_and_summarize(path, max_lines)
    return zotext.ToolResult([zotext.text(text)], is_error=not ok, structured_content=structured)


@ext.command(COMMAND, "Summarize a file: /summarize PATH (lines, words, headings, first lines)")
def summarize_command(args):
    path = args.strip()
    if not path:
        return zotext.errorf("usage: /summarize PATH")
    ok, text, _ = read_and_summarize(path, DEFAULT_LINES)
    return zotext.display(text) if ok else zotext.errorf("%s", text)


if __name__ == "__main__":
    ext.run()
