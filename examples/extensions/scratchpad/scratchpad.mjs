// scratchpad — a zot extension in TypeScript on the zotext SDK: a note pad
// the model writes and reads (two tools), and a /scratchpad panel to look
// at it, delete notes or clear it. Compiled by `tsc -p .` to scratchpad.mjs,
// which is what runs (Node 20 cannot run TypeScript).
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { Extension, display, errorf, openPanel, textErrorResult, textResult, } from './vendor/zotext.mjs';
const PANEL = 'scratchpad';
const FILE = 'scratchpad.json';
// Bounds that keep the pad a pad: the whole of it goes back to the model
// in one scratchpad_read.
const MAX_NOTES = 200;
const MAX_NOTE_CHARS = 4000;
const USAGE = 'usage: /scratchpad | /scratchpad list | /scratchpad delete N | /scratchpad clear';
const ext = new Extension('scratchpad', '1.0.0');
let panelOpen = false;
let selected = 0; // index into the notes, for the line panel
// ---- the file ---------------------------------------------------------------
// hello_ack's data_dir is the extension's own directory (where it was
// installed); the process also starts there, hence the fallback.
function padPath() {
    return `${ext.host?.dataDir || '.'}/${FILE}`;
}
class PadError extends Error {
}
function isNote(v) {
    const n = v;
    return typeof n === 'object' && n !== null && Number.isInteger(n.id) && typeof n.text === 'string' && typeof n.at === 'string';
}
// Read for every operation, so an edit by another zot (or by hand) shows.
function load() {
    let data;
    try {
        data = readFileSync(padPath(), 'utf8');
    }
    catch (err) {
        if (err.code === 'ENOENT')
            return { next: 1, notes: [] };
        throw new PadError(`cannot read ${padPath()}: ${err.message}`);
    }
    let pad;
    try {
        pad = JSON.parse(data);
    }
    catch (err) {
        throw new PadError(`${padPath()} is not JSON (${err.message}): fix it or move it away to start an empty pad`);
    }
    if (typeof pad !== 'object' || pad === null || !Array.isArray(pad.notes) || !pad.notes.every(isNote)) {
        throw new PadError(`${padPath()} is not a scratchpad ({"next": N, "notes": [{"id", "text", "at"}]}): fix it or move it away`);
    }
    const highest = pad.notes.reduce((m, n) => Math.max(m, n.id), 0);
    if (!Number.isInteger(pad.next) || pad.next <= highest)
        pad.next = highest + 1;
    return pad;
}
// A temporary file renamed over the pad: a crash mid-write never leaves
// half a file.
function save(pad) {
    const tmp = `${padPath()}.tmp`;
    writeFileSync(tmp, `${JSON.stringify(pad, null, 2)}\n`);
    renameSync(tmp, padPath());
}
function plural(n, word) {
    return `${n} ${word}${n === 1 ? '' : 's'}`;
}
function asText(pad) {
    if (pad.notes.length === 0)
        return 'The scratchpad is empty.';
    return [`Scratchpad (${plural(pad.notes.length, 'note')}):`, ...pad.notes.map((n) => `${n.id}. ${n.text.replaceAll('\n', '\n   ')}`)].join('\n');
}
// ---- the panel ----------------------------------------------------------------
const firstLine = (text) => text.split('\n', 1)[0];
function panelSpec(pad) {
    selected = Math.max(0, Math.min(selected, pad.notes.length - 1));
    const list = {
        id: 'notes',
        type: 'list',
        label: 'Notes',
        placeholder: 'No notes yet. The model adds them with scratchpad_write.',
        rows: pad.notes.map((n) => ({
            id: `note-${n.id}`,
            title: firstLine(n.text),
            subtitle: `${n.id} · ${n.at.slice(0, 16).replace('T', ' ')}`,
            activatable: false,
            buttons: [{ id: 'delete', label: 'Delete', icon: 'user-trash-symbolic' }],
        })),
    };
    // Lines for hosts without panel_widgets: a selection moved with the keys.
    const lines = pad.notes.length === 0
        ? ['\u001b[2mNo notes yet. The model adds them with scratchpad_write.\u001b[0m']
        : pad.notes.map((n, i) => (i === selected ? `\u001b[1m▸ ${n.id}. ${firstLine(n.text)}\u001b[0m` : `  ${n.id}. ${firstLine(n.text)}`));
    lines.push('', `\u001b[2m${plural(pad.notes.length, 'note')}\u001b[0m`);
    return {
        id: PANEL,
        title: 'Scratchpad',
        widgets: [
            { id: 'count', type: 'text', text: plural(pad.notes.length, 'note'), style: 'dim' },
            list,
            { id: 'clear', type: 'button', label: 'Clear all', style: 'destructive', sensitive: pad.notes.length > 0 },
        ],
        lines,
        // A widget panel gets no keys: its buttons do the work.
        footer: ext.hostHas('panel_widgets') ? 'The model writes here with scratchpad_write' : '↑↓ move · d delete · c clear all · esc close',
    };
}
function redraw(pad) {
    if (panelOpen)
        ext.renderPanel(panelSpec(pad));
}
function deleteNote(id) {
    const pad = load();
    const i = pad.notes.findIndex((n) => n.id === id);
    if (i < 0)
        throw new PadError(`no note ${id}: see /scratchpad list`);
    const [gone] = pad.notes.splice(i, 1);
    save(pad);
    redraw(pad);
    return `Deleted note ${id}: ${firstLine(gone.text)}`;
}
function clearPad() {
    const pad = load();
    const count = pad.notes.length;
    pad.notes = [];
    save(pad);
    redraw(pad);
    return `Cleared ${plural(count, 'note')}.`;
}
// A failure in a panel has no reply to carry it: it becomes an error note.
function fromPanel(action) {
    try {
        ext.notify('success', action());
    }
    catch (err) {
        ext.notify('error', err.message);
    }
}
function onKey(key, text) {
    let pad;
    try {
        pad = load();
    }
    catch (err) {
        ext.notify('error', err.message);
        return;
    }
    const rune = key === 'rune' ? text.toLowerCase() : '';
    if (key === 'esc') {
        panelOpen = false;
        ext.closePanel(PANEL);
    }
    else if (key === 'up' || key === 'down' || key === 'home' || key === 'end') {
        const last = pad.notes.length - 1;
        selected = key === 'home' ? 0 : key === 'end' ? last : selected + (key === 'up' ? -1 : 1);
        redraw(pad);
    }
    else if ((key === 'delete' || key === 'backspace' || rune === 'd') && pad.notes[selected]) {
        fromPanel(() => deleteNote(pad.notes[selected].id));
    }
    else if (rune === 'c' && pad.notes.length > 0) {
        fromPanel(clearPad);
    }
}
function onEvent(ev) {
    if (ev.widgetId === 'clear' && ev.event === 'clicked') {
        fromPanel(clearPad);
    }
    else if (ev.widgetId === 'notes' && ev.event === 'button' && ev.value?.button === 'delete') {
        const id = Number(/^note-(\d+)$/.exec(String(ev.value.row))?.[1]);
        if (Number.isInteger(id))
            fromPanel(() => deleteNote(id));
    }
}
ext.onPanelKey(PANEL, onKey, () => {
    panelOpen = false;
});
ext.onPanelEvent(PANEL, onEvent);
// ---- the command ----------------------------------------------------------------
function command(args) {
    const words = args.split(/\s+/).filter((w) => w !== '');
    try {
        switch (words[0]) {
            case undefined:
                // Headless hosts have no panels: the notes as a note instead.
                if (!ext.hostHas('panels'))
                    return display(asText(load()));
                panelOpen = true;
                return openPanel(panelSpec(load()));
            case 'list':
                return display(asText(load()));
            case 'delete':
                if (!/^\d+$/.test(words[1] ?? ''))
                    return errorf('give the number of the note to delete: /scratchpad delete N');
                return display(deleteNote(Number(words[1])));
            case 'clear':
                return display(clearPad());
            default:
                return errorf("unknown subcommand '%s'; %s", words[0], USAGE);
        }
    }
    catch (err) {
        if (err instanceof PadError)
            return errorf('%s', err.message);
        throw err;
    }
}
ext.command('scratchpad', 'The notes the model keeps: open the panel, or list, delete N, clear', command);
// ---- the tools ----------------------------------------------------------------
function tool(run) {
    try {
        return textResult(run());
    }
    catch (err) {
        if (err instanceof PadError)
            return textErrorResult(err.message);
        throw err;
    }
}
ext.tool('scratchpad_write', 'Write a note on your scratchpad, to read back later with scratchpad_read. Give an id to replace that note.', {
    type: 'object',
    properties: {
        text: { type: 'string', description: `the note, at most ${MAX_NOTE_CHARS} characters` },
        id: { type: 'integer', description: 'the note to replace (from scratchpad_read); omit to add a new one' },
    },
    required: ['text'],
}, ({ text, id }) => tool(() => {
    if (typeof text !== 'string' || text.trim() === '')
        throw new PadError('scratchpad_write needs a non-empty string "text"');
    if (text.length > MAX_NOTE_CHARS) {
        throw new PadError(`the note has ${text.length} characters, more than ${MAX_NOTE_CHARS}: split it or shorten it`);
    }
    if (id !== undefined && !Number.isInteger(id))
        throw new PadError('"id" must be a whole number, from scratchpad_read');
    const pad = load();
    const at = new Date().toISOString();
    let note;
    if (id !== undefined) {
        note = pad.notes.find((n) => n.id === id);
        if (!note)
            throw new PadError(`no note ${id} to replace: leave out "id" to add a new note`);
        note.text = text;
        note.at = at;
    }
    else {
        if (pad.notes.length >= MAX_NOTES) {
            throw new PadError(`the scratchpad is full (${MAX_NOTES} notes): replace a note by its "id" instead`);
        }
        note = { id: pad.next++, text, at };
        pad.notes.push(note);
    }
    save(pad);
    redraw(pad);
    return `${id !== undefined ? 'Replaced' : 'Saved'} note ${note.id} (${plural(pad.notes.length, 'note')} on the scratchpad).`;
}));
ext.tool('scratchpad_read', 'Read your scratchpad: every note, numbered by id.', { type: 'object', properties: {} }, () => tool(() => asText(load())));
void ext.run();
