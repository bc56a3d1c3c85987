package ext

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"runtime"
	"sync"
	"time"
)

// invocation is one live tool_call. It is entered in Extension.invocations
// by the read loop before its handler's goroutine exists, so a tool_cancel
// read next always finds it, whether or not the handler has started.
type invocation struct {
	id           string
	operationKey string
	ctx          context.Context
	cancel       context.CancelFunc
	// inlineSeq numbers the call when its handler runs on the reading
	// goroutine (see readLoop); 0 otherwise.
	inlineSeq uint64
	// cancelled is set under Extension.mu by tool_cancel, shutdown or EOF;
	// a cancelled invocation never replies.
	cancelled bool
}

type invocationKey struct{}

func invocationFrom(ctx context.Context) *invocation {
	if ctx == nil {
		return nil
	}
	inv, _ := ctx.Value(invocationKey{}).(*invocation)
	return inv
}

// ToolCallID returns the host's id of the tool call ctx belongs to (the
// tool_call id, which CallTool sends as parent_id), or "" outside a tool
// handler.
func ToolCallID(ctx context.Context) string {
	if inv := invocationFrom(ctx); inv != nil {
		return inv.id
	}
	return ""
}

// OperationKey returns the stable operation_key the host gave the call of
// an idempotent or reconcile tool in continuous mode: the same key every
// time the same call is replayed. "" when there is none.
func OperationKey(ctx context.Context) string {
	if inv := invocationFrom(ctx); inv != nil {
		return inv.operationKey
	}
	return ""
}

// Run speaks the protocol on stdin and stdout until shutdown or EOF. It
// returns nil on a clean end (shutdown acknowledged, or EOF).
func (e *Extension) Run() error {
	return e.RunWith(e.in, e.out)
}

// RunWith is Run over the given streams: in carries the host's frames,
// out receives the extension's. Tests drive an extension this way over
// in-memory pipes.
func (e *Extension) RunWith(in io.Reader, out io.Writer) error {
	e.mu.Lock()
	if e.started {
		e.mu.Unlock()
		return errors.New("ext: Run called twice")
	}
	e.started = true
	e.mu.Unlock()
	e.writeMu.Lock()
	e.out = out
	e.writeMu.Unlock()
	e.events = newSerialQueue(1024)
	e.panels = newSerialQueue(1024)

	lr := newLineReader(in, MaxFrameBytes, func(n int) {
		e.Logf("skipped a line of %d bytes from the host: over the 4 MiB frame limit", n)
	})

	if err := e.send(helloFrame{Type: "hello", Name: e.name, Version: e.version, Capabilities: e.capabilities()}); err != nil {
		e.stop(nil)
		return err
	}
	if err := e.awaitHelloAck(lr); err != nil {
		e.stop(nil)
		if err == io.EOF {
			return nil
		}
		return err
	}
	e.mu.Lock()
	onHello := e.onHello
	e.mu.Unlock()
	if onHello != nil {
		func() {
			defer func() {
				if r := recover(); r != nil {
					e.Logf("OnHello panicked: %v; registrations made before the panic stand", r)
				}
			}()
			onHello(e.Host())
		}()
	}
	e.sendRegistrations()

	e.lr = lr
	go e.watchdog()
	go e.readLoop()
	<-e.done
	return e.runErr
}

// readLoop reads and dispatches frames. Only one goroutine reads at a
// time: a tool handler runs on the reading goroutine (no hand-over to
// another goroutine, which costs more than a quick tool call), and when it
// takes longer than a moment, or waits for the host, reading moves on to a
// new goroutine (see watchdog and handOff). readLoop returns when the
// session ends or when it has handed reading over.
func (e *Extension) readLoop() {
	var f inFrame
	for {
		line, err := e.lr.next()
		if err != nil {
			if err != io.EOF {
				e.runErr = err
			}
			e.stop(nil)
			return
		}
		f = inFrame{}
		if err := json.Unmarshal(line, &f); err != nil {
			e.Logf("malformed frame from the host skipped: %v", err)
			continue
		}
		switch f.Type {
		case "tool_call":
			if !e.onToolCall(&f) {
				return
			}
		case "tool_cancel":
			e.onToolCancel(f.ID)
		case "tool_result":
			e.onCallReply(&f)
		case "command_invoked":
			e.onCommand(&f)
		case "event":
			e.onEvent(&f)
		case "event_intercept":
			fc := f
			e.spawn(func() { e.runIntercept(&fc) })
		case "panel_key", "panel_close", "panel_event", "panel_resize":
			e.onPanel(&f)
		case "shutdown":
			e.stop(typeOnly{Type: "shutdown_ack"})
			return
		case "hello_ack":
			// A duplicate; the first one was taken before registering.
		case "":
			e.Logf("frame without a type skipped")
		default:
			// Unknown types are ignored by the protocol; the log is kept
			// short so that a flood cannot fill the disk.
			e.unknownFrames++
			if n := e.unknownFrames; n <= 8 || n%1000 == 0 {
				e.Logf("unknown frame type %q ignored (%d so far)", truncate(f.Type, 64), n)
			}
		}
	}
}

// handoffTick is how often the watchdog looks at the handler running on
// the reading goroutine; one that is still the same one tick later loses
// the reading to a new goroutine, so a handler holds up the read loop for
// at most two ticks.
const handoffTick = time.Millisecond

// watchdog moves reading to a new goroutine when a tool handler runs long
// on the reading one. It sleeps while no handler runs there, so an idle
// extension costs nothing.
func (e *Extension) watchdog() {
	for {
		select {
		case <-e.wdWake:
		case <-e.done:
			return
		}
		tick := time.NewTicker(handoffTick)
		var last uint64
		for idle := 0; idle < 3; {
			select {
			case <-tick.C:
			case <-e.done:
				tick.Stop()
				return
			}
			cur := e.inline.Load()
			switch {
			case cur == 0:
				idle++
				last = 0
			case cur == last:
				e.handOff(cur)
				last, idle = 0, 0
			default:
				last, idle = cur, 0
			}
		}
		tick.Stop()
	}
}

// handOff starts a new reader if the handler of inline call seq still
// holds the reading goroutine. Exactly one caller wins for each seq.
func (e *Extension) handOff(seq uint64) {
	if seq != 0 && e.inline.CompareAndSwap(seq, 0) {
		go e.readLoop()
	}
}

func (e *Extension) awaitHelloAck(lr *lineReader) error {
	for {
		line, err := lr.next()
		if err != nil {
			return err
		}
		var f inFrame
		if err := json.Unmarshal(line, &f); err != nil {
			e.Logf("malformed frame before hello_ack skipped: %v", err)
			continue
		}
		if f.Type != "hello_ack" {
			e.Logf("frame %q before hello_ack ignored", truncate(f.Type, 64))
			continue
		}
		e.host.Store(HostInfo{
			ProtocolVersion: f.ProtocolVersion,
			ZotVersion:      f.ZotVersion,
			Provider:        f.Provider,
			Model:           f.Model,
			CWD:             f.CWD,
			ExtensionDir:    f.ExtensionDir,
			DataDir:         f.DataDir,
			Capabilities:    f.Capabilities,
		})
		return nil
	}
}

// capabilities builds hello's list from what was registered before Run. An
// OnHello callback may register anything, so it counts as everything.
func (e *Extension) capabilities() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	all := e.onHello != nil
	intercepts := e.interceptOn || e.interceptStart != nil || e.interceptTurn != nil || e.interceptAssistant != nil
	caps := make([]string, 0, 6)
	if all || len(e.commandOrder) > 0 {
		caps = append(caps, "commands")
	}
	if all || len(e.toolOrder) > 0 {
		caps = append(caps, "tools")
	}
	if all || len(e.eventNames) > 0 || intercepts {
		caps = append(caps, "events")
	}
	// Panels can be opened from anywhere (a command, a tool, an event
	// handler), so they are always announced.
	caps = append(caps, "panels")
	if all || len(e.toolOrder) > 0 {
		caps = append(caps, "tool_cancel")
	}
	caps = append(caps, "call_tool")
	return caps
}

func (e *Extension) sendRegistrations() {
	e.mu.Lock()
	cmds := append([]commandDef(nil), e.commandOrder...)
	tools := append([]*toolDef(nil), e.toolOrder...)
	events := append([]string(nil), e.eventNames...)
	var intercepts []string
	if e.interceptStart != nil {
		intercepts = append(intercepts, "before_agent_start")
	}
	if e.interceptOn {
		intercepts = append(intercepts, "tool_call")
	}
	if e.interceptTurn != nil {
		intercepts = append(intercepts, "turn_start")
	}
	if e.interceptAssistant != nil {
		intercepts = append(intercepts, "assistant_message")
	}
	e.announced = true
	e.mu.Unlock()

	for _, c := range cmds {
		e.sendOrLog(registerCommandFrame{Type: "register_command", Name: c.name, Description: c.description})
	}
	for _, td := range tools {
		e.sendOrLog(td.frame())
	}
	if len(events) > 0 || len(intercepts) > 0 {
		e.sendOrLog(subscribeFrame{Type: "subscribe", Events: events, Intercept: intercepts})
	}
	e.sendOrLog(typeOnly{Type: "ready"})
}

func (td *toolDef) frame() registerToolFrame {
	o := td.options
	return registerToolFrame{
		Type:                  "register_tool",
		Name:                  td.name,
		Description:           td.description,
		Schema:                td.schema,
		OutputSchema:          o.OutputSchema,
		Namespace:             o.Namespace,
		NamespaceDescription:  o.NamespaceDescription,
		NamespaceInstructions: o.NamespaceInstructions,
		Exposure:              o.Exposure,
		Deferred:              o.Deferred,
		Interactive:           o.Interactive,
		Replay:                o.Replay,
		Annotations:           annotations(o),
	}
}

func annotations(o ToolOptions) *toolAnnotations {
	if !o.ReadOnly && !o.Destructive {
		return nil
	}
	return &toolAnnotations{ReadOnly: o.ReadOnly, Destructive: o.Destructive}
}

func (e *Extension) sendOrLog(v any) {
	if err := e.send(v); err != nil && err != ErrClosed {
		e.Logf("frame not sent: %v", err)
	}
}

// stop ends the session: every running handler's context is cancelled and
// marked so that it never replies, last (shutdown_ack) is written, and the
// writer refuses every later frame.
func (e *Extension) stop(last any) {
	e.mu.Lock()
	if e.stopped {
		e.mu.Unlock()
		return
	}
	e.stopped = true
	invs := make([]*invocation, 0, len(e.invocations))
	for _, inv := range e.invocations {
		inv.cancelled = true
		invs = append(invs, inv)
	}
	e.mu.Unlock()
	for _, inv := range invs {
		inv.cancel()
	}
	e.closeWriter(last)
	e.doneOnce.Do(func() { close(e.done) })
	if e.events != nil {
		close(e.events.ch)
		close(e.panels.ch)
	}
}

// Done is closed when the session ends (shutdown or EOF).
func (e *Extension) Done() <-chan struct{} { return e.done }

// onToolCall starts a tool call; false means this goroutine no longer
// holds the read loop.
func (e *Extension) onToolCall(f *inFrame) bool {
	e.mu.Lock()
	if _, dup := e.invocations[f.ID]; dup || f.ID == "" {
		e.mu.Unlock()
		e.Logf("tool_call %q ignored: its id is empty or already running", f.ID)
		return true
	}
	td := e.tools[f.Name]
	inv := &invocation{id: f.ID, operationKey: f.OperationKey}
	inv.ctx, inv.cancel = context.WithCancel(context.Background())
	inv.ctx = context.WithValue(inv.ctx, invocationKey{}, inv)
	e.invocations[f.ID] = inv
	e.mu.Unlock()

	args := f.Args
	if len(args) == 0 || string(args) == "null" {
		args = json.RawMessage("{}")
	}
	name, reconcile := f.Name, f.Reconcile
	if td != nil && td.options.Interactive {
		// An interactive tool waits for the user by design.
		e.spawn(func() { e.runTool(inv, td, name, args, reconcile) })
		// The read loop is about to block in read(2); yielding first lets
		// the handler start now rather than after that hand-over.
		runtime.Gosched()
		return true
	}
	e.inlineSeq++
	inv.inlineSeq = e.inlineSeq
	e.inline.Store(inv.inlineSeq)
	select {
	case e.wdWake <- struct{}{}:
	default:
	}
	e.runTool(inv, td, name, args, reconcile)
	// False: the watchdog or CallTool gave reading to another goroutine.
	return e.inline.CompareAndSwap(inv.inlineSeq, 0)
}

func (e *Extension) runTool(inv *invocation, td *toolDef, name string, args json.RawMessage, reconcile bool) {
	var res ToolResult
	func() {
		defer func() {
			if r := recover(); r != nil {
				e.Logf("tool %s panicked: %v", name, r)
				res = TextErrorResult(fmt.Sprintf("%s: panic: %v", name, r))
				if reconcile {
					res.StructuredContent = reconcileState(ReconcileUnknown)
				}
			}
		}()
		switch {
		case td == nil:
			res = TextErrorResult(fmt.Sprintf("no handler for tool %q", name))
		case reconcile:
			res = e.reconcile(inv, td, args)
		default:
			res = td.handler(inv.ctx, args)
		}
	}()
	e.finishTool(inv, res)
}

func reconcileState(s ReconcileState) json.RawMessage {
	b, _ := json.Marshal(struct {
		State ReconcileState `json:"state"`
	}{s})
	return b
}

// reconcile answers the host's question about an interrupted call: only
// the state and, when completed, the call's content and is_error.
func (e *Extension) reconcile(inv *invocation, td *toolDef, args json.RawMessage) ToolResult {
	if td.options.Reconciler == nil {
		return ToolResult{Content: []ToolContent{Text("tool " + td.name + " has no reconciler")},
			IsError: true, StructuredContent: reconcileState(ReconcileUnknown)}
	}
	r := td.options.Reconciler(inv.ctx, inv.operationKey, args)
	switch r.State {
	case ReconcileCompleted:
		return ToolResult{Content: r.Result.Content, IsError: r.Result.IsError, StructuredContent: reconcileState(r.State)}
	case ReconcileNotStarted:
		return ToolResult{StructuredContent: reconcileState(r.State)}
	default:
		return ToolResult{StructuredContent: reconcileState(ReconcileUnknown)}
	}
}

func (e *Extension) finishTool(inv *invocation, res ToolResult) {
	e.mu.Lock()
	live := !inv.cancelled
	delete(e.invocations, inv.id)
	e.mu.Unlock()
	inv.cancel()
	if !live {
		e.Logf("result of tool call %s dropped: the call was cancelled", inv.id)
		return
	}
	e.replyTool(inv.id, res)
}

func (e *Extension) replyTool(id string, res ToolResult) {
	err := e.send(toolResultFrame{
		Type:              "tool_result",
		ID:                id,
		Content:           wireContent(res.Content),
		IsError:           res.IsError,
		ActivateTools:     res.ActivateTools,
		StructuredContent: res.StructuredContent,
	})
	switch {
	case err == nil:
	case errors.Is(err, ErrClosed):
		e.Logf("result of tool call %s dropped: the session has ended", id)
	default:
		// An oversized or unencodable result must not cost the
		// connection: the model gets an error saying what happened.
		e.Logf("result of tool call %s replaced by an error: %v", id, err)
		msg := fmt.Sprintf("the tool's result could not be sent: %v", err)
		if errors.Is(err, ErrFrameTooLarge) {
			msg = fmt.Sprintf("the tool's result is too large to send: %v", err)
		}
		e.sendOrLog(toolResultFrame{Type: "tool_result", ID: id, Content: wireContent([]ToolContent{Text(msg)}), IsError: true})
	}
}

func (e *Extension) onToolCancel(id string) {
	e.mu.Lock()
	inv := e.invocations[id]
	if inv != nil {
		inv.cancelled = true
	}
	e.mu.Unlock()
	// Unknown or finished ids are ignored, as the protocol asks.
	if inv != nil {
		inv.cancel()
	}
}

func (e *Extension) onCommand(f *inFrame) {
	var args string
	if len(f.Args) > 0 {
		if err := json.Unmarshal(f.Args, &args); err != nil {
			e.Logf("command_invoked %s: args is not a string: %v", f.Name, err)
		}
	}
	e.mu.Lock()
	fn := e.commands[f.Name]
	e.mu.Unlock()
	id, name := f.ID, f.Name
	if fn == nil {
		e.respond(id, Errorf("no handler for /%s", name))
		return
	}
	e.spawn(func() {
		var resp Response
		func() {
			defer func() {
				if r := recover(); r != nil {
					e.Logf("command %s panicked: %v", name, r)
					resp = Errorf("/%s: panic: %v", name, r)
				}
			}()
			resp = fn(args)
		}()
		e.respond(id, resp)
	})
}

func (e *Extension) respond(id string, r Response) {
	if r.Action == "" {
		r.Action = "noop"
	}
	if r.Action == "tool_prompt" && !isJSONObject(r.ToolArgs) {
		r = Errorf("tool_prompt arguments must be a JSON object")
	}
	frame := commandResponseFrame{
		Type: "command_response", ID: id, Action: r.Action,
		ToolName: r.ToolName, ToolArgs: r.ToolArgs, Error: r.Error,
	}
	// The field an action names is always sent, even empty ("insert" of
	// nothing is still an insert); the others only when set.
	if r.Prompt != "" || r.Action == "prompt" || r.Action == "tool_prompt" {
		frame.Prompt = &r.Prompt
	}
	if r.Insert != "" || r.Action == "insert" {
		frame.Insert = &r.Insert
	}
	if r.Display != "" || r.Action == "display" {
		frame.Display = &r.Display
	}
	if r.OpenPanel != nil {
		spec := e.panelSpec(*r.OpenPanel)
		frame.OpenPanel = &spec
	}
	err := e.send(frame)
	if err != nil && !errors.Is(err, ErrClosed) {
		e.Logf("response to command %s replaced by an error: %v", id, err)
		e.sendOrLog(commandResponseFrame{Type: "command_response", ID: id, Action: "noop",
			Error: fmt.Sprintf("the command's response could not be sent: %v", err)})
	}
}

func (e *Extension) onEvent(f *inFrame) {
	e.mu.Lock()
	fn := e.eventHandlers[f.Event]
	e.mu.Unlock()
	if fn == nil {
		return
	}
	ev := Event{
		Name: f.Event, AgentRunID: f.AgentRunID, SessionID: f.SessionID, Queued: f.Queued,
		ImageCount: f.ImageCount, CWD: f.CWD, Sequence: f.Sequence, Status: f.Status,
		Reason: f.Reason, Source: f.Source, Decision: f.Decision, Stage: f.Stage,
		Result: f.Result, Executed: f.Executed, CompactionID: f.CompactionID,
		MessageCount: f.MessageCount, TokenEstimate: f.TokenEstimate, AgentID: f.AgentID,
		AgentName: f.Name, Step: f.Step, Stop: f.Stop, Error: f.Error, ToolID: f.ToolID,
		ToolName: f.ToolName, ToolArgs: f.ToolArgs, ToolPreview: f.ToolPreview,
		ToolArgsRaw: f.ToolArgsRaw, Text: f.Text,
	}
	ok := e.events.push(func() {
		defer func() {
			if r := recover(); r != nil {
				e.Logf("handler of event %s panicked: %v", ev.Name, r)
			}
		}()
		fn(ev)
	})
	if !ok {
		e.Logf("event %s dropped: its handlers are 1024 events behind", f.Event)
	}
}

// runIntercept answers one event_intercept. Exactly one reply goes out: the
// handler's, a block if it panics, or an allow of the SDK's own when the
// handler is still busy near the host's 5 s deadline.
func (e *Extension) runIntercept(f *inFrame) {
	var once sync.Once
	reply := func(fr interceptResponseFrame) bool {
		sent := false
		once.Do(func() {
			sent = true
			err := e.send(fr)
			if err != nil && !errors.Is(err, ErrClosed) {
				e.Logf("reply to %s interception %s replaced by a block: %v", f.Event, f.ID, err)
				e.sendOrLog(interceptResponseFrame{Type: "event_intercept_response", ID: f.ID, Block: true,
					Reason: fmt.Sprintf("%s: the interceptor's reply could not be sent: %v", e.name, err)})
			}
		})
		return sent
	}
	timer := time.AfterFunc(e.interceptDeadline, func() {
		if reply(interceptResponseFrame{Type: "event_intercept_response", ID: f.ID}) {
			e.Logf("%s interceptor did not answer within %v: allowed", f.Event, e.interceptDeadline)
		}
	})
	defer timer.Stop()
	defer func() {
		if r := recover(); r != nil {
			e.Logf("%s interceptor panicked: %v", f.Event, r)
			reply(interceptResponseFrame{Type: "event_intercept_response", ID: f.ID, Block: true,
				Reason: fmt.Sprintf("%s: %s interceptor panicked: %v", e.name, f.Event, r)})
		}
	}()
	resp := e.intercept(f)
	if !reply(resp) {
		e.Logf("%s interceptor answered after the deadline: its reply was dropped", f.Event)
	}
}

func (e *Extension) intercept(f *inFrame) interceptResponseFrame {
	resp := interceptResponseFrame{Type: "event_intercept_response", ID: f.ID}
	e.mu.Lock()
	start, rich, simple := e.interceptStart, e.interceptToolRich, e.interceptTool
	turn, asst := e.interceptTurn, e.interceptAssistant
	e.mu.Unlock()
	switch f.Event {
	case "before_agent_start":
		if start != nil && f.SystemPrompt != nil {
			resp.SystemPrompt = start(BeforeAgentStartEvent{
				SystemPrompt: *f.SystemPrompt, SessionID: f.SessionID, AgentRunID: f.AgentRunID,
				CWD: f.CWD, Provider: f.Provider, Model: f.Model,
			})
		}
	case "tool_call":
		args := f.ToolArgs
		if len(args) == 0 {
			args = json.RawMessage("{}")
		}
		if rich != nil {
			d := rich(f.ToolName, args)
			resp.Block, resp.Reason = d.Block, d.Reason
			if !d.Block && len(d.ModifiedArgs) > 0 {
				if isJSONObject(d.ModifiedArgs) {
					resp.ModifiedArgs = d.ModifiedArgs
				} else {
					e.Logf("tool_call interceptor: modified args for %s are not a JSON object; ignored", f.ToolName)
				}
			}
		} else if simple != nil {
			allow, reason := simple(f.ToolName, args)
			resp.Block, resp.Reason = !allow, reason
		}
	case "turn_start":
		if turn != nil {
			d := turn(f.Step)
			resp.Block, resp.Reason = d.Block, d.Reason
		}
	case "assistant_message":
		if asst != nil {
			d := asst(f.Text)
			resp.Block, resp.Reason = d.Block, d.Reason
			if !d.Block && d.ReplaceText != "" && d.ReplaceText != f.Text {
				resp.ReplaceText = d.ReplaceText
			}
		}
	}
	return resp
}

func (e *Extension) onCallReply(f *inFrame) {
	e.mu.Lock()
	ch := e.pendingCalls[f.ID]
	delete(e.pendingCalls, f.ID)
	e.mu.Unlock()
	if ch == nil {
		e.Logf("tool_result for %q dropped: no call of that id is waiting", f.ID)
		return
	}
	ch <- ToolResult{Content: f.Content, IsError: f.IsError, StructuredContent: f.StructuredContent, Truncated: f.Truncated}
}

// spawn runs fn on a goroutine of its own. Goroutines that finished a
// handler wait for the next one: a fresh goroutine's stack has to grow (and
// be copied) on every call that decodes JSON.
func (e *Extension) spawn(fn func()) {
	select {
	case e.work <- fn:
	default:
		go e.worker(fn)
	}
}

func (e *Extension) worker(fn func()) {
	for {
		fn()
		if e.idle.Add(1) > maxIdleWorkers {
			e.idle.Add(-1)
			return
		}
		select {
		case fn = <-e.work:
			e.idle.Add(-1)
		case <-e.done:
			e.idle.Add(-1)
			return
		}
	}
}

const maxIdleWorkers = 16

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n]
}
