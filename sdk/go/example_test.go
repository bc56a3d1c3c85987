package ext_test

import (
	"context"
	"encoding/json"
	"sync"

	"zot.dev/sdk/go/ext"
)

// A tool that reads a file through the host. The handler's ctx makes the
// request a nested call (parent_id) and cancels it with the handler.
func ExampleExtension_CallTool() {
	e := ext.New("summarize", "1.0.0")
	e.ToolWithOptions("summarize_file", "Summarize a file", json.RawMessage(`{"type":"object"}`), ext.ToolOptions{},
		func(ctx context.Context, args json.RawMessage) ext.ToolResult {
			var in struct {
				Path string `json:"path"`
			}
			json.Unmarshal(args, &in)
			res, err := e.CallTool(ctx, "read", map[string]string{"path": in.Path}, ext.WithCallKey("read-1"))
			if err != nil {
				return ext.TextErrorResult(err.Error())
			}
			if res.IsError || len(res.Content) == 0 {
				return ext.TextErrorResult("read failed")
			}
			return ext.TextResult(res.Content[0].Text[:min(len(res.Content[0].Text), 80)])
		})
	e.Run()
}

// A tool that asks the user in a panel and waits for the answer, or for
// its call to be cancelled.
func ExampleExtension_InteractiveTool() {
	e := ext.New("questions", "1.0.0")
	e.InteractiveTool("ask_user", "Ask the user a yes/no question", json.RawMessage(`{"type":"object"}`),
		func(ctx context.Context, args json.RawMessage) ext.ToolResult {
			id := "ask-" + ext.ToolCallID(ctx)
			answers := make(chan string, 1)
			e.OnPanelKey(id, func(key, _ string) {
				if key == "enter" {
					answers <- "yes"
				}
			}, func() { answers <- "dismissed" })
			defer e.ForgetPanel(id)
			defer e.ClosePanel(id)
			e.ShowPanel(ext.Panel{ID: id, Title: "Question", Lines: []string{"Proceed?"},
				Footer: "enter answers", ToolCallID: ext.ToolCallID(ctx)})
			select {
			case a := <-answers:
				return ext.TextResult(a)
			case <-ctx.Done():
				return ext.TextErrorResult("cancelled")
			}
		})
	e.Run()
}

// A tool whose operation the host can ask about after a crash in
// continuous mode.
func ExampleReconciler() {
	var paid sync.Map // stands for the payment provider's records
	e := ext.New("payments", "1.0.0")
	e.ToolWithOptions("settle", "Settle an invoice", json.RawMessage(`{"type":"object"}`), ext.ToolOptions{
		Reconciler: func(ctx context.Context, key string, args json.RawMessage) ext.Reconciliation {
			if _, ok := paid.Load(key); ok {
				return ext.Reconciliation{State: ext.ReconcileCompleted, Result: ext.TextResult("settled")}
			}
			return ext.Reconciliation{State: ext.ReconcileNotStarted}
		},
	}, func(ctx context.Context, args json.RawMessage) ext.ToolResult {
		paid.Store(ext.OperationKey(ctx), true)
		return ext.TextResult("settled")
	})
	e.Run()
}

func min(a, b int) int {
	if a < b {
		return a
	}
	return b
}
