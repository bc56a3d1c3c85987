// zotext: the Node SDK for zot extensions (protocol version 1).
//
// One file, no dependencies. An extension builds an Extension, registers
// commands, tools, event handlers and interceptors, then calls run(). The
// SDK owns the wire: the handshake, the read loop, id bookkeeping,
// cancellation, parent_id for nested calls, the 4 MiB frame bound and the
// shutdown handshake. The names follow the Go SDK (`ext` package) in
// Node's idiom: async handlers, AbortSignal for cancellation, camelCase.

import { AsyncLocalStorage } from 'node:async_hooks';
import { Buffer } from 'node:buffer';
import { format } from 'node:util';

/** The protocol's bound on one frame, either direction, in bytes. */
export const MAX_FRAME_BYTES = 4 * 1024 * 1024;

/** Bytes of a durable call key, at most (PROTOCOL.md §5). */
export const MAX_CALL_KEY_BYTES = 128;

// The host waits 5 s for an interceptor's reply (request write included);
// answering a little earlier leaves room for the pipe and the host's own
// scheduling so the SDK's fallback answer is the one that counts.
const DEFAULT_INTERCEPT_TIMEOUT_MS = 4500;

// Frames waiting for the end of the current turn are written at once past
// this many UTF-16 units, so one turn's output never piles up unbounded.
const COALESCE_CHARS = 1 << 20;

const TOOL_NAME_RE = /^[A-Za-z0-9_-]{1,64}$/;
const EXPOSURES = new Set(['direct', 'codemode', 'deferred', 'model-only']);
const REPLAYS = new Set(['never', 'safe', 'idempotent', 'reconcile']);
const INTERCEPT_EVENTS = ['before_agent_start', 'tool_call', 'turn_start', 'assistant_message'];

// The invocation whose handler is running, so that a nested callTool (or
// openPanel, activateTools) made anywhere below it finds its parent without
// the author threading ctx through every function.
const current = new AsyncLocalStorage();

// ---------------------------------------------------------------------------
// Result and response helpers

/** A text content block. */
export function text(s) {
  return { type: 'text', text: String(s) };
}

/** An image content block from base64 data. */
export function image(mimeType, base64Data) {
  return { type: 'image', mimeType, data: base64Data };
}

/** An image content block from raw bytes (Buffer, Uint8Array, ArrayBuffer). */
export function imageBytes(mimeType, bytes) {
  const buf = bytes instanceof ArrayBuffer ? Buffer.from(bytes) : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return { type: 'image', mimeType, data: buf.toString('base64') };
}

/** A successful result with one text block. */
export function textResult(s) {
  return { content: [text(s)], isError: false };
}

/** An error result with one text block. */
export function textErrorResult(s) {
  return { content: [text(s)], isError: true };
}

/**
 * Answers for a `replay: "reconcile"` tool asked, after a crash, what
 * became of an interrupted call (docs/protocol.md, "Continuous mode"):
 * it never started (the host runs it now), it completed with `result`, or
 * nobody can tell (the host records it as interrupted).
 */
export function reconcileNotStarted() {
  return { content: [text('not started')], isError: false, structuredContent: { state: 'not_started' } };
}

export function reconcileCompleted(result) {
  const r = typeof result === 'string' ? textResult(result) : result;
  return { content: r.content, isError: r.isError === true, structuredContent: { state: 'completed' } };
}

export function reconcileUnknown(why = 'unknown') {
  return { content: [text(String(why))], isError: true, structuredContent: { state: 'unknown' } };
}

/** Command response: submit `text` as a user message. */
export function prompt(text) {
  return { action: 'prompt', prompt: String(text) };
}

/**
 * Command response: submit `text` as a user message after the host has run
 * tool `name` with `args` (a plain object) and shown its result to the model.
 */
export function toolPrompt(name, args, text) {
  if (typeof name !== 'string' || name === '' || typeof text !== 'string' || text === '') {
    return errorf('tool_prompt requires a name and prompt');
  }
  if (!isPlainObject(args)) {
    return errorf('tool_prompt args must be a JSON object');
  }
  return { action: 'tool_prompt', prompt: text, toolName: name, toolArgs: args };
}

/** Command response: put `text` into the editor without submitting it. */
export function insert(text) {
  return { action: 'insert', insert: String(text) };
}

/** Command response: show `text` as a one-shot note; no model call. */
export function display(text) {
  return { action: 'display', display: String(text) };
}

/**
 * Command response: open a panel. Either (id, title, lines, footer) as in
 * the Go SDK, or one PanelSpec object (which may carry `widgets`).
 */
export function openPanel(idOrSpec, title, lines, footer) {
  return { action: 'open_panel', openPanel: panelSpec(idOrSpec, title, lines, footer) };
}

/** Command response: nothing to do. */
export function noop() {
  return { action: 'noop' };
}

/** Command response: show an error line (printf-style, util.format). */
export function errorf(fmt, ...args) {
  return { action: 'noop', error: format(fmt, ...args) };
}

// ---------------------------------------------------------------------------
// Internal helpers

function isPlainObject(v) {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

function panelSpec(idOrSpec, title, lines, footer) {
  if (isPlainObject(idOrSpec)) return { ...idOrSpec };
  return { id: idOrSpec, title, lines, footer };
}

function errMessage(err) {
  if (err instanceof Error) return err.message;
  try {
    return String(err);
  } catch {
    return 'unprintable exception';
  }
}

function schemaObject(what, tool, schema) {
  let value = schema;
  if (typeof schema === 'string') {
    try {
      value = JSON.parse(schema);
    } catch (err) {
      throw new TypeError(`zotext: tool "${tool}": ${what} is not valid JSON: ${errMessage(err)}`);
    }
  }
  if (!isPlainObject(value)) {
    throw new TypeError(`zotext: tool "${tool}": ${what} must be a JSON object, got ${Array.isArray(value) ? 'an array' : value === null ? 'null' : typeof value}`);
  }
  return value;
}

// The wire's content block spells mime_type; JS authors write mimeType.
function blockToWire(b) {
  if (b.type === 'text') return { type: 'text', text: typeof b.text === 'string' ? b.text : String(b.text ?? '') };
  if (b.type === 'image') return { type: 'image', mime_type: b.mimeType ?? b.mime_type, data: b.data };
  return b;
}

// Text blocks from text() are already in wire shape; copy only when needed.
function contentToWire(content) {
  for (let i = 0; i < content.length; i++) {
    const b = content[i];
    if (b === null || b.type !== 'text' || typeof b.text !== 'string') return content.map(blockToWire);
  }
  return content;
}

function blockFromWire(b) {
  if (b && b.type === 'image') return { type: 'image', mimeType: b.mime_type, data: b.data };
  return b;
}

function resultFromWire(f) {
  const r = {
    content: Array.isArray(f.content) ? f.content.map(blockFromWire) : [],
    isError: f.is_error === true,
  };
  if (f.truncated !== undefined) r.truncated = f.truncated === true;
  if (f.structured_content !== undefined) r.structuredContent = f.structured_content;
  if (typeof f.name === 'string') r.name = f.name;
  return r;
}

// The event frame's payload in the Go SDK's Event shape, camelCased.
// Fields absent on the wire stay undefined so absence differs from zero.
function eventFromWire(f) {
  return {
    name: f.event,
    sessionId: f.session_id,
    cwd: f.cwd,
    sequence: f.sequence,
    agentRunId: f.agent_run_id,
    queued: f.queued,
    imageCount: f.image_count,
    status: f.status,
    reason: f.reason,
    source: f.source,
    decision: f.decision,
    stage: f.stage,
    result: isPlainObject(f.result) ? resultFromWire(f.result) : undefined,
    executed: f.executed,
    compactionId: f.compaction_id,
    messageCount: f.message_count,
    tokenEstimate: f.token_estimate,
    agentId: f.agent_id,
    agentName: f.name,
    step: f.step,
    stop: f.stop,
    error: f.error,
    toolId: f.tool_id,
    toolName: f.tool_name,
    toolArgs: f.tool_args,
    toolArgsRaw: f.tool_args_raw,
    toolPreview: f.tool_preview,
    text: f.text,
    originExtension: f.origin_extension,
    raw: f,
  };
}

// A line form for hosts without panel_widgets, so one widget tree still
// shows something useful everywhere.
function widgetsToLines(widgets, out = []) {
  if (!Array.isArray(widgets)) return out;
  for (const w of widgets) {
    if (!isPlainObject(w)) continue;
    switch (w.type) {
      case 'text':
      case 'heading':
      case 'code':
        out.push(...String(w.text ?? '').split('\n'));
        break;
      case 'button':
        out.push(`[${w.label ?? w.id}]`);
        break;
      case 'entry':
      case 'textarea':
        out.push(`${w.label ?? w.id}: ${w.value ?? ''}`);
        break;
      case 'switch':
      case 'check':
        out.push(`${w.value ? '[x]' : '[ ]'} ${w.label ?? w.id}`);
        break;
      case 'dropdown':
        out.push(`${w.label ?? w.id}: ${w.value ?? ''}`);
        break;
      case 'list':
        for (const r of Array.isArray(w.rows) ? w.rows : []) {
          out.push(`${r.checked === true ? '[x] ' : r.checked === false ? '[ ] ' : '- '}${r.title ?? r.id}`);
        }
        break;
      case 'progress':
      case 'spinner':
        if (w.text) out.push(String(w.text));
        break;
      case 'separator':
        out.push('');
        break;
      case 'box':
        widgetsToLines(w.children, out);
        break;
      default:
        break;
    }
  }
  return out;
}

class CallToolError extends Error {
  constructor(message, code) {
    super(message);
    this.name = 'CallToolError';
    this.code = code;
  }
}

// The reason a finished call's signal carries (shared: no stack per call).
const FINISHED = new Error('finished');

// One running tool call; it is also the handler's ctx. The AbortController
// is made on first use of ctx.signal, so a handler that never looks at it
// costs none; a cancel before then is remembered and applied on creation.
class Invocation {
  constructor(ext, id, name, frame) {
    this.id = id;
    this.name = name;
    this.operationKey = frame.operation_key;
    this.reconcile = frame.reconcile === true;
    this._ext = ext;
    this._ac = null;
    this._reason = undefined;
    this._replied = false;
    this._activate = null;
    this._children = 0;
  }

  get signal() {
    if (this._ac === null) {
      this._ac = new AbortController();
      if (this._reason !== undefined) this._ac.abort(this._reason);
    }
    return this._ac.signal;
  }

  _abort(reason) {
    if (this._reason !== undefined) return;
    this._reason = reason;
    if (this._ac !== null) this._ac.abort(reason);
  }

  callTool(name, args, options) {
    return this._ext._callTool(name, args, options, this);
  }

  reply(result) {
    this._ext._reply(this, result, true);
  }

  /**
   * Report progress of this running call (`tool_progress`): the host shows
   * the latest text as the call's status, at most ten a second. Returns
   * false, sending nothing, once the call is answered or cancelled.
   */
  progress(text) {
    if (typeof text !== 'string') throw new TypeError('zotext: progress text must be a string');
    if (this._replied || this._reason !== undefined) return false;
    this._ext._send({ type: 'tool_progress', id: this.id, text });
    return true;
  }
}

// ---------------------------------------------------------------------------
// The extension

export class Extension {
  /**
   * @param {string} name the extension's name; should match extension.json
   * @param {string} version
   */
  constructor(name, version) {
    if (typeof name !== 'string' || name === '') throw new TypeError('zotext: extension name must be a non-empty string');
    this.name = name;
    this.version = String(version ?? '');
    /** What hello_ack said; empty until run() has the handshake. */
    this.host = {
      protocolVersion: 0,
      zotVersion: '',
      provider: '',
      model: '',
      cwd: '',
      extensionDir: '',
      dataDir: '',
      capabilities: [],
    };

    this._commands = new Map();
    this._tools = new Map();
    this._events = new Map();
    this._intercepts = {};
    this._panelKeys = new Map();
    this._panelCloses = new Map();
    this._panelEvents = new Map();
    this._onHello = null;
    this._hostCaps = new Set();
    this._interceptTimeoutMs = DEFAULT_INTERCEPT_TIMEOUT_MS;

    this._state = 'idle'; // idle, starting, running, done
    this._live = new Map(); // tool_call id -> invocation
    this._pending = new Map(); // call_tool id -> {resolve, reject, ...}
    this._callSeq = 0;

    this._out = null;
    this._err = process.stderr;
    this._queue = [];
    this._qHead = 0;
    this._blocked = false;
    this._outClosed = false;
    this._sealed = false;
    this._parts = [];
    this._partLen = 0;
    this._skipping = false;
    this._held = null;
    this._starts = [];
    this._onData = this._onData.bind(this);
    this._onDrain = this._onDrain.bind(this);
    this._flushPend = this._flushPend.bind(this);
    this._pendOut = '';
    this._pendScheduled = false;
    this._inData = false;
  }

  // ---- logging -----------------------------------------------------------

  /** Write a line to stderr (the host's log for this extension). */
  log(...args) {
    try {
      this._err.write(`[${this.name}] ${format(...args)}\n`);
    } catch {
      // A closed stderr must not take the extension down.
    }
  }

  // ---- registration ------------------------------------------------------

  /** Run `fn(host)` after hello_ack, before registrations go out. */
  onHello(fn) {
    this._onHello = fn;
    return this;
  }

  /** Register a slash command; `handler(args, ctx)` returns a Response. */
  command(name, description, handler) {
    if (typeof name !== 'string' || name === '' || /\s/.test(name) || name.startsWith('/')) {
      throw new TypeError(`zotext: command name ${JSON.stringify(name)} is invalid: a non-empty word without "/" or spaces`);
    }
    if (typeof handler !== 'function') throw new TypeError(`zotext: command "${name}": handler must be a function`);
    if (this._commands.has(name)) throw new Error(`zotext: command "${name}" is registered twice`);
    this._commands.set(name, { name, description: String(description ?? ''), handler });
    if (this._state === 'running') this._sendRegisterCommand(this._commands.get(name));
    return this;
  }

  /** Register a tool; `handler(args, ctx)` returns a ToolResult (or a string). */
  tool(name, description, schema, handler, options = {}) {
    if (typeof name !== 'string' || !TOOL_NAME_RE.test(name)) {
      throw new TypeError(`zotext: tool name ${JSON.stringify(name)} is invalid: it must match ^[A-Za-z0-9_-]{1,64}$`);
    }
    if (this._tools.has(name)) throw new Error(`zotext: tool "${name}" is registered twice`);
    if (typeof handler !== 'function') throw new TypeError(`zotext: tool "${name}": handler must be a function`);
    if (!isPlainObject(options)) throw new TypeError(`zotext: tool "${name}": options must be an object`);
    const def = {
      type: 'register_tool',
      name,
      description: String(description ?? ''),
      schema: schemaObject('schema', name, schema),
    };
    if (options.outputSchema !== undefined) def.output_schema = schemaObject('outputSchema', name, options.outputSchema);
    for (const [k, wire] of [
      ['namespace', 'namespace'],
      ['namespaceDescription', 'namespace_description'],
      ['namespaceInstructions', 'namespace_instructions'],
    ]) {
      if (options[k] === undefined || options[k] === '') continue;
      if (typeof options[k] !== 'string') throw new TypeError(`zotext: tool "${name}": ${k} must be a string`);
      def[wire] = options[k];
    }
    if (options.exposure !== undefined && options.exposure !== '') {
      if (!EXPOSURES.has(options.exposure)) {
        throw new TypeError(`zotext: tool "${name}": exposure ${JSON.stringify(options.exposure)} is not one of direct, codemode, deferred, model-only`);
      }
      def.exposure = options.exposure;
    }
    if (options.reconcile !== undefined) {
      if (typeof options.reconcile !== 'function') throw new TypeError(`zotext: tool "${name}": reconcile must be a function`);
      if (options.replay !== undefined && options.replay !== 'reconcile') {
        throw new TypeError(`zotext: tool "${name}": a reconcile function needs replay "reconcile", not ${JSON.stringify(options.replay)}`);
      }
      def.replay = 'reconcile';
    }
    if (options.replay !== undefined) {
      if (!REPLAYS.has(options.replay)) {
        throw new TypeError(`zotext: tool "${name}": replay ${JSON.stringify(options.replay)} is not one of never, safe, idempotent, reconcile`);
      }
      def.replay = options.replay;
    }
    if (options.deferred) def.deferred = true;
    if (options.interactive) def.interactive = true;
    for (const [k, wire] of [['readOnly', 'read_only'], ['destructive', 'destructive']]) {
      if (options[k] === undefined) continue;
      if (typeof options[k] !== 'boolean') throw new TypeError(`zotext: tool "${name}": ${k} must be true or false`);
      def.annotations = { ...def.annotations, [wire]: options[k] };
    }
    const entry = { name, def, handler, reconcile: options.reconcile };
    this._tools.set(name, entry);
    if (this._state === 'running') this._send(def);
    return this;
  }

  /**
   * Withdraw a tool: the host drops it from the model's list; a call that
   * runs finishes. The name may be registered again with another schema.
   */
  unregisterTool(name) {
    if (!this._tools.delete(name)) throw new Error(`zotext: tool ${JSON.stringify(name)} is not registered`);
    if (this._state === 'running') this._send({ type: 'unregister_tool', name });
    return this;
  }

  /** Withdraw a command (its name in any case). */
  unregisterCommand(name) {
    const bare = typeof name === 'string' ? name.replace(/^\/+/, '') : '';
    const found = [...this._commands.keys()].find((k) => k.toLowerCase() === bare.toLowerCase());
    if (found === undefined) throw new Error(`zotext: command ${JSON.stringify(name)} is not registered`);
    this._commands.delete(found);
    if (this._state === 'running') this._send({ type: 'unregister_command', name: found });
    return this;
  }

  /** A tool whose `structuredContent` scripts can use (output schema declared). */
  structuredTool(name, description, schema, outputSchema, handler) {
    return this.tool(name, description, schema, handler, { outputSchema });
  }

  /** The Go SDK's ToolWithOptions: options before the handler. */
  toolWithOptions(name, description, schema, options, handler) {
    return this.tool(name, description, schema, handler, options);
  }

  /** A tool that waits for the user (no host reply deadline in the window). */
  interactiveTool(name, description, schema, handler) {
    return this.tool(name, description, schema, handler, { interactive: true });
  }

  /** A tool hidden until a result activates it (activateTools). */
  deferredTool(name, description, schema, handler) {
    return this.tool(name, description, schema, handler, { deferred: true });
  }

  /** Subscribe `fn(event)` to a lifecycle event; several handlers may listen. */
  on(event, fn) {
    if (typeof event !== 'string' || event === '') throw new TypeError('zotext: event name must be a non-empty string');
    if (typeof fn !== 'function') throw new TypeError(`zotext: handler for event "${event}" must be a function`);
    let list = this._events.get(event);
    if (!list) {
      list = [];
      this._events.set(event, list);
      if (this._state === 'running') this._send({ type: 'subscribe', events: [event] });
    }
    list.push(fn);
    return this;
  }

  /**
   * `fn(toolName, args, event)` before each tool call. Return nothing or
   * true to allow, false to block, or {block, reason, modifiedArgs}.
   */
  interceptToolCall(fn) {
    return this._setIntercept('tool_call', fn);
  }

  /** `fn(step, event)` before each model call; return {block, reason} to stop it. */
  interceptTurnStart(fn) {
    return this._setIntercept('turn_start', fn);
  }

  /** `fn(text, event)`; return {block} to hide the text or {replaceText}. */
  interceptAssistantMessage(fn) {
    return this._setIntercept('assistant_message', fn);
  }

  /**
   * `fn(event)` with event.systemPrompt; return the full replacement string,
   * `""` to remove the prompt, or undefined to keep it.
   */
  interceptBeforeAgentStart(fn) {
    return this._setIntercept('before_agent_start', fn);
  }

  _setIntercept(event, fn) {
    if (typeof fn !== 'function') throw new TypeError(`zotext: ${event} interceptor must be a function`);
    const fresh = !this._intercepts[event];
    this._intercepts[event] = fn;
    if (fresh && this._state === 'running') this._send({ type: 'subscribe', intercept: [event] });
    return this;
  }

  /**
   * Time an interceptor may take before the SDK answers for it (allow; the
   * prompt kept for before_agent_start). Under the host's 5 s by default.
   */
  setInterceptTimeout(ms) {
    this._interceptTimeoutMs = ms;
    return this;
  }

  /** Key and close callbacks for a line-form panel. */
  onPanelKey(panelId, onKey, onClose) {
    if (onKey) this._panelKeys.set(panelId, onKey);
    else this._panelKeys.delete(panelId);
    if (onClose) this._panelCloses.set(panelId, onClose);
    else this._panelCloses.delete(panelId);
    return this;
  }

  /** Widget events (`panel_event`) for a widget panel: fn({widgetId, event, value}). */
  onPanelEvent(panelId, fn) {
    if (fn) this._panelEvents.set(panelId, fn);
    else this._panelEvents.delete(panelId);
    return this;
  }

  // ---- frames an extension may send at any time --------------------------

  /** True when hello_ack listed `cap`. */
  hostHas(cap) {
    return this._hostCaps.has(cap);
  }

  /**
   * Open (or update) a panel. (id, title, lines, footer) or a PanelSpec;
   * a spec's `widgets` go out when the host has panel_widgets, lines
   * (given, or derived from the widgets) otherwise. From inside a tool
   * handler the panel is linked to that call (tool_call_id).
   */
  openPanel(idOrSpec, title, lines, footer) {
    const spec = this._panelToWire(panelSpec(idOrSpec, title, lines, footer));
    if (spec.tool_call_id === undefined) {
      const inv = current.getStore();
      if (inv !== undefined) spec.tool_call_id = inv.id;
    }
    return this._send({ type: 'open_panel', panel: spec });
  }

  /** Replace a panel's content; an empty title keeps the old one. */
  renderPanel(idOrSpec, title, lines, footer) {
    const spec = this._panelToWire(panelSpec(idOrSpec, title, lines, footer));
    const frame = { type: 'panel_render', panel_id: spec.id, title: spec.title ?? '' };
    if (spec.widgets !== undefined) frame.widgets = spec.widgets;
    else frame.lines = spec.lines ?? [];
    if (spec.footer !== undefined) frame.footer = spec.footer;
    return this._send(frame);
  }

  /** Close a panel this extension opened. */
  closePanel(panelId) {
    return this._send({ type: 'panel_close', panel_id: panelId });
  }

  /** A status note: level info, success, warn or error. */
  notify(level, message) {
    return this._send({ type: 'notify', level, message: String(message) });
  }

  /** Remove every note this extension pushed. */
  clearNotes() {
    return this._send({ type: 'clear_notes' });
  }

  /** Queue `text` as a user prompt. */
  submit(text) {
    return this._send({ type: 'submit', text: String(text) });
  }

  /** Run an extension's slash command as if typed: "/name args". */
  submitSlash(text) {
    if (typeof text !== 'string' || !text.startsWith('/')) {
      throw new TypeError(`zotext: submitSlash text must start with "/", got ${JSON.stringify(text)}`);
    }
    return this._send({ type: 'submit_slash', text });
  }

  /**
   * Activate deferred tools with the result of the tool call running now
   * (the protocol carries activate_tools inside a tool_result).
   */
  activateTools(...names) {
    const inv = current.getStore();
    if (inv === undefined) {
      throw new Error('zotext: activateTools must be called inside a tool handler (or set ToolResult.activateTools)');
    }
    inv._activate ??= [];
    for (const n of names.flat()) inv._activate.push(String(n));
  }

  /**
   * Call a host tool. Inside a tool handler parent_id is that call's id
   * (found through AsyncLocalStorage; ctx.callTool does the same). The
   * promise resolves with the host's result (check isError) and rejects on
   * a refusal before sending, an abort (signal, the parent's cancellation)
   * or the end of the session.
   */
  callTool(name, args = {}, options = {}) {
    return this._callTool(name, args, options, current.getStore());
  }

  _callTool(name, args, options, inv) {
    if (this._state !== 'running') {
      return Promise.reject(new CallToolError('zotext: callTool before the handshake or after the session ended', 'not_running'));
    }
    if (!this._hostCaps.has('call_tool')) {
      return Promise.reject(new CallToolError('zotext: the host does not offer call_tool', 'unsupported'));
    }
    if (typeof name !== 'string' || name === '') {
      return Promise.reject(new CallToolError('zotext: callTool needs a tool name', 'invalid'));
    }
    if (!isPlainObject(args)) {
      return Promise.reject(new CallToolError(`zotext: callTool "${name}": args must be a JSON object`, 'invalid'));
    }
    const opts = options ?? {};
    const frame = { type: 'call_tool', id: `call-${++this._callSeq}`, name, args };
    let parent = inv;
    if (opts.parentId !== undefined) {
      frame.parent_id = String(opts.parentId);
      parent = this._live.get(frame.parent_id);
    } else if (parent) {
      frame.parent_id = parent.id;
    }
    if (opts.key !== undefined) {
      const key = String(opts.key);
      if (key === '' || Buffer.byteLength(key) > MAX_CALL_KEY_BYTES || key.includes('/') || key.includes('\0')) {
        return Promise.reject(new CallToolError(`zotext: callTool "${name}": key ${JSON.stringify(key)} must be 1 to 128 bytes without "/" or NUL`, 'invalid'));
      }
      // Hosts without durable calls get the request unchanged.
      if (this._hostCaps.has('call_tool_durable')) frame.key = key;
    }
    const signals = [];
    if (opts.signal) signals.push(opts.signal);
    if (parent) signals.push(parent.signal);
    for (const s of signals) {
      if (s.aborted) return Promise.reject(abortError(s, name));
    }
    const line = this._encode(frame);
    if (line === null) {
      return Promise.reject(new CallToolError(`zotext: callTool "${name}": the request is over the 4 MiB frame limit`, 'too_large'));
    }
    const p = { id: frame.id, name, resolve: null, reject: null, signals, onAbort: null, parent, promise: null };
    p.promise = new Promise((resolve, reject) => {
      p.resolve = resolve;
      p.reject = reject;
    });
    if (parent) parent._children++;
    p.onAbort = (ev) => {
      if (!this._pending.has(p.id)) return;
      this._finishPending(p);
      this._send({ type: 'call_tool_cancel', id: p.id });
      // Cut short because its parent has answered: whoever started it is
      // gone, so an unawaited call must not become an unhandled rejection.
      if (ev.target.reason === FINISHED) p.promise.catch(() => {});
      p.reject(abortError(ev.target, name));
    };
    for (const s of signals) s.addEventListener('abort', p.onAbort, { once: true });
    this._pending.set(p.id, p);
    this._write(line);
    return p.promise;
  }

  _finishPending(p) {
    this._pending.delete(p.id);
    if (p.parent) p.parent._children--;
    for (const s of p.signals) s.removeEventListener('abort', p.onAbort);
  }

  // ---- the loop ----------------------------------------------------------

  /**
   * Speak the protocol until shutdown or EOF. Options: input, output,
   * stderr (streams; process stdio by default) and exit (default: true
   * when input is process.stdin — exit 0 once the session ends).
   * Resolves with 'shutdown' or 'eof'.
   */
  run(options = {}) {
    if (this._state !== 'idle') throw new Error('zotext: run() called twice');
    const input = options.input ?? process.stdin;
    this._out = options.output ?? process.stdout;
    this._err = options.stderr ?? process.stderr;
    const exit = options.exit ?? input === process.stdin;
    this._in = input;
    this._state = 'starting';
    if (exit) {
      // The SDK owns this process: a promise some handler forgot to
      // await must not kill the extension (Node's default), only be logged.
      process.on('unhandledRejection', (err) => this.log('unhandled rejection: %s', errMessage(err)));
    }

    return new Promise((resolve) => {
      this._finish = (how) => {
        if (this._state === 'done') return;
        this._state = 'done';
        input.removeListener('data', this._onData);
        input.removeListener('end', onEnd);
        input.removeListener('close', onEnd);
        if (typeof input.pause === 'function') input.pause();
        this._abortAll(how);
        // Nothing may follow shutdown_ack (or go out after EOF): late
        // command responses and panel frames are dropped from here on.
        this._sealed = true;
        this._flush().then(() => {
          this._outClosed = true;
          resolve(how);
          if (exit) process.exit(0);
        });
      };
      const onEnd = () => this._finish('eof');
      this._out.on('error', (err) => {
        this.log('stdout failed: %s', errMessage(err));
        this._outClosed = true;
        this._finish('eof');
      });
      input.on('data', this._onData);
      input.on('end', onEnd);
      input.on('close', onEnd);
      input.on('error', (err) => {
        this.log('stdin failed: %s', errMessage(err));
        onEnd();
      });
      this._send({ type: 'hello', name: this.name, version: this.version, capabilities: this._capabilities() });
    });
  }

  _capabilities() {
    // hello goes out before onHello runs, so an onHello (which may
    // register anything) counts as having registered everything.
    const any = this._onHello !== null;
    const tools = any || this._tools.size > 0;
    const commands = any || this._commands.size > 0;
    const caps = [];
    if (commands) caps.push('commands');
    if (tools) caps.push('tools');
    if (any || this._events.size > 0 || Object.keys(this._intercepts).length > 0) caps.push('events');
    if (commands || tools || this._panelKeys.size > 0 || this._panelEvents.size > 0) caps.push('panels');
    if (tools) caps.push('tool_cancel');
    // Any handler may call host tools, and advertising it costs nothing.
    caps.push('call_tool');
    return caps;
  }

  _onData(chunk) {
    // Frames made while this chunk is handled (synchronous handlers'
    // replies) are written once at the end, without a microtask.
    this._inData = true;
    try {
      this._onChunk(chunk);
    } finally {
      this._inData = false;
      if (!this._pendScheduled) this._flushPend();
    }
  }

  _onChunk(chunk) {
    if (typeof chunk === 'string') chunk = Buffer.from(chunk);
    let start = 0;
    const len = chunk.length;
    while (start <= len && this._state !== 'done') {
      const nl = chunk.indexOf(10, start);
      if (nl === -1) break;
      if (this._skipping) {
        this._skipping = false;
        start = nl + 1;
        continue;
      }
      let line;
      if (this._partLen === 0) {
        if (nl - start > MAX_FRAME_BYTES) {
          this.log('skipped an inbound line of %d bytes: over the 4 MiB frame limit', nl - start);
          start = nl + 1;
          continue;
        }
        line = chunk.toString('utf8', start, nl);
      } else {
        const total = this._partLen + (nl - start);
        if (total > MAX_FRAME_BYTES) {
          this.log('skipped an inbound line of %d bytes: over the 4 MiB frame limit', total);
          this._parts = [];
          this._partLen = 0;
          start = nl + 1;
          continue;
        }
        this._parts.push(chunk.subarray(start, nl));
        line = Buffer.concat(this._parts, total).toString('utf8');
        this._parts = [];
        this._partLen = 0;
      }
      start = nl + 1;
      this._line(line);
    }
    this._runStarts();
    if (start < len && !this._skipping && this._state !== 'done') {
      const rest = len - start;
      if (this._partLen + rest > MAX_FRAME_BYTES) {
        // Drop what we hold and everything up to the next newline, so a
        // runaway line costs at most one frame's worth of memory.
        this.log('skipping an inbound line over the 4 MiB frame limit');
        this._parts = [];
        this._partLen = 0;
        this._skipping = true;
      } else {
        // Copy: a subarray would pin the whole chunk while we wait.
        this._parts.push(Buffer.from(chunk.subarray(start)));
        this._partLen += rest;
      }
    }
  }

  // Handlers of the calls and commands read from one chunk start after
  // the whole chunk has been read (and not at all after shutdown or EOF).
  _runStarts() {
    const starts = this._starts;
    if (starts.length === 0) return;
    this._starts = [];
    if (this._state === 'done') return;
    for (let i = 0; i < starts.length; i++) starts[i]();
  }

  _line(line) {
    if (line.length === 0) return;
    if (this._held) {
      this._held.push(line);
      return;
    }
    let f;
    try {
      f = JSON.parse(line);
    } catch (err) {
      this.log('skipped a malformed line from the host: %s', errMessage(err));
      return;
    }
    if (!isPlainObject(f) || typeof f.type !== 'string') {
      this.log('skipped a line from the host that is not a frame (no "type")');
      return;
    }
    if (this._state === 'starting') {
      if (f.type === 'hello_ack') this._onHelloAck(f);
      else if (f.type === 'shutdown') this._onShutdown();
      else this.log('ignored a %s frame before hello_ack', f.type);
      return;
    }
    switch (f.type) {
      case 'tool_call':
        this._onToolCall(f);
        break;
      case 'tool_result':
        this._onToolResult(f);
        break;
      case 'tool_cancel':
        this._onToolCancel(f);
        break;
      case 'command_invoked':
        this._onCommand(f);
        break;
      case 'event':
        this._onEvent(f);
        break;
      case 'event_intercept':
        this._onIntercept(f);
        break;
      case 'panel_key':
        this._callback('panel_key', this._panelKeys.get(f.panel_id), [f.key, f.text ?? '']);
        break;
      case 'panel_close':
        this._callback('panel_close', this._panelCloses.get(f.panel_id), []);
        break;
      case 'panel_event':
        this._callback('panel_event', this._panelEvents.get(f.panel_id), [
          { panelId: f.panel_id, widgetId: f.widget_id, event: f.event, value: f.value },
        ]);
        break;
      case 'panel_resize':
        break;
      case 'shutdown':
        this._onShutdown();
        break;
      case 'hello_ack':
        break;
      default:
        this.log('ignored an unknown frame type %s', JSON.stringify(f.type));
    }
  }

  _onHelloAck(f) {
    const caps = Array.isArray(f.capabilities) ? f.capabilities.filter((c) => typeof c === 'string') : [];
    this._hostCaps = new Set(caps);
    this.host = {
      protocolVersion: f.protocol_version ?? 0,
      zotVersion: f.zot_version ?? '',
      provider: f.provider ?? '',
      model: f.model ?? '',
      cwd: f.cwd ?? '',
      extensionDir: f.extension_dir ?? '',
      dataDir: f.data_dir ?? '',
      capabilities: caps,
    };
    let pending;
    if (this._onHello) {
      try {
        pending = this._onHello(this.host);
      } catch (err) {
        this.log('onHello failed: %s', errMessage(err));
      }
    }
    if (pending && typeof pending.then === 'function') {
      // Frames that arrive while an async onHello runs wait for it, so
      // handlers it registers see them.
      this._held = [];
      pending
        .catch((err) => this.log('onHello failed: %s', errMessage(err)))
        .then(() => {
          const held = this._held;
          this._held = null;
          if (this._state !== 'starting') return;
          this._announce();
          for (const l of held) {
            if (this._state === 'done') break;
            this._line(l);
          }
          this._runStarts();
        });
      return;
    }
    this._announce();
  }

  _announce() {
    this._state = 'running';
    for (const c of this._commands.values()) this._sendRegisterCommand(c);
    for (const t of this._tools.values()) this._send(t.def);
    const events = [...this._events.keys()];
    const intercept = INTERCEPT_EVENTS.filter((e) => this._intercepts[e]);
    if (events.length > 0 || intercept.length > 0) {
      const sub = { type: 'subscribe' };
      if (events.length > 0) sub.events = events;
      if (intercept.length > 0) sub.intercept = intercept;
      this._send(sub);
    }
    this._send({ type: 'ready' });
  }

  _sendRegisterCommand(c) {
    this._send({ type: 'register_command', name: c.name, description: c.description });
  }

  // ---- tools -------------------------------------------------------------

  _onToolCall(f) {
    const id = f.id;
    if (typeof id !== 'string' || id === '') {
      this.log('ignored a tool_call without an id');
      return;
    }
    if (this._live.has(id)) {
      this.log('ignored a tool_call reusing the live id %s', id);
      return;
    }
    const tool = this._tools.get(f.name);
    if (!tool) {
      this._sendResult(id, String(f.name), textErrorResult(`no handler for tool ${JSON.stringify(f.name)}`));
      return;
    }
    const inv = new Invocation(this, id, tool.name, f);
    this._live.set(id, inv);
    const args = isPlainObject(f.args) ? f.args : {};
    // Started once the rest of this chunk has been read: a tool_cancel
    // sent right behind the call is then already visible on ctx.signal.
    // A reconcile question goes to the tool's reconcile function; an
    // answer of nothing means nobody can tell.
    const asked = inv.reconcile && tool.reconcile !== undefined;
    const handler = asked ? tool.reconcile : tool.handler;
    const done = asked ? (res) => this._reply(inv, res ?? reconcileUnknown(), false) : (res) => this._reply(inv, res, false);
    this._starts.push(() => {
      let r;
      try {
        r = current.run(inv, handler, args, inv);
      } catch (err) {
        this._reply(inv, textErrorResult(`${tool.name}: ${errMessage(err)}`), false);
        return;
      }
      if (r && typeof r.then === 'function') {
        r.then(done, (err) => this._reply(inv, textErrorResult(`${tool.name}: ${errMessage(err)}`), false));
      } else {
        done(r);
      }
    });
  }

  _reply(inv, result, explicit) {
    if (inv._replied) {
      if (explicit || result !== undefined) this.log('dropped a reply to the finished invocation %s (%s)', inv.id, inv.name);
      return;
    }
    inv._replied = true;
    if (this._live.get(inv.id) === inv) this._live.delete(inv.id);
    if (inv._reason !== undefined) {
      this.log('dropped the result of %s (%s): the call was %s', inv.id, inv.name, inv._reason?.message ?? 'cancelled');
      return;
    }
    this._sendResult(inv.id, inv.name, result, inv._activate);
    // Nested calls still running belong to a call that has ended, later
    // ones are refused at once, and a handler still looking at ctx.signal
    // learns that it is over.
    inv._abort(FINISHED);
  }

  _sendResult(id, name, result, activate) {
    let r = result;
    if (typeof r === 'string') r = textResult(r);
    if (!isPlainObject(r) || !Array.isArray(r.content)) {
      r = textErrorResult(`${name}: the handler returned no ToolResult`);
    }
    const frame = { type: 'tool_result', id, content: contentToWire(r.content), is_error: (r.isError ?? r.is_error) === true };
    const sc = r.structuredContent ?? r.structured_content;
    if (sc !== undefined) frame.structured_content = sc;
    let act = r.activateTools ?? r.activate_tools;
    if (activate && activate.length > 0) act = [...(act ?? []), ...activate];
    if (act && act.length > 0) frame.activate_tools = act;
    let line = this._encode(frame);
    if (line === null) {
      const size = this._lastSize;
      this.log('result of %s (%s) is %s bytes, over the 4 MiB frame limit; sent an error result instead', id, name, size);
      line = this._encode({
        type: 'tool_result',
        id,
        content: [{ type: 'text', text: `${name}: result of ${size} bytes is over the 4 MiB frame limit` }],
        is_error: true,
      });
    }
    this._write(line);
  }

  _onToolCancel(f) {
    const inv = this._live.get(f.id);
    // Unknown or finished ids are normal (a cancel racing the reply).
    if (!inv) return;
    inv._abort(new Error('cancelled'));
  }

  _onToolResult(f) {
    const p = this._pending.get(f.id);
    if (!p) return; // an answer to a call we cancelled, or a stray id
    this._finishPending(p);
    p.resolve(resultFromWire(f));
  }

  _abortAll(how) {
    const reason = new Error(how === 'shutdown' ? 'shutdown' : 'the host closed the connection');
    // Pending calls first: the session is over, so no call_tool_cancel
    // goes out for them when their parents abort below.
    for (const p of [...this._pending.values()]) {
      this._finishPending(p);
      // A call nobody awaits any more must not turn the end of the
      // session into an unhandled rejection (and a non-zero exit).
      p.promise.catch(() => {});
      p.reject(new CallToolError(`zotext: callTool "${p.name}": ${reason.message}`, 'closed'));
    }
    for (const inv of this._live.values()) inv._abort(reason);
  }

  _onShutdown() {
    if (this._state === 'done') return;
    // Cancel first so that no handler's reply can slip in after the ack.
    this._abortAll('shutdown');
    this._send({ type: 'shutdown_ack' });
    this._finish('shutdown');
  }

  // ---- commands ----------------------------------------------------------

  _onCommand(f) {
    const id = f.id;
    const c = this._commands.get(f.name);
    if (!c) {
      this._sendCommandResponse(id, errorf('no handler for /%s', f.name));
      return;
    }
    const ctx = { id, name: c.name };
    const args = typeof f.args === 'string' ? f.args : '';
    this._starts.push(() => {
      let r;
      try {
        r = c.handler(args, ctx);
      } catch (err) {
        this._sendCommandResponse(id, errorf('%s: %s', c.name, errMessage(err)));
        return;
      }
      if (r && typeof r.then === 'function') {
        r.then(
          (res) => this._sendCommandResponse(id, res),
          (err) => this._sendCommandResponse(id, errorf('%s: %s', c.name, errMessage(err))),
        );
      } else {
        this._sendCommandResponse(id, r);
      }
    });
  }

  _sendCommandResponse(id, r) {
    const res = r === undefined || r === null ? noop() : r;
    if (!isPlainObject(res)) {
      this._sendCommandResponse(id, errorf('the command handler returned no Response'));
      return;
    }
    const frame = { type: 'command_response', id, action: res.action || 'noop' };
    if (res.prompt !== undefined) frame.prompt = res.prompt;
    if (res.toolName !== undefined) frame.tool_name = res.toolName;
    if (res.toolArgs !== undefined) frame.tool_args = res.toolArgs;
    if (res.insert !== undefined) frame.insert = res.insert;
    if (res.display !== undefined) frame.display = res.display;
    if (res.openPanel !== undefined) frame.open_panel = this._panelToWire(res.openPanel);
    if (res.error) frame.error = res.error;
    if (!this._send(frame)) {
      this._send({ type: 'command_response', id, action: 'noop', error: 'the command response is over the 4 MiB frame limit' });
    }
  }

  _panelToWire(spec) {
    const p = { id: spec.id, title: spec.title ?? '' };
    const useWidgets = spec.widgets !== undefined && this._hostCaps.has('panel_widgets');
    if (useWidgets) p.widgets = spec.widgets;
    else p.lines = spec.lines ?? (spec.widgets !== undefined ? widgetsToLines(spec.widgets) : []);
    if (spec.footer !== undefined) p.footer = spec.footer;
    const link = spec.toolCallId ?? spec.tool_call_id;
    if (link !== undefined) p.tool_call_id = link;
    return p;
  }

  // ---- events and interception -------------------------------------------

  _onEvent(f) {
    const list = this._events.get(f.event);
    if (!list) return;
    const ev = eventFromWire(f);
    for (const fn of list) this._callback(`event ${f.event}`, fn, [ev]);
  }

  // Fire-and-forget callbacks: a throw or a rejection is logged, never fatal.
  _callback(what, fn, args) {
    if (!fn) return;
    try {
      const r = fn(...args);
      if (r && typeof r.then === 'function') r.then(undefined, (err) => this.log('%s handler failed: %s', what, errMessage(err)));
    } catch (err) {
      this.log('%s handler failed: %s', what, errMessage(err));
    }
  }

  _onIntercept(f) {
    const id = f.id;
    const event = f.event;
    const fn = this._intercepts[event];
    if (!fn) {
      this._send({ type: 'event_intercept_response', id });
      return;
    }
    let answered = false;
    let timer = null;
    const answer = (fields) => {
      if (answered) return;
      answered = true;
      if (timer) clearTimeout(timer);
      const frame = { type: 'event_intercept_response', id, ...fields };
      if (!this._send(frame)) this._send({ type: 'event_intercept_response', id });
    };
    const fail = (err) => {
      this.log('%s interceptor failed: %s', event, errMessage(err));
      answer({ block: true, reason: `${this.name}: ${event} interceptor failed: ${errMessage(err)}` });
    };
    const decide = (r) => {
      try {
        answer(this._decision(event, r, f));
      } catch (err) {
        fail(err);
      }
    };
    let r;
    try {
      r = this._runIntercept(event, fn, f);
    } catch (err) {
      fail(err);
      return;
    }
    if (!r || typeof r.then !== 'function') {
      decide(r);
      return;
    }
    timer = setTimeout(() => {
      timer = null;
      if (answered) return;
      this.log('%s interceptor took over %d ms; answered for it (allow, prompt kept)', event, this._interceptTimeoutMs);
      answer({});
    }, this._interceptTimeoutMs);
    r.then(decide, fail);
  }

  _runIntercept(event, fn, f) {
    switch (event) {
      case 'tool_call':
        return fn(f.tool_name, isPlainObject(f.tool_args) ? f.tool_args : {}, {
          toolId: f.tool_id,
          toolName: f.tool_name,
          toolArgs: f.tool_args,
          originExtension: f.origin_extension,
          raw: f,
        });
      case 'turn_start':
        return fn(f.step, { step: f.step, raw: f });
      case 'assistant_message':
        return fn(typeof f.text === 'string' ? f.text : '', { text: f.text, raw: f });
      case 'before_agent_start':
        return fn({
          systemPrompt: typeof f.system_prompt === 'string' ? f.system_prompt : '',
          sessionId: f.session_id,
          agentRunId: f.agent_run_id,
          cwd: f.cwd,
          provider: f.provider,
          model: f.model,
          raw: f,
        });
      default:
        return undefined;
    }
  }

  _decision(event, r, f) {
    if (event === 'before_agent_start') {
      if (r === undefined || r === null) return {};
      if (typeof r !== 'string') throw new TypeError(`returned ${typeof r}, not a string or undefined`);
      return { system_prompt: r };
    }
    if (r === undefined || r === null || r === true) return {};
    if (r === false) return { block: true };
    if (!isPlainObject(r)) throw new TypeError(`returned ${typeof r}, not a decision object`);
    const out = {};
    if (r.block) {
      out.block = true;
      if (r.reason) out.reason = String(r.reason);
      return out;
    }
    if (r.reason) out.reason = String(r.reason);
    if (event === 'tool_call' && r.modifiedArgs !== undefined) {
      if (!isPlainObject(r.modifiedArgs)) throw new TypeError('modifiedArgs must be a JSON object');
      out.modified_args = r.modifiedArgs;
    }
    if (event === 'assistant_message' && typeof r.replaceText === 'string' && r.replaceText !== '' && r.replaceText !== f.text) {
      out.replace_text = r.replaceText;
    }
    return out;
  }

  // ---- output ------------------------------------------------------------

  // JSON plus newline, or null (and _lastSize set) past the frame bound.
  _encode(frame) {
    const s = JSON.stringify(frame) + '\n';
    // Cheap test first: UTF-8 takes at most 3 bytes per UTF-16 unit.
    if (s.length * 3 <= MAX_FRAME_BYTES) return s;
    const size = Buffer.byteLength(s) - 1;
    if (size <= MAX_FRAME_BYTES) return s;
    this._lastSize = size;
    return null;
  }

  // Returns false (and logs) when the frame was not sent.
  _send(frame) {
    const line = this._encode(frame);
    if (line === null) {
      this.log('did not send a %s frame of %d bytes: over the 4 MiB frame limit', frame.type, this._lastSize);
      return false;
    }
    return this._write(line);
  }

  // Frames made in one turn of the event loop (the replies to one chunk of
  // calls, say) go out as one write at its end: one system call and one
  // write request instead of one per frame, at no cost in latency.
  _write(line) {
    if (this._outClosed || this._sealed || !this._out) return false;
    if (this._blocked) {
      this._queue.push(line);
      return true;
    }
    this._pendOut += line;
    if (this._pendOut.length >= COALESCE_CHARS) {
      this._flushPend();
    } else if (!this._pendScheduled && !this._inData) {
      this._pendScheduled = true;
      queueMicrotask(this._flushPend);
    }
    return true;
  }

  _flushPend() {
    this._pendScheduled = false;
    const s = this._pendOut;
    if (s === '') return;
    this._pendOut = '';
    if (this._outClosed) return;
    if (!this._out.write(s)) {
      this._blocked = true;
      this._out.once('drain', this._onDrain);
    }
  }

  _onDrain() {
    this._blocked = false;
    while (this._qHead < this._queue.length) {
      const line = this._queue[this._qHead++];
      if (!this._out.write(line)) {
        this._blocked = true;
        this._out.once('drain', this._onDrain);
        break;
      }
    }
    if (this._qHead === this._queue.length) {
      this._queue = [];
      this._qHead = 0;
    }
    if (!this._blocked && this._flushWaiters) {
      const w = this._flushWaiters;
      this._flushWaiters = null;
      for (const fn of w) fn();
    }
  }

  // Resolves once every queued frame has been handed to the output and
  // written out, so exit() cannot cut shutdown_ack short.
  _flush() {
    if (this._outClosed || !this._out) return Promise.resolve();
    this._flushPend();
    const whenDrained = this._blocked
      ? new Promise((resolve) => {
          (this._flushWaiters ??= []).push(resolve);
        })
      : Promise.resolve();
    return whenDrained.then(
      () =>
        new Promise((resolve) => {
          if (this._outClosed || this._out.writableEnded || this._out.destroyed) {
            resolve();
            return;
          }
          this._out.write('', () => resolve());
        }),
    );
  }
}

function abortError(signal, name) {
  const reason = signal.reason;
  const msg = reason instanceof Error ? reason.message : reason !== undefined ? String(reason) : 'aborted';
  const err = new CallToolError(`zotext: callTool "${name}" aborted: ${msg}`, 'aborted');
  err.cause = reason;
  return err;
}

export { CallToolError };
export default Extension;
