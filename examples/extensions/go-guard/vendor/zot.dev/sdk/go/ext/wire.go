package ext

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
)

// ErrClosed is returned by sends after shutdown or EOF: nothing may be
// written once the host has stopped listening for this extension.
var ErrClosed = errors.New("ext: connection closed")

// ErrFrameTooLarge is returned for a frame over MaxFrameBytes.
var ErrFrameTooLarge = errors.New("ext: frame exceeds the 4 MiB limit")

// inFrame holds every field of every frame the host sends, so a line is
// parsed once whatever its type.
type inFrame struct {
	Type string          `json:"type"`
	ID   string          `json:"id"`
	Name string          `json:"name"`
	Args json.RawMessage `json:"args"`

	// hello_ack
	ProtocolVersion int      `json:"protocol_version"`
	ZotVersion      string   `json:"zot_version"`
	Provider        string   `json:"provider"`
	Model           string   `json:"model"`
	CWD             string   `json:"cwd"`
	ExtensionDir    string   `json:"extension_dir"`
	DataDir         string   `json:"data_dir"`
	Capabilities    []string `json:"capabilities"`

	// tool_call
	Reconcile    bool   `json:"reconcile"`
	OperationKey string `json:"operation_key"`

	// tool_result (reply to call_tool)
	Content           []ToolContent   `json:"content"`
	IsError           bool            `json:"is_error"`
	Truncated         bool            `json:"truncated"`
	StructuredContent json.RawMessage `json:"structured_content"`

	// event, event_intercept
	Event         string          `json:"event"`
	SessionID     string          `json:"session_id"`
	AgentRunID    string          `json:"agent_run_id"`
	Sequence      uint64          `json:"sequence"`
	Queued        bool            `json:"queued"`
	ImageCount    int             `json:"image_count"`
	Status        string          `json:"status"`
	Reason        string          `json:"reason"`
	Source        string          `json:"source"`
	Decision      string          `json:"decision"`
	Stage         string          `json:"stage"`
	Result        *EventResult    `json:"result"`
	Executed      *bool           `json:"executed"`
	CompactionID  string          `json:"compaction_id"`
	MessageCount  *int            `json:"message_count"`
	TokenEstimate *int            `json:"token_estimate"`
	AgentID       string          `json:"agent_id"`
	Step          int             `json:"step"`
	Stop          string          `json:"stop"`
	Error         string          `json:"error"`
	ToolID        string          `json:"tool_id"`
	ToolName      string          `json:"tool_name"`
	ToolArgs      json.RawMessage `json:"tool_args"`
	ToolArgsRaw   string          `json:"tool_args_raw"`
	ToolPreview   string          `json:"tool_preview"`
	Text          string          `json:"text"`
	SystemPrompt  *string         `json:"system_prompt"`

	// panel_key, panel_close, panel_resize, panel_event
	PanelID  string          `json:"panel_id"`
	Key      string          `json:"key"`
	WidgetID string          `json:"widget_id"`
	Value    json.RawMessage `json:"value"`
	Width    int             `json:"width"`
	Height   int             `json:"height"`
}

type typeOnly struct {
	Type string `json:"type"`
}

type textFrame struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

type notifyFrame struct {
	Type    string `json:"type"`
	Level   string `json:"level"`
	Message string `json:"message"`
}

type helloFrame struct {
	Type         string   `json:"type"`
	Name         string   `json:"name"`
	Version      string   `json:"version"`
	Capabilities []string `json:"capabilities"`
}

type registerCommandFrame struct {
	Type        string `json:"type"`
	Name        string `json:"name"`
	Description string `json:"description"`
}

type registerToolFrame struct {
	Type                  string           `json:"type"`
	Name                  string           `json:"name"`
	Description           string           `json:"description"`
	Schema                json.RawMessage  `json:"schema"`
	OutputSchema          json.RawMessage  `json:"output_schema,omitempty"`
	Namespace             string           `json:"namespace,omitempty"`
	NamespaceDescription  string           `json:"namespace_description,omitempty"`
	NamespaceInstructions string           `json:"namespace_instructions,omitempty"`
	Exposure              string           `json:"exposure,omitempty"`
	Deferred              bool             `json:"deferred,omitempty"`
	Interactive           bool             `json:"interactive,omitempty"`
	Replay                string           `json:"replay,omitempty"`
	Annotations           *toolAnnotations `json:"annotations,omitempty"`
}

type toolAnnotations struct {
	ReadOnly    bool `json:"read_only,omitempty"`
	Destructive bool `json:"destructive,omitempty"`
}

type nameFrame struct {
	Type string `json:"type"`
	Name string `json:"name"`
}

type progressFrame struct {
	Type string `json:"type"`
	ID   string `json:"id"`
	Text string `json:"text"`
}

type subscribeFrame struct {
	Type      string   `json:"type"`
	Events    []string `json:"events,omitempty"`
	Intercept []string `json:"intercept,omitempty"`
}

// wireBlock is a content block as sent: a text block always carries its
// text, even an empty one, which ToolContent's omitempty would drop.
type wireBlock struct {
	Type     string  `json:"type"`
	Text     *string `json:"text,omitempty"`
	MimeType string  `json:"mime_type,omitempty"`
	Data     string  `json:"data,omitempty"`
}

func wireContent(content []ToolContent) []wireBlock {
	blocks := make([]wireBlock, len(content))
	for i := range content {
		c := &content[i]
		blocks[i] = wireBlock{Type: c.Type, MimeType: c.MimeType, Data: c.Data}
		if c.Type == "text" || c.Text != "" {
			blocks[i].Text = &c.Text
		}
	}
	return blocks
}

type toolResultFrame struct {
	Type              string          `json:"type"`
	ID                string          `json:"id"`
	Content           []wireBlock     `json:"content"`
	IsError           bool            `json:"is_error"`
	ActivateTools     []string        `json:"activate_tools,omitempty"`
	StructuredContent json.RawMessage `json:"structured_content,omitempty"`
}

type panelSpec struct {
	ID         string    `json:"id"`
	Title      string    `json:"title"`
	Lines      *[]string `json:"lines,omitempty"`
	Widgets    []Widget  `json:"widgets,omitempty"`
	Footer     string    `json:"footer"`
	ToolCallID string    `json:"tool_call_id,omitempty"`
}

type commandResponseFrame struct {
	Type      string          `json:"type"`
	ID        string          `json:"id"`
	Action    string          `json:"action"`
	Prompt    *string         `json:"prompt,omitempty"`
	ToolName  string          `json:"tool_name,omitempty"`
	ToolArgs  json.RawMessage `json:"tool_args,omitempty"`
	Insert    *string         `json:"insert,omitempty"`
	Display   *string         `json:"display,omitempty"`
	OpenPanel *panelSpec      `json:"open_panel,omitempty"`
	Error     string          `json:"error,omitempty"`
}

type interceptResponseFrame struct {
	Type         string          `json:"type"`
	ID           string          `json:"id"`
	Block        bool            `json:"block,omitempty"`
	Reason       string          `json:"reason,omitempty"`
	ModifiedArgs json.RawMessage `json:"modified_args,omitempty"`
	ReplaceText  string          `json:"replace_text,omitempty"`
	SystemPrompt *string         `json:"system_prompt,omitempty"`
}

type openPanelFrame struct {
	Type  string    `json:"type"`
	Panel panelSpec `json:"panel"`
}

type panelRenderFrame struct {
	Type    string    `json:"type"`
	PanelID string    `json:"panel_id"`
	Title   string    `json:"title"`
	Lines   *[]string `json:"lines,omitempty"`
	Widgets []Widget  `json:"widgets,omitempty"`
	Footer  string    `json:"footer"`
}

type panelCloseFrame struct {
	Type    string `json:"type"`
	PanelID string `json:"panel_id"`
}

type callToolFrame struct {
	Type     string          `json:"type"`
	ID       string          `json:"id"`
	Name     string          `json:"name"`
	Args     json.RawMessage `json:"args"`
	ParentID string          `json:"parent_id,omitempty"`
	Key      string          `json:"key,omitempty"`
}

type idFrame struct {
	Type string `json:"type"`
	ID   string `json:"id"`
}

var bufPool = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// encode writes v as one frame (JSON and a newline) into a pooled buffer.
// HTML escaping is off: the host is not a browser, and <, > and & stay
// readable in logs.
func encode(v any) (*bytes.Buffer, error) {
	buf := bufPool.Get().(*bytes.Buffer)
	buf.Reset()
	enc := json.NewEncoder(buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		bufPool.Put(buf)
		return nil, err
	}
	if buf.Len()-1 > MaxFrameBytes {
		n := buf.Len() - 1
		bufPool.Put(buf)
		return nil, fmt.Errorf("%w (%d bytes)", ErrFrameTooLarge, n)
	}
	return buf, nil
}

// send encodes and writes one frame. One Write per frame under writeMu, so
// frames from concurrent goroutines never interleave.
func (e *Extension) send(v any) error {
	buf, err := encode(v)
	if err != nil {
		return err
	}
	err = e.writeFrame(buf.Bytes())
	if buf.Cap() <= 64<<10 {
		bufPool.Put(buf)
	}
	return err
}

func (e *Extension) writeFrame(b []byte) error {
	e.writeMu.Lock()
	defer e.writeMu.Unlock()
	if e.writeClosed {
		return ErrClosed
	}
	_, err := e.out.Write(b)
	return err
}

// closeWriter sends last (if not nil) and then refuses every later frame.
func (e *Extension) closeWriter(last any) {
	var b []byte
	if last != nil {
		if buf, err := encode(last); err == nil {
			b = buf.Bytes()
		}
	}
	e.writeMu.Lock()
	defer e.writeMu.Unlock()
	if e.writeClosed {
		return
	}
	if b != nil {
		e.out.Write(b)
	}
	e.writeClosed = true
}

// lineReader reads newline-terminated lines of at most max bytes. A longer
// line is skipped up to its newline without being held in memory.
type lineReader struct {
	r   *bufio.Reader
	buf []byte
	max int
	// skipped is called with the length of each skipped line.
	skipped func(n int)
}

func newLineReader(r io.Reader, max int, skipped func(int)) *lineReader {
	return &lineReader{r: bufio.NewReaderSize(r, 64<<10), max: max, skipped: skipped}
}

// next returns the next line without its newline; the slice is valid until
// the following call. A last line without a newline is returned too.
func (l *lineReader) next() ([]byte, error) {
	for {
		frag, err := l.r.ReadSlice('\n')
		if err == nil && l.buf == nil {
			// The common case: the whole line fits the reader's buffer.
			line := frag[:len(frag)-1]
			if len(line) > l.max {
				l.skipped(len(line))
				continue
			}
			return line, nil
		}
		if err == bufio.ErrBufferFull || err == nil {
			l.buf = append(l.buf, frag...)
			if err == nil {
				line := l.buf[:len(l.buf)-1]
				l.buf = nil
				if len(line) > l.max {
					l.skipped(len(line))
					continue
				}
				return line, nil
			}
			if len(l.buf) > l.max {
				n, err := l.discard(len(l.buf))
				l.buf = nil
				l.skipped(n)
				if err != nil {
					return nil, err
				}
			}
			continue
		}
		// io.EOF or a read error.
		if len(l.buf) > 0 || len(frag) > 0 {
			line := append(l.buf, frag...)
			l.buf = nil
			if len(line) > l.max {
				l.skipped(len(line))
				return nil, err
			}
			return line, nil
		}
		return nil, err
	}
}

// discard drops bytes up to and including the next newline. n is the count
// already dropped; it returns the whole line's length.
func (l *lineReader) discard(n int) (int, error) {
	for {
		frag, err := l.r.ReadSlice('\n')
		n += len(frag)
		if err == nil {
			return n - 1, nil
		}
		if err != bufio.ErrBufferFull {
			return n, err
		}
	}
}

// serialQueue runs functions one at a time, in order, on its own goroutine,
// so the read loop hands work over without waiting for it. It is bounded:
// when full, push reports false and the caller drops the work with a log
// line (events are best-effort by the protocol; a stuck handler must not
// grow memory without bound or stall the read loop).
type serialQueue struct {
	ch chan func()
}

func newSerialQueue(size int) *serialQueue {
	q := &serialQueue{ch: make(chan func(), size)}
	go func() {
		for fn := range q.ch {
			fn()
		}
	}()
	return q
}

func (q *serialQueue) push(fn func()) bool {
	select {
	case q.ch <- fn:
		return true
	default:
		return false
	}
}
