#!/usr/bin/env python3
"""ask-user: a zot extension with one interactive tool, ask_user.

The model calls ask_user {"question": ..., "choices": [...]} when it needs
the user to decide. The extension opens a panel in the desktop window with
the question, a button per choice and an entry for an answer of the user's
own, and answers the tool call with what the user picked. The call has no
deadline in the window (the tool is registered with "interactive": true);
it ends when the user answers, when the user closes the panel (the answer
then says so), or when the host cancels it (tool_cancel: the panel closes).

With native widgets ("panel_widgets" in hello_ack) the panel is buttons and
an entry; otherwise it is lines, and the number keys choose. Headless hosts
never send the call: they answer an interactive tool with an error at once.

Protocol: newline-delimited JSON on stdin/stdout (zot protocol version 1).
Python 3 standard library only; diagnostics go to stderr (the log).
"""
import json
import sys
import traceback

NAME = "ask-user"
VERSION = "1.0.0"

TOOL = {
    "type": "register_tool",
    "name": "ask_user",
    "description": ("Ask the user a question and wait for the answer. Give a few short "
                    "choices when you can; the user may also type an answer of their own."),
    "schema": {
        "type": "object",
        "properties": {
            "question": {"type": "string", "description": "The question, one or two sentences"},
            "choices": {"type": "array", "items": {"type": "string"},
                        "description": "Answers to offer as buttons (at most 9)"},
            "allow_free_answer": {"type": "boolean",
                                  "description": "Offer an entry for an answer of the user's own (default true)"},
        },
        "required": ["question"],
    },
    "output_schema": {
        "type": "object",
        "properties": {
            "answer": {"type": ["string", "null"]},
            "choice": {"type": ["integer", "null"]},
            "dismissed": {"type": "boolean"},
        },
    },
    "interactive": True,
}

host_capabilities = set()
questions = {}  # panel id -> {"call": tool_call id, "question", "choices", "free"}


def send(frame):
    sys.stdout.write(json.dumps(frame, separators=(",", ":"), ensure_ascii=False) + "\n")
    sys.stdout.flush()


def log(message):
    sys.stderr.write("ask-user: %s\n" % message)
    sys.stderr.flush()


def answer(call_id, text, structured, is_error=False):
    send({"type": "tool_result", "id": call_id,
          "content": [{"type": "text", "text": text}],
          "structured_content": structured, "is_error": is_error})


def widgets(q):
    tree = [
        {"id": "question", "type": "heading", "text": q["question"], "level": 2},
        {"id": "hint", "type": "text", "style": "dim",
         "text": "The assistant is waiting for your answer."},
    ]
    if q["choices"]:
        tree.append({"id": "choices", "type": "box", "orientation": "vertical", "spacing": 6,
                     "label": "Choices",
                     "children": [{"id": "choice-%d" % i, "type": "button", "label": choice,
                                   "style": "suggested" if i == 0 else "plain"}
                                  for i, choice in enumerate(q["choices"])]})
    if q["free"]:
        tree.append({"id": "answer", "type": "entry", "label": "Your own answer",
                     "placeholder": "Type an answer and press Enter", "submit_label": "Send"})
    if q.get("note"):
        tree.append({"id": "note", "type": "text", "style": "error", "text": q["note"]})
    return tree


def lines(q):
    out = [q["question"], ""]
    for i, choice in enumerate(q["choices"]):
        out.append("  %d  %s" % (i + 1, choice))
    if not q["choices"]:
        out.append("\u001b[2m(no choices: this window cannot take typed answers; press esc)\u001b[0m")
    return out


def panel_body(q):
    body = {"title": "Question", "footer": "Close the panel to skip the question"}
    if "panel_widgets" in host_capabilities:
        body["widgets"] = widgets(q)
    else:
        body["lines"] = lines(q)
        body["footer"] = "1-%d choose · esc skip" % max(len(q["choices"]), 1)
    return body


def finish(panel_id, text, structured):
    q = questions.pop(panel_id, None)
    if q is None:
        return
    answer(q["call"], text, structured)
    send({"type": "panel_close", "panel_id": panel_id})


def chose(panel_id, index):
    q = questions.get(panel_id)
    if q is None or not 0 <= index < len(q["choices"]):
        return
    choice = q["choices"][index]
    finish(panel_id, "The user chose: %s" % choice,
           {"answer": choice, "choice": index, "dismissed": False})


def ask(call_id, args):
    question = args.get("question")
    if not isinstance(question, str) or not question.strip():
        answer(call_id, 'ask_user needs a non-empty "question" string',
               {"answer": None, "choice": None, "dismissed": False}, is_error=True)
        return
    if "panels" not in host_capabilities:
        answer(call_id, "ask_user: this host has no window to ask in",
               {"answer": None, "choice": None, "dismissed": False}, is_error=True)
        return
    choices = args.get("choices")
    choices = [c for c in choices if isinstance(c, str) and c.strip()][:9] if isinstance(choices, list) else []
    free = args.get("allow_free_answer")
    free = free if isinstance(free, bool) else True
    if not choices and "panel_widgets" in host_capabilities:
        free = True  # something must be answerable

    panel_id = "ask-" + call_id
    q = {"call": call_id, "question": question.strip(), "choices": choices, "free": free}
    questions[panel_id] = q
    panel = {"id": panel_id, "tool_call_id": call_id}
    panel.update(panel_body(q))
    send({"type": "open_panel", "panel": panel})


def panel_event(frame):
    panel_id = frame.get("panel_id")
    q = questions.get(panel_id)
    if q is None:
        return
    widget, event, value = frame.get("widget_id"), frame.get("event"), frame.get("value")
    if isinstance(widget, str) and widget.startswith("choice-") and event == "clicked":
        try:
            chose(panel_id, int(widget[len("choice-"):]))
        except ValueError:
            pass
    elif widget == "answer" and event == "submit":
        text = value.strip() if isinstance(value, str) else ""
        if not text:
            q["note"] = "Type an answer first, or pick a choice."
            render = {"type": "panel_render", "panel_id": panel_id}
            render.update(panel_body(q))
            send(render)
            return
        finish(panel_id, "The user answered: %s" % text,
               {"answer": text, "choice": None, "dismissed": False})


def panel_key(frame):
    panel_id = frame.get("panel_id")
    if panel_id not in questions:
        return
    key, text = frame.get("key"), frame.get("text")
    if key == "esc":
        dismissed(panel_id)
        send({"type": "panel_close", "panel_id": panel_id})
    elif key == "rune" and isinstance(text, str) and text.isdigit():
        chose(panel_id, int(text) - 1)


def dismissed(panel_id):
    q = questions.pop(panel_id, None)
    if q is not None:
        answer(q["call"], "The user closed the question without answering.",
               {"answer": None, "choice": None, "dismissed": True})


def cancelled(call_id):
    for panel_id, q in list(questions.items()):
        if q["call"] == call_id:
            del questions[panel_id]  # the host stopped waiting: no answer
            send({"type": "panel_close", "panel_id": panel_id})


def handle(frame):
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
        args = frame.get("args") if isinstance(frame.get("args"), dict) else {}
        if frame.get("name") == "ask_user":
            ask(call_id, args)
        else:
            answer(call_id, "ask-user: unknown tool %r" % (frame.get("name"),),
                   {"answer": None, "choice": None, "dismissed": False}, is_error=True)
    elif kind == "tool_cancel":
        if isinstance(frame.get("id"), str):
            cancelled(frame["id"])
    elif kind == "panel_event":
        panel_event(frame)
    elif kind == "panel_key":
        panel_key(frame)
    elif kind == "panel_close":
        dismissed(frame.get("panel_id"))  # the user closed it in the window
    elif kind == "shutdown":
        send({"type": "shutdown_ack"})
        return False
    return True


def main():
    send({"type": "hello", "name": NAME, "version": VERSION,
          "capabilities": ["tools", "panels", "tool_cancel"]})
    send(TOOL)
    send({"type": "ready"})
    while True:
        raw = sys.stdin.buffer.readline()
        if not raw:
            return 0
        try:
            frame = json.loads(raw.decode("utf-8"))
        except ValueError:
            log("skipping a line that is not JSON")
            continue
        if not isinstance(frame, dict):
            continue
        try:
            if not handle(frame):
                return 0
        except (BrokenPipeError, KeyboardInterrupt):
            raise
        except Exception:
            log("error handling a %r frame:\n%s" % (frame.get("type"), traceback.format_exc()))


if __name__ == "__main__":
    try:
        sys.exit(main())
    except (BrokenPipeError, KeyboardInterrupt):
        sys.exit(0)
