// runtime.js — the codemode script runtime (PROTOCOL.md §4a).
//
// Run by gjs inside the host's sandbox. It speaks JSON lines with the
// host: stdout carries a few warm-up calls (each answered on stdin),
// "ready", then the script's calls, questions and output, and one "done";
// stdin carries, after the warm-up's answers, one "start" frame, then the
// answers to the script's tool calls and questions. The script runs as the body
// of an async function in which gjs's own modules and printing are hidden;
// the sandbox (no home, no project, no network) is what holds it, this
// only keeps the script to the API below.
'use strict';

const Gio = imports.gi.Gio;
const GLib = imports.gi.GLib;

const encoder = new TextEncoder();
const stringify = JSON.stringify;
const parse = JSON.parse;
const output = new Gio.UnixOutputStream({fd: 1, close_fd: false});
const rawInput = new Gio.UnixInputStream({fd: 0, close_fd: false});
const input = new Gio.DataInputStream({
    base_stream: rawInput,
    close_base_stream: false,
});
const context = GLib.MainContext.default();

// Output goes out in pieces well under the host's frame cap.
const CHUNK_CHARS = 64 * 1024;

let limits = {calls: 0, in_flight: 1, state_bytes: 0, frame_bytes: 0};
let nextId = 0;
let calls = 0;
let inFlight = 0;
let finished = false;
const waiting = [];          // calls past the in-flight limit, in order
const pending = new Map();   // id -> {resolve, reject}
let state = Object.create(null);
let stateChanged = false;

// A string goes to write_all() as its UTF-8 bytes, with no encoder's copy
// in between; JSON.stringify never leaves a lone surrogate in it.
function writeLine(line) {
    output.write_all(line + '\n', null);
}

function send(frame) {
    writeLine(stringify(frame));
}

function emitText(text) {
    for (let i = 0; i < text.length; i += CHUNK_CHARS)
        send({type: 'output', text: text.slice(i, i + CHUNK_CHARS)});
}

function describe(value) {
    if (typeof value === 'string')
        return value;
    if (value instanceof Error)
        return `${value.name}: ${value.message}`;
    if (value === undefined || typeof value === 'function' || typeof value === 'symbol' ||
        typeof value === 'bigint')
        return String(value);
    try {
        const json = stringify(value, null, 2);
        return json === undefined ? String(value) : json;
    } catch (e) {
        return String(value);
    }
}

function errorText(error) {
    if (error instanceof Error)
        return `${error.name}: ${error.message}`;
    return `uncaught ${describe(error)}`;
}

// After "done" nothing the script does matters: wait for the host to end
// the process (it checks the memory the script used first).
function finish(frame) {
    if (finished)
        return;
    finished = true;
    if (frame.ok && stateChanged)
        frame.state = state;
    send(frame);
    const block = new Gio.UnixInputStream({fd: 0, close_fd: false});
    for (;;) {
        const bytes = block.read_bytes(65536, null);
        if (bytes.get_size() === 0)
            break;
    }
    hardExit();
}

const system = imports.system;
let exiting = false;
let inputSource = null;
// System.exit() ends the process only from the top of the stack; called
// from a callback the main loop or the job queue runs, it unwinds just that
// callback, so the loop below checks the flag and exits from the top.
function hardExit() {
    if (exiting)
        return;
    exiting = true;
    inputSource?.destroy();
    system.exit(0);
}

// @json is the arguments already serialised: the frame is put together
// around it rather than serialising them a second time.
function startCall(name, json) {
    const id = ++nextId;
    inFlight++;
    return new Promise((resolve, reject) => {
        pending.set(id, {resolve, reject});
        writeLine(`{"type":"call","id":${id},"name":${stringify(name)},"args":${json}}`);
    });
}

function pump() {
    while (waiting.length > 0 && inFlight < limits.in_flight) {
        const next = waiting.shift();
        startCall(next.name, next.json).then(next.resolve, next.reject);
    }
}

function callTool(name, args) {
    if (finished)
        return Promise.reject(new Error('the script has ended'));
    if (args === undefined || args === null)
        args = {};
    if (typeof args !== 'object' || Array.isArray(args))
        return Promise.reject(new TypeError(`the arguments of ${name} must be an object`));
    let json;
    try {
        json = stringify(args);
    } catch (e) {
        return Promise.reject(new TypeError(`the arguments of ${name} are not JSON: ${e.message}`));
    }
    if (json.length > limits.frame_bytes)
        return Promise.reject(new RangeError(`the arguments of ${name} are larger than ${limits.frame_bytes} bytes`));
    if (++calls > limits.calls)
        return Promise.reject(new Error(`a script makes at most ${limits.calls} tool calls`));
    // The JSON is the copy: what the script changes afterwards is not sent.
    if (inFlight < limits.in_flight)
        return startCall(name, json);
    return new Promise((resolve, reject) => waiting.push({name, json, resolve, reject}));
}

function ask(what, fields) {
    const id = ++nextId;
    return new Promise((resolve, reject) => {
        pending.set(id, {resolve, reject});
        send(Object.assign({type: 'ask', id, what}, fields));
    });
}

function safeIdentifier(name) {
    let id = name.replace(/[^A-Za-z0-9_$]/g, '_');
    if (id === '' || /^[0-9]/.test(id))
        id = '_' + id;
    return id;
}

function buildTools(catalog) {
    const tools = Object.create(null);
    const spaces = Object.create(null);
    const claim = (target, key, value) => {
        if (!(key in target))
            Object.defineProperty(target, key, {value, enumerable: true});
    };

    for (const entry of catalog) {
        const name = entry.name;
        const fn = args => callTool(name, args);
        Object.defineProperty(fn, 'name', {value: name});
        claim(tools, name, fn);
        claim(tools, safeIdentifier(name), fn);
    }
    // tools.<namespace>.<name>: on the tool of the same name when there is
    // one (the seed's weather tool lives in the weather namespace).
    for (const entry of catalog) {
        if (!entry.namespace)
            continue;
        for (const key of [entry.namespace, safeIdentifier(entry.namespace)]) {
            let space = spaces[key];
            if (space === undefined) {
                space = key in tools ? tools[key] : Object.create(null);
                if (!(key in tools))
                    claim(tools, key, space);
                spaces[key] = space;
            }
            const fn = tools[entry.name];
            for (const member of [entry.name, safeIdentifier(entry.name)]) {
                if (typeof space === 'function')
                    Object.defineProperty(space, member, {value: fn, enumerable: true, configurable: true});
                else
                    claim(space, member, fn);
            }
        }
    }
    for (const key in spaces)
        Object.freeze(spaces[key]);
    return Object.freeze(tools);
}

function jsonCopy(value) {
    return value === undefined ? undefined : parse(stringify(value));
}

function store(key, value) {
    if (typeof key !== 'string')
        throw new TypeError('store() needs a string key');
    let json;
    try {
        json = value === undefined ? undefined : stringify(value);
    } catch (e) {
        throw new TypeError(`store(): the value is not JSON: ${e.message}`);
    }
    const next = Object.assign(Object.create(null), state);
    if (json === undefined)
        delete next[key];
    else
        next[key] = parse(json);
    const size = encoder.encode(stringify(next)).length;
    if (size > limits.state_bytes)
        throw new RangeError(`stored state is limited to ${limits.state_bytes} bytes (this would be ${size})`);
    state = next;
    stateChanged = true;
}

function load(key) {
    if (typeof key !== 'string')
        throw new TypeError('load() needs a string key');
    return Object.prototype.hasOwnProperty.call(state, key) ? jsonCopy(state[key]) : undefined;
}

const IMAGE_TYPES = ['image/png', 'image/jpeg', 'image/gif', 'image/webp'];

function image(value) {
    let mimeType, data;
    if (typeof value === 'string') {
        const match = /^data:([^;,]+);base64,(.*)$/s.exec(value);
        if (match === null) {
            if (/^[a-z]+:\/\//i.test(value))
                throw new TypeError('image() takes data, not a remote URL');
            throw new TypeError('image() takes a data: URL or {type:"image", data, mimeType}');
        }
        mimeType = match[1];
        data = match[2];
    } else if (value && typeof value === 'object') {
        mimeType = value.mimeType ?? value.mime_type;
        data = value.data;
    }
    if (typeof data !== 'string' || typeof mimeType !== 'string')
        throw new TypeError('image() takes a data: URL or {type:"image", data, mimeType}');
    if (!IMAGE_TYPES.includes(mimeType))
        throw new TypeError(`image(): ${mimeType} is not PNG, JPEG, GIF or WebP`);
    if (data.length > limits.frame_bytes)
        throw new RangeError(`image(): larger than ${limits.frame_bytes} bytes`);
    send({type: 'image', mime_type: mimeType, data});
}

function text(...values) {
    emitText(values.map(describe).join(' ') + '\n');
}

const scriptConsole = Object.freeze({
    log: text, info: text, warn: text, error: text, debug: text,
});

function exit() {
    finish({type: 'done', ok: true});
}

// Names the script's scope hides: gjs's module system and printing.
const HIDDEN = ['imports', 'print', 'printerr', 'log', 'logError', 'ARGV', 'window',
    'GjsFileImporter'];

function run(start) {
    limits = start.limits;
    state = Object.assign(Object.create(null), start.state ?? {});
    const catalog = start.catalog ?? [];
    const api = {
        tools: buildTools(catalog),
        ALL_TOOLS: Object.freeze(catalog.map(e => Object.freeze({name: e.name, description: e.description}))),
        searchTools: (query, options = {}) => ask('search', {
            query: String(query ?? ''),
            limit: options?.limit ?? null,
            namespace: options?.namespace ?? null,
        }),
        describeTool: name => ask('describe_tool', {name: String(name)}),
        describeNamespace: name => ask('describe_namespace', {name: String(name)}),
        text, console: scriptConsole, image, exit, store, load,
    };
    const AsyncFunction = (async function () {}).constructor;
    const names = Object.keys(api).concat(HIDDEN);
    const values = Object.values(api).concat(HIDDEN.map(() => undefined));
    for (const name of ['imports', 'print', 'printerr', 'log', 'logError'])
        globalThis[name] = undefined;

    let body;
    try {
        body = new AsyncFunction(...names, start.code);
    } catch (e) {
        finish({type: 'done', ok: false, error: errorText(e)});
        return;
    }
    body(...values).then(value => {
        if (value !== undefined)
            emitText(describe(value) + '\n');
        finish({type: 'done', ok: true});
    }, error => {
        finish({type: 'done', ok: false, error: errorText(error)});
    });
}

function onFrame(frame) {
    if (frame.type === 'start') {
        run(frame);
        return;
    }
    if (frame.type !== 'result' && frame.type !== 'reply')
        return;
    const waiter = pending.get(frame.id);
    if (waiter === undefined)
        return;
    pending.delete(frame.id);
    if (frame.type === 'result') {
        inFlight--;
        pump();
    }
    if (frame.ok === false)
        waiter.reject(new Error(frame.error));
    else
        waiter.resolve(frame.value === null && frame.type === 'reply' ? undefined : frame.value);
}

// gjs's own way to run the promise jobs now, where this version has it.
function drainJobsFunction() {
    try {
        const drain = imports._promiseNative?.drainMicrotaskQueue;
        return typeof drain === 'function' ? drain : null;
    } catch (e) {
        return null;
    }
}

// Timers the script has running: while any is, the runtime must not block
// on the host's next frame, or the timer would wait behind it.
const timers = new Set();
const realSetTimeout = globalThis.setTimeout;
const realSetInterval = globalThis.setInterval;
const realClearTimeout = globalThis.clearTimeout;
const realClearInterval = globalThis.clearInterval;

function setTimeout(callback, delay, ...args) {
    const handle = realSetTimeout(() => {
        timers.delete(handle);
        callback(...args);
    }, delay);
    timers.add(handle);
    return handle;
}

function setInterval(callback, delay, ...args) {
    const handle = realSetInterval(callback, delay, ...args);
    timers.add(handle);
    return handle;
}

function clearTimeout(handle) {
    timers.delete(handle);
    realClearTimeout(handle);
}

function clearInterval(handle) {
    timers.delete(handle);
    realClearInterval(handle);
}

Object.assign(globalThis, {setTimeout, setInterval, clearTimeout, clearInterval});

function readLine() {
    let line;
    try {
        [line] = input.read_line_utf8(null);
    } catch (e) {
        hardExit();
    }
    if (line === null)
        hardExit();
    try {
        onFrame(parse(line));
    } catch (e) {
        if (!finished)
            finish({type: 'done', ok: false, error: `runtime: ${errorText(e)}`});
    }
}

// peek_buffer() copies the whole buffer into a new array: only when there
// is something in it, which is seldom.
function hasBufferedLine() {
    return input.get_available() > 0 && input.peek_buffer().indexOf(10) >= 0;
}

// The host's frames are read with a blocking read while the script waits
// only for the host: a round trip through the main loop's poll costs gjs
// several times as much, and a script's sequential calls pay it on each.
// Otherwise (timers, or nothing owed by the host) the main loop runs, with
// standard input as one of its sources.
//
// Between frames the promise jobs (the script going on after an await) run
// straight from here where gjs lets us: through the main loop that took a
// check of every source, a poll and a dispatch per call. Now and then the
// main loop still gets a turn, for what gjs itself keeps there.
inputSource = rawInput.create_source(null);
inputSource.set_callback(() => {
    do
        readLine();
    while (hasBufferedLine());
    return GLib.SOURCE_CONTINUE;
});
inputSource.attach(context);

const runJobs = drainJobsFunction();
const LOOP_TURN_US = 50 * 1000;
let lastLoopTurn = 0;

function runPending() {
    if (runJobs !== null) {
        runJobs();
        const now = GLib.get_monotonic_time();
        if (now - lastLoopTurn < LOOP_TURN_US)
            return;
        lastLoopTurn = now;
    }
    // One turn: turning it while it finds something to do kept a script
    // whose answers come back quickly on this slow path for good.
    context.iteration(false);
}

// Before it says it is ready, the runtime makes a few calls that the host
// answers at once, through the code and streams a script's calls use, so
// that a script's first calls find gjs's caches filled and its code
// loaded. A spare runtime does this while nothing waits for it.
function warmUp(count) {
    if (runJobs === null || !(count > 0))
        return;
    const saved = limits;
    limits = {calls: count, in_flight: 1, state_bytes: 0, frame_bytes: CHUNK_CHARS};
    const tools = buildTools([{name: 'warm-up'}]);
    let done = false;
    (async () => {
        for (let i = 0; i < count; i++)
            await tools['warm-up']({});
    })().finally(() => {
        done = true;
    });
    while (!done && !exiting) {
        readLine();
        runJobs();
    }
    limits = saved;
    nextId = 0;
    calls = 0;
    inFlight = 0;
    pending.clear();
}

warmUp(parseInt(GLib.getenv('ZOT_WARM_UP_CALLS') ?? '0'));
send({type: 'ready'});
for (;;) {
    if (!exiting)
        runPending();
    if (exiting)
        break;
    if (hasBufferedLine() || (pending.size > 0 && timers.size === 0))
        readLine();
    else
        context.iteration(true);
    if (exiting)
        break;
}
