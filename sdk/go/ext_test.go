package ext_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"zot.dev/sdk/go/ext"
)

func capsOf(f frame) []string {
	var out []string
	for _, c := range f["capabilities"].([]any) {
		out = append(out, c.(string))
	}
	return out
}

func TestHandshakeCapabilities(t *testing.T) {
	noop := func(json.RawMessage) ext.ToolResult { return ext.TextResult("") }
	cases := []struct {
		name  string
		setup func(e *ext.Extension)
		want  []string
	}{
		{"nothing", func(e *ext.Extension) {}, []string{"panels", "call_tool"}},
		{"command", func(e *ext.Extension) {
			e.Command("a", "", func(string) ext.Response { return ext.Noop() })
		}, []string{"commands", "panels", "call_tool"}},
		{"tool", func(e *ext.Extension) {
			e.Tool("t", "", objSchema, noop)
		}, []string{"tools", "panels", "tool_cancel", "call_tool"}},
		{"event", func(e *ext.Extension) {
			e.On("turn_end", func(ext.Event) {})
		}, []string{"events", "panels", "call_tool"}},
		{"interceptor", func(e *ext.Extension) {
			e.InterceptTurnStart(func(int) ext.TurnStartDecision { return ext.TurnStartDecision{} })
		}, []string{"events", "panels", "call_tool"}},
		{"on hello", func(e *ext.Extension) {
			e.OnHello(func(ext.HostInfo) {})
		}, []string{"commands", "tools", "events", "panels", "tool_cancel", "call_tool"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := ext.New("caps", "1.0.0")
			tc.setup(e)
			h := startHost(t, e)
			if h.hello.str("name") != "caps" || h.hello.str("version") != "1.0.0" {
				t.Fatalf("hello = %v", h.hello)
			}
			if got := capsOf(h.hello); !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("capabilities = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestRegistrationOrderAndOnHello(t *testing.T) {
	e := ext.New("reg", "1")
	e.Command("b", "second", func(string) ext.Response { return ext.Noop() })
	e.On("turn_end", func(ext.Event) {})
	e.InterceptToolCall(func(string, json.RawMessage) (bool, string) { return true, "" })
	e.InterceptBeforeAgentStart(func(ext.BeforeAgentStartEvent) *string { return nil })
	var seen ext.HostInfo
	e.OnHello(func(hi ext.HostInfo) {
		seen = hi
		e.Tool("late", "registered from OnHello", objSchema, func(json.RawMessage) ext.ToolResult { return ext.TextResult("") })
	})
	h := startHost(t, e, "call_tool", "panels")
	if seen.CWD != "/tmp" || seen.ZotVersion != "test" || !seen.Has("panels") || seen.Has("panel_widgets") {
		t.Fatalf("OnHello saw %+v", seen)
	}
	if e.Host().CWD != "/tmp" {
		t.Fatalf("Host() = %+v", e.Host())
	}
	var types []string
	for _, f := range h.regs {
		types = append(types, f.str("type"))
	}
	if want := []string{"register_command", "register_tool", "subscribe"}; !reflect.DeepEqual(types, want) {
		t.Fatalf("registrations %v, want %v", types, want)
	}
	jsonEqual(t, h.regs[2], `{"type":"subscribe","events":["turn_end"],"intercept":["before_agent_start","tool_call"]}`)
}

func TestToolKinds(t *testing.T) {
	out := json.RawMessage(`{"type":"object","properties":{"n":{"type":"number"}}}`)
	echo := func(args json.RawMessage) ext.ToolResult { return ext.TextResult(string(args)) }
	ctxEcho := func(ctx context.Context, args json.RawMessage) ext.ToolResult {
		if ext.ToolCallID(ctx) == "" {
			return ext.TextErrorResult("no call id in ctx")
		}
		return ext.TextResult(string(args))
	}
	cases := []struct {
		name    string
		setup   func(e *ext.Extension)
		wantReg string
	}{
		{"tool", func(e *ext.Extension) { e.Tool("k", "d", objSchema, echo) },
			`{"type":"register_tool","name":"k","description":"d","schema":{"type":"object"}}`},
		{"structured", func(e *ext.Extension) { e.StructuredTool("k", "d", objSchema, out, echo) },
			`{"type":"register_tool","name":"k","description":"d","schema":{"type":"object"},"output_schema":{"type":"object","properties":{"n":{"type":"number"}}}}`},
		{"deferred", func(e *ext.Extension) { e.DeferredTool("k", "d", objSchema, echo) },
			`{"type":"register_tool","name":"k","description":"d","schema":{"type":"object"},"deferred":true}`},
		{"interactive", func(e *ext.Extension) { e.InteractiveTool("k", "d", objSchema, ctxEcho) },
			`{"type":"register_tool","name":"k","description":"d","schema":{"type":"object"},"interactive":true}`},
		{"options", func(e *ext.Extension) {
			e.ToolWithOptions("k", "d", objSchema, ext.ToolOptions{OutputSchema: out, Namespace: "ns",
				NamespaceDescription: "nd", NamespaceInstructions: "ni", Exposure: "codemode", Replay: "idempotent"}, ctxEcho)
		}, `{"type":"register_tool","name":"k","description":"d","schema":{"type":"object"},
			"output_schema":{"type":"object","properties":{"n":{"type":"number"}}},"namespace":"ns",
			"namespace_description":"nd","namespace_instructions":"ni","exposure":"codemode","replay":"idempotent"}`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := ext.New("kinds", "1")
			tc.setup(e)
			h := startHost(t, e)
			jsonEqual(t, h.regs[0], tc.wantReg)
			h.call("c1", "k", map[string]any{"x": 1})
			r := h.resultFor("c1")
			if r["is_error"] != false || firstText(t, r) != `{"x":1}` {
				t.Fatalf("result %v", r)
			}
		})
	}
}

func TestStructuredToolOutput(t *testing.T) {
	e := ext.New("st", "1")
	e.StructuredTool("add", "adds", objSchema, objSchema, func(args json.RawMessage) ext.ToolResult {
		var in struct{ A, B float64 }
		json.Unmarshal(args, &in)
		sum := in.A + in.B
		sc, _ := json.Marshal(map[string]float64{"sum": sum})
		return ext.ToolResult{Content: []ext.ToolContent{ext.Text(fmt.Sprint(sum))}, StructuredContent: sc,
			ActivateTools: []string{"other"}}
	})
	h := startHost(t, e)
	h.call("c1", "add", map[string]any{"a": 1, "b": 2})
	jsonEqual(t, h.resultFor("c1"), `{"type":"tool_result","id":"c1","content":[{"type":"text","text":"3"}],
		"is_error":false,"activate_tools":["other"],"structured_content":{"sum":3}}`)
}

func TestImageBlocks(t *testing.T) {
	e := ext.New("img", "1")
	e.Tool("pic", "", objSchema, func(json.RawMessage) ext.ToolResult {
		return ext.ToolResult{Content: []ext.ToolContent{ext.ImageBytes("image/png", []byte{1, 2, 3}), ext.Image("image/gif", "AAAA")}}
	})
	h := startHost(t, e)
	h.call("c1", "pic", nil)
	jsonEqual(t, h.resultFor("c1")["content"], `[{"type":"image","mime_type":"image/png","data":"AQID"},{"type":"image","mime_type":"image/gif","data":"AAAA"}]`)
}

// A cancel read before the handler runs is remembered: the handler finds
// its context already done, and no reply goes out. Interactive tools start
// on a goroutine of their own, others on the reading one; both are held at
// their first line until the cancel has been read.
func TestCancelBeforeHandlerStarts(t *testing.T) {
	for _, interactive := range []bool{false, true} {
		t.Run(fmt.Sprint("interactive=", interactive), func(t *testing.T) {
			e := ext.New("cb", "1")
			gate := make(chan struct{})
			sawDone := make(chan bool, 1)
			e.ToolWithOptions("slow", "", objSchema, ext.ToolOptions{Interactive: interactive},
				func(ctx context.Context, _ json.RawMessage) ext.ToolResult {
					<-gate
					select {
					case <-ctx.Done():
						sawDone <- true
					default:
						sawDone <- false
					}
					return ext.TextResult("must not be sent")
				})
			h := startHost(t, e)
			h.call("c1", "slow", nil)
			h.send(map[string]any{"type": "tool_cancel", "id": "c1"})
			// The barrier's reply proves the read loop has handled the cancel.
			if extra := h.barrier(); len(extra) != 0 {
				t.Fatalf("unexpected frames %v", extra)
			}
			close(gate)
			if !recv(t, sawDone) {
				t.Fatal("the handler's context was not done at its start")
			}
			h.log.waitFor(t, "result of tool call c1 dropped")
			if extra := h.barrier(); len(extra) != 0 {
				t.Fatalf("a cancelled call replied: %v", extra)
			}
		})
	}
}

func TestCancelAfterStart(t *testing.T) {
	e := ext.New("ca", "1")
	started := make(chan struct{})
	e.ToolWithOptions("wait", "", objSchema, ext.ToolOptions{}, func(ctx context.Context, _ json.RawMessage) ext.ToolResult {
		close(started)
		<-ctx.Done()
		return ext.TextErrorResult("cancelled")
	})
	h := startHost(t, e)
	h.call("c1", "wait", nil)
	recv(t, started)
	h.send(map[string]any{"type": "tool_cancel", "id": "c1"})
	h.log.waitFor(t, "result of tool call c1 dropped")
	if extra := h.barrier(); len(extra) != 0 {
		t.Fatalf("a cancelled call replied: %v", extra)
	}
	// Unknown and finished ids are ignored.
	h.send(map[string]any{"type": "tool_cancel", "id": "c1"})
	h.send(map[string]any{"type": "tool_cancel", "id": "nope"})
	if extra := h.barrier(); len(extra) != 0 {
		t.Fatalf("unexpected frames %v", extra)
	}
}

func TestShutdownCancelsAndAcks(t *testing.T) {
	e := ext.New("sd", "1")
	started := make(chan struct{}, 2)
	cancelled := make(chan struct{}, 2)
	e.ToolWithOptions("wait", "", objSchema, ext.ToolOptions{}, func(ctx context.Context, _ json.RawMessage) ext.ToolResult {
		started <- struct{}{}
		<-ctx.Done()
		cancelled <- struct{}{}
		return ext.TextResult("late")
	})
	cmdGate := make(chan struct{})
	e.Command("slow", "", func(string) ext.Response { <-cmdGate; return ext.Display("late") })
	h := startHost(t, e)
	h.call("c1", "wait", nil)
	h.call("c2", "wait", nil)
	recv(t, started)
	recv(t, started)
	h.send(map[string]any{"type": "command_invoked", "id": "k1", "name": "slow", "args": ""})
	h.shutdown()
	recv(t, cancelled)
	recv(t, cancelled)
	close(cmdGate)
	// Nothing follows shutdown_ack: the output ends.
	select {
	case f, ok := <-h.frames:
		if ok {
			t.Fatalf("frame after shutdown_ack: %v", f)
		}
	case <-time.After(wait):
		t.Fatal("output not closed after shutdown")
	}
}

func TestEOFCancels(t *testing.T) {
	e := ext.New("eof", "1")
	started := make(chan struct{})
	cancelled := make(chan struct{})
	e.ToolWithOptions("wait", "", objSchema, ext.ToolOptions{}, func(ctx context.Context, _ json.RawMessage) ext.ToolResult {
		close(started)
		<-ctx.Done()
		close(cancelled)
		return ext.TextResult("late")
	})
	h := startHost(t, e)
	h.call("c1", "wait", nil)
	recv(t, started)
	h.in.Close()
	recv(t, cancelled)
	if err := recv(t, h.runErr); err != nil {
		t.Fatalf("RunWith after EOF: %v", err)
	}
	h.runErr <- nil
	for f := range h.frames {
		t.Fatalf("frame after EOF: %v", f)
	}
	select {
	case <-e.Done():
	default:
		t.Fatal("Done not closed after EOF")
	}
}

func TestPanicBecomesErrorResult(t *testing.T) {
	e := ext.New("p", "1")
	e.Tool("boom", "", objSchema, func(json.RawMessage) ext.ToolResult { panic("kaboom") })
	e.Command("boom", "", func(string) ext.Response { panic("cmd kaboom") })
	h := startHost(t, e)
	h.call("c1", "boom", nil)
	r := h.resultFor("c1")
	if r["is_error"] != true || !strings.HasPrefix(firstText(t, r), "boom: panic: kaboom") {
		t.Fatalf("result %v", r)
	}
	h.send(map[string]any{"type": "command_invoked", "id": "k1", "name": "boom", "args": ""})
	f := h.expect("command_response")
	if !strings.Contains(f.str("error"), "cmd kaboom") || f.str("action") != "noop" {
		t.Fatalf("response %v", f)
	}
	// Still alive.
	h.call("c2", "boom", nil)
	h.resultFor("c2")
	h.call("c3", "missing", nil)
	if r := h.resultFor("c3"); r["is_error"] != true {
		t.Fatalf("unknown tool: %v", r)
	}
}

func TestInterceptors(t *testing.T) {
	e := ext.New("i", "1")
	e.InterceptToolCallX(func(name string, args json.RawMessage) ext.ToolCallDecision {
		switch name {
		case "bash":
			return ext.ToolCallDecision{Block: true, Reason: "no"}
		case "rewrite":
			return ext.ToolCallDecision{ModifiedArgs: json.RawMessage(`{"x":2}`)}
		case "badrewrite":
			return ext.ToolCallDecision{ModifiedArgs: json.RawMessage(`[1]`)}
		case "panic":
			panic("guard exploded")
		}
		return ext.ToolCallDecision{}
	})
	e.InterceptTurnStart(func(step int) ext.TurnStartDecision {
		return ext.TurnStartDecision{Block: step > 3, Reason: "too many"}
	})
	e.InterceptAssistantMessage(func(text string) ext.AssistantMessageDecision {
		return ext.AssistantMessageDecision{ReplaceText: strings.ReplaceAll(text, "secret", "***")}
	})
	h := startHost(t, e)
	cases := []struct {
		in   map[string]any
		want string
	}{
		{map[string]any{"event": "tool_call", "tool_name": "bash", "tool_args": map[string]any{}}, `{"block":true,"reason":"no"}`},
		{map[string]any{"event": "tool_call", "tool_name": "rewrite", "tool_args": map[string]any{"x": 1}}, `{"modified_args":{"x":2}}`},
		{map[string]any{"event": "tool_call", "tool_name": "badrewrite"}, `{}`},
		{map[string]any{"event": "tool_call", "tool_name": "read"}, `{}`},
		{map[string]any{"event": "tool_call", "tool_name": "panic"}, `{"block":true,"reason":"i: tool_call interceptor panicked: guard exploded"}`},
		{map[string]any{"event": "turn_start", "step": 4}, `{"block":true,"reason":"too many"}`},
		{map[string]any{"event": "turn_start", "step": 1}, `{"reason":"too many"}`},
		{map[string]any{"event": "assistant_message", "text": "a secret"}, `{"replace_text":"a ***"}`},
		{map[string]any{"event": "assistant_message", "text": "plain"}, `{}`},
		{map[string]any{"event": "before_agent_start", "system_prompt": "x"}, `{}`},
	}
	for i, tc := range cases {
		id := fmt.Sprint("i", i)
		tc.in["type"], tc.in["id"] = "event_intercept", id
		h.send(tc.in)
		f := h.expect("event_intercept_response")
		delete(f, "type")
		if f.str("id") != id {
			t.Fatalf("case %d: reply id %v", i, f)
		}
		delete(f, "id")
		jsonEqual(t, f, tc.want)
	}
}

func TestSimpleInterceptor(t *testing.T) {
	e := ext.New("i", "1")
	e.InterceptToolCall(func(name string, args json.RawMessage) (bool, string) {
		return !strings.Contains(string(args), "rm -rf"), "refused"
	})
	h := startHost(t, e)
	h.send(map[string]any{"type": "event_intercept", "id": "a", "event": "tool_call", "tool_name": "bash", "tool_args": map[string]any{"command": "rm -rf /"}})
	jsonEqual(t, h.expect("event_intercept_response"), `{"type":"event_intercept_response","id":"a","block":true,"reason":"refused"}`)
}

// A slow interceptor still gets an answer in before the host's 5 s: the
// SDK allows, and the handler's late reply is dropped.
func TestInterceptorDeadline(t *testing.T) {
	e := ext.New("slow", "1")
	ext.SetInterceptDeadline(e, 50*time.Millisecond)
	gate := make(chan struct{})
	returned := make(chan struct{})
	e.InterceptTurnStart(func(int) ext.TurnStartDecision {
		<-gate
		defer close(returned)
		return ext.TurnStartDecision{Block: true, Reason: "late"}
	})
	h := startHost(t, e)
	h.send(map[string]any{"type": "event_intercept", "id": "a", "event": "turn_start", "step": 1})
	jsonEqual(t, h.expect("event_intercept_response"), `{"type":"event_intercept_response","id":"a"}`)
	close(gate)
	recv(t, returned)
	h.log.waitFor(t, "answered after the deadline")
	if extra := h.barrier(); len(extra) != 0 {
		t.Fatalf("late reply sent: %v", extra)
	}
}

func TestBeforeAgentStartNilVersusEmpty(t *testing.T) {
	for _, tc := range []struct {
		name string
		ret  func(string) *string
		want string
	}{
		{"nil keeps", func(string) *string { return nil }, `{"type":"event_intercept_response","id":"s"}`},
		{"empty removes", func(string) *string { s := ""; return &s }, `{"type":"event_intercept_response","id":"s","system_prompt":""}`},
		{"replace", func(p string) *string { s := p + "\n(x)"; return &s }, `{"type":"event_intercept_response","id":"s","system_prompt":"base\n(x)"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := ext.New("bas", "1")
			var got ext.BeforeAgentStartEvent
			e.InterceptBeforeAgentStart(func(ev ext.BeforeAgentStartEvent) *string { got = ev; return tc.ret(ev.SystemPrompt) })
			h := startHost(t, e)
			h.send(map[string]any{"type": "event_intercept", "id": "s", "event": "before_agent_start", "system_prompt": "base",
				"session_id": "S", "agent_run_id": "R", "cwd": "/w", "provider": "p", "model": "m"})
			jsonEqual(t, h.expect("event_intercept_response"), tc.want)
			if got != (ext.BeforeAgentStartEvent{SystemPrompt: "base", SessionID: "S", AgentRunID: "R", CWD: "/w", Provider: "p", Model: "m"}) {
				t.Fatalf("event %+v", got)
			}
		})
	}
}

func TestEventsWithPointerFields(t *testing.T) {
	e := ext.New("ev", "1")
	got := make(chan ext.Event, 8)
	for _, name := range []string{"tool_result", "post_compact", "subagent_start", "turn_end"} {
		e.On(name, func(ev ext.Event) { got <- ev })
	}
	h := startHost(t, e)
	h.send(map[string]any{"type": "event", "event": "tool_result", "sequence": 7, "session_id": "s", "tool_id": "t1",
		"tool_name": "read", "tool_args": map[string]any{"path": "a"}, "status": "completed", "executed": false,
		"result": map[string]any{"content": []any{map[string]any{"type": "text", "text": "ok"}}, "is_error": false, "truncated": true}})
	h.send(map[string]any{"type": "event", "event": "post_compact", "compaction_id": "c", "message_count": 0, "status": "failed"})
	h.send(map[string]any{"type": "event", "event": "subagent_start", "agent_id": "a", "agent_run_id": "r", "name": "helper"})
	h.send(map[string]any{"type": "event", "event": "turn_end", "stop": "end_turn"})
	h.send(map[string]any{"type": "event", "event": "not_subscribed"})

	ev := recv(t, got)
	if ev.Name != "tool_result" || ev.Sequence != 7 || ev.Executed == nil || *ev.Executed || ev.Result == nil ||
		!ev.Result.Truncated || ev.Result.Content[0].Text != "ok" || string(ev.ToolArgs) != `{"path":"a"}` || ev.MessageCount != nil {
		t.Fatalf("tool_result event %+v", ev)
	}
	ev = recv(t, got)
	if ev.MessageCount == nil || *ev.MessageCount != 0 || ev.TokenEstimate != nil || ev.Executed != nil || ev.Result != nil {
		t.Fatalf("post_compact event %+v", ev)
	}
	ev = recv(t, got)
	if ev.AgentName != "helper" || ev.AgentID != "a" || ev.AgentRunID != "r" {
		t.Fatalf("subagent_start event %+v", ev)
	}
	if ev = recv(t, got); ev.Stop != "end_turn" {
		t.Fatalf("turn_end event %+v", ev)
	}
}

// A blocked event handler does not stall the read loop: interceptors and
// tool calls are still answered.
func TestSlowEventHandlerDoesNotBlock(t *testing.T) {
	e := ext.New("ev", "1")
	gate := make(chan struct{})
	e.On("turn_end", func(ext.Event) { <-gate })
	e.InterceptTurnStart(func(int) ext.TurnStartDecision { return ext.TurnStartDecision{} })
	h := startHost(t, e)
	defer close(gate)
	h.send(map[string]any{"type": "event", "event": "turn_end"})
	h.send(map[string]any{"type": "event_intercept", "id": "a", "event": "turn_start", "step": 1})
	h.expect("event_intercept_response")
}

func TestCommandResponses(t *testing.T) {
	cases := []struct {
		name string
		resp ext.Response
		want string
	}{
		{"prompt", ext.Prompt("hi"), `{"action":"prompt","prompt":"hi"}`},
		{"insert", ext.Insert("text"), `{"action":"insert","insert":"text"}`},
		{"insert empty", ext.Insert(""), `{"action":"insert","insert":""}`},
		{"display", ext.Display("shown"), `{"action":"display","display":"shown"}`},
		{"noop", ext.Noop(), `{"action":"noop"}`},
		{"empty", ext.Response{}, `{"action":"noop"}`},
		{"error", ext.Errorf("failed: %d", 3), `{"action":"noop","error":"failed: 3"}`},
		{"tool_prompt", ext.ToolPrompt("sc_echo", map[string]string{"text": "x"}, "run echo"),
			`{"action":"tool_prompt","prompt":"run echo","tool_name":"sc_echo","tool_args":{"text":"x"}}`},
		{"tool_prompt not object", ext.ToolPrompt("t", []int{1}, "p"), `{"action":"noop","error":"tool_prompt arguments must encode to a JSON object"}`},
		{"tool_prompt no name", ext.ToolPrompt("", map[string]int{}, "p"), `{"action":"noop","error":"tool_prompt needs a tool name and a prompt"}`},
		{"open_panel", ext.OpenPanel("p", "T", []string{"a"}, "f"), `{"action":"open_panel","open_panel":{"id":"p","title":"T","lines":["a"],"footer":"f"}}`},
		{"open_panel no lines", ext.OpenPanel("p", "T", nil, ""), `{"action":"open_panel","open_panel":{"id":"p","title":"T","lines":[],"footer":""}}`},
	}
	e := ext.New("cmd", "1")
	var argsSeen sync.Map
	for _, tc := range cases {
		tc := tc
		e.Command(tc.name, "", func(args string) ext.Response { argsSeen.Store(tc.name, args); return tc.resp })
	}
	h := startHost(t, e)
	for i, tc := range cases {
		id := fmt.Sprint("k", i)
		h.send(map[string]any{"type": "command_invoked", "id": id, "name": tc.name, "args": "a b"})
		f := h.expect("command_response")
		if f.str("id") != id {
			t.Fatalf("%s: id %v", tc.name, f)
		}
		delete(f, "type")
		delete(f, "id")
		jsonEqual(t, f, tc.want)
		if v, _ := argsSeen.Load(tc.name); v != "a b" {
			t.Fatalf("%s: args %q", tc.name, v)
		}
	}
	h.send(map[string]any{"type": "command_invoked", "id": "u", "name": "unknown", "args": ""})
	if f := h.expect("command_response"); !strings.Contains(f.str("error"), "no handler") {
		t.Fatalf("unknown command: %v", f)
	}
}

func TestCallTool(t *testing.T) {
	type outcome struct {
		res ext.ToolResult
		err error
	}
	e := ext.New("ct", "1")
	results := make(chan outcome, 4)
	e.ToolWithOptions("nest", "", objSchema, ext.ToolOptions{}, func(ctx context.Context, args json.RawMessage) ext.ToolResult {
		var in struct{ Path string }
		json.Unmarshal(args, &in)
		res, err := e.CallTool(ctx, "read", map[string]string{"path": in.Path}, ext.WithCallKey("k1"))
		results <- outcome{res, err}
		return ext.TextResult("done")
	})
	e.Tool("plain", "", objSchema, func(json.RawMessage) ext.ToolResult {
		res, err := e.CallTool(context.Background(), "read", json.RawMessage(`{"path":"x"}`))
		results <- outcome{res, err}
		return ext.TextResult("done")
	})

	h := startHost(t, e, "call_tool")
	h.call("t1", "nest", map[string]any{"path": "a.txt"})
	req := h.expect("call_tool")
	if req.str("parent_id") != "t1" || req.str("name") != "read" || req["key"] != nil {
		t.Fatalf("request %v", req)
	}
	jsonEqual(t, req["args"], `{"path":"a.txt"}`)
	h.send(map[string]any{"type": "tool_result", "id": req.str("id"), "name": "read",
		"content": []any{map[string]any{"type": "text", "text": "body"}}, "is_error": false, "truncated": true})
	o := recv(t, results)
	if o.err != nil || o.res.IsError || o.res.Content[0].Text != "body" || !o.res.Truncated {
		t.Fatalf("outcome %+v", o)
	}
	h.resultFor("t1")

	// Outside a handler there is no parent.
	h.call("t2", "plain", nil)
	req = h.expect("call_tool")
	if _, has := req["parent_id"]; has {
		t.Fatalf("parent_id outside a handler: %v", req)
	}
	h.send(map[string]any{"type": "tool_result", "id": req.str("id"), "content": []any{}, "is_error": true})
	if o := recv(t, results); o.err != nil || !o.res.IsError {
		t.Fatalf("outcome %+v", o)
	}
	h.resultFor("t2")

	// A reply nobody waits for is dropped with a log line.
	h.send(map[string]any{"type": "tool_result", "id": "call-999", "content": []any{}})
	h.log.waitFor(t, `tool_result for "call-999" dropped`)
}

func TestCallToolKeyOnlyWithDurable(t *testing.T) {
	e := ext.New("ct", "1")
	done := make(chan error, 1)
	e.ToolWithOptions("nest", "", objSchema, ext.ToolOptions{}, func(ctx context.Context, _ json.RawMessage) ext.ToolResult {
		_, err := e.CallTool(ctx, "read", nil, ext.WithCallKey("step-1"))
		done <- err
		return ext.TextResult("")
	})
	h := startHost(t, e, "call_tool", "call_tool_durable")
	h.call("t1", "nest", nil)
	req := h.expect("call_tool")
	if req.str("key") != "step-1" || req.str("parent_id") != "t1" {
		t.Fatalf("request %v", req)
	}
	jsonEqual(t, req["args"], `{}`)
	h.send(map[string]any{"type": "tool_result", "id": req.str("id"), "content": []any{}})
	if err := recv(t, done); err != nil {
		t.Fatal(err)
	}
}

func TestCallToolRefusedWithoutHostSupport(t *testing.T) {
	e := ext.New("ct", "1")
	// Before hello_ack there is no host to ask.
	if _, err := e.CallTool(context.Background(), "read", nil); !errors.Is(err, ext.ErrCallToolUnsupported) {
		t.Fatalf("before Run: %v", err)
	}
	h := startHost(t, e, "panels")
	if _, err := e.CallTool(context.Background(), "read", nil); !errors.Is(err, ext.ErrCallToolUnsupported) {
		t.Fatalf("err = %v", err)
	}
	if extra := h.barrier(); len(extra) != 0 {
		t.Fatalf("a refused call reached the wire: %v", extra)
	}
}

func TestCallToolBadInput(t *testing.T) {
	e := ext.New("ct", "1")
	h := startHost(t, e, "call_tool", "call_tool_durable")
	for _, tc := range []struct {
		args any
		opt  ext.CallOption
	}{
		{[]int{1}, nil},
		{"not json", nil},
		{nil, ext.WithCallKey("a/b")},
		{nil, ext.WithCallKey(strings.Repeat("k", 129))},
	} {
		if _, err := e.CallTool(context.Background(), "read", tc.args, tc.opt); err == nil {
			t.Fatalf("CallTool(%v) succeeded", tc.args)
		}
	}
	if extra := h.barrier(); len(extra) != 0 {
		t.Fatalf("bad requests reached the wire: %v", extra)
	}
}

func TestCallToolConcurrentRouting(t *testing.T) {
	e := ext.New("ct", "1")
	h := startHost(t, e, "call_tool")
	const n = 8
	got := make(chan [2]string, n)
	for i := 0; i < n; i++ {
		go func(i int) {
			path := fmt.Sprint("f", i)
			res, err := e.CallTool(context.Background(), "read", map[string]string{"path": path})
			if err != nil {
				got <- [2]string{path, err.Error()}
				return
			}
			got <- [2]string{path, res.Content[0].Text}
		}(i)
	}
	reqs := make([]frame, 0, n)
	ids := map[string]bool{}
	for i := 0; i < n; i++ {
		r := h.expect("call_tool")
		if ids[r.str("id")] {
			t.Fatalf("id reused: %v", r)
		}
		ids[r.str("id")] = true
		reqs = append(reqs, r)
	}
	// Answer in reverse order; each caller must get its own reply.
	for i := n - 1; i >= 0; i-- {
		path := reqs[i]["args"].(map[string]any)["path"].(string)
		h.send(map[string]any{"type": "tool_result", "id": reqs[i].str("id"),
			"content": []any{map[string]any{"type": "text", "text": "content of " + path}}})
	}
	for i := 0; i < n; i++ {
		g := recv(t, got)
		if g[1] != "content of "+g[0] {
			t.Fatalf("caller for %s got %q", g[0], g[1])
		}
	}
}

func TestCallToolContextCancel(t *testing.T) {
	e := ext.New("ct", "1")
	h := startHost(t, e, "call_tool")
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := e.CallTool(ctx, "read", nil)
		done <- err
	}()
	req := h.expect("call_tool")
	cancel()
	if err := recv(t, done); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v", err)
	}
	c := h.expect("call_tool_cancel")
	if c.str("id") != req.str("id") {
		t.Fatalf("cancel %v for request %v", c, req)
	}
	// The host's answer to the cancelled request is dropped quietly.
	h.send(map[string]any{"type": "tool_result", "id": req.str("id"), "is_error": true, "content": []any{}})
	if extra := h.barrier(); len(extra) != 0 {
		t.Fatalf("unexpected frames %v", extra)
	}
}

// Cancelling the parent tool call cancels its nested request.
func TestCallToolParentCancel(t *testing.T) {
	e := ext.New("ct", "1")
	done := make(chan error, 1)
	e.ToolWithOptions("nest", "", objSchema, ext.ToolOptions{}, func(ctx context.Context, _ json.RawMessage) ext.ToolResult {
		_, err := e.CallTool(ctx, "read", nil)
		done <- err
		return ext.TextResult("")
	})
	h := startHost(t, e, "call_tool")
	h.call("t1", "nest", nil)
	req := h.expect("call_tool")
	h.send(map[string]any{"type": "tool_cancel", "id": "t1"})
	if c := h.expect("call_tool_cancel"); c.str("id") != req.str("id") {
		t.Fatalf("cancel %v", c)
	}
	if err := recv(t, done); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v", err)
	}
}

func TestOversizedResultBecomesError(t *testing.T) {
	e := ext.New("big", "1")
	e.Tool("big", "", objSchema, func(json.RawMessage) ext.ToolResult {
		return ext.TextResult(strings.Repeat("x", ext.MaxFrameBytes))
	})
	e.Tool("bad", "", objSchema, func(json.RawMessage) ext.ToolResult {
		return ext.ToolResult{StructuredContent: json.RawMessage(`{not json`)}
	})
	h := startHost(t, e)
	h.call("c1", "big", nil)
	r := h.resultFor("c1")
	if r["is_error"] != true || !strings.Contains(firstText(t, r), "too large") {
		t.Fatalf("result %v", r)
	}
	h.call("c2", "bad", nil)
	if r := h.resultFor("c2"); r["is_error"] != true {
		t.Fatalf("result %v", r)
	}
}

func TestOversizedInboundLineSkipped(t *testing.T) {
	e := ext.New("skip", "1")
	e.Tool("echo", "", objSchema, func(a json.RawMessage) ext.ToolResult { return ext.TextResult(string(a)) })
	h := startHost(t, e)
	big := append([]byte(`{"type":"tool_call","id":"big","name":"echo","args":{"x":"`), strings.Repeat("y", ext.MaxFrameBytes)...)
	big = append(big, `"}}`...)
	h.sendLine(big)
	h.sendLine([]byte(`not json at all`))
	h.sendLine([]byte(`{"type":"no_such_frame"}`))
	h.call("small", "echo", map[string]int{"n": 1})
	if r := h.resultFor("small"); firstText(t, r) != `{"n":1}` {
		t.Fatalf("result %v", r)
	}
	h.log.waitFor(t, "over the 4 MiB frame limit")
	h.log.waitFor(t, "malformed frame")
	h.log.waitFor(t, `unknown frame type "no_such_frame"`)
	// A line of exactly the limit is still a frame.
	exact := []byte(`{"type":"tool_call","id":"edge","name":"echo","args":{"x":"`)
	exact = append(exact, strings.Repeat("z", ext.MaxFrameBytes-len(exact)-3)...)
	exact = append(exact, `"}}`...)
	h.sendLine(exact)
	if r := h.resultFor("edge"); r["is_error"] != true {
		// The echo of a 4 MiB line cannot fit a frame with its envelope.
		t.Fatalf("edge result %v", r["is_error"])
	}
}

func TestRegistrationErrors(t *testing.T) {
	noop := func(json.RawMessage) ext.ToolResult { return ext.ToolResult{} }
	cases := []struct {
		name string
		reg  func(e *ext.Extension)
		want string
	}{
		{"space in name", func(e *ext.Extension) { e.Tool("bad name", "", objSchema, noop) }, `tool name "bad name" is invalid: it must match ^[A-Za-z0-9_-]{1,64}$`},
		{"empty name", func(e *ext.Extension) { e.Tool("", "", objSchema, noop) }, `tool name "" is invalid`},
		{"long name", func(e *ext.Extension) { e.Tool(strings.Repeat("a", 65), "", objSchema, noop) }, `is invalid`},
		{"dot", func(e *ext.Extension) { e.Tool("a.b", "", objSchema, noop) }, `is invalid`},
		{"array schema", func(e *ext.Extension) { e.Tool("t", "", json.RawMessage(`[]`), noop) }, `tool "t": schema must be a JSON object, got []`},
		{"string schema", func(e *ext.Extension) { e.Tool("t", "", json.RawMessage(`"x"`), noop) }, `schema must be a JSON object`},
		{"nil schema", func(e *ext.Extension) { e.Tool("t", "", nil, noop) }, `schema must be a JSON object, got nothing`},
		{"broken schema", func(e *ext.Extension) { e.Tool("t", "", json.RawMessage(`{"a":`), noop) }, `schema must be a JSON object`},
		{"output schema", func(e *ext.Extension) { e.StructuredTool("t", "", objSchema, json.RawMessage(`1`), noop) }, `output schema must be a JSON object`},
		{"exposure", func(e *ext.Extension) {
			e.ToolWithOptions("t", "", objSchema, ext.ToolOptions{Exposure: "public"}, func(context.Context, json.RawMessage) ext.ToolResult { return ext.ToolResult{} })
		}, `exposure "public"`},
		{"reconcile without reconciler", func(e *ext.Extension) {
			e.ToolWithOptions("t", "", objSchema, ext.ToolOptions{Replay: "reconcile"}, func(context.Context, json.RawMessage) ext.ToolResult { return ext.ToolResult{} })
		}, `needs a Reconciler`},
		{"duplicate", func(e *ext.Extension) {
			e.Tool("t", "", objSchema, noop)
			e.Tool("t", "", objSchema, noop)
		}, `registered twice`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			defer func() {
				r := recover()
				if r == nil || !strings.Contains(fmt.Sprint(r), tc.want) {
					t.Fatalf("panic %v, want it to contain %q", r, tc.want)
				}
			}()
			tc.reg(ext.New("x", "1"))
		})
	}
	if !ext.ValidToolName("Ok_name-1") {
		t.Fatal("valid name refused")
	}
}

func TestPanelsLines(t *testing.T) {
	e := ext.New("pl", "1")
	keys := make(chan string, 8)
	closed := make(chan struct{}, 1)
	events := make(chan ext.PanelEvent, 1)
	e.OnPanelKey("p", func(key, text string) { keys <- key + text }, func() { closed <- struct{}{} })
	e.OnPanelEvent("p", func(ev ext.PanelEvent) { events <- ev })
	h := startHost(t, e, "panels")
	e.OpenPanel("p", "Title", []string{"one"}, "foot")
	jsonEqual(t, h.next(), `{"type":"open_panel","panel":{"id":"p","title":"Title","lines":["one"],"footer":"foot"}}`)
	e.RenderPanel("p", "", []string{"two"}, "foot")
	jsonEqual(t, h.next(), `{"type":"panel_render","panel_id":"p","title":"","lines":["two"],"footer":"foot"}`)
	// Widgets fall back to lines on a host without panel_widgets.
	if err := e.ShowPanel(ext.Panel{ID: "p", Title: "T", Lines: []string{"fallback"},
		Widgets: []ext.Widget{{Type: "button", ID: "b", Label: "Go"}}, ToolCallID: "t1"}); err != nil {
		t.Fatal(err)
	}
	jsonEqual(t, h.next(), `{"type":"open_panel","panel":{"id":"p","title":"T","lines":["fallback"],"footer":"","tool_call_id":"t1"}}`)
	e.ClosePanel("p")
	jsonEqual(t, h.next(), `{"type":"panel_close","panel_id":"p"}`)

	for _, k := range []string{"down", "down", "up"} {
		h.send(map[string]any{"type": "panel_key", "panel_id": "p", "key": k})
	}
	h.send(map[string]any{"type": "panel_key", "panel_id": "p", "key": "rune", "text": "q"})
	h.send(map[string]any{"type": "panel_key", "panel_id": "other", "key": "down"})
	for _, want := range []string{"down", "down", "up", "runeq"} {
		if got := recv(t, keys); got != want {
			t.Fatalf("key %q, want %q", got, want)
		}
	}
	h.send(map[string]any{"type": "panel_close", "panel_id": "p"})
	recv(t, closed)
	e.ForgetPanel("p")
	h.send(map[string]any{"type": "panel_key", "panel_id": "p", "key": "down"})
	h.barrier()
	select {
	case k := <-keys:
		t.Fatalf("key %q after ForgetPanel", k)
	default:
	}
}

func TestPanelsWidgets(t *testing.T) {
	e := ext.New("pw", "1")
	events := make(chan ext.PanelEvent, 1)
	e.OnPanelEvent("w", func(ev ext.PanelEvent) { events <- ev })
	e.Command("form", "", func(string) ext.Response {
		return ext.Response{Action: "open_panel", OpenPanel: &ext.Panel{ID: "w", Title: "Form", Lines: []string{"no widgets"},
			Widgets: []ext.Widget{{Type: "entry", ID: "name", Label: "Name", Value: ""}, {Type: "box", ID: "row",
				Orientation: "horizontal", Children: []ext.Widget{{Type: "button", ID: "ok", Label: "OK", Style: "suggested"}}}}}}
	})
	h := startHost(t, e, "panels", "panel_widgets")
	h.send(map[string]any{"type": "command_invoked", "id": "k", "name": "form", "args": ""})
	jsonEqual(t, h.expect("command_response"), `{"type":"command_response","id":"k","action":"open_panel","open_panel":{"id":"w","title":"Form",
		"widgets":[{"type":"entry","id":"name","label":"Name","value":""},{"type":"box","id":"row","orientation":"horizontal",
		"children":[{"type":"button","id":"ok","label":"OK","style":"suggested"}]}],"footer":""}}`)
	checked := false
	if err := e.UpdatePanel(ext.Panel{ID: "w", Widgets: []ext.Widget{{Type: "list", ID: "l",
		Rows: []ext.ListRow{{ID: "a", Title: "A", Checked: &checked}}}}}); err != nil {
		t.Fatal(err)
	}
	jsonEqual(t, h.next(), `{"type":"panel_render","panel_id":"w","title":"","widgets":[{"type":"list","id":"l","rows":[{"id":"a","title":"A","checked":false}]}],"footer":""}`)
	h.send(map[string]any{"type": "panel_event", "panel_id": "w", "widget_id": "name", "event": "submit", "value": "milk"})
	ev := recv(t, events)
	if ev.WidgetID != "name" || ev.Event != "submit" || string(ev.Value) != `"milk"` {
		t.Fatalf("event %+v", ev)
	}
}

func TestNotesAndSubmit(t *testing.T) {
	e := ext.New("n", "1")
	h := startHost(t, e)
	e.Notify("warn", "careful")
	jsonEqual(t, h.next(), `{"type":"notify","level":"warn","message":"careful"}`)
	if err := e.ClearNotes(); err != nil {
		t.Fatal(err)
	}
	jsonEqual(t, h.next(), `{"type":"clear_notes"}`)
	if err := e.Submit("do <this> & that"); err != nil {
		t.Fatal(err)
	}
	jsonEqual(t, h.next(), `{"type":"submit","text":"do <this> & that"}`)
	if err := e.SubmitSlash("/todo add milk"); err != nil {
		t.Fatal(err)
	}
	jsonEqual(t, h.next(), `{"type":"submit_slash","text":"/todo add milk"}`)
	if err := e.SubmitSlash("todo"); err == nil {
		t.Fatal("SubmitSlash without / accepted")
	}
	if err := e.Submit(""); err == nil {
		t.Fatal("empty Submit accepted")
	}
	if extra := h.barrier(); len(extra) != 0 {
		t.Fatalf("refused frames reached the wire: %v", extra)
	}
	h.shutdown()
	if err := e.Submit("late"); !errors.Is(err, ext.ErrClosed) {
		t.Fatalf("Submit after shutdown: %v", err)
	}
}

func TestReconciler(t *testing.T) {
	e := ext.New("rc", "1")
	ran := make(chan string, 4)
	e.ToolWithOptions("settle", "", objSchema, ext.ToolOptions{
		Reconciler: func(ctx context.Context, key string, args json.RawMessage) ext.Reconciliation {
			switch key {
			case "done":
				return ext.Reconciliation{State: ext.ReconcileCompleted, Result: ext.TextResult("paid " + string(args))}
			case "fresh":
				return ext.Reconciliation{State: ext.ReconcileNotStarted}
			case "boom":
				panic("ledger offline")
			}
			return ext.Reconciliation{State: ext.ReconcileUnknown}
		},
	}, func(ctx context.Context, args json.RawMessage) ext.ToolResult {
		ran <- ext.OperationKey(ctx)
		return ext.TextResult("ran")
	})
	h := startHost(t, e)
	jsonEqual(t, h.regs[0]["replay"], `"reconcile"`)
	ask := func(id, key string) frame {
		h.send(map[string]any{"type": "tool_call", "id": id, "name": "settle", "args": map[string]any{"n": 1},
			"reconcile": true, "operation_key": key})
		return h.resultFor(id)
	}
	jsonEqual(t, ask("a", "done"), `{"type":"tool_result","id":"a","content":[{"type":"text","text":"paid {\"n\":1}"}],"is_error":false,"structured_content":{"state":"completed"}}`)
	jsonEqual(t, ask("b", "fresh"), `{"type":"tool_result","id":"b","content":[],"is_error":false,"structured_content":{"state":"not_started"}}`)
	jsonEqual(t, ask("c", "other"), `{"type":"tool_result","id":"c","content":[],"is_error":false,"structured_content":{"state":"unknown"}}`)
	r := ask("d", "boom")
	if r["is_error"] != true || !reflect.DeepEqual(r["structured_content"], map[string]any{"state": "unknown"}) {
		t.Fatalf("panicking reconciler: %v", r)
	}
	// A normal call runs the handler with its operation key.
	h.send(map[string]any{"type": "tool_call", "id": "e", "name": "settle", "args": map[string]any{}, "operation_key": "op-7"})
	if firstText(t, h.resultFor("e")) != "ran" || recv(t, ran) != "op-7" {
		t.Fatal("normal call")
	}
}

func TestRunTwice(t *testing.T) {
	e := ext.New("x", "1")
	startHost(t, e)
	if err := e.RunWith(strings.NewReader(""), discard{}); err == nil {
		t.Fatal("second Run accepted")
	}
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }

// A tool handler starts on the reading goroutine; one that takes long
// loses the read loop, so interceptors and other calls still get answers.
func TestLongToolHandlerDoesNotHoldReadLoop(t *testing.T) {
	e := ext.New("long", "1")
	const n = 3
	started := make(chan struct{}, n)
	release := make(chan struct{})
	e.Tool("block", "", objSchema, func(json.RawMessage) ext.ToolResult {
		started <- struct{}{}
		<-release
		return ext.TextResult("ok")
	})
	e.InterceptTurnStart(func(int) ext.TurnStartDecision { return ext.TurnStartDecision{} })
	h := startHost(t, e)
	for i := 0; i < n; i++ {
		h.call(fmt.Sprint("c", i), "block", nil)
	}
	// All three run at once: each one's read loop moved on.
	for i := 0; i < n; i++ {
		recv(t, started)
	}
	h.send(map[string]any{"type": "event_intercept", "id": "a", "event": "turn_start", "step": 1})
	h.expect("event_intercept_response")
	close(release)
	seen := map[string]bool{}
	for len(seen) < n {
		seen[h.expect("tool_result").str("id")] = true
	}
}

// Registrations after the handshake are sent when they are made.
func TestLateRegistrations(t *testing.T) {
	e := ext.New("late", "1")
	h := startHost(t, e)
	e.Tool("later", "d", objSchema, func(json.RawMessage) ext.ToolResult { return ext.TextResult("late ok") })
	jsonEqual(t, h.next(), `{"type":"register_tool","name":"later","description":"d","schema":{"type":"object"}}`)
	e.Command("cmd", "d", func(string) ext.Response { return ext.Noop() })
	jsonEqual(t, h.next(), `{"type":"register_command","name":"cmd","description":"d"}`)
	e.Command("cmd", "d", func(string) ext.Response { return ext.Noop() })
	e.On("turn_end", func(ext.Event) {})
	jsonEqual(t, h.next(), `{"type":"subscribe","events":["turn_end"]}`)
	e.InterceptTurnStart(func(int) ext.TurnStartDecision { return ext.TurnStartDecision{} })
	jsonEqual(t, h.next(), `{"type":"subscribe","intercept":["turn_start"]}`)
	e.InterceptTurnStart(func(int) ext.TurnStartDecision { return ext.TurnStartDecision{} })
	if extra := h.barrier(); len(extra) != 0 {
		t.Fatalf("replacing a handler re-registered: %v", extra)
	}
	h.call("c", "later", nil)
	if firstText(t, h.resultFor("c")) != "late ok" {
		t.Fatal("late tool not called")
	}
}

func TestEmptyTextBlockKeepsText(t *testing.T) {
	e := ext.New("empty", "1")
	e.Tool("empty", "", objSchema, func(json.RawMessage) ext.ToolResult { return ext.TextResult("") })
	h := startHost(t, e)
	h.call("c", "empty", nil)
	jsonEqual(t, h.resultFor("c"), `{"type":"tool_result","id":"c","content":[{"type":"text","text":""}],"is_error":false}`)
}

func TestAnnotationsAndUnregister(t *testing.T) {
	echo := func(args json.RawMessage) ext.ToolResult { return ext.TextResult("first") }
	e := ext.New("dyn", "1")
	e.ToolWithOptions("wipe", "d", objSchema, ext.ToolOptions{Destructive: true},
		func(ctx context.Context, args json.RawMessage) ext.ToolResult { return ext.TextResult("x") })
	e.ToolWithOptions("look", "d", objSchema, ext.ToolOptions{ReadOnly: true},
		func(ctx context.Context, args json.RawMessage) ext.ToolResult { return ext.TextResult("x") })
	e.Tool("plain", "d", objSchema, echo)
	e.Command("Go", "d", func(string) ext.Response { return ext.Noop() })
	h := startHost(t, e)
	jsonEqual(t, h.regs[1], `{"type":"register_tool","name":"wipe","description":"d","schema":{"type":"object"},"annotations":{"destructive":true}}`)
	jsonEqual(t, h.regs[2], `{"type":"register_tool","name":"look","description":"d","schema":{"type":"object"},"annotations":{"read_only":true}}`)
	jsonEqual(t, h.regs[3], `{"type":"register_tool","name":"plain","description":"d","schema":{"type":"object"}}`)

	if err := e.UnregisterTool("plain"); err != nil {
		t.Fatal(err)
	}
	jsonEqual(t, h.expect("unregister_tool"), `{"type":"unregister_tool","name":"plain"}`)
	if err := e.UnregisterCommand("/go"); err != nil {
		t.Fatal(err)
	}
	jsonEqual(t, h.expect("unregister_command"), `{"type":"unregister_command","name":"Go"}`)
	if e.UnregisterTool("plain") == nil || e.UnregisterCommand("go") == nil {
		t.Fatal("unregistering a name twice succeeded")
	}

	// Registered again, with another schema, and called.
	e.Tool("plain", "d", json.RawMessage(`{"type":"object","properties":{"x":{}}}`),
		func(args json.RawMessage) ext.ToolResult { return ext.TextResult("again") })
	jsonEqual(t, h.expect("register_tool"), `{"type":"register_tool","name":"plain","description":"d","schema":{"type":"object","properties":{"x":{}}}}`)
	h.call("c1", "plain", map[string]any{})
	if r := h.resultFor("c1"); firstText(t, r) != "again" {
		t.Fatalf("result %v", r)
	}
}

func TestProgress(t *testing.T) {
	e := ext.New("prog", "1")
	var sent, late error
	var saved context.Context
	e.ToolWithOptions("slow", "d", objSchema, ext.ToolOptions{},
		func(ctx context.Context, args json.RawMessage) ext.ToolResult {
			saved = ctx
			sent = e.Progress(ctx, "half way")
			return ext.TextResult("done")
		})
	h := startHost(t, e)
	h.call("p1", "slow", map[string]any{})
	jsonEqual(t, h.expect("tool_progress"), `{"type":"tool_progress","id":"p1","text":"half way"}`)
	h.resultFor("p1")
	if sent != nil {
		t.Fatalf("progress of a running call: %v", sent)
	}
	late = e.Progress(context.Background(), "outside")
	if !errors.Is(late, ext.ErrCallOver) {
		t.Fatalf("progress outside a call: %v", late)
	}
	if err := e.Progress(saved, "too late"); !errors.Is(err, ext.ErrCallOver) {
		t.Fatalf("progress after the result: %v", err)
	}
}
