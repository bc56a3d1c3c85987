// Package ext is a Go SDK for zot-protocol extensions: programs that talk
// newline-delimited JSON with the host over stdin and stdout.
//
// It keeps the API of the upstream zot Go SDK, so an extension written
// against upstream's ext package builds by changing its import path. On top
// of it, the SDK owns the parts every hand-written loop gets wrong: each
// tool invocation has its own context, cancelled by tool_cancel, shutdown or
// EOF (a cancel that arrives before the handler starts is not lost); no
// reply goes out for a cancelled invocation; nested calls carry their
// parent_id; frames over 4 MiB are never written; panics become error
// results (or a block for an interceptor); and the read loop never waits for
// a handler.
//
//	func main() {
//		e := ext.New("hello", "1.0.0")
//		e.Command("hello", "say hi", func(args string) ext.Response {
//			return ext.Prompt("Greet me in three languages.")
//		})
//		e.Run()
//	}
package ext

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// MaxFrameBytes is the protocol's bound on one frame, newline excluded,
// in either direction.
const MaxFrameBytes = 4 << 20

// CommandHandler answers a slash command. args is everything the user typed
// after the command name, trimmed.
type CommandHandler func(args string) Response

// ToolHandler answers a tool call. args is the JSON object the model sent.
type ToolHandler func(args json.RawMessage) ToolResult

// InteractiveToolHandler is the context-aware form of a tool handler. ctx is
// cancelled by tool_cancel, shutdown or EOF; a handler that waits on anything
// must also wait on ctx.Done(). CallTool with ctx nests under this call.
type InteractiveToolHandler func(ctx context.Context, args json.RawMessage) ToolResult

// EventHandler observes a lifecycle event. Handlers run one at a time, in
// the order the events arrived, on a goroutine of their own (never on the
// read loop, so a slow observer does not delay interceptors).
type EventHandler func(ev Event)

// EventResult is the bounded observation of a tool's output carried by the
// tool_result event. Truncated says something was cut.
type EventResult struct {
	Content   []ToolContent `json:"content"`
	IsError   bool          `json:"is_error"`
	Truncated bool          `json:"truncated,omitempty"`
}

// Event is one lifecycle notification. Name selects which fields are set:
//
//	session_start: no additional fields
//	session_end: Reason
//	user_prompt_submit: Text, Queued, ImageCount
//	turn_start: Step
//	turn_end: Stop, Error
//	tool_call: ToolID, ToolName, ToolArgs (the model's arguments)
//	tool_result: ToolID, ToolName, ToolArgs or ToolArgsRaw, Status, Executed, Result
//	tool_confirmation_requested: ToolID, ToolName, ToolPreview
//	permission_decision: ToolID, ToolName, Decision, Source, Stage, Reason
//	assistant_message: Text
//	pre_compact, post_compact: CompactionID, MessageCount, TokenEstimate, Status, Error
//	subagent_start, subagent_stop: AgentID, AgentRunID, AgentName, Status, Error
//
// Pointer fields are nil when the host left the field out, which differs
// from false or zero.
type Event struct {
	Name          string
	AgentRunID    string
	SessionID     string
	Queued        bool
	ImageCount    int
	CWD           string
	Sequence      uint64
	Status        string
	Reason        string
	Source        string
	Decision      string
	Stage         string
	Result        *EventResult
	Executed      *bool
	CompactionID  string
	MessageCount  *int
	TokenEstimate *int
	AgentID       string
	AgentName     string

	Step  int
	Stop  string
	Error string

	ToolID      string
	ToolName    string
	ToolArgs    json.RawMessage
	ToolPreview string
	ToolArgsRaw string

	Text string
}

// InterceptHandler is the two-value tool_call guard: allow, or refuse with
// a reason the model sees as the tool's error.
type InterceptHandler func(toolName string, args json.RawMessage) (allow bool, reason string)

// ToolCallDecision is the reply of a ToolCallHandler. The zero value allows.
type ToolCallDecision struct {
	// Block refuses the call; Reason becomes the tool's error text.
	Block  bool
	Reason string
	// ModifiedArgs, when set and Block is false, replaces the arguments
	// the tool runs with. It must be a JSON object.
	ModifiedArgs json.RawMessage
}

// ToolCallHandler is the richer tool_call guard: block, allow or rewrite.
type ToolCallHandler func(toolName string, args json.RawMessage) ToolCallDecision

// BeforeAgentStartEvent is what the host sends before the first model call
// of an agent run.
type BeforeAgentStartEvent struct {
	SystemPrompt string
	SessionID    string
	AgentRunID   string
	CWD          string
	Provider     string
	Model        string
}

// BeforeAgentStartHandler returns the complete replacement prompt, or nil to
// keep it. A pointer to "" removes the prompt.
type BeforeAgentStartHandler func(BeforeAgentStartEvent) *string

// TurnStartDecision is the reply of a TurnStartHandler. The zero value allows.
type TurnStartDecision struct {
	Block  bool
	Reason string
}

// TurnStartHandler guards each model call of a turn.
type TurnStartHandler func(step int) TurnStartDecision

// AssistantMessageDecision is the reply of an AssistantMessageHandler. The
// zero value shows the message as it is.
type AssistantMessageDecision struct {
	// Block hides the message from the user (the transcript keeps it).
	Block  bool
	Reason string
	// ReplaceText, when non-empty and Block is false, is what the user sees.
	ReplaceText string
}

// AssistantMessageHandler inspects the model's final text before it is shown.
type AssistantMessageHandler func(text string) AssistantMessageDecision

// ToolResult is a tool's answer. Build it with TextResult, TextErrorResult,
// or directly from Text/Image blocks.
type ToolResult struct {
	Content []ToolContent
	IsError bool
	// ActivateTools names deferred tools the model may use from now on.
	ActivateTools []string
	// StructuredContent is the JSON value codemode scripts see for tools
	// registered with an output schema.
	StructuredContent json.RawMessage
	// Truncated is set on CallTool's results when the host shortened the
	// reply (256 KiB, 128 blocks). It is not sent with a tool's own result.
	Truncated bool
}

// ToolContent is one block of tool output: text, or a base64 image.
type ToolContent struct {
	Type     string `json:"type"`
	Text     string `json:"text,omitempty"`
	MimeType string `json:"mime_type,omitempty"`
	Data     string `json:"data,omitempty"`
}

// Text returns a text block.
func Text(s string) ToolContent { return ToolContent{Type: "text", Text: s} }

// Image returns an image block from data that is already base64.
func Image(mimeType, base64Data string) ToolContent {
	return ToolContent{Type: "image", MimeType: mimeType, Data: base64Data}
}

// ImageBytes returns an image block, encoding raw bytes to base64.
func ImageBytes(mimeType string, data []byte) ToolContent {
	return Image(mimeType, base64.StdEncoding.EncodeToString(data))
}

// TextResult returns a successful result of one text block.
func TextResult(s string) ToolResult { return ToolResult{Content: []ToolContent{Text(s)}} }

// TextErrorResult returns an error result of one text block.
func TextErrorResult(s string) ToolResult {
	return ToolResult{Content: []ToolContent{Text(s)}, IsError: true}
}

// Panel describes an extension-owned panel. Lines is the line form every
// panel host shows. Widgets, when set, is sent instead of Lines to hosts
// that advertise panel_widgets; other hosts get Lines. ToolCallID links the
// panel to the interactive call waiting on it (see ToolCallID(ctx)).
type Panel struct {
	ID         string
	Title      string
	Lines      []string
	Footer     string
	Widgets    []Widget
	ToolCallID string
}

// Response tells the host what to do after a slash command.
type Response struct {
	Action    string // prompt, tool_prompt, insert, display, open_panel, noop
	Prompt    string
	ToolName  string
	ToolArgs  json.RawMessage
	Insert    string
	Display   string
	OpenPanel *Panel
	Error     string
}

// Prompt submits text as a user message; the agent runs a turn.
func Prompt(text string) Response { return Response{Action: "prompt", Prompt: text} }

// ToolPrompt submits text as a user message, then has the host run tool
// name with args (a value encoding to a JSON object) before the model's
// turn. The handler does not see the tool's result.
func ToolPrompt(name string, args any, text string) Response {
	if name == "" || text == "" {
		return Errorf("tool_prompt needs a tool name and a prompt")
	}
	data, err := json.Marshal(args)
	if err != nil || !isJSONObject(data) {
		return Errorf("tool_prompt arguments must encode to a JSON object")
	}
	return Response{Action: "tool_prompt", Prompt: text, ToolName: name, ToolArgs: data}
}

// Insert puts text into the editor at the cursor, without submitting it.
func Insert(text string) Response { return Response{Action: "insert", Insert: text} }

// Display shows text as a one-shot note; no model call, not in the transcript.
func Display(text string) Response { return Response{Action: "display", Display: text} }

// OpenPanel answers a command by opening a line panel.
func OpenPanel(id, title string, lines []string, footer string) Response {
	return Response{Action: "open_panel", OpenPanel: &Panel{ID: id, Title: title, Lines: lines, Footer: footer}}
}

// Noop says the command was handled and nothing changes in the window.
func Noop() Response { return Response{Action: "noop"} }

// Errorf shows an error line for the command.
func Errorf(format string, args ...any) Response {
	return Response{Action: "noop", Error: fmt.Sprintf(format, args...)}
}

// HostInfo is what the host said in hello_ack.
type HostInfo struct {
	ProtocolVersion int
	ZotVersion      string
	Provider        string
	Model           string
	CWD             string
	ExtensionDir    string
	DataDir         string
	// Capabilities lists what the host offers (call_tool,
	// call_tool_durable, panels, interactive_tools, panel_widgets…).
	Capabilities []string
}

// Has reports whether the host advertised capability name.
func (h HostInfo) Has(name string) bool {
	for _, c := range h.Capabilities {
		if c == name {
			return true
		}
	}
	return false
}

// ToolOptions combines the optional parts of a tool registration.
type ToolOptions struct {
	// OutputSchema describes StructuredContent; it must be a JSON object.
	OutputSchema          json.RawMessage
	Namespace             string
	NamespaceDescription  string
	NamespaceInstructions string
	// Exposure is direct (default), codemode, deferred or model-only.
	Exposure string
	// Deferred is the legacy way to say exposure deferred.
	Deferred bool
	// Interactive marks a tool that waits for the user: no reply deadline
	// in the window, refused at once by headless hosts.
	Interactive bool
	// Replay is the tool's replay contract in continuous mode: never
	// (default), safe, idempotent or reconcile. Idempotent and reconcile
	// calls carry a stable key, see OperationKey.
	Replay string
	// Reconciler answers the host's question about an interrupted call of
	// a reconcile tool. Setting it implies Replay "reconcile".
	Reconciler Reconciler
	// ReadOnly and Destructive go out as the registration's annotations:
	// hints to the host. A destructive tool is never approved by a
	// remembered "allow this tool".
	ReadOnly    bool
	Destructive bool
}

// ReconcileState is what became of an operation the host lost track of.
type ReconcileState string

const (
	// ReconcileNotStarted: the operation never ran; the host runs it now.
	ReconcileNotStarted ReconcileState = "not_started"
	// ReconcileCompleted: it ran; Reconciliation.Result is its result.
	ReconcileCompleted ReconcileState = "completed"
	// ReconcileUnknown: the extension cannot tell; the host reports the
	// call as interrupted and never runs it again blindly.
	ReconcileUnknown ReconcileState = "unknown"
)

// Reconciliation is a Reconciler's answer.
type Reconciliation struct {
	State ReconcileState
	// Result is the operation's result when State is ReconcileCompleted.
	Result ToolResult
}

// Reconciler is asked, after a crash in continuous mode, whether the
// operation of an interrupted call of a replay "reconcile" tool happened.
// operationKey is the key the first call carried (OperationKey(ctx) in
// the handler); args are the call's recorded arguments. It must not
// perform the operation.
type Reconciler func(ctx context.Context, operationKey string, args json.RawMessage) Reconciliation

// Extension is one extension. Create it with New, register handlers, then
// call Run.
type Extension struct {
	name    string
	version string

	in     io.Reader
	out    io.Writer
	stderr io.Writer
	logMu  sync.Mutex

	writeMu     sync.Mutex
	writeClosed bool

	mu            sync.Mutex
	started       bool
	announced     bool // the registrations have gone out; later ones go at once
	stopped       bool
	commands      map[string]CommandHandler
	commandOrder  []commandDef
	tools         map[string]*toolDef
	toolOrder     []*toolDef
	invocations   map[string]*invocation
	pendingCalls  map[string]chan ToolResult
	eventHandlers map[string]EventHandler
	eventNames    []string
	panelKeys     map[string]func(key, text string)
	panelCloses   map[string]func()
	panelEvents   map[string]func(PanelEvent)
	panelResizes  map[string]func(width, height int)
	onHello       func(HostInfo)

	interceptTool      InterceptHandler
	interceptToolRich  ToolCallHandler
	interceptOn        bool
	interceptStart     BeforeAgentStartHandler
	interceptTurn      TurnStartHandler
	interceptAssistant AssistantMessageHandler

	host    atomic.Value // HostInfo
	callSeq atomic.Uint64
	work    chan func()
	wdWake  chan struct{}

	// The reading goroutine's state, passed from reader to reader.
	lr            *lineReader
	runErr        error
	unknownFrames int
	inlineSeq     uint64
	// inline is the inlineSeq of the call whose handler runs on the
	// reading goroutine, or 0.
	inline   atomic.Uint64
	idle     atomic.Int32
	done     chan struct{}
	doneOnce sync.Once

	events *serialQueue
	panels *serialQueue

	// interceptDeadline bounds an interceptor: past it the SDK answers
	// "allow" itself, so the host never waits out its own 5 s.
	interceptDeadline time.Duration
}

type commandDef struct {
	name, description string
}

type toolDef struct {
	name        string
	description string
	schema      json.RawMessage
	options     ToolOptions
	handler     InteractiveToolHandler
}

// New creates an extension. name should match extension.json's name.
func New(name, version string) *Extension {
	e := &Extension{
		name:              name,
		version:           version,
		in:                os.Stdin,
		out:               os.Stdout,
		stderr:            os.Stderr,
		commands:          map[string]CommandHandler{},
		tools:             map[string]*toolDef{},
		invocations:       map[string]*invocation{},
		pendingCalls:      map[string]chan ToolResult{},
		eventHandlers:     map[string]EventHandler{},
		panelKeys:         map[string]func(key, text string){},
		panelCloses:       map[string]func(){},
		panelEvents:       map[string]func(PanelEvent){},
		panelResizes:      map[string]func(int, int){},
		done:              make(chan struct{}),
		work:              make(chan func()),
		wdWake:            make(chan struct{}, 1),
		interceptDeadline: 4500 * time.Millisecond,
	}
	e.host.Store(HostInfo{})
	return e
}

// Host returns what the host said in hello_ack; the zero value before it.
func (e *Extension) Host() HostInfo { return e.host.Load().(HostInfo) }

// OnHello runs fn after hello_ack and before the registrations are sent,
// so registrations may depend on HostInfo.
func (e *Extension) OnHello(fn func(HostInfo)) {
	e.mu.Lock()
	e.onHello = fn
	e.mu.Unlock()
}

// Logf writes one line to stderr, which the host keeps in the extension's
// log. Never print to stdout: it carries frames only.
func (e *Extension) Logf(format string, args ...any) {
	line := "[" + e.name + "] " + fmt.Sprintf(format, args...) + "\n"
	e.logMu.Lock()
	io.WriteString(e.stderr, line)
	e.logMu.Unlock()
}

// SetLogOutput sends Logf's lines to w instead of stderr.
func (e *Extension) SetLogOutput(w io.Writer) {
	e.logMu.Lock()
	e.stderr = w
	e.logMu.Unlock()
}

// Command registers a slash command. Call it before Run or from OnHello;
// a later registration is sent at once.
func (e *Extension) Command(name, description string, fn CommandHandler) {
	if name == "" || fn == nil {
		panic("ext: Command needs a name and a handler")
	}
	e.mu.Lock()
	_, dup := e.commands[name]
	if !dup {
		e.commandOrder = append(e.commandOrder, commandDef{name, description})
	}
	e.commands[name] = fn
	late := e.announced && !dup
	e.mu.Unlock()
	if late {
		e.sendOrLog(registerCommandFrame{Type: "register_command", Name: name, Description: description})
	}
}

// Tool registers a tool the model can call (before Run or from OnHello; a
// later registration is sent at once). schema must be a JSON object.
// Registration panics on a name the host would refuse
// (^[A-Za-z0-9_-]{1,64}$) or a schema that is not an object.
func (e *Extension) Tool(name, description string, schema json.RawMessage, fn ToolHandler) {
	e.addTool(name, description, schema, ToolOptions{}, plain(fn))
}

// StructuredTool registers a tool whose results carry StructuredContent
// described by outputSchema, for codemode scripts.
func (e *Extension) StructuredTool(name, description string, schema, outputSchema json.RawMessage, fn ToolHandler) {
	e.addTool(name, description, schema, ToolOptions{OutputSchema: outputSchema}, plain(fn))
}

// ToolWithOptions registers a context-aware tool with every option.
func (e *Extension) ToolWithOptions(name, description string, schema json.RawMessage, options ToolOptions, fn InteractiveToolHandler) {
	e.addTool(name, description, schema, options, fn)
}

// DeferredTool registers a tool hidden from the model until a result
// activates it (ToolResult.ActivateTools).
func (e *Extension) DeferredTool(name, description string, schema json.RawMessage, fn ToolHandler) {
	e.addTool(name, description, schema, ToolOptions{Deferred: true}, plain(fn))
}

// InteractiveTool registers a tool that waits for the user. The handler
// must honour ctx and close any panel it opened.
func (e *Extension) InteractiveTool(name, description string, schema json.RawMessage, fn InteractiveToolHandler) {
	e.addTool(name, description, schema, ToolOptions{Interactive: true}, fn)
}

func plain(fn ToolHandler) InteractiveToolHandler {
	if fn == nil {
		return nil
	}
	return func(_ context.Context, args json.RawMessage) ToolResult { return fn(args) }
}

// ValidToolName reports whether the host accepts name as a tool name.
func ValidToolName(name string) bool {
	if len(name) < 1 || len(name) > 64 {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

func (e *Extension) addTool(name, description string, schema json.RawMessage, options ToolOptions, fn InteractiveToolHandler) {
	// Panics here happen at start-up, before anything reaches the wire,
	// where a host would only log a rejected registration.
	if !ValidToolName(name) {
		panic(fmt.Sprintf("ext: tool name %q is invalid: it must match ^[A-Za-z0-9_-]{1,64}$", name))
	}
	if fn == nil {
		panic(fmt.Sprintf("ext: tool %q has no handler", name))
	}
	if !isJSONObject(schema) {
		panic(fmt.Sprintf("ext: tool %q: schema must be a JSON object, got %s", name, describeJSON(schema)))
	}
	if len(options.OutputSchema) > 0 && !isJSONObject(options.OutputSchema) {
		panic(fmt.Sprintf("ext: tool %q: output schema must be a JSON object, got %s", name, describeJSON(options.OutputSchema)))
	}
	switch options.Exposure {
	case "", "direct", "codemode", "deferred", "model-only":
	default:
		panic(fmt.Sprintf("ext: tool %q: exposure %q is not one of direct, codemode, deferred, model-only", name, options.Exposure))
	}
	if options.Reconciler != nil && options.Replay == "" {
		options.Replay = "reconcile"
	}
	switch options.Replay {
	case "", "never", "safe", "idempotent":
		if options.Reconciler != nil {
			panic(fmt.Sprintf("ext: tool %q: a Reconciler needs replay \"reconcile\", not %q", name, options.Replay))
		}
	case "reconcile":
		if options.Reconciler == nil {
			panic(fmt.Sprintf("ext: tool %q: replay \"reconcile\" needs a Reconciler", name))
		}
	default:
		panic(fmt.Sprintf("ext: tool %q: replay %q is not one of never, safe, idempotent, reconcile", name, options.Replay))
	}
	e.mu.Lock()
	if _, dup := e.tools[name]; dup {
		e.mu.Unlock()
		panic(fmt.Sprintf("ext: tool %q is registered twice", name))
	}
	td := &toolDef{name: name, description: description, schema: schema, options: options, handler: fn}
	e.tools[name] = td
	e.toolOrder = append(e.toolOrder, td)
	late := e.announced
	e.mu.Unlock()
	if late {
		e.sendOrLog(td.frame())
	}
}

// UnregisterTool withdraws a tool registered earlier: the host drops it
// from the model's list, and a call that runs finishes. The name may then
// be registered again, with another schema.
func (e *Extension) UnregisterTool(name string) error {
	e.mu.Lock()
	td, ok := e.tools[name]
	if ok {
		delete(e.tools, name)
		for i, t := range e.toolOrder {
			if t == td {
				e.toolOrder = append(e.toolOrder[:i:i], e.toolOrder[i+1:]...)
				break
			}
		}
	}
	late := e.announced
	e.mu.Unlock()
	if !ok {
		return fmt.Errorf("ext: tool %q is not registered", name)
	}
	if late {
		return e.send(nameFrame{Type: "unregister_tool", Name: name})
	}
	return nil
}

// UnregisterCommand withdraws a command registered earlier (its name in
// any case, with or without the slash).
func (e *Extension) UnregisterCommand(name string) error {
	bare := strings.TrimLeft(name, "/")
	e.mu.Lock()
	found := ""
	for i, c := range e.commandOrder {
		if strings.EqualFold(c.name, bare) {
			found = c.name
			delete(e.commands, found)
			e.commandOrder = append(e.commandOrder[:i:i], e.commandOrder[i+1:]...)
			break
		}
	}
	late := e.announced
	e.mu.Unlock()
	if found == "" {
		return fmt.Errorf("ext: command %q is not registered", name)
	}
	if late {
		return e.send(nameFrame{Type: "unregister_command", Name: found})
	}
	return nil
}

// ErrCallOver is what Progress returns once the tool call of its context
// has been answered or cancelled, or outside a tool handler.
var ErrCallOver = errors.New("ext: no running tool call")

// Progress reports progress of the tool call ctx belongs to (a tool
// handler's context): the host shows the latest text as the call's
// status, at most ten a second.
func (e *Extension) Progress(ctx context.Context, text string) error {
	inv := invocationFrom(ctx)
	if inv == nil {
		return ErrCallOver
	}
	e.mu.Lock()
	live := e.invocations[inv.id] == inv && !inv.cancelled
	e.mu.Unlock()
	if !live {
		return ErrCallOver
	}
	return e.send(progressFrame{Type: "tool_progress", ID: inv.id, Text: text})
}

// On subscribes fn to a lifecycle event; a later On for the same name
// replaces the handler.
func (e *Extension) On(name string, fn EventHandler) {
	e.mu.Lock()
	_, exists := e.eventHandlers[name]
	if !exists {
		e.eventNames = append(e.eventNames, name)
	}
	e.eventHandlers[name] = fn
	late := e.announced && !exists
	e.mu.Unlock()
	if late {
		e.sendOrLog(subscribeFrame{Type: "subscribe", Events: []string{name}})
	}
}

// lateIntercept subscribes to the interception of event when a hook is
// installed after the registrations went out. Called with e.mu held and
// was saying whether a hook for event was already installed.
func (e *Extension) lateIntercept(event string, was bool) {
	late := e.announced && !was
	e.mu.Unlock()
	if late {
		e.sendOrLog(subscribeFrame{Type: "subscribe", Intercept: []string{event}})
	}
}

// InterceptToolCall installs the two-value tool_call guard.
func (e *Extension) InterceptToolCall(fn InterceptHandler) {
	e.mu.Lock()
	was := e.interceptOn
	e.interceptTool = fn
	e.interceptOn = true
	e.lateIntercept("tool_call", was)
}

// InterceptToolCallX installs the rich tool_call guard; it wins over
// InterceptToolCall when both are set.
func (e *Extension) InterceptToolCallX(fn ToolCallHandler) {
	e.mu.Lock()
	was := e.interceptOn
	e.interceptToolRich = fn
	e.interceptOn = true
	e.lateIntercept("tool_call", was)
}

// InterceptBeforeAgentStart installs the system prompt replacement hook.
func (e *Extension) InterceptBeforeAgentStart(fn BeforeAgentStartHandler) {
	e.mu.Lock()
	was := e.interceptStart != nil
	e.interceptStart = fn
	e.lateIntercept("before_agent_start", was)
}

// InterceptTurnStart installs a guard run before each model call.
func (e *Extension) InterceptTurnStart(fn TurnStartHandler) {
	e.mu.Lock()
	was := e.interceptTurn != nil
	e.interceptTurn = fn
	e.lateIntercept("turn_start", was)
}

// InterceptAssistantMessage installs a guard on the model's final text.
func (e *Extension) InterceptAssistantMessage(fn AssistantMessageHandler) {
	e.mu.Lock()
	was := e.interceptAssistant != nil
	e.interceptAssistant = fn
	e.lateIntercept("assistant_message", was)
}

// Notify pushes a note (level info, success, warn or error).
func (e *Extension) Notify(level, message string) {
	if err := e.send(notifyFrame{Type: "notify", Level: level, Message: message}); err != nil {
		e.Logf("notify not sent: %v", err)
	}
}

// ClearNotes removes every note this extension pushed.
func (e *Extension) ClearNotes() error {
	return e.send(typeOnly{Type: "clear_notes"})
}

// Submit queues text as a user prompt, as if the user typed it. The host
// keeps at most one pending submit per extension.
func (e *Extension) Submit(text string) error {
	if text == "" {
		return fmt.Errorf("ext: Submit needs text")
	}
	return e.send(textFrame{Type: "submit", Text: text})
}

// SubmitSlash runs an extension's slash command ("/name args") as if the
// user typed it. Built-in commands are never run this way.
func (e *Extension) SubmitSlash(text string) error {
	if len(text) < 2 || text[0] != '/' {
		return fmt.Errorf("ext: SubmitSlash needs a command starting with /, got %q", text)
	}
	return e.send(textFrame{Type: "submit_slash", Text: text})
}

func isJSONObject(b json.RawMessage) bool {
	for i := 0; i < len(b); i++ {
		switch b[i] {
		case ' ', '\t', '\r', '\n':
			continue
		case '{':
			return json.Valid(b)
		default:
			return false
		}
	}
	return false
}

func describeJSON(b json.RawMessage) string {
	if len(b) == 0 {
		return "nothing"
	}
	if len(b) > 40 {
		return string(b[:40]) + "…"
	}
	return string(b)
}
