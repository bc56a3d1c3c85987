// go-todo: a to-do list with commands, tools for the model and a panel.
//
//	/todo            open the To-do panel where the host has panels,
//	                 else show the list (headless, zot -p)
//	/todo add TEXT   add an item
//	/todo list       show the list
//	/todo done N     mark item N as done
//	/todo clear      empty the list
//
// Tools for the model: todo_add {"text": …} (with structured content) and
// todo_list {}.
//
// The panel is made of native widgets where the host offers panel_widgets
// (an entry, a list with a check box and a delete button per item, a button
// removing the done ones); other hosts with panels get the list as lines.
//
// The list lives in todo.json in the data directory (hello_ack's
// data_dir), written to a temporary file and renamed over the old one, so
// a crash never leaves half a file. Tool calls, commands and panel events
// run on goroutines of their own: every read-modify-write holds mu.
package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"unicode"

	"zot.dev/sdk/go/ext"
)

const (
	storeFile  = "todo.json"
	panelID    = "todo"
	panelTitle = "To-do"
	usage      = "usage: /todo [panel] | /todo add TEXT | /todo list | /todo done N | /todo clear"
)

type item struct {
	Text string `json:"text"`
	Done bool   `json:"done"`
}

type todo struct {
	e         *ext.Extension
	mu        sync.Mutex
	panelOpen bool
}

func (t *todo) store() string { return filepath.Join(t.e.Host().DataDir, storeFile) }

// oneLine makes an item's text one trimmed line without control characters
// (an ESC would style the panel's lines).
func oneLine(s string) string {
	return strings.Join(strings.Fields(strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return ' '
		}
		return r
	}, s)), " ")
}

// load reads the list again every time: two zot processes sharing the
// directory see each other's changes.
func (t *todo) load() []item {
	data, err := os.ReadFile(t.store())
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	var file struct{ Items []item }
	if err == nil {
		err = json.Unmarshal(data, &file)
	}
	if err != nil {
		t.e.Logf("cannot read %s (%v); starting with an empty list", t.store(), err)
		return nil
	}
	return file.Items
}

func (t *todo) save(items []item) error {
	if items == nil {
		items = []item{}
	}
	data, err := json.MarshalIndent(struct {
		Items []item `json:"items"`
	}{items}, "", "  ")
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(t.store()), ".todo-*.tmp")
	if err != nil {
		return err
	}
	_, err = tmp.Write(append(data, '\n'))
	if err == nil {
		err = tmp.Sync()
	}
	if closeErr := tmp.Close(); err == nil {
		err = closeErr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), t.store())
	}
	if err != nil {
		os.Remove(tmp.Name())
	}
	return err
}

func render(items []item) string {
	if len(items) == 0 {
		return "Todo list is empty. Add an item with /todo add TEXT"
	}
	lines := []string{"Todo list:"}
	for i, it := range items {
		mark := " "
		if it.Done {
			mark = "x"
		}
		lines = append(lines, fmt.Sprintf("%d. [%s] %s", i+1, mark, oneLine(it.Text)))
	}
	return strings.Join(lines, "\n")
}

func summary(items []item) string {
	done := 0
	for _, it := range items {
		if it.Done {
			done++
		}
	}
	plural := "s"
	if len(items) == 1 {
		plural = ""
	}
	return fmt.Sprintf("%d item%s · %d done · %d open", len(items), plural, done, len(items)-done)
}

func boolPtr(b bool) *bool { return &b }

// panel is the list as widgets and as lines; the SDK sends the form the
// host can show. clearEntry empties the entry after its text was taken.
func panel(items []item, clearEntry bool) ext.Panel {
	entry := ext.Widget{Type: "entry", ID: "new", Label: "New item",
		Placeholder: "Add an item and press Enter", SubmitLabel: "Add"}
	if clearEntry {
		entry.Value = ""
	}
	rows := make([]ext.ListRow, len(items))
	anyDone := false
	for i, it := range items {
		rows[i] = ext.ListRow{ID: fmt.Sprintf("item-%d", i), Title: oneLine(it.Text), Checked: boolPtr(it.Done),
			Buttons: []ext.RowButton{{ID: "delete", Label: "Delete", Icon: "user-trash-symbolic"}}}
		anyDone = anyDone || it.Done
	}
	widgets := []ext.Widget{
		entry,
		{Type: "list", ID: "items", Label: "To-do items", MaxHeight: 480,
			Placeholder: "No items yet. Type one above, or ask the model to add some.", Rows: rows},
		{Type: "box", ID: "footer", Orientation: "horizontal", Children: []ext.Widget{
			{Type: "text", ID: "summary", Style: "dim", Text: summary(items)},
			{Type: "button", ID: "clear-done", Label: "Remove done items", Style: "flat",
				Icon: "edit-clear-all-symbolic", Sensitive: boolPtr(anyDone)},
		}},
	}
	lines := strings.Split(render(items), "\n")
	return ext.Panel{ID: panelID, Title: panelTitle, Lines: lines, Widgets: widgets,
		Footer: "Saved in todo.json beside the extension"}
}

// refresh re-renders the open panel; mu is held.
func (t *todo) refresh(items []item, clearEntry bool) {
	if !t.panelOpen {
		return
	}
	if err := t.e.UpdatePanel(panel(items, clearEntry)); err != nil {
		t.e.Logf("panel not rendered: %v", err)
	}
}

// change loads the list, lets fn change it, saves and re-renders once
// (clearEntry as in panel); mu is held. fn returns false when there is
// nothing to save.
func (t *todo) change(clearEntry bool, fn func(items []item) ([]item, bool)) ([]item, error) {
	items, changed := fn(t.load())
	if !changed {
		return items, nil
	}
	if err := t.save(items); err != nil {
		t.e.Notify("error", "todo: cannot save the list: "+err.Error())
		return t.load(), err
	}
	t.refresh(items, clearEntry)
	return items, nil
}

func (t *todo) add(text string, clearEntry bool) ([]item, error) {
	return t.change(clearEntry, func(items []item) ([]item, bool) {
		return append(items, item{Text: text}), true
	})
}

func (t *todo) command(args string) ext.Response {
	verb, rest, _ := strings.Cut(strings.TrimSpace(args), " ")
	rest = strings.TrimSpace(rest)
	t.mu.Lock()
	defer t.mu.Unlock()

	switch strings.ToLower(verb) {
	case "", "panel":
		if t.e.Host().Has("panels") {
			t.panelOpen = true
			p := panel(t.load(), false)
			return ext.Response{Action: "open_panel", OpenPanel: &p}
		}
		if verb != "" {
			return ext.Errorf("this host has no panels; use /todo list")
		}
		return ext.Display(render(t.load()))
	case "list":
		return ext.Display(render(t.load()))
	case "add":
		text := oneLine(rest)
		if text == "" {
			return ext.Errorf("nothing to add: /todo add TEXT")
		}
		items, err := t.add(text, false)
		if err != nil {
			return ext.Errorf("cannot save the list: %v", err)
		}
		t.e.Notify("success", "Added: "+text)
		return ext.Display(render(items))
	case "done":
		var failure string
		items, err := t.change(false, func(items []item) ([]item, bool) {
			n, err := strconv.Atoi(rest)
			if err != nil || n < 1 || n > len(items) {
				failure = fmt.Sprintf("no item '%s' (the list has %d)", rest, len(items))
				return items, false
			}
			items[n-1].Done = true
			t.e.Notify("success", "Done: "+items[n-1].Text)
			return items, true
		})
		if failure != "" {
			return ext.Errorf("%s", failure)
		}
		if err != nil {
			return ext.Errorf("cannot save the list: %v", err)
		}
		return ext.Display(render(items))
	case "clear":
		if _, err := t.change(false, func([]item) ([]item, bool) { return nil, true }); err != nil {
			return ext.Errorf("cannot save the list: %v", err)
		}
		if err := t.e.ClearNotes(); err != nil {
			t.e.Logf("notes not cleared: %v", err)
		}
		return ext.Display("Todo list cleared")
	}
	return ext.Errorf("unknown subcommand '%s'; %s", verb, usage)
}

// rowIndex is N of row "item-N", or -1 when the list changed under it.
func rowIndex(items []item, row string) int {
	n, err := strconv.Atoi(strings.TrimPrefix(row, "item-"))
	if !strings.HasPrefix(row, "item-") || err != nil || n < 0 || n >= len(items) {
		return -1
	}
	return n
}

func (t *todo) panelEvent(ev ext.PanelEvent) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if !t.panelOpen {
		return
	}
	var row struct {
		Row     string `json:"row"`
		Checked bool   `json:"checked"`
		Button  string `json:"button"`
	}
	switch {
	case ev.WidgetID == "new" && ev.Event == "submit":
		var text string
		json.Unmarshal(ev.Value, &text)
		if text = oneLine(text); text == "" {
			return
		}
		if _, err := t.add(text, true); err == nil {
			t.e.Notify("success", "Added: "+text)
		}
	case ev.WidgetID == "items" && (ev.Event == "toggled" || ev.Event == "button"):
		if json.Unmarshal(ev.Value, &row) != nil {
			return
		}
		t.change(false, func(items []item) ([]item, bool) {
			n := rowIndex(items, row.Row)
			switch {
			case n < 0:
				return items, false
			case ev.Event == "button" && row.Button == "delete":
				return append(items[:n], items[n+1:]...), true
			case ev.Event == "toggled":
				items[n].Done = row.Checked
				if row.Checked {
					t.e.Notify("success", "Done: "+items[n].Text)
				}
				return items, true
			}
			return items, false
		})
	case ev.WidgetID == "clear-done" && ev.Event == "clicked":
		t.change(false, func(items []item) ([]item, bool) {
			kept := items[:0]
			for _, it := range items {
				if !it.Done {
					kept = append(kept, it)
				}
			}
			return kept, len(kept) != len(items)
		})
	}
}

var addSchema = json.RawMessage(`{"type":"object","properties":{"text":{"type":"string","description":"What to do"}},"required":["text"]}`)
var addOutput = json.RawMessage(`{"type":"object","properties":{"added":{"type":"string"},"count":{"type":"integer"}}}`)

func (t *todo) toolAdd(args json.RawMessage) ext.ToolResult {
	var in struct {
		Text string `json:"text"`
	}
	json.Unmarshal(args, &in)
	text := oneLine(in.Text)
	if text == "" {
		return ext.TextErrorResult(`todo_add needs a non-empty "text"`)
	}
	t.mu.Lock()
	items, err := t.add(text, false)
	t.mu.Unlock()
	if err != nil {
		return ext.TextErrorResult("todo_add: cannot save the list: " + err.Error())
	}
	t.e.Notify("success", "Added: "+text)
	plural := "s"
	if len(items) == 1 {
		plural = ""
	}
	data, _ := json.Marshal(map[string]any{"added": text, "count": len(items)})
	return ext.ToolResult{Content: []ext.ToolContent{ext.Text(fmt.Sprintf("Added: %s (%d item%s)", text, len(items), plural))},
		StructuredContent: data}
}

func (t *todo) toolList(json.RawMessage) ext.ToolResult {
	t.mu.Lock()
	defer t.mu.Unlock()
	return ext.TextResult(render(t.load()))
}

func main() {
	e := ext.New("go-todo", "1.0.0")
	t := &todo{e: e}
	e.Command("todo", "A to-do list: /todo [panel], add TEXT, list, done N or clear", t.command)
	e.StructuredTool("todo_add", "Add an item to the user's to-do list", addSchema, addOutput, t.toolAdd)
	e.Tool("todo_list", "Show the user's to-do list", json.RawMessage(`{"type":"object","properties":{}}`), t.toolList)
	e.OnPanelEvent(panelID, t.panelEvent)
	e.OnPanelKey(panelID, nil, func() {
		t.mu.Lock()
		t.panelOpen = false
		t.mu.Unlock()
	})
	if err := e.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "go-todo:", err)
		os.Exit(1)
	}
}
