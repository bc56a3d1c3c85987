package ext_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"testing"

	"zot.dev/sdk/go/ext"
)

// BenchmarkToolCall measures one tool call's round trip through the SDK
// over in-memory pipes: the SDK's own cost without process scheduling.
func BenchmarkToolCall(b *testing.B) {
	e := ext.New("bench", "1")
	e.Tool("bench_echo", "", objSchema, func(args json.RawMessage) ext.ToolResult {
		var in struct {
			Text string `json:"text"`
		}
		json.Unmarshal(args, &in)
		return ext.TextResult(in.Text)
	})
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	go e.RunWith(inR, outW)
	sc := bufio.NewScanner(outR)
	sc.Scan()
	io.WriteString(inW, `{"type":"hello_ack","capabilities":[]}`+"\n")
	for sc.Scan() {
		if sc.Text() == `{"type":"ready"}` {
			break
		}
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		fmt.Fprintf(inW, `{"type":"tool_call","id":"t%d","name":"bench_echo","args":{"text":"hello %d"}}`+"\n", i, i)
		sc.Scan()
	}
	b.StopTimer()
	inW.Close()
}
