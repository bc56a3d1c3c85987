"""zotext: write zot extensions in Python.

One file, standard library only, Python 3.9 or newer: copy it beside an
extension and ``import zotext``.

An extension is a program that talks newline-delimited JSON with the host
on stdin/stdout (zot protocol version 1). This module owns the read loop,
the ids, cancellation, ``parent_id`` for nested calls, the 4 MiB frame
bound and the shutdown handshake, so an extension only writes handlers::

    import zotext

    ext = zotext.Extension("hello", "1.0.0")

    @ext.tool("greet", "Greet someone", {"type": "object",
              "properties": {"name": {"type": "string"}}})
    def greet(args, ctx):
        return zotext.text_result("hello, " + args.get("name", "world"))

    ext.run()

Tool and command handlers may block: a call runs on the thread that read
it, and a watchdog hands the reading to another thread of a bounded pool
as soon as a handler takes its time, so the read loop goes on.
Interceptors run on their own small pool and are answered within the
host's 5 s whatever they do; lifecycle events and panel callbacks run in
order on one thread of their own. See README.md.
"""

from __future__ import annotations

import base64
import collections
import contextvars
import inspect
import itertools
import json
import os
import queue
import re
import sys
import threading
import time
import traceback
from typing import Any, Callable, Dict, Iterable, List, Optional

__all__ = [
    "Extension", "Invocation", "HostInfo", "Event", "EventResult",
    "BeforeAgentStartEvent", "ToolCallDecision", "TurnStartDecision",
    "AssistantMessageDecision", "ToolResult", "CallResult", "Response",
    "Panel", "text", "image", "image_bytes", "text_result",
    "text_error_result", "structured_result", "prompt", "tool_prompt",
    "insert", "display", "open_panel", "noop", "errorf",
    "reconcile_completed", "reconcile_not_started", "reconcile_unknown",
    "CallToolError", "CallCancelled", "CallTimeout", "FrameTooLarge",
    "MAX_FRAME_BYTES", "PROTOCOL_VERSION", "LATER",
]

PROTOCOL_VERSION = 1
# A frame is the line without its newline; exactly this many bytes is
# still a frame, one more is not (docs/protocol.md, Framing).
MAX_FRAME_BYTES = 4 * 1024 * 1024
# The host allows an interceptor 5 s including its own write; answering
# at 4 s leaves room for a loaded machine.
INTERCEPT_DEADLINE = 4.0
MAX_CALL_KEY_BYTES = 128
# How long a handler may hold the reading thread before another thread
# takes over the reading (see Extension._read_loop).
WATCH_INTERVAL = 0.002

_NAME_RE = re.compile(r"[A-Za-z0-9_-]{1,64}")  # whole string: fullmatch
_NAME_RULE = "^[A-Za-z0-9_-]{1,64}$"
_EXPOSURES = ("direct", "codemode", "deferred", "model-only")
_REPLAYS = ("never", "safe", "idempotent", "reconcile")
_LEVELS = ("info", "success", "warn", "error")
_READ_CHUNK = 1 << 16
_encode_ascii = json.JSONEncoder(separators=(",", ":"), allow_nan=False).encode
_encode_slow = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode
_scan_once = json.JSONDecoder().scan_once


def _no_default(o: Any) -> Any:
    raise TypeError("Object of type %s is not JSON serializable" % type(o).__name__)


try:
    # json.dumps builds the C encoder anew for every call; a frame is
    # small, so that is a good part of its cost. Build it once. No
    # markers: they would be shared between threads; a cycle ends in
    # RecursionError instead.
    _c_encoder = json.encoder.c_make_encoder(  # type: ignore[attr-defined,misc]
        None, _no_default, json.encoder.encode_basestring, None, ":", ",", False, False, False)
except (AttributeError, TypeError):
    _c_encoder = None


def _encode(frame: Any, _join: Callable = "".join) -> str:
    """Compact JSON; TypeError or ValueError for what JSON cannot carry."""
    if _c_encoder is None:
        return _encode_slow(frame)
    try:
        return _join(_c_encoder(frame, 0))
    except RecursionError:
        raise ValueError("a value contains itself (or nests too deep)") from None


def _decode(line: bytes) -> Any:
    """json.loads for one frame, without its encoding detection."""
    s = line.decode("utf-8")
    try:
        obj, end = _scan_once(s, 0)
    except StopIteration:
        end = -1
    if end != len(s):
        return json.loads(s)  # leading/trailing blanks, or the error
    return obj

# The invocation whose handler is running on this thread: call_tool takes
# its parent from here, as the Go SDK takes it from the context.
_current: contextvars.ContextVar = contextvars.ContextVar("zotext_invocation", default=None)


class _Later:
    def __repr__(self) -> str:
        return "zotext.LATER"


# A handler returns LATER to answer afterwards with ctx.reply() from another
# thread (a panel callback, a timer); it then holds no worker meanwhile.
LATER: Any = _Later()


class FrameTooLarge(ValueError):
    """A frame would be larger than the protocol's 4 MiB; it was not sent."""


class CallToolError(Exception):
    """call_tool could not produce a host reply (not a tool failure:
    those come back as a CallResult with is_error set)."""


class CallCancelled(CallToolError):
    """The calling invocation was cancelled, or the extension stops."""


class CallTimeout(CallToolError, TimeoutError):
    """No reply within the timeout given to call_tool."""


# ---------------------------------------------------------------- content


def text(s: str) -> Dict[str, Any]:
    """A text content block."""
    return {"type": "text", "text": s}


def image(mime_type: str, base64_data: str) -> Dict[str, Any]:
    """An image content block from data already in base64."""
    return {"type": "image", "mime_type": mime_type, "data": base64_data}


def image_bytes(mime_type: str, data: bytes) -> Dict[str, Any]:
    """An image content block from raw bytes."""
    return image(mime_type, base64.b64encode(data).decode("ascii"))


class ToolResult:
    """The answer to one tool call.

    ``structured_content`` (any JSON value; None leaves it out) is what
    codemode scripts see when the tool declared an ``output_schema``.
    """

    __slots__ = ("content", "is_error", "activate_tools", "structured_content")

    def __init__(self, content: Optional[List[Dict[str, Any]]] = None, is_error: bool = False,
                 activate_tools: Optional[List[str]] = None, structured_content: Any = None):
        self.content = list(content) if content is not None else []
        self.is_error = bool(is_error)
        self.activate_tools = list(activate_tools) if activate_tools else []
        self.structured_content = structured_content

    def __repr__(self) -> str:
        return "ToolResult(content=%r, is_error=%r, activate_tools=%r, structured_content=%r)" % (
            self.content, self.is_error, self.activate_tools, self.structured_content)


def text_result(s: str) -> ToolResult:
    return ToolResult([text(s)])


def text_error_result(s: str) -> ToolResult:
    return ToolResult([text(s)], is_error=True)


def structured_result(value: Any, text_value: Optional[str] = None, is_error: bool = False) -> ToolResult:
    """A result carrying ``value`` as structured_content; the model sees
    ``text_value``, or the value as compact JSON."""
    if text_value is None:
        text_value = json.dumps(value, separators=(",", ":"), ensure_ascii=False)
    return ToolResult([text(text_value)], is_error=is_error, structured_content=value)


def reconcile_completed(result: ToolResult) -> ToolResult:
    """Answer a reconcile question: the operation happened, and ``result``
    is what it gave."""
    return ToolResult(result.content, result.is_error, result.activate_tools,
                      {"state": "completed"})


def reconcile_not_started() -> ToolResult:
    """Answer a reconcile question: the operation never ran; the host runs it now."""
    return ToolResult([text("not started")], structured_content={"state": "not_started"})


def reconcile_unknown() -> ToolResult:
    """Answer a reconcile question: it cannot be told; the host reports it interrupted."""
    return ToolResult([text("unknown")], structured_content={"state": "unknown"})


class CallResult:
    """The host's reply to call_tool."""

    __slots__ = ("name", "content", "is_error", "truncated", "structured_content", "raw")

    def __init__(self, frame: Dict[str, Any]):
        self.raw = frame
        self.name = frame.get("name", "")
        content = frame.get("content")
        self.content = content if isinstance(content, list) else []
        self.is_error = frame.get("is_error") is True
        self.truncated = frame.get("truncated") is True
        self.structured_content = frame.get("structured_content")

    @property
    def text(self) -> str:
        """The text blocks joined with newlines."""
        return "\n".join(b.get("text", "") for b in self.content
                         if isinstance(b, dict) and b.get("type") == "text")

    def __repr__(self) -> str:
        return "CallResult(name=%r, is_error=%r, truncated=%r, content=%r)" % (
            self.name, self.is_error, self.truncated, self.content)


# --------------------------------------------------------------- commands


class Panel:
    """A panel: ``lines`` (the line form) or ``widgets`` (native controls,
    used only when the host offers ``panel_widgets``)."""

    __slots__ = ("id", "title", "lines", "footer", "widgets")

    def __init__(self, id: str, title: str = "", lines: Optional[List[str]] = None,
                 footer: str = "", widgets: Optional[List[Dict[str, Any]]] = None):
        self.id = id
        self.title = title
        self.lines = list(lines) if lines is not None else None
        self.footer = footer
        self.widgets = widgets


class Response:
    """What the host does after a slash command; build one with prompt(),
    tool_prompt(), insert(), display(), open_panel(), noop() or errorf()."""

    __slots__ = ("action", "prompt", "tool_name", "tool_args", "insert", "display",
                 "open_panel", "error")

    def __init__(self, action: str = "noop", prompt: str = "", tool_name: str = "",
                 tool_args: Optional[Dict[str, Any]] = None, insert: str = "", display: str = "",
                 open_panel: Optional[Panel] = None, error: str = ""):
        self.action = action or "noop"
        self.prompt = prompt
        self.tool_name = tool_name
        self.tool_args = tool_args
        self.insert = insert
        self.display = display
        self.open_panel = open_panel
        self.error = error

    def __repr__(self) -> str:
        return "Response(action=%r, error=%r)" % (self.action, self.error)


def prompt(s: str) -> Response:
    """Submit ``s`` as a user message; the agent runs a turn."""
    return Response("prompt", prompt=s)


def tool_prompt(name: str, args: Dict[str, Any], s: str) -> Response:
    """Submit ``s`` as a user message, then have the host run tool ``name``
    with ``args`` and show its result to the model."""
    if not name or not s:
        return errorf("tool_prompt requires a name and prompt")
    if not isinstance(args, dict):
        return errorf("tool_prompt args must be a JSON object")
    return Response("tool_prompt", prompt=s, tool_name=name, tool_args=args)


def insert(s: str) -> Response:
    return Response("insert", insert=s)


def display(s: str) -> Response:
    return Response("display", display=s)


def open_panel(id: str, title: str = "", lines: Optional[List[str]] = None, footer: str = "",
               widgets: Optional[List[Dict[str, Any]]] = None) -> Response:
    return Response("open_panel", open_panel=Panel(id, title, lines, footer, widgets))


def noop() -> Response:
    return Response("noop")


def errorf(fmt: str, *args: Any) -> Response:
    """An error line in the chat (action noop); ``fmt % args`` like logging."""
    return Response("noop", error=(fmt % args) if args else fmt)


# ------------------------------------------------------ events, intercepts


class HostInfo:
    """What the host said in hello_ack."""

    __slots__ = ("protocol_version", "zot_version", "provider", "model", "cwd",
                 "extension_dir", "data_dir", "capabilities")

    def __init__(self, frame: Optional[Dict[str, Any]] = None):
        f = frame or {}
        self.protocol_version = f.get("protocol_version", 0)
        self.zot_version = _str(f.get("zot_version"))
        self.provider = _str(f.get("provider"))
        self.model = _str(f.get("model"))
        self.cwd = _str(f.get("cwd"))
        self.extension_dir = _str(f.get("extension_dir"))
        self.data_dir = _str(f.get("data_dir"))
        caps = f.get("capabilities")
        self.capabilities = frozenset(c for c in caps if isinstance(c, str)) \
            if isinstance(caps, list) else frozenset()

    def __repr__(self) -> str:
        return "HostInfo(zot_version=%r, capabilities=%r)" % (self.zot_version, sorted(self.capabilities))


def _str(v: Any) -> str:
    return v if isinstance(v, str) else ""


class EventResult:
    """A tool_result event's bounded observation of the output."""

    __slots__ = ("content", "is_error", "truncated")

    def __init__(self, d: Dict[str, Any]):
        c = d.get("content")
        self.content = c if isinstance(c, list) else []
        self.is_error = d.get("is_error") is True
        self.truncated = d.get("truncated") is True


class Event:
    """A lifecycle notification. Fields absent from the frame are "" or 0,
    except ``executed``, ``message_count``, ``token_estimate`` and
    ``result``, which are None when absent (absence differs from zero).
    ``raw`` is the whole frame."""

    __slots__ = ("name", "session_id", "cwd", "sequence", "step", "stop", "error",
                 "tool_id", "tool_name", "tool_args", "tool_args_raw", "tool_preview",
                 "text", "queued", "image_count", "status", "reason", "source",
                 "decision", "stage", "result", "executed", "compaction_id",
                 "message_count", "token_estimate", "agent_id", "agent_run_id",
                 "agent_name", "raw")

    def __init__(self, f: Dict[str, Any]):
        g = f.get
        self.raw = f
        self.name = _str(g("event"))
        self.session_id = _str(g("session_id"))
        self.cwd = _str(g("cwd"))
        self.sequence = _int(g("sequence"))
        self.step = _int(g("step"))
        self.stop = _str(g("stop"))
        self.error = _str(g("error"))
        self.tool_id = _str(g("tool_id"))
        self.tool_name = _str(g("tool_name"))
        self.tool_args = g("tool_args")
        self.tool_args_raw = _str(g("tool_args_raw"))
        self.tool_preview = _str(g("tool_preview"))
        self.text = _str(g("text"))
        self.queued = g("queued") is True
        self.image_count = _int(g("image_count"))
        self.status = _str(g("status"))
        self.reason = _str(g("reason"))
        self.source = _str(g("source"))
        self.decision = _str(g("decision"))
        self.stage = _str(g("stage"))
        r = g("result")
        self.result = EventResult(r) if isinstance(r, dict) else None
        x = g("executed")
        self.executed = x if isinstance(x, bool) else None
        self.compaction_id = _str(g("compaction_id"))
        self.message_count = _opt_int(g("message_count"))
        self.token_estimate = _opt_int(g("token_estimate"))
        self.agent_id = _str(g("agent_id"))
        self.agent_run_id = _str(g("agent_run_id"))
        self.agent_name = _str(g("name"))

    def __repr__(self) -> str:
        return "Event(%r)" % (self.raw,)


def _int(v: Any) -> int:
    return v if isinstance(v, int) and not isinstance(v, bool) else 0


def _opt_int(v: Any) -> Optional[int]:
    return v if isinstance(v, int) and not isinstance(v, bool) else None


class BeforeAgentStartEvent:
    __slots__ = ("system_prompt", "session_id", "agent_run_id", "cwd", "provider", "model", "raw")

    def __init__(self, f: Dict[str, Any]):
        self.raw = f
        self.system_prompt = _str(f.get("system_prompt"))
        self.session_id = _str(f.get("session_id"))
        self.agent_run_id = _str(f.get("agent_run_id"))
        self.cwd = _str(f.get("cwd"))
        self.provider = _str(f.get("provider"))
        self.model = _str(f.get("model"))


class ToolCallDecision:
    """A tool_call interceptor's answer: allow (the default), ``block`` with
    a ``reason`` the model sees, or allow with ``modified_args`` (a dict)."""

    __slots__ = ("block", "reason", "modified_args")

    def __init__(self, block: bool = False, reason: str = "",
                 modified_args: Optional[Dict[str, Any]] = None):
        self.block = block
        self.reason = reason
        self.modified_args = modified_args


class TurnStartDecision:
    __slots__ = ("block", "reason")

    def __init__(self, block: bool = False, reason: str = ""):
        self.block = block
        self.reason = reason


class AssistantMessageDecision:
    """``block`` suppresses the message; ``replace_text`` changes what the
    user sees (the transcript keeps the original)."""

    __slots__ = ("block", "reason", "replace_text")

    def __init__(self, block: bool = False, reason: str = "", replace_text: str = ""):
        self.block = block
        self.reason = reason
        self.replace_text = replace_text


# ------------------------------------------------------------ invocations


class _CallSlot:
    __slots__ = ("event", "frame", "error")

    def __init__(self) -> None:
        self.event = threading.Event()
        self.frame: Optional[Dict[str, Any]] = None
        self.error: Optional[CallToolError] = None


class Invocation:
    """One call of a tool or command handler.

    ``cancelled`` is a threading.Event set by tool_cancel, shutdown or the
    host's end of input; ``reason`` then says which. Once it is set no reply
    goes out, whatever the handler returns.
    """

    __slots__ = ("_ext", "kind", "id", "name", "args", "frame", "reason", "_lock",
                 "_closed", "_cancelled", "_event", "_callbacks", "_calls", "_activate")

    def __init__(self, ext: "Extension", kind: str, id: str, name: str, args: Any,
                 frame: Dict[str, Any]):
        self._ext = ext
        self.kind = kind  # "tool" or "command"
        self.id = id
        self.name = name
        self.args = args
        self.frame = frame
        self.reason = ""
        self._lock = threading.Lock()
        self._closed = False
        self._cancelled = False
        # Made on first use: most handlers never look, and an Event costs
        # more than the rest of an invocation.
        self._event: Optional[threading.Event] = None
        self._callbacks: Optional[List[Callable[[], Any]]] = None
        self._calls: Optional[set] = None
        self._activate: Optional[List[str]] = None

    @property
    def operation_key(self) -> str:
        """The stable key of an idempotent or reconcile tool's operation."""
        return _str(self.frame.get("operation_key"))

    @property
    def reconcile(self) -> bool:
        """Whether this call asks what became of an interrupted operation."""
        return self.frame.get("reconcile") is True

    @property
    def cancelled(self) -> threading.Event:
        ev = self._event
        if ev is None:
            with self._lock:
                if self._event is None:
                    self._event = threading.Event()
                    if self._cancelled:
                        self._event.set()
                ev = self._event
        return ev

    @property
    def is_cancelled(self) -> bool:
        return self._cancelled

    def wait(self, timeout: Optional[float] = None) -> bool:
        """Wait until cancelled or ``timeout`` seconds pass; True if cancelled."""
        if self._cancelled:
            return True
        if timeout is None or timeout > 0:
            self._ext._release_reading()  # the cancel has to be read
        return self.cancelled.wait(timeout)

    def on_cancel(self, fn: Callable[[], Any]) -> None:
        """Run ``fn`` (on the cancelling thread) when the invocation is
        cancelled; at once if it already is."""
        with self._lock:
            if not self._cancelled:
                if self._callbacks is None:
                    self._callbacks = []
                self._callbacks.append(fn)
                return
        self._run_callback(fn)

    def reply(self, result: Any) -> bool:
        """Answer now (a handler may then return None). Only the first
        answer of a live invocation is sent; later ones, and any after a
        cancellation, are dropped with a log line. Returns whether sent."""
        with self._lock:
            if self._closed:
                why = ("cancelled by %s" % self.reason) if self.reason else "already answered"
                self._ext.log("reply to finished %s %r (%s) dropped", self.kind, self.id, why)
                return False
            self._closed = True
        self._ext._forget(self)
        if self.kind == "tool":
            self._ext._send_tool_result(self, result)
        else:
            self._ext._send_command_response(self, result)
        return True

    def progress(self, text: str) -> bool:
        """Report progress of this tool call (``tool_progress``): the host
        shows the latest text as the call's status, at most ten a second.
        Returns False, sending nothing, once the call is answered or
        cancelled, or for a command."""
        if not isinstance(text, str):
            raise TypeError("progress text must be a string")
        with self._lock:
            if self._closed or self._cancelled or self.kind != "tool":
                return False
        self._ext._send_quiet({"type": "tool_progress", "id": self.id, "text": text})
        return True

    def _add_call(self, slot: "_CallSlot") -> None:
        with self._lock:
            if self._cancelled:
                raise CallCancelled("the calling %s was cancelled (%s)" % (self.kind, self.reason))
            if self._calls is None:
                self._calls = set()
            self._calls.add(slot)

    def _remove_call(self, slot: "_CallSlot") -> None:
        with self._lock:
            if self._calls is not None:
                self._calls.discard(slot)

    def _cancel(self, reason: str) -> None:
        with self._lock:
            if self._cancelled:
                return
            self.reason = reason
            self._closed = True
            self._cancelled = True
            if self._event is not None:
                self._event.set()
            callbacks, self._callbacks = self._callbacks or [], None
            calls = list(self._calls or ())
        for slot in calls:
            if slot.error is None and slot.frame is None:
                slot.error = CallCancelled("the calling %s was cancelled (%s)" % (self.kind, reason))
            slot.event.set()
        for fn in callbacks:
            self._run_callback(fn)

    def _run_callback(self, fn: Callable[[], Any]) -> None:
        try:
            fn()
        except Exception:
            self._ext.log("on_cancel callback of %r raised:\n%s", self.id, traceback.format_exc())

    def __repr__(self) -> str:
        return "Invocation(%s %r id=%r cancelled=%r)" % (self.kind, self.name, self.id, self.is_cancelled)


def _takes_ctx(fn: Callable, plain: int) -> bool:
    """Whether ``fn`` takes one more positional argument than ``plain``."""
    try:
        params = list(inspect.signature(fn).parameters.values())
    except (TypeError, ValueError):
        return False
    n = 0
    for p in params:
        if p.kind == p.VAR_POSITIONAL:
            return True
        if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD):
            n += 1
    return n > plain


class _Tool:
    __slots__ = ("name", "frame", "fn", "with_ctx", "reconcile")

    def __init__(self, name, frame, fn, reconcile):
        self.name = name
        self.frame = frame
        self.fn = fn
        self.with_ctx = _takes_ctx(fn, 1)
        self.reconcile = reconcile


class _Command:
    __slots__ = ("name", "description", "fn", "with_ctx")

    def __init__(self, name, description, fn):
        self.name = name
        self.description = description
        self.fn = fn
        self.with_ctx = _takes_ctx(fn, 1)


# -------------------------------------------------------------- extension


class Extension:
    """One zot extension: register handlers, then call run().

    ``max_workers`` bounds how many tool and command handlers run at once
    (an interactive tool counts while it waits); more calls wait in order. ``call_tool`` is
    advertised when a tool or command is registered; pass
    ``call_tool=True`` to advertise it anyway (a timer thread that calls
    tools), or False never to.
    """

    def __init__(self, name: str, version: str = "0.0.0", *, max_workers: int = 16,
                 intercept_workers: int = 4, intercept_timeout: float = INTERCEPT_DEADLINE,
                 call_tool: Optional[bool] = None, stderr: Any = None):
        if not isinstance(name, str) or not name:
            raise ValueError("extension name must be a non-empty string")
        if max_workers < 1 or intercept_workers < 1:
            raise ValueError("max_workers and intercept_workers must be at least 1")
        self.name = name
        self.version = version
        self.host = HostInfo()
        self._max_workers = max_workers
        self._intercept_workers = intercept_workers
        self._intercept_timeout = intercept_timeout
        self._want_call_tool = call_tool
        self._stderr = stderr
        self._lock = threading.Lock()
        self._write_lock = threading.Lock()
        self._log_lock = threading.Lock()
        self._commands: Dict[str, _Command] = {}
        self._tools: Dict[str, _Tool] = {}
        self._events: Dict[str, Callable] = {}
        self._intercepts: Dict[str, Callable] = {}
        self._tool_intercept_with_event = False
        self._panel_keys: Dict[str, Callable] = {}
        self._panel_closes: Dict[str, Callable] = {}
        self._panel_events: Dict[str, Callable] = {}
        self._on_hello: Optional[Callable] = None
        self._live: Dict[str, Invocation] = {}
        self._calls: Dict[str, _CallSlot] = {}
        self._call_ids = itertools.count(1)
        self._announced = False
        self._running = False
        self._stopped = False  # no frame goes out any more
        self._write: Optional[Callable[[bytes], None]] = None
        self._pool: Optional[_Pool] = None
        self._ipool: Optional[_Pool] = None
        self._serial: Optional[_Pool] = None
        self._acked = False
        self._loop_done = threading.Event()
        # Handler dispatch (_run_handlers, _watch), under _dlock.
        self._dlock = threading.Lock()
        self._slots = max_workers  # handlers that may still start
        self._pending: "collections.deque" = collections.deque()
        self._inline_seq = 0
        self._inline_on = False
        self._inline_thread = 0
        self._reader_gen = 0
        self._watch_cv = threading.Condition(self._dlock)
        self._watch_sleeping = False
        self._watch_until = 0.0
        self._lines: Any = None
        self._frame_handlers: Dict[str, Callable[[Dict[str, Any]], Any]] = {
            "tool_call": self._on_tool_call,
            "tool_cancel": self._on_tool_cancel,
            "tool_result": self._on_call_result,
            "command_invoked": self._on_command,
            "event": self._on_event,
            "event_intercept": self._on_intercept,
            "panel_key": self._on_panel_key,
            "panel_close": self._on_panel_close,
            "panel_event": self._on_panel_event,
        }

    # ---------------------------------------------------------- logging

    def log(self, fmt: str, *args: Any) -> None:
        """Write a line to stderr (the host's log of this extension).
        stdout carries frames only."""
        msg = (fmt % args) if args else fmt
        line = "[%s] %s\n" % (self.name, msg)
        stream = self._stderr if self._stderr is not None else sys.stderr
        with self._log_lock:
            try:
                stream.write(line)
                stream.flush()
            except (OSError, ValueError):
                pass

    # ----------------------------------------------------- registration

    def on_hello(self, fn: Callable[[HostInfo], Any]) -> Callable:
        """Run ``fn(host)`` after hello_ack, before registrations go out:
        registrations may depend on the host (cwd, model, capabilities)."""
        self._on_hello = fn
        return fn

    def tool(self, name: str, description: str = "", schema: Any = None, *,
             output_schema: Any = None, namespace: Optional[str] = None,
             namespace_description: str = "", namespace_instructions: str = "",
             exposure: Optional[str] = None, deferred: bool = False, interactive: bool = False,
             replay: Optional[str] = None,
             reconcile: Optional[Callable] = None,
             read_only: Optional[bool] = None,
             destructive: Optional[bool] = None) -> Callable[[Callable], Callable]:
        """Decorator: register a tool. The handler is ``fn(args)`` or
        ``fn(args, ctx)`` (``ctx`` an Invocation) and returns a ToolResult
        or a str (a text result). ``schema`` defaults to {"type":"object"}.

        For ``replay="reconcile"``, ``reconcile(args, ctx)`` answers the
        host's question after a crash with reconcile_completed(result),
        reconcile_not_started() or reconcile_unknown() (the default).

        ``read_only`` and ``destructive`` go out as the registration's
        ``annotations``: hints; a destructive tool is never approved by a
        remembered "allow this tool".
        """
        if not isinstance(name, str) or not _NAME_RE.fullmatch(name):
            raise ValueError("tool name %r is invalid: it must match %s" % (name, _NAME_RULE))
        if not isinstance(description, str):
            raise TypeError("tool %r: description must be a string" % name)
        schema = _object_schema(name, "schema", {"type": "object"} if schema is None else schema)
        frame: Dict[str, Any] = {"type": "register_tool", "name": name,
                                 "description": description, "schema": schema}
        if output_schema is not None:
            frame["output_schema"] = _object_schema(name, "output_schema", output_schema)
        if namespace is not None:
            if not isinstance(namespace, str) or not _NAME_RE.fullmatch(namespace):
                raise ValueError("tool %r: namespace %r is invalid: it must match %s"
                                 % (name, namespace, _NAME_RULE))
            frame["namespace"] = namespace
        if namespace_description:
            frame["namespace_description"] = namespace_description
        if namespace_instructions:
            frame["namespace_instructions"] = namespace_instructions
        if exposure is not None:
            if exposure not in _EXPOSURES:
                raise ValueError("tool %r: exposure %r is invalid: it must be one of %s"
                                 % (name, exposure, ", ".join(_EXPOSURES)))
            frame["exposure"] = exposure
        if deferred:
            frame["deferred"] = True
        if interactive:
            frame["interactive"] = True
        if replay is not None:
            if replay not in _REPLAYS:
                raise ValueError("tool %r: replay %r is invalid: it must be one of %s"
                                 % (name, replay, ", ".join(_REPLAYS)))
            frame["replay"] = replay
        annotations: Dict[str, Any] = {}
        for key, value in (("read_only", read_only), ("destructive", destructive)):
            if value is not None:
                if not isinstance(value, bool):
                    raise TypeError("tool %r: %s must be True or False" % (name, key))
                annotations[key] = value
        if annotations:
            frame["annotations"] = annotations
        if reconcile is not None and replay != "reconcile":
            raise ValueError("tool %r: a reconcile function needs replay=\"reconcile\"" % name)

        def register(fn: Callable) -> Callable:
            if not callable(fn):
                raise TypeError("tool %r: handler must be callable" % name)
            with self._lock:
                if name in self._tools:
                    raise ValueError("tool %r is already registered" % name)
                self._tools[name] = _Tool(name, frame, fn, reconcile)
                late = self._announced
            if late:
                self._send_quiet(frame)
            return fn
        return register

    def unregister_tool(self, name: str) -> None:
        """Withdraw a tool registered with tool(): the host drops it from
        the model's list; a call already running finishes. The name may be
        registered again, with another schema."""
        with self._lock:
            if self._tools.pop(name, None) is None:
                raise ValueError("tool %r is not registered" % (name,))
            late = self._announced
        if late:
            self._send_quiet({"type": "unregister_tool", "name": name})

    def unregister_command(self, name: str) -> None:
        """Withdraw a command registered with command() (any case)."""
        bare = name[1:] if isinstance(name, str) and name.startswith("/") else name
        with self._lock:
            command = self._commands.pop(bare.lower(), None) if isinstance(bare, str) else None
            if command is None:
                raise ValueError("command %r is not registered" % (name,))
            late = self._announced
        if late:
            self._send_quiet({"type": "unregister_command", "name": command.name})

    def structured_tool(self, name: str, description: str, schema: Any,
                        output_schema: Any) -> Callable[[Callable], Callable]:
        return self.tool(name, description, schema, output_schema=output_schema)

    def interactive_tool(self, name: str, description: str, schema: Any = None) -> Callable[[Callable], Callable]:
        """A tool that waits for the user (no host reply deadline in the
        window); its handler must end when ``ctx.cancelled`` is set."""
        return self.tool(name, description, schema, interactive=True)

    def deferred_tool(self, name: str, description: str, schema: Any = None) -> Callable[[Callable], Callable]:
        return self.tool(name, description, schema, deferred=True)

    def command(self, name: str, description: str = "") -> Callable[[Callable], Callable]:
        """Decorator: register a slash command. The handler is
        ``fn(args)`` or ``fn(args, ctx)`` with ``args`` the text after the
        name, and returns a Response (None: noop)."""
        if not isinstance(name, str):
            raise TypeError("command name must be a string")
        bare = name[1:] if name.startswith("/") else name
        if (not bare or len(bare) > 64 or bare.startswith("-")
                or any(c.isspace() or not c.isprintable() for c in bare)):
            raise ValueError("command name %r is invalid: one printable word of at most 64 "
                             "characters, not starting with '-'" % name)
        lower = bare.lower()

        def register(fn: Callable) -> Callable:
            if not callable(fn):
                raise TypeError("command %r: handler must be callable" % bare)
            with self._lock:
                if lower in self._commands:
                    raise ValueError("command %r is already registered (names match "
                                     "case-insensitively)" % bare)
                self._commands[lower] = _Command(bare, description, fn)
                late = self._announced
            if late:
                self._send_quiet({"type": "register_command", "name": bare,
                                  "description": description})
            return fn
        return register

    def on(self, event: str) -> Callable[[Callable], Callable]:
        """Decorator: ``fn(ev)`` for each lifecycle event ``event`` (an
        Event). Handlers run in order on one thread of their own; keep
        them short."""
        if not isinstance(event, str) or not event:
            raise ValueError("event name must be a non-empty string")

        def register(fn: Callable) -> Callable:
            with self._lock:
                self._events[event] = fn
                late = self._announced
            if late:
                self._send_quiet({"type": "subscribe", "events": [event]})
            return fn
        return register

    def _intercept(self, event: str, fn: Callable) -> Callable:
        if not callable(fn):
            raise TypeError("interceptor must be callable")
        with self._lock:
            self._intercepts[event] = fn
            late = self._announced
        if late:
            self._send_quiet({"type": "subscribe", "intercept": [event]})
        return fn

    def intercept_tool_call(self, fn: Callable) -> Callable:
        """Decorator: ``fn(tool_name, args)`` (or ``fn(tool_name, args,
        frame)``) before each tool call. Return None or True to allow,
        False or ``(False, reason)`` or ToolCallDecision(block=True,
        reason=...) to refuse, ToolCallDecision(modified_args={...}) to
        rewrite the arguments. An exception blocks the call."""
        self._tool_intercept_with_event = _takes_ctx(fn, 2)
        return self._intercept("tool_call", fn)

    def intercept_turn_start(self, fn: Callable) -> Callable:
        """Decorator: ``fn(step)`` before each model call; return None or
        a TurnStartDecision."""
        return self._intercept("turn_start", fn)

    def intercept_assistant_message(self, fn: Callable) -> Callable:
        """Decorator: ``fn(text)``; return None or an AssistantMessageDecision."""
        return self._intercept("assistant_message", fn)

    def intercept_before_agent_start(self, fn: Callable) -> Callable:
        """Decorator: ``fn(ev)`` (a BeforeAgentStartEvent) before the first
        model call of a run. Return None to keep the system prompt, or the
        full replacement ("" removes it)."""
        return self._intercept("before_agent_start", fn)

    def on_panel_key(self, panel_id: str, on_key: Optional[Callable] = None,
                     on_close: Optional[Callable] = None) -> Callable:
        """``on_key(key, text)`` for panel_key frames of ``panel_id`` and
        ``on_close()`` when the user closes it. With on_key omitted it is a
        decorator for on_key."""
        def register(fn: Optional[Callable]) -> Optional[Callable]:
            with self._lock:
                if fn is not None:
                    self._panel_keys[panel_id] = fn
                if on_close is not None:
                    self._panel_closes[panel_id] = on_close
            return fn
        if on_key is None and on_close is None:
            return register
        register(on_key)
        return on_key  # type: ignore[return-value]

    def on_panel_close(self, panel_id: str) -> Callable[[Callable], Callable]:
        def register(fn: Callable) -> Callable:
            with self._lock:
                self._panel_closes[panel_id] = fn
            return fn
        return register

    def on_panel_event(self, panel_id: str) -> Callable[[Callable], Callable]:
        """Decorator: ``fn(widget_id, event, value)`` for widget panels."""
        def register(fn: Callable) -> Callable:
            with self._lock:
                self._panel_events[panel_id] = fn
            return fn
        return register

    def forget_panel(self, panel_id: str) -> None:
        """Drop the key, close and event handlers of ``panel_id``."""
        with self._lock:
            self._panel_keys.pop(panel_id, None)
            self._panel_closes.pop(panel_id, None)
            self._panel_events.pop(panel_id, None)

    # ---------------------------------------------------------- sending

    def notify(self, level: str, message: str) -> None:
        """A status note attributed to the extension (never sent to the model)."""
        if level not in _LEVELS:
            raise ValueError("notify level %r is invalid: one of %s" % (level, ", ".join(_LEVELS)))
        self._send({"type": "notify", "level": level, "message": str(message)})

    def clear_notes(self) -> None:
        self._send({"type": "clear_notes"})

    def submit(self, s: str) -> None:
        """Queue ``s`` as a user prompt (the window only; one may be pending)."""
        if not isinstance(s, str) or not s:
            raise ValueError("submit needs a non-empty string")
        self._send({"type": "submit", "text": s})

    def submit_slash(self, s: str) -> None:
        """Run an extension's slash command as if the user typed ``s``."""
        if not isinstance(s, str) or not s.startswith("/") or len(s) < 2:
            raise ValueError("submit_slash text must start with '/' and name a command: %r" % (s,))
        self._send({"type": "submit_slash", "text": s})

    def activate_tools(self, *names: str) -> None:
        """Make deferred tools visible to the model: carried by the result
        of the tool call running on this thread."""
        inv = _current.get()
        if inv is None or inv.kind != "tool":
            raise RuntimeError("activate_tools is called from a tool handler "
                               "(or set ToolResult.activate_tools)")
        for n in names:
            if not isinstance(n, str) or not n:
                raise ValueError("activate_tools: %r is not a tool name" % (n,))
        if inv._activate is None:
            inv._activate = []
        inv._activate.extend(names)

    def open_panel(self, id: str, title: str = "", lines: Optional[List[str]] = None,
                   footer: str = "", widgets: Optional[List[Dict[str, Any]]] = None,
                   tool_call_id: Optional[str] = None) -> None:
        """Open (or update) a panel from anywhere. ``widgets`` are used when
        the host offers panel_widgets, ``lines`` otherwise (derived from
        the widgets when not given). Inside an interactive tool's handler
        the panel names that call (``tool_call_id``), so the window can show
        that the call waits in it."""
        spec = self._panel_spec(Panel(id, title, lines, footer, widgets))
        if tool_call_id is None:
            inv = _current.get()
            tool = self._tools.get(inv.name) if inv is not None and inv.kind == "tool" else None
            if tool is not None and tool.frame.get("interactive"):
                tool_call_id = inv.id  # type: ignore[union-attr]
        if tool_call_id:
            spec["tool_call_id"] = tool_call_id
        self._send({"type": "open_panel", "panel": spec})

    def render_panel(self, panel_id: str, title: str = "", lines: Optional[List[str]] = None,
                     footer: str = "", widgets: Optional[List[Dict[str, Any]]] = None) -> None:
        """Replace a panel's content; an empty title keeps the old one."""
        spec = self._panel_spec(Panel(panel_id, title, lines, footer, widgets))
        spec.pop("id")
        spec["type"] = "panel_render"
        spec["panel_id"] = panel_id
        self._send(spec)

    def close_panel(self, panel_id: str) -> None:
        self._send({"type": "panel_close", "panel_id": panel_id})

    def _panel_spec(self, p: Panel) -> Dict[str, Any]:
        if not isinstance(p.id, str) or not p.id:
            raise ValueError("a panel needs a non-empty string id")
        spec: Dict[str, Any] = {"id": p.id, "title": p.title}
        if p.widgets is not None and "panel_widgets" in self.host.capabilities:
            if not isinstance(p.widgets, list):
                raise TypeError("panel %r: widgets must be a list" % p.id)
            spec["widgets"] = p.widgets
        elif p.lines is not None:
            spec["lines"] = [str(s) for s in p.lines]
        elif p.widgets is not None:
            spec["lines"] = _widget_lines(p.widgets)
        else:
            spec["lines"] = []
        spec["footer"] = p.footer
        return spec

    # ---------------------------------------------------------- call_tool

    def call_tool(self, name: str, args: Optional[Dict[str, Any]] = None, key: Optional[str] = None,
                  timeout: Optional[float] = None, parent: Optional[Invocation] = None) -> CallResult:
        """Run a host tool and return its reply (a CallResult; check
        ``is_error``). Blocks the calling thread; threads may call
        concurrently.

        From a tool handler the call is that invocation's child (its
        ``parent_id``) and is cancelled with it; from another thread pass
        ``parent=ctx``, or copy the context (contextvars.copy_context()).
        ``key`` names the call across replays; it is sent only to hosts
        offering call_tool_durable. ``timeout`` (seconds) cancels the call
        and raises CallTimeout. Raises CallToolError at once when the host
        does not offer call_tool, CallCancelled when the caller is
        cancelled or the extension stops.
        """
        if not isinstance(name, str) or not name:
            raise ValueError("call_tool needs a tool name")
        if args is None:
            args = {}
        if not isinstance(args, dict):
            raise TypeError("call_tool %r: args must be a dict (a JSON object)" % name)
        if key is not None:
            if not isinstance(key, str):
                raise TypeError("call_tool %r: key must be a string" % name)
            kb = key.encode("utf-8", "surrogatepass")
            if not kb or len(kb) > MAX_CALL_KEY_BYTES or "/" in key or "\0" in key:
                raise ValueError("call_tool %r: key %r is invalid: 1 to 128 bytes, no '/' or NUL"
                                 % (name, key))
        if self._stopped:
            raise CallCancelled("the extension is stopping")
        if "call_tool" not in self.host.capabilities:
            raise CallToolError("the host does not offer call_tool")
        inv = parent if parent is not None else _current.get()
        call_id = "call-%d" % next(self._call_ids)
        frame: Dict[str, Any] = {"type": "call_tool", "id": call_id, "name": name, "args": args}
        if inv is not None and inv.kind == "tool":
            frame["parent_id"] = inv.id
        if key is not None and "call_tool_durable" in self.host.capabilities:
            frame["key"] = key
        slot = _CallSlot()
        if inv is not None:
            inv._add_call(slot)
        with self._lock:
            self._calls[call_id] = slot
        try:
            try:
                self._send(frame)
            except FrameTooLarge as e:
                raise CallToolError("call_tool %r: %s" % (name, e)) from None
            self._release_reading()  # the reply has to be read
            if not slot.event.wait(timeout):
                self._send_quiet({"type": "call_tool_cancel", "id": call_id})
                raise CallTimeout("call_tool %r: no reply within %g s" % (name, timeout))
        finally:
            with self._lock:
                self._calls.pop(call_id, None)
            if inv is not None:
                inv._remove_call(slot)
        if slot.frame is not None:
            return CallResult(slot.frame)
        if not self._stopped:
            self._send_quiet({"type": "call_tool_cancel", "id": call_id})
        raise slot.error or CallCancelled("call_tool %r was cancelled" % name)

    # -------------------------------------------------------------- run

    def run(self, reader: Any = None, writer: Any = None) -> int:
        """Speak the protocol until shutdown or the end of input; returns
        the exit status (0). With no arguments it uses stdin/stdout, and
        stdout is then kept for frames: print() and child processes write
        to stderr instead."""
        with self._lock:
            if self._running:
                raise RuntimeError("run() was already called")
            self._running = True
        stdio = reader is None and writer is None
        if stdio:
            sys.stdout.flush()
            out_fd = os.dup(1)
            os.dup2(2, 1)  # stray prints would corrupt the wire
            sys.stdout = sys.stderr
            writer = os.fdopen(out_fd, "wb", buffering=0)
            reader = sys.stdin.buffer
        else:
            if reader is None or writer is None:
                raise ValueError("run() takes both reader and writer, or neither")
        self._write = _writer(writer)
        self._lines = _LineReader(_reader(reader), self.log)
        self._loop_done = threading.Event()
        # One thread more than handlers: the reading moves between them,
        # and at most max_workers of them run handlers at any time.
        self._pool = _Pool(self._max_workers + 1, "zotext-handler")
        self._ipool = _Pool(self._intercept_workers, "zotext-intercept")
        self._serial = _Pool(1, "zotext-events")
        status = 0
        try:
            self._send(self._hello())
            # The reading runs on the pool too (see _read_loop); this
            # thread only waits, so a stuck handler never holds run().
            threading.Thread(target=self._watch, name="zotext-watch", daemon=True).start()
            self._pool.submit(self._read_loop, 0)
            self._loop_done.wait()
        finally:
            self._stop("eof")
            for p in (self._pool, self._ipool, self._serial):
                p.shutdown()
        if stdio:
            # Cancelled handlers get a moment to clean up; one that
            # ignores its cancellation is a daemon thread and does not
            # keep the process alive.
            busy = self._pool.wait_idle(1.0)
            if busy:
                self.log("%d handler(s) still running after stop", busy)
        return status

    def _hello(self) -> Dict[str, Any]:
        with self._lock:
            caps: List[str] = []
            if self._commands:
                caps.append("commands")
            if self._tools:
                caps.append("tools")
            if self._events or self._intercepts:
                caps.append("events")
            if self._commands or self._tools or self._panel_keys or self._panel_closes \
                    or self._panel_events:
                caps.append("panels")
            if self._tools:
                caps.append("tool_cancel")
            want = self._want_call_tool
            if want is None:
                want = bool(self._tools or self._commands)
            if want:
                caps.append("call_tool")
        return {"type": "hello", "name": self.name, "version": self.version, "capabilities": caps}

    def _announce(self) -> None:
        if self._on_hello is not None:
            try:
                self._on_hello(self.host)
            except Exception:
                self.log("on_hello raised:\n%s", traceback.format_exc())
        with self._lock:
            self._announced = True
            frames: List[Dict[str, Any]] = [
                {"type": "register_command", "name": c.name, "description": c.description}
                for c in self._commands.values()]
            frames += [t.frame for t in self._tools.values()]
            sub: Dict[str, Any] = {"type": "subscribe"}
            if self._events:
                sub["events"] = list(self._events)
            if self._intercepts:
                order = ("tool_call", "turn_start", "assistant_message", "before_agent_start")
                sub["intercept"] = [e for e in order if e in self._intercepts]
            if len(sub) > 1:
                frames.append(sub)
        for f in frames:
            self._send_quiet(f)
        self._send({"type": "ready"})

    def _read_loop(self, gen: int = 0) -> None:
        """Read and dispatch frames until shutdown or the end of input.

        A tool or command call runs on the reading thread itself, so a
        call costs no thread switch (Python's lock makes one cost more
        than the rest of a call). The watchdog (_watch) keeps reading from
        waiting on a handler: once one has run for WATCH_INTERVAL, another
        pool thread takes over the reading and this one, when its handler
        returns, leaves. ``gen`` tells which reader this is.
        """
        lines = self._lines
        handlers = self._frame_handlers
        loads = _decode
        try:
            while True:
                line = lines.next()
                if line is None:
                    break
                try:
                    f = loads(line)
                except (ValueError, RecursionError) as e:
                    self.log("line from the host is not JSON (%s), skipped", e)
                    continue
                if not isinstance(f, dict):
                    self.log("line from the host is not a JSON object, skipped")
                    continue
                t = f.get("type")
                if t == "shutdown":
                    self._stop("shutdown")
                    break
                if not self._acked:
                    if t == "hello_ack":
                        self._acked = True
                        self.host = HostInfo(f)
                        self._announce()
                    else:
                        self.log("frame %r before hello_ack ignored", t)
                    continue
                h = handlers.get(t)
                if h is None:
                    if t not in ("hello_ack", "panel_resize"):
                        self.log("unknown frame type %r ignored", t)
                    continue
                try:
                    job = h(f)
                except Exception:
                    self.log("handling a %r frame failed:\n%s", t, traceback.format_exc())
                    continue
                if job is not None and not self._run_handlers(job, gen):
                    return  # the reading moved to another thread
        except BaseException:
            self.log("the read loop failed:\n%s", traceback.format_exc())
        self._stop("eof")
        self._loop_done.set()

    def _run_handlers(self, job: tuple, gen: int) -> bool:
        """Run ``job`` here, then queued jobs while there are any; False
        when this thread stopped being the reader meanwhile."""
        d = self._dlock
        with d:
            if self._slots == 0:
                # max_workers handlers run: queue it for the first to end.
                self._pending.append(job)
                return True
            self._slots -= 1
            self._mark_inline()
        reader = True
        while True:
            try:
                job[0](job[1], job[2])
            except Exception:
                self.log("internal error:\n%s", traceback.format_exc())
            with d:
                # A thread that lost the reading must not touch the new
                # reader's state.
                if reader and self._reader_gen != gen:
                    reader = False
                job = self._pending.popleft() if self._pending else None  # type: ignore[assignment]
                if job is None:
                    if reader:
                        self._inline_on = False
                    self._slots += 1
                    return reader
                if reader:
                    self._mark_inline()

    def _mark_inline(self) -> None:
        """The reader starts a handler (under _dlock)."""
        self._inline_seq += 1
        self._inline_on = True
        self._inline_thread = threading.get_ident()
        if self._watch_sleeping:
            self._watch_cv.notify()

    def _move_reading(self) -> None:
        """Give the reading to a pool thread; the caller holds _dlock and
        the reader runs a handler. At most max_workers handlers run, so
        one of the max_workers + 1 pool threads is free to read."""
        if self._stopped:
            return
        self._reader_gen += 1
        if self._pool.try_submit(self._read_loop, self._reader_gen):  # type: ignore[union-attr]
            self._inline_on = False
        else:
            self._reader_gen -= 1

    def _release_reading(self) -> None:
        """Called before a handler waits (call_tool, ctx.wait): when it runs
        on the reading thread, move the reading now rather than let the
        watchdog find out."""
        if self._inline_on and self._inline_thread == threading.get_ident():
            with self._dlock:
                if self._inline_on and self._inline_thread == threading.get_ident():
                    self._move_reading()

    def _watch(self) -> None:
        """Move the reading away from a handler that takes its time."""
        d = self._dlock
        with d:
            while not self._stopped:
                if not self._inline_on and time.monotonic() > self._watch_until:
                    # Nothing ran lately: sleep until a handler starts.
                    self._watch_sleeping = True
                    self._watch_cv.wait()
                    self._watch_sleeping = False
                    continue
                seq = self._inline_seq
                on = self._inline_on
                self._watch_cv.wait(WATCH_INTERVAL)
                if on and self._inline_on and self._inline_seq == seq:
                    # One handler ran a whole interval on the reader.
                    self._move_reading()
                if self._inline_on or on:
                    self._watch_until = time.monotonic() + 1.0

    def _stop(self, reason: str) -> None:
        """Cancel everything, acknowledge a shutdown, and send nothing more."""
        with self._lock:
            if self._stopped:
                return
            live = list(self._live.values())
            self._live.clear()
            calls = list(self._calls.values())
        for inv in live:
            inv._cancel(reason)
        with self._write_lock:
            if reason == "shutdown" and self._write is not None:
                try:
                    self._write(b'{"type":"shutdown_ack"}\n')
                except OSError as e:
                    self.log("writing shutdown_ack failed: %s", e)
            self._stopped = True
        with self._dlock:
            dropped = len(self._pending)
            self._pending.clear()
            self._watch_cv.notify_all()
        if dropped:
            self.log("%d queued call(s) dropped at stop", dropped)
        for slot in calls:
            if slot.frame is None and slot.error is None:
                slot.error = CallCancelled("the extension is stopping (%s)" % reason)
            slot.event.set()

    # ------------------------------------------------------ inbound frames

    def _on_tool_call(self, f: Dict[str, Any]) -> Optional[tuple]:
        cid = f.get("id")
        name = f.get("name")
        if not isinstance(cid, str) or not cid:
            self.log("tool_call without an id ignored")
            return None
        tool = self._tools.get(name) if isinstance(name, str) else None
        args = f.get("args")
        if args is None:
            args = {}
        inv = Invocation(self, "tool", cid, name if isinstance(name, str) else "", args, f)
        with self._lock:
            if cid in self._live:
                self.log("tool_call %r reuses the id of a running call; ignored", cid)
                return None
            self._live[cid] = inv
        if tool is None:
            inv.reply(text_error_result("no handler for tool %r" % (name,)))
            return None
        return (self._run_tool, inv, tool)

    def _on_tool_cancel(self, f: Dict[str, Any]) -> None:
        cid = f.get("id")
        with self._lock:
            inv = self._live.pop(cid, None) if isinstance(cid, str) else None
        # Unknown and finished ids are normal (a result crossed the cancel).
        if inv is not None:
            inv._cancel("tool_cancel")

    def _on_call_result(self, f: Dict[str, Any]) -> None:
        cid = f.get("id")
        with self._lock:
            slot = self._calls.get(cid) if isinstance(cid, str) else None
        if slot is None:
            self.log("tool_result for unknown or finished call %r dropped", cid)
            return
        if slot.error is None:
            slot.frame = f
        slot.event.set()

    def _on_command(self, f: Dict[str, Any]) -> Optional[tuple]:
        cid = f.get("id")
        name = f.get("name")
        if not isinstance(cid, str) or not cid:
            self.log("command_invoked without an id ignored")
            return None
        args = f.get("args")
        inv = Invocation(self, "command", cid, _str(name), args if isinstance(args, str) else "", f)
        with self._lock:
            if cid in self._live:
                self.log("command_invoked %r reuses the id of a running command; ignored", cid)
                return None
            self._live[cid] = inv
            cmd = self._commands.get(_str(name).lower())
        if cmd is None:
            inv.reply(errorf("no handler for /%s", name))
            return None
        return (self._run_command, inv, cmd)

    def _on_event(self, f: Dict[str, Any]) -> None:
        fn = self._events.get(f.get("event"))  # type: ignore[arg-type]
        if fn is not None:
            self._submit(self._serial, self._run_callback, "event %r" % f.get("event"), fn, Event(f))

    def _on_panel_key(self, f: Dict[str, Any]) -> None:
        fn = self._panel_keys.get(f.get("panel_id"))  # type: ignore[arg-type]
        if fn is not None:
            self._submit(self._serial, self._run_callback, "panel_key",
                         fn, _str(f.get("key")), _str(f.get("text")))

    def _on_panel_close(self, f: Dict[str, Any]) -> None:
        fn = self._panel_closes.get(f.get("panel_id"))  # type: ignore[arg-type]
        if fn is not None:
            self._submit(self._serial, self._run_callback, "panel_close", fn)

    def _on_panel_event(self, f: Dict[str, Any]) -> None:
        fn = self._panel_events.get(f.get("panel_id"))  # type: ignore[arg-type]
        if fn is not None:
            self._submit(self._serial, self._run_callback, "panel_event", fn,
                         _str(f.get("widget_id")), _str(f.get("event")), f.get("value"))

    def _on_intercept(self, f: Dict[str, Any]) -> None:
        iid = f.get("id")
        event = f.get("event")
        fn = self._intercepts.get(event)  # type: ignore[arg-type]
        if fn is None or (event == "before_agent_start" and not isinstance(f.get("system_prompt"), str)):
            self._send_quiet({"type": "event_intercept_response", "id": iid})
            return
        once = _Once()

        def late() -> None:
            if once.take():
                self.log("interceptor for %r took longer than %g s; answered with the default",
                         event, self._intercept_timeout)
                self._send_quiet({"type": "event_intercept_response", "id": iid})
        timer = threading.Timer(self._intercept_timeout, late)
        timer.daemon = True
        timer.start()
        self._submit(self._ipool, self._run_intercept, f, fn, once, timer)

    # -------------------------------------------------------- running them

    def _submit(self, pool: Optional[_Pool], fn: Callable, *args: Any) -> None:
        try:
            pool.submit(self._guard, fn, *args)  # type: ignore[union-attr]
        except RuntimeError:  # the pool is shut down: we are stopping
            pass

    def _guard(self, fn: Callable, *args: Any) -> None:
        try:
            fn(*args)
        except Exception:
            self.log("internal error:\n%s", traceback.format_exc())

    def _run_tool(self, inv: Invocation, tool: _Tool) -> None:
        token = _current.set(inv)
        try:
            if inv.reconcile:
                fn = tool.reconcile
                out = fn(inv.args, inv) if fn is not None else reconcile_unknown()
            elif tool.with_ctx:
                out = tool.fn(inv.args, inv)
            else:
                out = tool.fn(inv.args)
            if out is LATER:
                return
            if out is None:
                if inv._closed:
                    return  # answered through ctx.reply()
                out = text_error_result("%s: the handler returned no result" % tool.name)
        except (Exception, SystemExit) as e:
            if not inv.is_cancelled:
                self.log("tool %r raised:\n%s", tool.name, traceback.format_exc())
            out = text_error_result("%s: %s: %s" % (tool.name, type(e).__name__, e))
        finally:
            _current.reset(token)
        inv.reply(out)

    def _run_command(self, inv: Invocation, cmd: _Command) -> None:
        token = _current.set(inv)
        try:
            out = cmd.fn(inv.args, inv) if cmd.with_ctx else cmd.fn(inv.args)
            if out is LATER:
                return
            if out is None:
                if inv._closed:
                    return
                out = noop()
        except (Exception, SystemExit) as e:
            self.log("command %r raised:\n%s", cmd.name, traceback.format_exc())
            out = errorf("/%s: %s: %s", cmd.name, type(e).__name__, e)
        finally:
            _current.reset(token)
        inv.reply(out)

    def _run_callback(self, what: str, fn: Callable, *args: Any) -> None:
        try:
            fn(*args)
        except Exception:
            self.log("%s handler raised:\n%s", what, traceback.format_exc())

    def _run_intercept(self, f: Dict[str, Any], fn: Callable, once: "_Once",
                       timer: threading.Timer) -> None:
        event = f.get("event")
        resp: Dict[str, Any] = {"type": "event_intercept_response", "id": f.get("id")}
        try:
            if event == "tool_call":
                targs = f.get("tool_args")
                if self._tool_intercept_with_event:
                    out = fn(_str(f.get("tool_name")), targs, f)
                else:
                    out = fn(_str(f.get("tool_name")), targs)
                _tool_decision(out, resp)
            elif event == "turn_start":
                _simple_decision(fn(_int(f.get("step"))), TurnStartDecision, resp)
            elif event == "assistant_message":
                body = _str(f.get("text"))
                out = fn(body)
                _simple_decision(out, AssistantMessageDecision, resp)
                if out is not None and not out.block and out.replace_text and out.replace_text != body:
                    resp["replace_text"] = out.replace_text
            else:  # before_agent_start
                out = fn(BeforeAgentStartEvent(f))
                if out is not None:
                    if not isinstance(out, str):
                        raise TypeError("a before_agent_start interceptor returns a str or None, "
                                        "not %s" % type(out).__name__)
                    resp["system_prompt"] = out
        except Exception as e:
            self.log("interceptor for %r raised:\n%s", event, traceback.format_exc())
            resp = {"type": "event_intercept_response", "id": f.get("id"), "block": True,
                    "reason": "interceptor for %s raised %s: %s" % (event, type(e).__name__, e)}
        timer.cancel()
        if not once.take():
            self.log("interceptor for %r answered after its deadline; dropped", event)
            return
        try:
            self._send(resp)
        except FrameTooLarge as e:
            self.log("interceptor reply for %r dropped: %s; answered with the default", event, e)
            self._send_quiet({"type": "event_intercept_response", "id": f.get("id")})

    # ------------------------------------------------------------- output

    def _send_tool_result(self, inv: Invocation, out: Any) -> None:
        res = _as_tool_result(out)
        if res is None:
            res = text_error_result("%s: the handler returned %s, not a ToolResult"
                                    % (inv.name, type(out).__name__))
        frame: Dict[str, Any] = {"type": "tool_result", "id": inv.id,
                                 "content": res.content, "is_error": res.is_error}
        if res.structured_content is not None:
            frame["structured_content"] = res.structured_content
        activate = res.activate_tools + inv._activate if inv._activate else res.activate_tools
        if activate:
            frame["activate_tools"] = activate
        try:
            self._send(frame)
        except FrameTooLarge as e:
            self.log("result of tool %r (%s) replaced by an error: %s", inv.name, inv.id, e)
            self._send_quiet({"type": "tool_result", "id": inv.id, "is_error": True,
                              "content": [text("%s: the result is too large to send (%s)"
                                               % (inv.name, e))]})
        except (TypeError, ValueError) as e:
            self.log("result of tool %r (%s) is not JSON: %s", inv.name, inv.id, e)
            self._send_quiet({"type": "tool_result", "id": inv.id, "is_error": True,
                              "content": [text("%s: the result cannot be sent as JSON: %s"
                                               % (inv.name, e))]})

    def _send_command_response(self, inv: Invocation, r: Any) -> None:
        if not isinstance(r, Response):
            r = errorf("/%s: the handler returned %s, not a Response", inv.name, type(r).__name__)
        frame: Dict[str, Any] = {"type": "command_response", "id": inv.id, "action": r.action}
        if r.action == "prompt" or r.action == "tool_prompt":
            frame["prompt"] = r.prompt
        if r.action == "tool_prompt":
            frame["tool_name"] = r.tool_name
            frame["tool_args"] = r.tool_args if r.tool_args is not None else {}
        if r.action == "insert":
            frame["insert"] = r.insert
        if r.action == "display":
            frame["display"] = r.display
        if r.open_panel is not None:
            try:
                frame["open_panel"] = self._panel_spec(r.open_panel)
            except (TypeError, ValueError) as e:
                frame = {"type": "command_response", "id": inv.id, "action": "noop",
                         "error": "/%s: %s" % (inv.name, e)}
        if r.error:
            frame["error"] = r.error
        try:
            self._send(frame)
        except (FrameTooLarge, TypeError, ValueError) as e:
            self.log("response of /%s replaced by an error: %s", inv.name, e)
            self._send_quiet({"type": "command_response", "id": inv.id, "action": "noop",
                              "error": "/%s: the response cannot be sent: %s" % (inv.name, e)})

    def _forget(self, inv: Invocation) -> None:
        with self._lock:
            if self._live.get(inv.id) is inv:
                del self._live[inv.id]

    def _send(self, frame: Dict[str, Any]) -> bool:
        """Encode and write one frame; False when nothing may be sent any
        more. Raises FrameTooLarge (and TypeError for values that are not
        JSON) before anything is written."""
        try:
            data = (_encode(frame) + "\n").encode("utf-8")
        except UnicodeEncodeError:  # lone surrogates: escape them instead
            data = (_encode_ascii(frame) + "\n").encode("ascii")
        if len(data) > MAX_FRAME_BYTES + 1:
            raise FrameTooLarge("%d bytes encoded; a frame is at most %d"
                                % (len(data) - 1, MAX_FRAME_BYTES))
        with self._write_lock:
            if self._stopped or self._write is None:
                if self._write is None and not self._stopped:
                    raise RuntimeError("frames are sent once run() has started")
                self.log("%r frame after stop dropped", frame.get("type"))
                return False
            try:
                self._write(data)
            except OSError as e:
                self._stopped = True
                self.log("writing to the host failed (%s); sending nothing more", e)
                return False
        return True

    def _send_quiet(self, frame: Dict[str, Any]) -> None:
        try:
            self._send(frame)
        except (FrameTooLarge, TypeError, ValueError, RuntimeError) as e:
            self.log("%r frame not sent: %s", frame.get("type"), e)


class _Once:
    """Exactly one of the interceptor and its deadline answers."""

    __slots__ = ("_lock", "_taken")

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._taken = False

    def take(self) -> bool:
        with self._lock:
            if self._taken:
                return False
            self._taken = True
            return True


class _Pool:
    """A bounded pool of daemon worker threads, started as needed.

    concurrent.futures.ThreadPoolExecutor would do, but its Future per
    task costs more than the rest of a tool call; nothing here needs a
    Future. Daemon threads: a handler that ignores its cancellation must
    not keep the process alive past shutdown.
    """

    def __init__(self, max_workers: int, name: str):
        self._q: "queue.SimpleQueue" = queue.SimpleQueue()
        self._max = max_workers
        self._name = name
        self._lock = threading.Lock()
        self._threads = 0
        self._free = 0  # idle workers not yet promised a queued task
        self._closed = False
        self._exited = 0
        self._idle = threading.Condition(self._lock)

    def submit(self, fn: Callable, *args: Any) -> None:
        with self._lock:
            if self._closed:
                raise RuntimeError("the pool is shut down")
            if self._free > 0:
                self._free -= 1
                start = False
            else:
                start = self._threads < self._max
                if start:
                    self._threads += 1
        self._q.put((fn, args))
        if start:
            t = threading.Thread(target=self._work, name="%s-%d" % (self._name, self._threads),
                                 daemon=True)
            t.start()

    def try_submit(self, fn: Callable, *args: Any) -> bool:
        """Submit only when a worker takes the task at once; False otherwise."""
        with self._lock:
            if self._closed:
                return False
            if self._free > 0:
                self._free -= 1
                start = False
            elif self._threads < self._max:
                self._threads += 1
                start = True
            else:
                return False
        self._q.put((fn, args))
        if start:
            threading.Thread(target=self._work, name="%s-%d" % (self._name, self._threads),
                             daemon=True).start()
        return True

    def _work(self) -> None:
        get = self._q.get
        while True:
            item = get()
            if item is None:
                with self._lock:
                    self._exited += 1
                    self._idle.notify_all()
                return
            item[0](*item[1])
            with self._lock:
                self._free += 1

    def wait_idle(self, timeout: float) -> int:
        """After shutdown(): wait until every worker left; returns how many
        are still busy."""
        with self._idle:
            self._idle.wait_for(lambda: self._exited >= self._threads, timeout)
            return self._threads - self._exited

    def shutdown(self) -> None:
        """Stop taking tasks; idle workers leave, busy ones after their task."""
        with self._lock:
            self._closed = True
            n = self._threads
        for _ in range(n):
            self._q.put(None)


def _as_tool_result(out: Any) -> Optional[ToolResult]:
    if isinstance(out, ToolResult):
        return out
    if isinstance(out, str):
        return text_result(out)
    return None


def _tool_decision(out: Any, resp: Dict[str, Any]) -> None:
    if out is None or out is True:
        return
    if out is False:
        resp["block"] = True
        return
    if isinstance(out, tuple) and len(out) == 2 and isinstance(out[0], bool):
        if not out[0]:
            resp["block"] = True
            resp["reason"] = str(out[1])
        return
    if isinstance(out, ToolCallDecision):
        if out.block:
            resp["block"] = True
            if out.reason:
                resp["reason"] = out.reason
            return
        if out.modified_args is not None:
            if not isinstance(out.modified_args, dict):
                raise TypeError("modified_args must be a dict (a JSON object), not %s"
                                % type(out.modified_args).__name__)
            resp["modified_args"] = out.modified_args
        return
    raise TypeError("a tool_call interceptor returns None, a bool, (allow, reason) or a "
                    "ToolCallDecision, not %s" % type(out).__name__)


def _simple_decision(out: Any, kind: type, resp: Dict[str, Any]) -> None:
    if out is None:
        return
    if not isinstance(out, kind):
        raise TypeError("the interceptor returns None or a %s, not %s"
                        % (kind.__name__, type(out).__name__))
    if out.block:
        resp["block"] = True
        if out.reason:
            resp["reason"] = out.reason


def _object_schema(tool: str, field: str, schema: Any) -> Dict[str, Any]:
    if isinstance(schema, (str, bytes)):
        try:
            schema = json.loads(schema)
        except ValueError as e:
            raise ValueError("tool %r: %s is not valid JSON: %s" % (tool, field, e)) from None
    if not isinstance(schema, dict):
        raise ValueError("tool %r: %s must be a JSON object (a dict), not %s"
                         % (tool, field, type(schema).__name__))
    try:
        json.dumps(schema)
    except (TypeError, ValueError) as e:
        raise ValueError("tool %r: %s cannot be encoded as JSON: %s" % (tool, field, e)) from None
    return schema


def _widget_lines(widgets: Iterable[Any]) -> List[str]:
    """A plain rendering of a widget tree for hosts without panel_widgets."""
    out: List[str] = []
    for w in widgets:
        if not isinstance(w, dict):
            continue
        t = w.get("type")
        label = _str(w.get("label"))
        if t in ("text", "heading", "code"):
            out.extend(_str(w.get("text")).split("\n"))
        elif t == "button":
            out.append("[ %s ]" % label)
        elif t in ("entry", "textarea"):
            out.append("%s: %s" % (label, _str(w.get("value"))))
        elif t in ("switch", "check"):
            out.append("[%s] %s" % ("x" if w.get("value") is True else " ", label))
        elif t == "dropdown":
            out.append("%s: %s" % (label, w.get("value", "")))
        elif t == "list":
            for r in w.get("rows") or []:
                if isinstance(r, dict):
                    mark = {True: "[x] ", False: "[ ] "}.get(r.get("checked"), "")  # type: ignore[call-overload]
                    out.append("  " + mark + _str(r.get("title")))
        elif t in ("progress", "spinner"):
            out.append(_str(w.get("text")))
        elif t == "separator":
            out.append("")
        elif t == "image":
            out.append("(%s)" % label)
        elif t == "box":
            out.extend(_widget_lines(w.get("children") or []))
    return out


def _reader(reader: Any) -> Callable[[int], bytes]:
    if isinstance(reader, int):
        fd = reader
        return lambda n: os.read(fd, n)
    buf = getattr(reader, "buffer", None)
    if buf is not None:  # a text stream: read its bytes
        reader = buf
    # read1 returns what is there after at most one read(2): a frame is
    # handled as soon as it arrives, never held back to fill a buffer.
    r1 = getattr(reader, "read1", None)
    return r1 if r1 is not None else reader.read


def _writer(writer: Any) -> Callable[[bytes], None]:
    if isinstance(writer, int):
        fd = writer
    else:
        buf = getattr(writer, "buffer", None)
        if buf is not None:
            writer = buf
        try:
            fd = writer.fileno()
        except (AttributeError, OSError, ValueError):
            fd = -1
        if fd >= 0:
            try:
                writer.flush()
            except (OSError, ValueError):
                pass
    if fd >= 0:
        def write_fd(data: bytes) -> None:
            n = os.write(fd, data)
            if n < len(data):  # a pipe may take part of a large frame
                view = memoryview(data)[n:]
                while view:
                    view = view[os.write(fd, view):]
        return write_fd

    def write_stream(data: bytes) -> None:
        writer.write(data)
        writer.flush()
    return write_stream


class _LineReader:
    """Lines of at most MAX_FRAME_BYTES (not counting the newline); a
    longer one is skipped with a log line, never held whole in memory.
    One thread at a time calls next()."""

    def __init__(self, read: Callable[[int], bytes], log: Callable[..., None]):
        self._read = read
        self._log = log
        self._buf = bytearray()
        self._start = 0  # where the unread part of _buf begins
        self._skipping = 0  # bytes of an oversized line dropped so far
        self._eof = False

    def next(self) -> Optional[bytes]:
        """The next line without its newline, or None at the end of input."""
        buf = self._buf
        while True:
            i = buf.find(b"\n", self._start)
            if i >= 0:
                start = self._start
                self._start = i + 1
                end = i
                if end > start and buf[end - 1] == 13:  # "\r\n"
                    end -= 1
                if end - start > MAX_FRAME_BYTES:
                    self._too_long(end - start)
                elif end > start:
                    return bytes(buf[start:end])
                continue
            if self._start:
                del buf[:self._start]
                self._start = 0
            if len(buf) > MAX_FRAME_BYTES + 1:
                self._skipping = len(buf)
                buf.clear()
            if self._eof:
                return None
            try:
                chunk = self._read(_READ_CHUNK)
            except OSError as e:
                self._log("reading from the host failed: %s", e)
                chunk = b""
            if not chunk:
                self._eof = True
                if buf and not self._skipping and len(buf) <= MAX_FRAME_BYTES:
                    line = bytes(buf)
                    buf.clear()
                    return line
                return None
            if self._skipping:
                j = chunk.find(b"\n")
                if j < 0:
                    self._skipping += len(chunk)
                    continue
                self._too_long(self._skipping + j)
                self._skipping = 0
                chunk = chunk[j + 1:]
            buf += chunk

    def _too_long(self, n: int) -> None:
        self._log("skipped a line of %d bytes from the host: a frame is at most %d",
                  n, MAX_FRAME_BYTES)
