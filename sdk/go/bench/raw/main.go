// Command bench-echo answers bench_echo with its text argument in a
// hand-written loop: the baseline the SDK's per-call cost is measured
// against. It does what a careful author would do by hand, and no more.
package main

import (
	"bufio"
	"encoding/json"
	"os"
)

type frame struct {
	Type string `json:"type"`
	ID   string `json:"id"`
	Name string `json:"name"`
	Args struct {
		Text string `json:"text"`
	} `json:"args"`
}

type block struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

type result struct {
	Type    string  `json:"type"`
	ID      string  `json:"id"`
	Content []block `json:"content"`
	IsError bool    `json:"is_error"`
}

func main() {
	out := json.NewEncoder(os.Stdout)
	out.Encode(map[string]any{"type": "hello", "name": "bench-go-raw", "version": "1.0.0",
		"capabilities": []string{"tools", "tool_cancel"}})
	out.Encode(map[string]any{"type": "register_tool", "name": "bench_echo",
		"description": "Echo the text argument", "schema": map[string]any{"type": "object"}})
	out.Encode(map[string]any{"type": "ready"})

	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 64<<10), 4<<20)
	for in.Scan() {
		var f frame
		if json.Unmarshal(in.Bytes(), &f) != nil {
			continue
		}
		switch f.Type {
		case "tool_call":
			out.Encode(result{Type: "tool_result", ID: f.ID, Content: []block{{Type: "text", Text: f.Args.Text}}})
		case "shutdown":
			out.Encode(map[string]string{"type": "shutdown_ack"})
			return
		}
	}
}
