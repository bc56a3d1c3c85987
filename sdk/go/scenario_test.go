package ext_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"
)

// goTool finds the go command that runs these tests, so the extension is
// built by the same toolchain even when go is not on PATH.
func goTool() string {
	p := filepath.Join(runtime.GOROOT(), "bin", "go")
	if _, err := os.Stat(p); err == nil {
		return p
	}
	return "go"
}

var (
	buildMu  sync.Mutex
	builtBin = map[string]string{}
)

// build compiles the extension in dir (a module of its own that uses this
// SDK through a replace line) into a temporary directory, once per run.
func build(t *testing.T, dir string) string {
	t.Helper()
	buildMu.Lock()
	defer buildMu.Unlock()
	if bin, ok := builtBin[dir]; ok {
		return bin
	}
	out, err := os.MkdirTemp("", "sdk-go-ext-")
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(out, filepath.Base(dir))
	cmd := exec.Command(goTool(), "build", "-o", bin, ".")
	cmd.Dir = dir
	if msg, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build in %s: %v\n%s", dir, err, msg)
	}
	builtBin[dir] = bin
	return bin
}

func TestMain(m *testing.M) {
	code := m.Run()
	for _, bin := range builtBin {
		os.RemoveAll(filepath.Dir(bin))
	}
	os.Exit(code)
}

type proc struct {
	*host
	cmd    *exec.Cmd
	stderr *logBuffer
	exited chan error
}

// spawn starts the binary with its stdin and stdout as the protocol pipes.
func spawn(t *testing.T, bin string) *proc {
	t.Helper()
	cmd := exec.Command(bin)
	cmd.Dir = t.TempDir()
	w, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	// Not StdoutPipe: Wait closes that pipe when the process exits, and
	// the last frames (shutdown_ack) could be lost before they are read.
	r, out, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout = out
	p := &proc{cmd: cmd, stderr: newLogBuffer(), exited: make(chan error, 1)}
	cmd.Stderr = p.stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	out.Close()
	t.Cleanup(func() { r.Close() })
	p.host = attach(t, w, r)
	go func() { p.exited <- cmd.Wait() }()
	t.Cleanup(func() {
		w.Close()
		select {
		case <-p.exited:
		case <-time.After(wait):
			cmd.Process.Kill()
			t.Errorf("%s did not exit after EOF", bin)
		}
		if t.Failed() {
			t.Logf("stderr of %s:\n%s", bin, p.stderr.String())
		}
	})
	return p
}

// waitExit checks the process ends with status 0.
func (p *proc) waitExit() {
	p.t.Helper()
	select {
	case err := <-p.exited:
		if err != nil {
			p.t.Fatalf("exit: %v", err)
		}
		p.exited <- nil
	case <-time.After(wait):
		p.t.Fatal("the extension did not exit")
	}
}

// TestScenario drives sdk/go/scenario through everything sdk/SCENARIO.md
// asks of it.
func TestScenario(t *testing.T) {
	if testing.Short() {
		t.Skip("builds an extension")
	}
	p := spawn(t, build(t, "scenario"))
	p.handshake("call_tool", "call_tool_durable", "panels", "interactive_tools")

	t.Run("handshake", func(t *testing.T) {
		p.t = t
		if p.hello.str("name") != "scenario-go" {
			t.Fatalf("hello %v", p.hello)
		}
		caps := map[string]bool{}
		for _, c := range capsOf(p.hello) {
			caps[c] = true
		}
		for _, c := range []string{"commands", "tools", "panels", "tool_cancel", "call_tool"} {
			if !caps[c] {
				t.Fatalf("capability %s missing from %v", c, capsOf(p.hello))
			}
		}
		tools := map[string]frame{}
		var commands []string
		var subscribe frame
		for _, f := range p.regs {
			switch f.str("type") {
			case "register_tool":
				tools[f.str("name")] = f
			case "register_command":
				commands = append(commands, f.str("name"))
			case "subscribe":
				subscribe = f
			}
		}
		sort.Strings(commands)
		if got := strings.Join(commands, " "); got != "sc-display sc-error sc-insert sc-noop sc-panel sc-prompt sc-submit sc-tool-prompt" {
			t.Fatalf("commands %s", got)
		}
		jsonEqual(t, tools["sc_echo"]["schema"], `{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}`)
		jsonEqual(t, tools["sc_add"]["schema"], `{"type":"object","properties":{"a":{"type":"number"},"b":{"type":"number"}},"required":["a","b"]}`)
		jsonEqual(t, tools["sc_add"]["output_schema"], `{"type":"object","properties":{"sum":{"type":"number"}}}`)
		if tools["sc_add"].str("namespace") != "scenario" || tools["sc_add"].str("namespace_description") != "Scenario arithmetic" ||
			tools["sc_add"].str("exposure") != "codemode" {
			t.Fatalf("sc_add %v", tools["sc_add"])
		}
		for _, n := range []string{"sc_fail", "sc_panic", "sc_wait", "sc_progress"} {
			jsonEqual(t, tools[n]["schema"], `{"type":"object"}`)
		}
		jsonEqual(t, tools["sc_nested"]["schema"], `{"type":"object","properties":{"path":{"type":"string"}}}`)
		jsonEqual(t, tools["sc_ask"]["schema"], `{"type":"object","properties":{"question":{"type":"string"}}}`)
		if tools["sc_ask"]["interactive"] != true || len(tools) != 8 {
			t.Fatalf("tools %v", tools)
		}
		jsonEqual(t, subscribe, `{"type":"subscribe","events":["turn_end"],"intercept":["before_agent_start","tool_call"]}`)
	})

	t.Run("tools", func(t *testing.T) {
		p.t = t
		p.call("e1", "sc_echo", map[string]any{"text": "héllo <&>"})
		jsonEqual(t, p.resultFor("e1"), `{"type":"tool_result","id":"e1","content":[{"type":"text","text":"héllo <&>"}],"is_error":false}`)
		p.call("a1", "sc_add", map[string]any{"a": 1, "b": 2})
		jsonEqual(t, p.resultFor("a1"), `{"type":"tool_result","id":"a1","content":[{"type":"text","text":"3"}],"is_error":false,"structured_content":{"sum":3}}`)
		p.call("a2", "sc_add", map[string]any{"a": 0.5, "b": 2})
		if firstText(t, p.resultFor("a2")) != "2.5" {
			t.Fatal("2.5")
		}
		p.call("f1", "sc_fail", map[string]any{})
		jsonEqual(t, p.resultFor("f1"), `{"type":"tool_result","id":"f1","content":[{"type":"text","text":"sc_fail always fails"}],"is_error":true}`)
		p.call("p1", "sc_panic", map[string]any{})
		r := p.resultFor("p1")
		if r["is_error"] != true || !strings.HasPrefix(firstText(t, r), "sc_panic:") {
			t.Fatalf("sc_panic %v", r)
		}
		p.call("e2", "sc_echo", map[string]any{"text": "still alive"})
		if firstText(t, p.resultFor("e2")) != "still alive" {
			t.Fatal("not alive after a panic")
		}
	})

	t.Run("wait is cancelled without a reply", func(t *testing.T) {
		p.t = t
		p.call("w1", "sc_wait", map[string]any{})
		jsonEqual(t, p.next(), `{"type":"notify","level":"info","message":"sc_wait started"}`)
		p.send(map[string]any{"type": "tool_cancel", "id": "w1"})
		// The SDK logs the dropped result; then nothing may have come.
		p.stderr.waitFor(t, "result of tool call w1 dropped")
		if extra := p.barrier(); len(extra) != 0 {
			t.Fatalf("frames after cancel: %v", extra)
		}
	})

	t.Run("nested", func(t *testing.T) {
		p.t = t
		p.call("n1", "sc_nested", map[string]any{})
		req := p.expect("call_tool")
		if req.str("name") != "read" || req.str("parent_id") != "n1" || req.str("key") != "k1" {
			t.Fatalf("call_tool %v", req)
		}
		jsonEqual(t, req["args"], `{"path":"scenario.txt"}`)
		p.send(map[string]any{"type": "tool_result", "id": req.str("id"), "name": "read",
			"content": []any{map[string]any{"type": "text", "text": "file body"}}, "is_error": false})
		jsonEqual(t, p.resultFor("n1"), `{"type":"tool_result","id":"n1","content":[{"type":"text","text":"nested: file body"}],"is_error":false}`)

		p.call("n2", "sc_nested", map[string]any{"path": "missing.txt"})
		req = p.expect("call_tool")
		jsonEqual(t, req["args"], `{"path":"missing.txt"}`)
		p.send(map[string]any{"type": "tool_result", "id": req.str("id"), "name": "read",
			"content": []any{map[string]any{"type": "text", "text": "no such file"}}, "is_error": true})
		jsonEqual(t, p.resultFor("n2"), `{"type":"tool_result","id":"n2","content":[{"type":"text","text":"nested failed: no such file"}],"is_error":true}`)
	})

	t.Run("ask", func(t *testing.T) {
		p.t = t
		for _, tc := range []struct {
			id     string
			answer map[string]any
			want   string
		}{
			{"q1", map[string]any{"type": "panel_key", "panel_id": "sc-ask", "key": "enter"}, `{"type":"tool_result","id":"q1","content":[{"type":"text","text":"yes"}],"is_error":false}`},
			{"q2", map[string]any{"type": "panel_key", "panel_id": "sc-ask", "key": "esc"}, `{"type":"tool_result","id":"q2","content":[{"type":"text","text":"dismissed"}],"is_error":true}`},
			{"q3", map[string]any{"type": "panel_close", "panel_id": "sc-ask"}, `{"type":"tool_result","id":"q3","content":[{"type":"text","text":"dismissed"}],"is_error":true}`},
		} {
			p.call(tc.id, "sc_ask", map[string]any{"question": "Proceed?"})
			open := p.expect("open_panel")
			panel := open["panel"].(map[string]any)
			delete(panel, "tool_call_id")
			jsonEqual(t, panel, `{"id":"sc-ask","title":"Question","lines":["Proceed?"],"footer":"enter answers, esc dismisses"}`)
			p.send(tc.answer)
			jsonEqual(t, p.next(), `{"type":"panel_close","panel_id":"sc-ask"}`)
			jsonEqual(t, p.next(), tc.want)
		}
	})

	t.Run("commands", func(t *testing.T) {
		p.t = t
		for i, tc := range []struct{ name, args, want string }{
			{"sc-prompt", "world", `{"action":"prompt","prompt":"hello world"}`},
			{"sc-insert", "some text", `{"action":"insert","insert":"some text"}`},
			{"sc-display", "it", `{"action":"display","display":"shown: it"}`},
			{"sc-noop", "", `{"action":"noop"}`},
			{"sc-error", "badly", `{"action":"noop","error":"failed: badly"}`},
			{"sc-tool-prompt", "ping", `{"action":"tool_prompt","prompt":"run echo","tool_name":"sc_echo","tool_args":{"text":"ping"}}`},
		} {
			id := "c" + string(rune('a'+i))
			p.send(map[string]any{"type": "command_invoked", "id": id, "name": tc.name, "args": tc.args})
			f := p.expect("command_response")
			if f.str("id") != id {
				t.Fatalf("%s: %v", tc.name, f)
			}
			delete(f, "type")
			delete(f, "id")
			jsonEqual(t, f, tc.want)
		}
		p.send(map[string]any{"type": "command_invoked", "id": "s", "name": "sc-submit", "args": "this"})
		jsonEqual(t, p.next(), `{"type":"submit","text":"submitted this"}`)
		jsonEqual(t, p.next(), `{"type":"command_response","id":"s","action":"noop"}`)
	})

	t.Run("panel", func(t *testing.T) {
		p.t = t
		p.send(map[string]any{"type": "command_invoked", "id": "pp", "name": "sc-panel", "args": ""})
		jsonEqual(t, p.next(), `{"type":"command_response","id":"pp","action":"open_panel","open_panel":{"id":"sc-panel","title":"Scenario","lines":["> one","  two"],"footer":"esc closes"}}`)
		p.send(map[string]any{"type": "panel_key", "panel_id": "sc-panel", "key": "down"})
		jsonEqual(t, p.next(), `{"type":"panel_render","panel_id":"sc-panel","title":"Scenario","lines":["  one","> two"],"footer":"esc closes"}`)
		p.send(map[string]any{"type": "panel_key", "panel_id": "sc-panel", "key": "up"})
		jsonEqual(t, p.next(), `{"type":"panel_render","panel_id":"sc-panel","title":"Scenario","lines":["> one","  two"],"footer":"esc closes"}`)
		p.send(map[string]any{"type": "panel_key", "panel_id": "sc-panel", "key": "esc"})
		jsonEqual(t, p.next(), `{"type":"panel_close","panel_id":"sc-panel"}`)
	})

	t.Run("events and interception", func(t *testing.T) {
		p.t = t
		p.send(map[string]any{"type": "event", "event": "turn_end", "stop": "end_turn", "sequence": 3})
		jsonEqual(t, p.next(), `{"type":"notify","level":"info","message":"turn ended: end_turn"}`)
		for _, tc := range []struct {
			in   map[string]any
			want string
		}{
			{map[string]any{"event": "tool_call", "tool_name": "bash", "tool_args": map[string]any{"command": "sudo rm -rf /"}},
				`{"block":true,"reason":"scenario guard: refused"}`},
			{map[string]any{"event": "tool_call", "tool_name": "bash", "tool_args": map[string]any{"command": "ls"}}, `{}`},
			{map[string]any{"event": "tool_call", "tool_name": "sc_echo", "tool_args": map[string]any{"text": "rewrite"}},
				`{"modified_args":{"text":"rewritten"}}`},
			{map[string]any{"event": "tool_call", "tool_name": "sc_echo", "tool_args": map[string]any{"text": "keep"}}, `{}`},
			{map[string]any{"event": "before_agent_start", "system_prompt": "You help."}, `{"system_prompt":"You help.\n(scenario)"}`},
		} {
			tc.in["type"], tc.in["id"] = "event_intercept", "x"
			p.send(tc.in)
			f := p.expect("event_intercept_response")
			delete(f, "type")
			delete(f, "id")
			jsonEqual(t, f, tc.want)
		}
	})

	t.Run("shutdown", func(t *testing.T) {
		p.t = t
		p.call("w2", "sc_wait", map[string]any{})
		p.expect("notify")
		p.send(map[string]any{"type": "shutdown"})
		p.expect("shutdown_ack")
		for f := range p.frames {
			t.Fatalf("frame after shutdown_ack: %v", f)
		}
		p.waitExit()
	})
}

// TestBenchExtensions checks both bench_echo extensions answer the frames
// the benchmark driver sends.
func TestBenchExtensions(t *testing.T) {
	if testing.Short() {
		t.Skip("builds extensions")
	}
	for _, dir := range []string{"bench/sdk", "bench/raw"} {
		t.Run(dir, func(t *testing.T) {
			p := spawn(t, build(t, dir))
			p.handshake("call_tool")
			if len(p.regs) != 1 || p.regs[0].str("name") != "bench_echo" {
				t.Fatalf("registrations %v", p.regs)
			}
			jsonEqual(t, p.regs[0]["schema"], `{"type":"object"}`)
			caps := capsOf(p.hello)
			if !contains(caps, "tools") || !contains(caps, "tool_cancel") {
				t.Fatalf("capabilities %v", caps)
			}
			for i, text := range []string{"one", "two <&> \"three\""} {
				id := "b" + string(rune('0'+i))
				p.call(id, "bench_echo", map[string]any{"text": text})
				if got := firstText(t, p.resultFor(id)); got != text {
					t.Fatalf("echo %q, want %q", got, text)
				}
			}
			p.send(map[string]any{"type": "shutdown"})
			p.expect("shutdown_ack")
			p.waitExit()
		})
	}
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}
