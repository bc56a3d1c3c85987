// Command bench-echo answers bench_echo with its text argument, through the
// Go SDK: the SDK side of the per-call cost benchmark.
package main

import (
	"encoding/json"
	"os"

	"zot.dev/sdk/go/ext"
)

func main() {
	e := ext.New("bench-go-sdk", "1.0.0")
	e.Tool("bench_echo", "Echo the text argument", json.RawMessage(`{"type":"object"}`),
		func(args json.RawMessage) ext.ToolResult {
			var in struct {
				Text string `json:"text"`
			}
			json.Unmarshal(args, &in)
			return ext.TextResult(in.Text)
		})
	if err := e.Run(); err != nil {
		os.Exit(1)
	}
}
