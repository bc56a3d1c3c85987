#!/usr/bin/env python3
"""ask-user: a zot extension with one interactive tool, ask_user.

The model calls ask_user {"question": ..., "choices": [...]} when it needs
the user to decide. The extension opens a panel in the desktop window with
the question, a button per choice and an entry for an answer of the user's
own, and answers the tool call with what the user picked. The call has no
deadline in the window (the tool is interactive); it ends when the user
answers, when the user closes the panel (the answer then says so), or when
the host cancels it (tool_cancel: the panel closes).

With native widgets ("panel_widgets" in hello_ack) the panel is buttons and
an entry; otherwise it is lines, and the number keys choose. Headless hosts
never send the call: they answer an interactive tool with an error at once.

Written on zotext.py (sdk/python), copied beside this file.
"""
import threading

import zotext

SCHEMA = {
    "type": "object",
    "properties": {
        "question": {"type": "string", "description": "The question, one or two sentences"},
        "choices": {"type": "array", "items": {"type": "string"},
                    "description": "Answers to offer as buttons (at most 9)"},
        "allow_free_answer": {"type": "boolean",
                              "description": "Offer an entry for an answer of the user's own (default true)"},
    },
    "required": ["question"],
}
OUTPUT_SCHEMA = {
    "type": "object",
    "properties": {
        "answer": {"type": ["string", "null"]},
        "choice": {"type": ["integer", "null"]},
        "dismissed": {"type": "boolean"},
    },
}
NO_ANSWER = {"answer": None, "choice": None, "dismissed": False}

ext = zotext.Extension("ask-user", "1.0.0", call_tool=False)


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
    """title, lines, footer, widgets: what the SDK sends depends on whether
    the host offers panel_widgets, and so does the footer."""
    if "panel_widgets" in ext.host.capabilities:
        return "Question", None, "Close the panel to skip the question", widgets(q)
    return "Question", lines(q), "1-%d choose · esc skip" % max(len(q["choices"]), 1), None


class Question:
    """One open question: its panel, and the call it answers once."""

    def __init__(self, ctx, question, choices, free):
        self.ctx = ctx
        self.panel_id = "ask-" + ctx.id
        self.q = {"question": question, "choices": choices, "free": free}
        self.done = threading.Lock()

    def finish(self, text, structured, close=True):
        if not self.done.acquire(blocking=False):
            return  # answered, dismissed or cancelled already
        ext.forget_panel(self.panel_id)
        self.ctx.reply(zotext.structured_result(structured, text))
        if close:
            ext.close_panel(self.panel_id)

    def chose(self, index):
        if 0 <= index < len(self.q["choices"]):
            choice = self.q["choices"][index]
            self.finish("The user chose: %s" % choice, {"answer": choice, "choice": index, "dismissed": False})

    def on_event(self, widget, event, value):
        if widget.startswith("choice-") and event == "clicked":
            try:
                self.chose(int(widget[len("choice-"):]))
            except ValueError:
                pass
        elif widget == "answer" and event == "submit":
            text = value.strip() if isinstance(value, str) else ""
            if not text:
                self.q["note"] = "Type an answer first, or pick a choice."
                title, body, footer, tree = panel_body(self.q)
                ext.render_panel(self.panel_id, title, body, footer, tree)
                return
            self.finish("The user answered: %s" % text, {"answer": text, "choice": None, "dismissed": False})

    def on_key(self, key, text):
        if key == "esc":
            self.dismissed()
            ext.close_panel(self.panel_id)
        elif key == "enter":
            self.chose(0)  # the first choice is the suggested one
        elif key == "rune" and text.isdigit():
            self.chose(int(text) - 1)

    def dismissed(self):
        self.finish("The user closed the question without answering.",
                    {"answer": None, "choice": None, "dismissed": True}, close=False)

    def cancelled(self):
        # The host stopped waiting: no answer, only the panel to close.
        if self.done.acquire(blocking=False):
            ext.forget_panel(self.panel_id)
            if self.ctx.reason == "tool_cancel":
                ext.close_panel(self.panel_id)


@ext.tool("ask_user",
          "Ask the user a question and wait for the answer. Give a few short "
          "choices when you can; the user may also type an answer of their own.",
          SCHEMA, output_schema=OUTPUT_SCHEMA, interactive=True)
def ask_user(args, ctx):
    question = args.get("question")
    if not isinstance(question, str) or not question.strip():
        return zotext.structured_result(NO_ANSWER, 'ask_user needs a non-empty "question" string',
                                        is_error=True)
    if "panels" not in ext.host.capabilities:
        return zotext.structured_result(NO_ANSWER, "ask_user: this host has no window to ask in",
                                        is_error=True)
    choices = args.get("choices")
    choices = [c for c in choices if isinstance(c, str) and c.strip()][:9] if isinstance(choices, list) else []
    free = args.get("allow_free_answer")
    free = free if isinstance(free, bool) else True
    if not choices and "panel_widgets" in ext.host.capabilities:
        free = True  # something must be answerable

    q = Question(ctx, question.strip(), choices, free)
    ext.on_panel_event(q.panel_id)(q.on_event)
    ext.on_panel_key(q.panel_id, q.on_key, q.dismissed)
    ctx.on_cancel(q.cancelled)
    title, body, footer, tree = panel_body(q.q)
    # From this handler the SDK names the call in the panel (tool_call_id).
    ext.open_panel(q.panel_id, title, body, footer, tree)
    return zotext.LATER  # answered from the panel's callbacks


if __name__ == "__main__":
    ext.run()
