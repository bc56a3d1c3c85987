package ext

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// ErrCallToolUnsupported is CallTool's error on a host that does not offer
// call_tool (or before hello_ack): the request is refused at once instead
// of waiting for a reply that cannot come.
var ErrCallToolUnsupported = errors.New("ext: the host does not offer call_tool")

// CallOption adjusts one CallTool request.
type CallOption func(*callOptions)

type callOptions struct {
	key string
}

// WithCallKey names a nested call for continuous mode, so a replayed parent
// gets this call's recorded result back instead of running it again. Keys
// are at most 128 bytes, without "/" or NUL. The key is sent only to hosts
// that advertise call_tool_durable; others get the request unchanged.
func WithCallKey(key string) CallOption {
	return func(o *callOptions) { o.key = key }
}

// CallTool asks the host to run one of its tools (a built-in or another
// extension's) and waits for the result. Called with a tool handler's ctx,
// the request carries that call as its parent_id and is cancelled with it.
// Tool failures come back as result.IsError; err is for the request itself:
// ctx ended (call_tool_cancel is sent), the session ended, the host has no
// call_tool, or args do not encode to a JSON object (a json.RawMessage,
// []byte or string is taken as JSON text; nil is {}). Calls block their
// caller; separate goroutines may call concurrently.
func (e *Extension) CallTool(ctx context.Context, name string, args any, opts ...CallOption) (ToolResult, error) {
	if ctx == nil {
		ctx = context.Background()
	}
	host := e.Host()
	if !host.Has("call_tool") {
		return ToolResult{}, ErrCallToolUnsupported
	}
	var o callOptions
	for _, opt := range opts {
		if opt != nil {
			opt(&o)
		}
	}
	if name == "" {
		return ToolResult{}, errors.New("ext: CallTool needs a tool name")
	}
	raw, err := encodeArgs(args)
	if err != nil {
		return ToolResult{}, fmt.Errorf("ext: CallTool %s: %w", name, err)
	}
	if o.key != "" {
		if len(o.key) > 128 || strings.ContainsAny(o.key, "/\x00") {
			return ToolResult{}, fmt.Errorf("ext: CallTool %s: key %q is invalid: at most 128 bytes, no \"/\" or NUL", name, o.key)
		}
	}
	if err := ctx.Err(); err != nil {
		return ToolResult{}, err
	}

	id := "call-" + strconv.FormatUint(e.callSeq.Add(1), 10)
	frame := callToolFrame{Type: "call_tool", ID: id, Name: name, Args: raw}
	inv := invocationFrom(ctx)
	if inv != nil {
		frame.ParentID = inv.id
	}
	if o.key != "" && host.Has("call_tool_durable") {
		frame.Key = o.key
	}

	ch := make(chan ToolResult, 1)
	e.mu.Lock()
	if e.stopped {
		e.mu.Unlock()
		return ToolResult{}, ErrClosed
	}
	e.pendingCalls[id] = ch
	e.mu.Unlock()
	forget := func() {
		e.mu.Lock()
		delete(e.pendingCalls, id)
		e.mu.Unlock()
	}
	if err := e.send(frame); err != nil {
		forget()
		return ToolResult{}, err
	}
	if inv != nil {
		// The reply comes through the read loop, which this handler may
		// be holding: give it away now rather than at the watchdog's tick.
		e.handOff(inv.inlineSeq)
	}
	select {
	case res := <-ch:
		return res, nil
	case <-ctx.Done():
		forget()
		e.sendOrLog(idFrame{Type: "call_tool_cancel", ID: id})
		return ToolResult{}, ctx.Err()
	case <-e.done:
		forget()
		return ToolResult{}, ErrClosed
	}
}

func encodeArgs(args any) (json.RawMessage, error) {
	var raw json.RawMessage
	switch a := args.(type) {
	case nil:
		return json.RawMessage("{}"), nil
	case json.RawMessage:
		raw = a
	case []byte:
		raw = a
	case string:
		raw = json.RawMessage(a)
	default:
		b, err := json.Marshal(args)
		if err != nil {
			return nil, err
		}
		raw = b
	}
	if !isJSONObject(raw) {
		return nil, fmt.Errorf("arguments must be a JSON object, got %s", describeJSON(raw))
	}
	return raw, nil
}
