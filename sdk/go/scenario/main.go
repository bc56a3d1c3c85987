// Command scenario is the Go SDK's copy of the shared scenario extension
// (sdk/SCENARIO.md): every tool kind, command response, event and
// interception the checker expects, written the way an author would.
package main

import (
	"context"
	"encoding/json"
	"os"
	"strconv"
	"strings"
	"sync"

	"zot.dev/sdk/go/ext"
)

func main() {
	e := ext.New("scenario-go", "1.0.0")
	registerTools(e)
	registerCommands(e)
	registerHooks(e)
	if err := e.Run(); err != nil {
		e.Logf("run: %v", err)
		os.Exit(1)
	}
}

func registerTools(e *ext.Extension) {
	e.Tool("sc_echo", "Echo text unchanged",
		json.RawMessage(`{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}`),
		func(args json.RawMessage) ext.ToolResult {
			var in struct {
				Text string `json:"text"`
			}
			if err := json.Unmarshal(args, &in); err != nil {
				return ext.TextErrorResult("sc_echo: " + err.Error())
			}
			return ext.TextResult(in.Text)
		})

	e.ToolWithOptions("sc_add", "Add two numbers",
		json.RawMessage(`{"type":"object","properties":{"a":{"type":"number"},"b":{"type":"number"}},"required":["a","b"]}`),
		ext.ToolOptions{
			OutputSchema:         json.RawMessage(`{"type":"object","properties":{"sum":{"type":"number"}}}`),
			Namespace:            "scenario",
			NamespaceDescription: "Scenario arithmetic",
			Exposure:             "codemode",
		},
		func(_ context.Context, args json.RawMessage) ext.ToolResult {
			var in struct {
				A, B float64
			}
			if err := json.Unmarshal(args, &in); err != nil {
				return ext.TextErrorResult("sc_add: " + err.Error())
			}
			sum := in.A + in.B
			structured, _ := json.Marshal(map[string]float64{"sum": sum})
			return ext.ToolResult{
				Content:           []ext.ToolContent{ext.Text(strconv.FormatFloat(sum, 'g', -1, 64))},
				StructuredContent: structured,
			}
		})

	e.Tool("sc_fail", "Always fails", json.RawMessage(`{"type":"object"}`),
		func(json.RawMessage) ext.ToolResult { return ext.TextErrorResult("sc_fail always fails") })

	e.ToolWithOptions("sc_progress", "Reports progress", json.RawMessage(`{"type":"object"}`),
		ext.ToolOptions{ReadOnly: true},
		func(ctx context.Context, _ json.RawMessage) ext.ToolResult {
			if err := e.Progress(ctx, "sc_progress half way"); err != nil {
				return ext.TextErrorResult("sc_progress: " + err.Error())
			}
			return ext.TextResult("sc_progress done")
		})

	e.Tool("sc_panic", "Always panics", json.RawMessage(`{"type":"object"}`),
		func(json.RawMessage) ext.ToolResult { panic("sc_panic was asked to panic") })

	e.ToolWithOptions("sc_wait", "Waits until cancelled", json.RawMessage(`{"type":"object"}`), ext.ToolOptions{},
		func(ctx context.Context, _ json.RawMessage) ext.ToolResult {
			e.Notify("info", "sc_wait started")
			<-ctx.Done()
			// The SDK drops this: the call was cancelled.
			return ext.TextErrorResult("cancelled")
		})

	e.ToolWithOptions("sc_nested", "Reads a file through the host",
		json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}}}`), ext.ToolOptions{},
		func(ctx context.Context, args json.RawMessage) ext.ToolResult {
			var in struct {
				Path string `json:"path"`
			}
			json.Unmarshal(args, &in)
			if in.Path == "" {
				in.Path = "scenario.txt"
			}
			res, err := e.CallTool(ctx, "read", map[string]string{"path": in.Path}, ext.WithCallKey("k1"))
			if err != nil {
				return ext.TextErrorResult("nested failed: " + err.Error())
			}
			if res.IsError {
				return ext.TextErrorResult("nested failed: " + joinText(res))
			}
			return ext.TextResult("nested: " + joinText(res))
		})

	e.InteractiveTool("sc_ask", "Asks the user a question",
		json.RawMessage(`{"type":"object","properties":{"question":{"type":"string"}}}`),
		func(ctx context.Context, args json.RawMessage) ext.ToolResult {
			var in struct {
				Question string `json:"question"`
			}
			json.Unmarshal(args, &in)
			const id = "sc-ask"
			answers := make(chan ext.ToolResult, 1)
			answer := func(r ext.ToolResult) {
				select {
				case answers <- r:
				default:
				}
			}
			e.OnPanelKey(id, func(key, _ string) {
				switch key {
				case "enter":
					answer(ext.TextResult("yes"))
				case "esc":
					answer(ext.TextErrorResult("dismissed"))
				}
			}, func() { answer(ext.TextErrorResult("dismissed")) })
			defer e.ForgetPanel(id)
			defer e.ClosePanel(id)
			if err := e.ShowPanel(ext.Panel{ID: id, Title: "Question", Lines: []string{in.Question},
				Footer: "enter answers, esc dismisses", ToolCallID: ext.ToolCallID(ctx)}); err != nil {
				return ext.TextErrorResult("sc_ask: " + err.Error())
			}
			select {
			case r := <-answers:
				return r
			case <-ctx.Done():
				return ext.TextErrorResult("cancelled")
			}
		})
}

func joinText(r ext.ToolResult) string {
	var parts []string
	for _, c := range r.Content {
		if c.Type == "text" {
			parts = append(parts, c.Text)
		}
	}
	return strings.Join(parts, "\n")
}

func registerCommands(e *ext.Extension) {
	e.Command("sc-prompt", "Prompt", func(args string) ext.Response { return ext.Prompt("hello " + args) })
	e.Command("sc-insert", "Insert", func(args string) ext.Response { return ext.Insert(args) })
	e.Command("sc-display", "Display", func(args string) ext.Response { return ext.Display("shown: " + args) })
	e.Command("sc-noop", "Noop", func(string) ext.Response { return ext.Noop() })
	e.Command("sc-error", "Error", func(args string) ext.Response { return ext.Errorf("failed: %s", args) })
	e.Command("sc-tool-prompt", "Tool prompt", func(args string) ext.Response {
		return ext.ToolPrompt("sc_echo", map[string]string{"text": args}, "run echo")
	})
	e.Command("sc-submit", "Submit", func(args string) ext.Response {
		if err := e.Submit("submitted " + args); err != nil {
			return ext.Errorf("submit: %v", err)
		}
		return ext.Noop()
	})

	// sc-panel: a two-line menu moved with up and down.
	var mu sync.Mutex
	selected := 0
	lines := func() []string {
		if selected == 0 {
			return []string{"> one", "  two"}
		}
		return []string{"  one", "> two"}
	}
	const id = "sc-panel"
	e.OnPanelKey(id, func(key, _ string) {
		mu.Lock()
		defer mu.Unlock()
		switch key {
		case "down":
			selected = 1
			e.RenderPanel(id, "Scenario", lines(), "esc closes")
		case "up":
			selected = 0
			e.RenderPanel(id, "Scenario", lines(), "esc closes")
		case "esc":
			e.ClosePanel(id)
		}
	}, nil)
	e.Command("sc-panel", "Panel", func(string) ext.Response {
		mu.Lock()
		defer mu.Unlock()
		selected = 0
		return ext.OpenPanel(id, "Scenario", lines(), "esc closes")
	})
}

func registerHooks(e *ext.Extension) {
	e.On("turn_end", func(ev ext.Event) { e.Notify("info", "turn ended: "+ev.Stop) })
	e.InterceptToolCallX(func(name string, args json.RawMessage) ext.ToolCallDecision {
		switch name {
		case "bash":
			var in struct {
				Command string `json:"command"`
			}
			json.Unmarshal(args, &in)
			if strings.Contains(in.Command, "rm -rf") {
				return ext.ToolCallDecision{Block: true, Reason: "scenario guard: refused"}
			}
		case "sc_echo":
			var in struct {
				Text string `json:"text"`
			}
			json.Unmarshal(args, &in)
			if in.Text == "rewrite" {
				return ext.ToolCallDecision{ModifiedArgs: json.RawMessage(`{"text":"rewritten"}`)}
			}
		}
		return ext.ToolCallDecision{}
	})
	e.InterceptBeforeAgentStart(func(ev ext.BeforeAgentStartEvent) *string {
		p := ev.SystemPrompt + "\n(scenario)"
		return &p
	})
}
