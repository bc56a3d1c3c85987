package ext_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"zot.dev/sdk/go/ext"
)

// wait is the deadline of every wait in these tests: generous, because the
// machine may be loaded, and never a synchronisation by itself.
const wait = 20 * time.Second

// frame is one decoded line the extension wrote.
type frame map[string]any

func (f frame) str(k string) string { s, _ := f[k].(string); return s }

// logBuffer collects the extension's log lines and lets a test wait for one.
type logBuffer struct {
	mu      sync.Mutex
	buf     bytes.Buffer
	changed chan struct{}
}

func newLogBuffer() *logBuffer { return &logBuffer{changed: make(chan struct{}, 1)} }

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	l.buf.Write(p)
	l.mu.Unlock()
	select {
	case l.changed <- struct{}{}:
	default:
	}
	return len(p), nil
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

func (l *logBuffer) waitFor(t *testing.T, substr string) {
	t.Helper()
	deadline := time.NewTimer(wait)
	defer deadline.Stop()
	for !strings.Contains(l.String(), substr) {
		select {
		case <-l.changed:
		case <-deadline.C:
			t.Fatalf("log never said %q; log:\n%s", substr, l.String())
		}
	}
}

// host plays the host's side of the protocol over in-memory pipes.
type host struct {
	t      *testing.T
	e      *ext.Extension
	in     io.WriteCloser
	frames chan frame
	runErr chan error
	log    *logBuffer
	// Registration frames seen before ready, in order.
	hello frame
	regs  []frame
}

// attach plays the host on the extension's input w and output r.
func attach(t *testing.T, w io.WriteCloser, r io.Reader) *host {
	h := &host{t: t, in: w, frames: make(chan frame, 4096), runErr: make(chan error, 1), log: newLogBuffer()}
	go func() {
		defer close(h.frames)
		sc := bufio.NewScanner(r)
		sc.Buffer(make([]byte, 64<<10), 8<<20)
		for sc.Scan() {
			var f frame
			if err := json.Unmarshal(sc.Bytes(), &f); err != nil {
				h.frames <- frame{"type": "!malformed", "line": sc.Text()}
				continue
			}
			h.frames <- f
		}
	}()
	return h
}

// handshake answers hello with capabilities caps and reads up to ready.
func (h *host) handshake(caps ...string) {
	h.t.Helper()
	h.hello = h.expect("hello")
	if caps == nil {
		caps = []string{}
	}
	h.send(map[string]any{"type": "hello_ack", "protocol_version": 1, "zot_version": "test",
		"cwd": "/tmp", "capabilities": caps})
	for {
		f := h.next()
		if f.str("type") == "ready" {
			break
		}
		h.regs = append(h.regs, f)
	}
}

// startHost runs e over in-memory pipes and does the handshake.
func startHost(t *testing.T, e *ext.Extension, caps ...string) *host {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	h := attach(t, inW, outR)
	h.e = e
	e.SetLogOutput(h.log)
	go func() {
		h.runErr <- e.RunWith(inR, outW)
		outW.Close()
	}()
	t.Cleanup(func() {
		inW.Close()
		select {
		case <-h.runErr:
		case <-time.After(wait):
			t.Errorf("RunWith did not return after EOF")
		}
	})
	h.handshake(caps...)
	return h
}

func (h *host) send(v any) {
	h.t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		h.t.Fatal(err)
	}
	h.sendLine(b)
}

func (h *host) sendLine(b []byte) {
	h.t.Helper()
	done := make(chan error, 1)
	go func() {
		_, err := h.in.Write(append(b, '\n'))
		done <- err
	}()
	select {
	case err := <-done:
		if err != nil {
			h.t.Fatalf("write to the extension: %v", err)
		}
	case <-time.After(wait):
		h.t.Fatalf("the extension did not read a frame within %v", wait)
	}
}

func (h *host) next() frame {
	h.t.Helper()
	select {
	case f, ok := <-h.frames:
		if !ok {
			h.t.Fatalf("the extension closed its output")
		}
		return f
	case <-time.After(wait):
		h.t.Fatalf("no frame from the extension within %v", wait)
	}
	return nil
}

func (h *host) expect(typ string) frame {
	h.t.Helper()
	f := h.next()
	if f.str("type") != typ {
		h.t.Fatalf("got frame %v, want type %q", f, typ)
	}
	return f
}

// barrier proves that every frame the extension wrote before it has been
// read: the read loop answers an unregistered command at once, in order.
func (h *host) barrier() []frame {
	h.t.Helper()
	id := "barrier-" + time.Now().Format("150405.000000000")
	h.send(map[string]any{"type": "command_invoked", "id": id, "name": "__barrier__", "args": ""})
	var before []frame
	for {
		f := h.next()
		if f.str("type") == "command_response" && f.str("id") == id {
			return before
		}
		before = append(before, f)
	}
}

func (h *host) shutdown() {
	h.t.Helper()
	h.send(map[string]any{"type": "shutdown"})
	for {
		f := h.next()
		if f.str("type") == "shutdown_ack" {
			break
		}
	}
	select {
	case err := <-h.runErr:
		if err != nil {
			h.t.Fatalf("RunWith: %v", err)
		}
		h.runErr <- nil
	case <-time.After(wait):
		h.t.Fatalf("RunWith did not return after shutdown")
	}
}

func (h *host) call(id, name string, args any) {
	h.t.Helper()
	h.send(map[string]any{"type": "tool_call", "id": id, "name": name, "args": args})
}

// resultFor reads frames until the tool_result of id and returns it.
func (h *host) resultFor(id string) frame {
	h.t.Helper()
	for {
		f := h.next()
		if f.str("type") == "tool_result" && f.str("id") == id {
			return f
		}
	}
}

func firstText(t *testing.T, f frame) string {
	t.Helper()
	content, _ := f["content"].([]any)
	if len(content) == 0 {
		t.Fatalf("no content in %v", f)
	}
	block, _ := content[0].(map[string]any)
	s, _ := block["text"].(string)
	return s
}

func jsonEqual(t *testing.T, got any, want string) {
	t.Helper()
	var w any
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatal(err)
	}
	gb, _ := json.Marshal(got)
	wb, _ := json.Marshal(w)
	if !bytes.Equal(gb, wb) {
		t.Fatalf("got %s, want %s", gb, wb)
	}
}

func recv[T any](t *testing.T, ch <-chan T) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(wait):
		t.Fatalf("nothing received within %v", wait)
	}
	var zero T
	return zero
}

var objSchema = json.RawMessage(`{"type":"object"}`)
