// gjs-panel: a zot extension in JavaScript for gjs, on libzot-ext-1 through
// GObject Introspection. /form opens a panel of native widgets (an entry, a
// switch, a button and a list the button appends to); every panel_event
// updates the panel in place with panel_render. Where the host has panels
// but no panel_widgets the panel is lines; headless, /form shows the list.
//
//   /form            open the panel (headless: show the list)
//   /form add TEXT   append TEXT to the list
//   /form clear      empty the list
//
// Needs the ZotExt typelib and libzot-ext-1: installed, or GI_TYPELIB_PATH
// and LD_LIBRARY_PATH pointing at the build (see README.md).
imports.gi.versions.ZotExt = '1';
const {ZotExt} = imports.gi;
const System = imports.system;

const PANEL = 'form';
const TITLE = 'Form';

const ext = ZotExt.Extension.new('gjs-panel', '1.0.0');
// The form's state lives here; the window keeps what the user typed.
const state = {text: '', shout: false, items: [], open: false};

function addItem(text) {
    const item = text.trim().replace(/\s+/g, ' ');
    if (item === '')
        return false;
    state.items.push(state.shout ? item.toUpperCase() : item);
    return true;
}

function summary() {
    const n = state.items.length;
    return `${n} item${n === 1 ? '' : 's'}${state.shout ? ' · capitals on' : ''}`;
}

// clearEntry sends "value": "" so that the window empties the entry after
// the text was taken; otherwise the user's typing survives the re-render.
function widgets(clearEntry) {
    const entry = {id: 'text', type: 'entry', label: 'Item', placeholder: 'Type an item'};
    if (clearEntry)
        entry.value = '';
    return JSON.stringify([
        entry,
        {id: 'shout', type: 'switch', label: 'Add in capitals', value: state.shout},
        {id: 'add', type: 'button', label: 'Add', style: 'suggested', sensitive: state.text.trim() !== ''},
        {id: 'items', type: 'list', label: 'Items', placeholder: 'Nothing added yet',
            rows: state.items.map((title, i) => ({id: `item-${i}`, title}))},
        {id: 'summary', type: 'text', style: 'dim', text: summary()},
    ]);
}

function lines() {
    const out = state.items.map((item, i) => `${i + 1}. ${item}`);
    if (out.length === 0)
        out.push('Nothing added yet.');
    out.push('', summary());
    return out;
}

const LINES_FOOTER = 'This window has no native widgets: /form add TEXT adds · esc closes';

function render(clearEntry = false) {
    if (!state.open)
        return;
    if (ext.has_host_capability('panel_widgets'))
        ext.render_panel_widgets(PANEL, TITLE, widgets(clearEntry), '');
    else
        ext.render_panel(PANEL, TITLE, lines(), LINES_FOOTER);
}

function listText() {
    return state.items.length === 0 ? 'The form has no items.'
        : state.items.map((item, i) => `${i + 1}. ${item}`).join('\n');
}

ext.add_command('form', 'A form panel: an entry, a switch, a button and a list (add TEXT, clear)');
ext.connect('command::form', (_ext, inv) => {
    const args = inv.get_args().trim();
    const [verb, ...rest] = args.split(/\s+/);
    if (verb === 'add') {
        if (!addItem(rest.join(' '))) {
            inv.return_error('nothing to add; usage: /form [add TEXT | clear]');
            return true;
        }
        render();
        inv.return_display(listText());
    } else if (verb === 'clear') {
        state.items = [];
        render();
        inv.return_display(listText());
    } else if (args !== '') {
        inv.return_error(`unknown subcommand '${verb}'; usage: /form [add TEXT | clear]`);
    } else if (ext.has_host_capability('panel_widgets')) {
        state.open = true;
        inv.return_open_panel_widgets(PANEL, TITLE, widgets(false), '');
    } else if (ext.has_host_capability('panels')) {
        state.open = true;
        inv.return_open_panel(PANEL, TITLE, lines(), LINES_FOOTER);
    } else {
        inv.return_display(listText());
    }
    return true;
});

ext.connect(`panel-event::${PANEL}`, (_ext, _panel, widget, event, valueJson) => {
    const value = JSON.parse(valueJson);
    if (widget === 'text' && event === 'changed') {
        state.text = value;
        render();
    } else if (widget === 'shout' && event === 'toggled') {
        state.shout = value === true;
        render();
    } else if ((widget === 'add' && event === 'clicked') || (widget === 'text' && event === 'submit')) {
        const text = widget === 'text' ? value : state.text;
        if (addItem(text)) {
            state.text = '';
            render(true);
        }
    }
});

ext.connect(`panel-key::${PANEL}`, (_ext, _panel, key) => {
    if (key === 'esc') {
        state.open = false;
        ext.close_panel(PANEL);
    }
});

ext.connect(`panel-close::${PANEL}`, () => {
    state.open = false;
});

System.exit(ext.run());
