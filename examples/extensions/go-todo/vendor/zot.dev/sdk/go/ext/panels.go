package ext

import "encoding/json"

// Widget is one native control of a panel, for hosts that advertise
// panel_widgets (see the project's protocol notes for each type's fields).
// Every widget needs a Type and an ID unique in its panel. Zero fields are
// left out, so a Value of "" is sent (it clears an entry) while a nil Value
// keeps what the user typed.
type Widget struct {
	Type        string         `json:"type"`
	ID          string         `json:"id"`
	Label       string         `json:"label,omitempty"`
	Description string         `json:"description,omitempty"`
	Sensitive   *bool          `json:"sensitive,omitempty"`
	Text        string         `json:"text,omitempty"`
	Style       string         `json:"style,omitempty"`
	Level       int            `json:"level,omitempty"`
	Icon        string         `json:"icon,omitempty"`
	Placeholder string         `json:"placeholder,omitempty"`
	Value       any            `json:"value,omitempty"`
	SubmitLabel string         `json:"submit_label,omitempty"`
	Secret      bool           `json:"secret,omitempty"`
	MaxHeight   int            `json:"max_height,omitempty"`
	Options     []WidgetOption `json:"options,omitempty"`
	Rows        []ListRow      `json:"rows,omitempty"`
	Fraction    *float64       `json:"fraction,omitempty"`
	Data        string         `json:"data,omitempty"`
	Height      int            `json:"height,omitempty"`
	Orientation string         `json:"orientation,omitempty"`
	Spacing     *int           `json:"spacing,omitempty"`
	Children    []Widget       `json:"children,omitempty"`
}

// WidgetOption is one choice of a dropdown.
type WidgetOption struct {
	Value string `json:"value"`
	Label string `json:"label,omitempty"`
}

// ListRow is one row of a list widget.
type ListRow struct {
	ID          string      `json:"id"`
	Title       string      `json:"title"`
	Subtitle    string      `json:"subtitle,omitempty"`
	Icon        string      `json:"icon,omitempty"`
	Checked     *bool       `json:"checked,omitempty"`
	Activatable *bool       `json:"activatable,omitempty"`
	Buttons     []RowButton `json:"buttons,omitempty"`
}

// RowButton is a button of a list row.
type RowButton struct {
	ID    string `json:"id"`
	Label string `json:"label"`
	Icon  string `json:"icon,omitempty"`
	Style string `json:"style,omitempty"`
}

// PanelEvent is what the user did to a widget: Event is clicked, changed,
// submit, toggled, selected, activated or button; Value depends on it.
type PanelEvent struct {
	PanelID  string
	WidgetID string
	Event    string
	Value    json.RawMessage
}

// panelSpec chooses the form the host can show: widgets when there are
// some and the host offers panel_widgets, lines otherwise.
func (e *Extension) panelSpec(p Panel) panelSpec {
	spec := panelSpec{ID: p.ID, Title: p.Title, Footer: p.Footer, ToolCallID: p.ToolCallID}
	if len(p.Widgets) > 0 && e.Host().Has("panel_widgets") {
		spec.Widgets = p.Widgets
	} else {
		lines := p.Lines
		if lines == nil {
			lines = []string{}
		}
		spec.Lines = &lines
	}
	return spec
}

// ShowPanel opens panel p, or updates the open panel of that id, from
// anywhere: a tool handler, a timer, an event handler.
func (e *Extension) ShowPanel(p Panel) error {
	return e.send(openPanelFrame{Type: "open_panel", Panel: e.panelSpec(p)})
}

// UpdatePanel replaces the content of open panel p.ID (panel_render). An
// empty title keeps the old one. Widgets are updated in place by id.
func (e *Extension) UpdatePanel(p Panel) error {
	spec := e.panelSpec(p)
	return e.send(panelRenderFrame{Type: "panel_render", PanelID: p.ID, Title: p.Title,
		Lines: spec.Lines, Widgets: spec.Widgets, Footer: p.Footer})
}

// OpenPanel opens a line panel from anywhere, not only from a command.
func (e *Extension) OpenPanel(id, title string, lines []string, footer string) {
	if err := e.ShowPanel(Panel{ID: id, Title: title, Lines: lines, Footer: footer}); err != nil {
		e.Logf("panel %s not opened: %v", id, err)
	}
}

// RenderPanel replaces the lines of panel panelID.
func (e *Extension) RenderPanel(panelID, title string, lines []string, footer string) {
	if err := e.UpdatePanel(Panel{ID: panelID, Title: title, Lines: lines, Footer: footer}); err != nil {
		e.Logf("panel %s not rendered: %v", panelID, err)
	}
}

// ClosePanel closes panel panelID.
func (e *Extension) ClosePanel(panelID string) {
	if err := e.send(panelCloseFrame{Type: "panel_close", PanelID: panelID}); err != nil {
		e.Logf("panel %s not closed: %v", panelID, err)
	}
}

// OnPanelKey sets the callbacks for keys pressed in panel panelID and for
// the user closing it; a nil callback leaves the current one. Panel
// callbacks run one at a time, in the order the host sent them.
func (e *Extension) OnPanelKey(panelID string, onKey func(key, text string), onClose func()) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if onKey != nil {
		e.panelKeys[panelID] = onKey
	}
	if onClose != nil {
		e.panelCloses[panelID] = onClose
	}
}

// OnPanelEvent sets the callback for widget events of panel panelID.
func (e *Extension) OnPanelEvent(panelID string, fn func(PanelEvent)) {
	e.mu.Lock()
	e.panelEvents[panelID] = fn
	e.mu.Unlock()
}

// OnPanelResize sets the callback for size changes (in character cells)
// of panel panelID.
func (e *Extension) OnPanelResize(panelID string, fn func(width, height int)) {
	e.mu.Lock()
	e.panelResizes[panelID] = fn
	e.mu.Unlock()
}

// ForgetPanel drops every callback of panel panelID.
func (e *Extension) ForgetPanel(panelID string) {
	e.mu.Lock()
	delete(e.panelKeys, panelID)
	delete(e.panelCloses, panelID)
	delete(e.panelEvents, panelID)
	delete(e.panelResizes, panelID)
	e.mu.Unlock()
}

func (e *Extension) onPanel(f *inFrame) {
	var fn func()
	e.mu.Lock()
	switch f.Type {
	case "panel_key":
		if h := e.panelKeys[f.PanelID]; h != nil {
			key, text := f.Key, f.Text
			fn = func() { h(key, text) }
		}
	case "panel_close":
		if h := e.panelCloses[f.PanelID]; h != nil {
			fn = h
		}
	case "panel_event":
		if h := e.panelEvents[f.PanelID]; h != nil {
			ev := PanelEvent{PanelID: f.PanelID, WidgetID: f.WidgetID, Event: f.Event, Value: f.Value}
			fn = func() { h(ev) }
		}
	case "panel_resize":
		if h := e.panelResizes[f.PanelID]; h != nil {
			w, ht := f.Width, f.Height
			fn = func() { h(w, ht) }
		}
	}
	e.mu.Unlock()
	if fn == nil {
		return
	}
	kind, id := f.Type, f.PanelID
	ok := e.panels.push(func() {
		defer func() {
			if r := recover(); r != nil {
				e.Logf("%s callback of panel %s panicked: %v", kind, id, r)
			}
		}()
		fn()
	})
	if !ok {
		e.Logf("%s for panel %s dropped: its callbacks are 1024 behind", kind, id)
	}
}
