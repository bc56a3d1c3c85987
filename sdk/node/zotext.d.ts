// Types for zotext.mjs, the Node SDK for zot extensions.
//
// Self-contained: it needs no @types/node (streams are typed by the few
// methods the SDK uses). AbortSignal is the global one, from @types/node
// or the DOM library.

/** The protocol's bound on one frame, either direction, in bytes (4 MiB). */
export declare const MAX_FRAME_BYTES: number;
/** Bytes of a durable call key, at most (128). */
export declare const MAX_CALL_KEY_BYTES: number;

export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };
/** A JSON object: tool arguments, schemas, structured content. */
export type JsonObject = { [key: string]: any };

// ---- results ----------------------------------------------------------------

export interface TextContent {
  type: 'text';
  text: string;
}

export interface ImageContent {
  type: 'image';
  /** e.g. image/png */
  mimeType: string;
  /** base64 */
  data: string;
}

export type ToolContent = TextContent | ImageContent;

/** A tool's answer. Build one with textResult, textErrorResult or by hand. */
export interface ToolResult {
  content: ToolContent[];
  isError?: boolean;
  /** Deferred tools to make visible to the model from now on. */
  activateTools?: string[];
  /** The value scripts see when the tool declared an output schema. */
  structuredContent?: unknown;
}

/** The host's answer to callTool. */
export interface CallToolResult {
  content: ToolContent[];
  /** Tool failures, unknown tools and refusals. */
  isError: boolean;
  /** The host shortened the reply (256 KiB / 128 blocks observation limit). */
  truncated?: boolean;
  structuredContent?: unknown;
  name?: string;
}

export declare function text(s: string): TextContent;
export declare function image(mimeType: string, base64Data: string): ImageContent;
export declare function imageBytes(mimeType: string, bytes: Uint8Array | ArrayBuffer): ImageContent;
export declare function textResult(s: string): ToolResult;
export declare function textErrorResult(s: string): ToolResult;
/** Reconcile answer: the operation never started; the host runs the call now. */
export declare function reconcileNotStarted(): ToolResult;
/** Reconcile answer: the operation completed with `result`. */
export declare function reconcileCompleted(result: ToolResult | string): ToolResult;
/** Reconcile answer: nobody can tell; the host records the call as interrupted. */
export declare function reconcileUnknown(why?: string): ToolResult;

// ---- panels -----------------------------------------------------------------

interface WidgetBase {
  /** 1 to 128 bytes, unique in the panel. */
  id: string;
  label?: string;
  description?: string;
  sensitive?: boolean;
}

export interface TextWidget extends WidgetBase {
  type: 'text';
  text: string;
  style?: 'plain' | 'dim' | 'bold' | 'italic' | 'caption' | 'success' | 'warning' | 'error';
}
export interface HeadingWidget extends WidgetBase {
  type: 'heading';
  text: string;
  level?: 1 | 2 | 3;
}
export interface ButtonWidget extends WidgetBase {
  type: 'button';
  label: string;
  icon?: string;
  style?: 'plain' | 'suggested' | 'destructive' | 'flat';
}
export interface EntryWidget extends WidgetBase {
  type: 'entry';
  label: string;
  placeholder?: string;
  value?: string;
  submit_label?: string;
  secret?: boolean;
}
export interface TextareaWidget extends WidgetBase {
  type: 'textarea';
  label: string;
  placeholder?: string;
  value?: string;
  max_height?: number;
}
export interface SwitchWidget extends WidgetBase {
  type: 'switch' | 'check';
  label: string;
  value?: boolean;
}
export interface DropdownWidget extends WidgetBase {
  type: 'dropdown';
  label: string;
  options: Array<string | { value: string; label: string }>;
  value?: string;
}
export interface ListRow {
  id: string;
  title: string;
  subtitle?: string;
  icon?: string;
  checked?: boolean;
  activatable?: boolean;
  buttons?: Array<{ id: string; label: string; icon?: string; style?: string }>;
}
export interface ListWidget extends WidgetBase {
  type: 'list';
  rows: ListRow[];
  placeholder?: string;
  max_height?: number;
}
export interface ProgressWidget extends WidgetBase {
  type: 'progress';
  fraction?: number;
  text?: string;
}
export interface SpinnerWidget extends WidgetBase {
  type: 'spinner';
  text?: string;
}
export interface SeparatorWidget extends WidgetBase {
  type: 'separator';
}
export interface CodeWidget extends WidgetBase {
  type: 'code';
  text: string;
  max_height?: number;
}
export interface ImageWidget extends WidgetBase {
  type: 'image';
  label: string;
  /** PNG, base64 */
  data: string;
  height?: number;
}
export interface BoxWidget extends WidgetBase {
  type: 'box';
  orientation?: 'vertical' | 'horizontal';
  spacing?: number;
  children: Widget[];
}

/** A native control (docs/protocol.md, "Panel widgets"). */
export type Widget =
  | TextWidget
  | HeadingWidget
  | ButtonWidget
  | EntryWidget
  | TextareaWidget
  | SwitchWidget
  | DropdownWidget
  | ListWidget
  | ProgressWidget
  | SpinnerWidget
  | SeparatorWidget
  | CodeWidget
  | ImageWidget
  | BoxWidget;

/**
 * A panel. `widgets` are sent where the host offers panel_widgets; `lines`
 * (given, or derived from the widgets) otherwise.
 */
export interface PanelSpec {
  id: string;
  title?: string;
  lines?: string[];
  footer?: string;
  widgets?: Widget[];
  /** The tool_call this panel answers; set for you inside a tool handler. */
  toolCallId?: string;
}

export type PanelKey =
  | 'up'
  | 'down'
  | 'left'
  | 'right'
  | 'enter'
  | 'esc'
  | 'tab'
  | 'pageup'
  | 'pagedown'
  | 'home'
  | 'end'
  | 'backspace'
  | 'delete'
  | 'rune';

export interface PanelEvent {
  panelId: string;
  widgetId: string;
  /** clicked, changed, submit, toggled, selected, activated, button */
  event: string;
  value: any;
}

// ---- commands ---------------------------------------------------------------

export type CommandAction = 'prompt' | 'tool_prompt' | 'insert' | 'display' | 'open_panel' | 'noop';

/** What the host does after a slash command. Build with the helpers. */
export interface Response {
  action: CommandAction;
  prompt?: string;
  toolName?: string;
  toolArgs?: JsonObject;
  insert?: string;
  display?: string;
  openPanel?: PanelSpec;
  /** Shown as an error line, whatever the action. */
  error?: string;
}

export declare function prompt(text: string): Response;
export declare function toolPrompt(name: string, args: JsonObject, text: string): Response;
export declare function insert(text: string): Response;
export declare function display(text: string): Response;
export declare function openPanel(id: string, title: string, lines: string[], footer?: string): Response;
export declare function openPanel(spec: PanelSpec): Response;
export declare function noop(): Response;
/** A noop with an error line; util.format placeholders (%s, %d, %j). */
export declare function errorf(format: string, ...args: unknown[]): Response;

export interface CommandContext {
  /** The command_invoked id. */
  readonly id: string;
  readonly name: string;
}

export type CommandHandler = (args: string, ctx: CommandContext) => Response | void | Promise<Response | void>;

// ---- tools ------------------------------------------------------------------

export type Exposure = 'direct' | 'codemode' | 'deferred' | 'model-only';
export type Replay = 'never' | 'safe' | 'idempotent' | 'reconcile';

export interface ToolOptions {
  /** Describes structuredContent (not validated). */
  outputSchema?: JsonObject | string;
  /** Defaults to the extension name on the host. */
  namespace?: string;
  namespaceDescription?: string;
  namespaceInstructions?: string;
  exposure?: Exposure;
  /** Legacy form of exposure "deferred". */
  deferred?: boolean;
  /** Waits for the user: no host reply deadline in the window. */
  interactive?: boolean;
  replay?: Replay;
  /** Sent as annotations.read_only: a hint that the tool changes nothing. */
  readOnly?: boolean;
  /** Sent as annotations.destructive: no remembered approval covers a call. */
  destructive?: boolean;
  /**
   * For a call the host asks about after a crash (ctx.reconcile): answer
   * reconcileNotStarted(), reconcileCompleted(result) or reconcileUnknown()
   * (also what undefined means). Implies replay "reconcile".
   */
  reconcile?: (args: any, ctx: ToolContext) => ToolResult | string | void | Promise<ToolResult | string | void>;
}

export interface CallToolOptions {
  /** Durable identity across replays; sent only to hosts with call_tool_durable. */
  key?: string;
  /** Aborting sends call_tool_cancel and rejects the promise. */
  signal?: AbortSignal;
  /** Override the parent (normally the running tool call, found for you). */
  parentId?: string;
}

export interface ToolContext {
  /** The host's tool_call id (the parent_id of nested calls). */
  readonly id: string;
  readonly name: string;
  /** Aborted by tool_cancel, shutdown, EOF, and once the call has been answered. */
  readonly signal: AbortSignal;
  /** For tools registered with replay "idempotent". */
  readonly operationKey?: string;
  /** True when the host asks a replay "reconcile" tool to reconcile. */
  readonly reconcile: boolean;
  /** callTool with this invocation as the parent. */
  callTool(name: string, args?: JsonObject, options?: CallToolOptions): Promise<CallToolResult>;
  /** Answer now; the handler's later return value is then dropped (and logged if not undefined). */
  reply(result: ToolResult | string): void;
  /**
   * Report progress (tool_progress): the host shows the latest text as the
   * call's status, at most ten a second. False, sending nothing, once the
   * call is answered or cancelled.
   */
  progress(text: string): boolean;
}

export type ToolHandler<A extends JsonObject = JsonObject> = (
  args: A,
  ctx: ToolContext,
) => ToolResult | string | Promise<ToolResult | string>;

/** Rejections of callTool carry a code. */
export declare class CallToolError extends Error {
  /** unsupported (host lacks call_tool), invalid, too_large, aborted, closed (session ended), not_running */
  readonly code: 'unsupported' | 'invalid' | 'too_large' | 'aborted' | 'closed' | 'not_running';
}

// ---- events and interception -----------------------------------------------

export type EventName =
  | 'session_start'
  | 'session_end'
  | 'user_prompt_submit'
  | 'turn_start'
  | 'turn_end'
  | 'tool_call'
  | 'tool_result'
  | 'tool_confirmation_requested'
  | 'permission_decision'
  | 'assistant_message'
  | 'pre_compact'
  | 'post_compact'
  | 'subagent_start'
  | 'subagent_stop';

export interface EventResult {
  content: ToolContent[];
  isError: boolean;
  truncated?: boolean;
}

/**
 * A lifecycle notification; the Go SDK's Event fields in camelCase. A field
 * the host did not send is undefined (so absence differs from false or 0).
 */
export interface ZotEvent {
  name: string;
  sessionId?: string;
  cwd?: string;
  sequence?: number;
  agentRunId?: string;
  queued?: boolean;
  imageCount?: number;
  status?: string;
  reason?: string;
  source?: string;
  decision?: string;
  stage?: string;
  result?: EventResult;
  executed?: boolean;
  compactionId?: string;
  messageCount?: number;
  tokenEstimate?: number;
  agentId?: string;
  /** A swarm runner's wire-level `name`. */
  agentName?: string;
  step?: number;
  stop?: string;
  error?: string;
  toolId?: string;
  toolName?: string;
  toolArgs?: JsonObject;
  toolArgsRaw?: string;
  toolPreview?: string;
  text?: string;
  originExtension?: string;
  /** The frame as received. */
  raw: JsonObject;
}

export type EventHandler = (event: ZotEvent) => void | Promise<void>;

export interface ToolCallDecision {
  block?: boolean;
  /** The model's tool error text on block. */
  reason?: string;
  /** Replaces the arguments the tool runs with (not on block). */
  modifiedArgs?: JsonObject;
}

export interface ToolCallInterceptEvent {
  toolId?: string;
  toolName: string;
  toolArgs: JsonObject;
  originExtension?: string;
  raw: JsonObject;
}

/** undefined or true allows, false blocks, or a decision. */
export type ToolCallInterceptor = (
  toolName: string,
  args: JsonObject,
  event: ToolCallInterceptEvent,
) => ToolCallDecision | boolean | void | Promise<ToolCallDecision | boolean | void>;

export interface TurnStartDecision {
  block?: boolean;
  reason?: string;
}

export type TurnStartInterceptor = (
  step: number,
  event: { step: number; raw: JsonObject },
) => TurnStartDecision | boolean | void | Promise<TurnStartDecision | boolean | void>;

export interface AssistantMessageDecision {
  /** Hide the message from the user (the transcript keeps it). */
  block?: boolean;
  reason?: string;
  /** What the user sees instead. */
  replaceText?: string;
}

export type AssistantMessageInterceptor = (
  text: string,
  event: { text: string; raw: JsonObject },
) => AssistantMessageDecision | boolean | void | Promise<AssistantMessageDecision | boolean | void>;

export interface BeforeAgentStartEvent {
  systemPrompt: string;
  sessionId?: string;
  agentRunId?: string;
  cwd?: string;
  provider?: string;
  model?: string;
  raw: JsonObject;
}

/** The full replacement prompt, "" to remove it, undefined to keep it. */
export type BeforeAgentStartInterceptor = (
  event: BeforeAgentStartEvent,
) => string | undefined | void | Promise<string | undefined | void>;

// ---- the extension ----------------------------------------------------------

/** What hello_ack said. */
export interface HostInfo {
  protocolVersion: number;
  zotVersion: string;
  provider: string;
  model: string;
  cwd: string;
  extensionDir: string;
  dataDir: string;
  capabilities: string[];
}

/** The stream methods run() uses (process.stdin fits). */
export interface InputStream {
  on(event: 'data', listener: (chunk: Uint8Array | string) => void): unknown;
  on(event: 'end' | 'close', listener: () => void): unknown;
  on(event: 'error', listener: (err: Error) => void): unknown;
  removeListener(event: string, listener: (...args: any[]) => void): unknown;
  pause?(): unknown;
}

/** The stream methods run() uses (process.stdout fits). */
export interface OutputStream {
  write(chunk: string, callback?: (err?: Error | null) => void): boolean;
  once(event: 'drain', listener: () => void): unknown;
  on(event: 'error', listener: (err: Error) => void): unknown;
  readonly writableEnded?: boolean;
  readonly destroyed?: boolean;
}

export interface RunOptions {
  input?: InputStream;
  output?: OutputStream;
  stderr?: { write(chunk: string): unknown };
  /** Exit the process (code 0) when the session ends; default: input is process.stdin. */
  exit?: boolean;
}

export declare class Extension {
  constructor(name: string, version: string);
  readonly name: string;
  readonly version: string;
  /** Filled in from hello_ack once run() has done the handshake. */
  readonly host: HostInfo;

  /** A line on stderr (the host's log of this extension); util.format arguments. */
  log(...args: unknown[]): void;
  /** Runs after hello_ack and before registrations go out (may register more). */
  onHello(fn: (host: HostInfo) => void | Promise<void>): this;

  command(name: string, description: string, handler: CommandHandler): this;
  tool<A extends JsonObject = JsonObject>(
    name: string,
    description: string,
    schema: JsonObject | string,
    handler: ToolHandler<A>,
    options?: ToolOptions,
  ): this;
  structuredTool<A extends JsonObject = JsonObject>(
    name: string,
    description: string,
    schema: JsonObject | string,
    outputSchema: JsonObject | string,
    handler: ToolHandler<A>,
  ): this;
  toolWithOptions<A extends JsonObject = JsonObject>(
    name: string,
    description: string,
    schema: JsonObject | string,
    options: ToolOptions,
    handler: ToolHandler<A>,
  ): this;
  interactiveTool<A extends JsonObject = JsonObject>(
    name: string,
    description: string,
    schema: JsonObject | string,
    handler: ToolHandler<A>,
  ): this;
  deferredTool<A extends JsonObject = JsonObject>(
    name: string,
    description: string,
    schema: JsonObject | string,
    handler: ToolHandler<A>,
  ): this;

  /** Withdraw a tool (throws when not registered); a running call finishes. */
  unregisterTool(name: string): this;
  /** Withdraw a command, its name in any case (throws when not registered). */
  unregisterCommand(name: string): this;

  on(event: EventName | (string & {}), fn: EventHandler): this;
  interceptToolCall(fn: ToolCallInterceptor): this;
  interceptTurnStart(fn: TurnStartInterceptor): this;
  interceptAssistantMessage(fn: AssistantMessageInterceptor): this;
  interceptBeforeAgentStart(fn: BeforeAgentStartInterceptor): this;
  /** How long an async interceptor may take before the SDK answers for it (default 4500 ms). */
  setInterceptTimeout(ms: number): this;

  onPanelKey(panelId: string, onKey?: ((key: PanelKey, text: string) => void) | null, onClose?: (() => void) | null): this;
  onPanelEvent(panelId: string, fn: ((event: PanelEvent) => void) | null): this;

  /** True when hello_ack listed the capability. */
  hostHas(capability: string): boolean;
  openPanel(id: string, title: string, lines: string[], footer?: string): boolean;
  openPanel(spec: PanelSpec): boolean;
  renderPanel(panelId: string, title: string, lines: string[], footer?: string): boolean;
  renderPanel(spec: PanelSpec): boolean;
  closePanel(panelId: string): boolean;
  notify(level: 'info' | 'success' | 'warn' | 'error', message: string): boolean;
  clearNotes(): boolean;
  submit(text: string): boolean;
  submitSlash(text: string): boolean;
  /** Inside a tool handler: activate deferred tools with this call's result. */
  activateTools(...names: Array<string | string[]>): void;

  /**
   * Call a host tool. Inside a tool handler the call's parent_id is set for
   * you. Rejects (CallToolError) when the host lacks call_tool, on an abort
   * and when the session ends; tool failures resolve with isError.
   */
  callTool(name: string, args?: JsonObject, options?: CallToolOptions): Promise<CallToolResult>;

  /** Speak the protocol until shutdown or EOF. */
  run(options?: RunOptions): Promise<'shutdown' | 'eof'>;
}

export default Extension;
