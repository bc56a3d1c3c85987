// Unit tests of zotext.mjs, playing the host over in-process streams.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import {
  Extension,
  MAX_FRAME_BYTES,
  textResult,
  textErrorResult,
  reconcileNotStarted,
  reconcileCompleted,
  reconcileUnknown,
  text,
  image,
  imageBytes,
  prompt,
  toolPrompt,
  insert,
  display,
  openPanel,
  noop,
  errorf,
} from '../zotext.mjs';
import { inProcess, deferred, within, Wire } from './harness.mjs';

const OBJ = { type: 'object' };

async function started(ext, caps = ['call_tool'], extra = {}) {
  const h = inProcess(ext);
  const { hello, regs } = await h.wire.handshake(caps, extra);
  return { ...h, hello, regs };
}

async function readThrough(e, path) {
  await Promise.resolve();
  return e.callTool('read', { path }, { key: 'step-1' });
}

// A round trip through the extension's read loop and write queue: once
// its answer is back, everything the extension did before is on the wire.
let barrierSeq = 0;
async function barrier(wire) {
  const id = `barrier-${++barrierSeq}`;
  wire.send({ type: 'event_intercept', id, event: 'no_such_event' });
  await wire.next({ type: 'event_intercept_response', id });
}

async function shutdown(h) {
  h.wire.send({ type: 'shutdown' });
  await h.wire.next('shutdown_ack');
  assert.equal(await within(h.done, undefined, 'run()'), 'shutdown');
}

test('handshake: hello first, capabilities from registrations, registrations after hello_ack, then ready', async () => {
  const ext = new Extension('caps', '2.0.0');
  ext.command('hi', 'say hi', () => noop());
  ext.tool('t1', 'a tool', OBJ, () => textResult('x'));
  ext.on('turn_end', () => {});
  ext.interceptToolCall(() => undefined);
  let seenHost;
  ext.onHello((host) => {
    seenHost = host;
    ext.tool('late', 'registered from onHello', OBJ, () => textResult('late'));
  });
  const h = inProcess(ext);
  const hello = await h.wire.next('hello');
  assert.deepEqual(hello, {
    type: 'hello',
    name: 'caps',
    version: '2.0.0',
    capabilities: ['commands', 'tools', 'events', 'panels', 'tool_cancel', 'call_tool'],
  });
  // Nothing but hello before hello_ack.
  assert.equal(h.wire.frames.length, 0);
  h.wire.send({ type: 'hello_ack', protocol_version: 1, zot_version: '9', provider: 'prov', model: 'mod', cwd: '/c', extension_dir: '/e', data_dir: '/d', capabilities: ['call_tool', 'panels'] });
  await h.wire.next('ready');
  const types = h.wire.all.map((f) => f.type);
  assert.deepEqual(types, ['hello', 'register_command', 'register_tool', 'register_tool', 'subscribe', 'ready']);
  assert.deepEqual(h.wire.all[4], { type: 'subscribe', events: ['turn_end'], intercept: ['tool_call'] });
  assert.equal(seenHost.provider, 'prov');
  assert.deepEqual(ext.host, { protocolVersion: 1, zotVersion: '9', provider: 'prov', model: 'mod', cwd: '/c', extensionDir: '/e', dataDir: '/d', capabilities: ['call_tool', 'panels'] });
  assert.ok(ext.hostHas('panels'));
  assert.ok(!ext.hostHas('panel_widgets'));
  await shutdown(h);
});

test('handshake: no tools means no tool_cancel; async onHello holds frames until it is done', async () => {
  const ext = new Extension('plain', '1');
  const gate = deferred();
  ext.onHello(async () => {
    await gate.promise;
    ext.command('later', 'from async onHello', () => display('later ran'));
  });
  const h = inProcess(ext);
  const hello = await h.wire.next('hello');
  // onHello may register anything, so everything is advertised.
  assert.deepEqual(hello.capabilities, ['commands', 'tools', 'events', 'panels', 'tool_cancel', 'call_tool']);
  h.wire.send({ type: 'hello_ack', protocol_version: 1, capabilities: [] });
  h.wire.send({ type: 'command_invoked', id: 'c1', name: 'later', args: '' });
  gate.resolve();
  await h.wire.next('ready');
  assert.deepEqual(await h.wire.next('command_response'), { type: 'command_response', id: 'c1', action: 'display', display: 'later ran' });
  await shutdown(h);
});

test('handshake: capabilities follow registrations exactly', async () => {
  const none = new Extension('none', '1');
  const h1 = inProcess(none);
  assert.deepEqual((await h1.wire.next('hello')).capabilities, ['call_tool']);
  h1.input.end();
  assert.equal(await within(h1.done), 'eof');
  const cmds = new Extension('cmds', '1');
  cmds.command('x', 'd', () => noop());
  const h2 = inProcess(cmds);
  assert.deepEqual((await h2.wire.next('hello')).capabilities, ['commands', 'panels', 'call_tool']);
  h2.input.end();
  assert.equal(await within(h2.done), 'eof');
});

test('tool kinds: plain, structured, with options, interactive, deferred', async () => {
  const ext = new Extension('kinds', '1');
  ext.tool('plain', 'p', { type: 'object', properties: { a: { type: 'string' } } }, async (args) => textResult(`got ${args.a}`));
  ext.structuredTool('structured', 's', OBJ, { type: 'object', properties: { n: { type: 'number' } } }, async () => ({
    content: [text('n is 2')],
    structuredContent: { n: 2 },
  }));
  ext.toolWithOptions(
    'opts',
    'o',
    '{"type":"object"}',
    { namespace: 'ns', namespaceDescription: 'nd', namespaceInstructions: 'ni', exposure: 'deferred', replay: 'idempotent' },
    async (_args, ctx) => textResult(`key ${ctx.operationKey}`),
  );
  ext.interactiveTool('ask', 'i', OBJ, async () => textResult('answered'));
  ext.deferredTool('hidden', 'd', OBJ, () => 'a plain string is a text result');
  ext.tool('images', 'img', OBJ, () => ({ content: [image('image/png', 'AAAA'), imageBytes('image/gif', Buffer.from('GIF'))] }));
  const h = await started(ext);
  const reg = Object.fromEntries(h.regs.filter((f) => f.type === 'register_tool').map((f) => [f.name, f]));
  assert.deepEqual(reg.plain, { type: 'register_tool', name: 'plain', description: 'p', schema: { type: 'object', properties: { a: { type: 'string' } } } });
  assert.deepEqual(reg.structured.output_schema, { type: 'object', properties: { n: { type: 'number' } } });
  assert.deepEqual(reg.opts, {
    type: 'register_tool',
    name: 'opts',
    description: 'o',
    schema: { type: 'object' },
    namespace: 'ns',
    namespace_description: 'nd',
    namespace_instructions: 'ni',
    exposure: 'deferred',
    replay: 'idempotent',
  });
  assert.equal(reg.ask.interactive, true);
  assert.equal(reg.hidden.deferred, true);

  h.wire.send({ type: 'tool_call', id: 'i1', name: 'plain', args: { a: 'x' } });
  assert.deepEqual(await h.wire.next({ id: 'i1' }), { type: 'tool_result', id: 'i1', content: [{ type: 'text', text: 'got x' }], is_error: false });
  h.wire.send({ type: 'tool_call', id: 'i2', name: 'structured', args: {} });
  assert.deepEqual(await h.wire.next({ id: 'i2' }), { type: 'tool_result', id: 'i2', content: [{ type: 'text', text: 'n is 2' }], is_error: false, structured_content: { n: 2 } });
  h.wire.send({ type: 'tool_call', id: 'i3', name: 'opts', args: {}, operation_key: 'op-7' });
  assert.equal((await h.wire.next({ id: 'i3' })).content[0].text, 'key op-7');
  h.wire.send({ type: 'tool_call', id: 'i4', name: 'ask', args: {} });
  assert.equal((await h.wire.next({ id: 'i4' })).content[0].text, 'answered');
  h.wire.send({ type: 'tool_call', id: 'i5', name: 'hidden', args: {} });
  assert.equal((await h.wire.next({ id: 'i5' })).content[0].text, 'a plain string is a text result');
  h.wire.send({ type: 'tool_call', id: 'i6', name: 'images', args: {} });
  assert.deepEqual((await h.wire.next({ id: 'i6' })).content, [
    { type: 'image', mime_type: 'image/png', data: 'AAAA' },
    { type: 'image', mime_type: 'image/gif', data: Buffer.from('GIF').toString('base64') },
  ]);
  h.wire.send({ type: 'tool_call', id: 'i7', name: 'nobody', args: {} });
  const unknown = await h.wire.next({ id: 'i7' });
  assert.equal(unknown.is_error, true);
  assert.match(unknown.content[0].text, /no handler for tool "nobody"/);
  await shutdown(h);
});

test('reconcile: questions go to the reconcile function, calls to the handler', async () => {
  const ext = new Extension('settle', '1');
  const ran = [];
  ext.toolWithOptions('settle', 'd', OBJ, {
    reconcile: async (args, ctx) => {
      assert.equal(ctx.reconcile, true);
      if (ctx.operationKey === 'a') return reconcileNotStarted();
      if (ctx.operationKey === 'b') return reconcileCompleted(textResult(`paid ${args.n}`));
      if (ctx.operationKey === 'c') return reconcileUnknown('no record');
      return undefined;
    },
  }, async (args, ctx) => {
    ran.push(`${args.n} ${ctx.operationKey} ${ctx.reconcile}`);
    return textResult('paid');
  });
  ext.tool('plain_reconcile', 'd', OBJ, (_args, ctx) => textResult(`reconcile=${ctx.reconcile}`), { replay: 'reconcile' });
  assert.throws(() => ext.tool('x', 'd', OBJ, () => '', { replay: 'safe', reconcile: () => {} }), /needs replay "reconcile"/);
  const h = await started(ext);
  assert.equal(h.regs.find((f) => f.name === 'settle').replay, 'reconcile');
  const ask = async (id, key, reconcile = true) => {
    h.wire.send({ type: 'tool_call', id, name: 'settle', args: { n: 1 }, reconcile, operation_key: key });
    const r = await h.wire.next({ id });
    return [r.structured_content, r.is_error, r.content[0].text];
  };
  assert.deepEqual(await ask('r1', 'a'), [{ state: 'not_started' }, false, 'not started']);
  assert.deepEqual(await ask('r2', 'b'), [{ state: 'completed' }, false, 'paid 1']);
  assert.deepEqual(await ask('r3', 'c'), [{ state: 'unknown' }, true, 'no record']);
  assert.deepEqual(await ask('r4', 'd'), [{ state: 'unknown' }, true, 'unknown']);
  assert.deepEqual(ran, []);
  assert.deepEqual(await ask('r5', 'a', false), [undefined, false, 'paid']);
  assert.deepEqual(ran, ['1 a false']);
  h.wire.send({ type: 'tool_call', id: 'r6', name: 'plain_reconcile', args: {}, reconcile: true, operation_key: 'z' });
  assert.equal((await h.wire.next({ id: 'r6' })).content[0].text, 'reconcile=true');
  await shutdown(h);
});

test('registration errors are thrown at once, naming the tool and the rule', () => {
  const ext = new Extension('bad', '1');
  const h = () => textResult('');
  assert.throws(() => ext.tool('has space', 'd', OBJ, h), /tool name "has space" is invalid: it must match \^\[A-Za-z0-9_-\]\{1,64\}\$/);
  assert.throws(() => ext.tool('x'.repeat(65), 'd', OBJ, h), /is invalid/);
  assert.throws(() => ext.tool('', 'd', OBJ, h), /is invalid/);
  assert.throws(() => ext.tool('dots.no', 'd', OBJ, h), /is invalid/);
  assert.throws(() => ext.tool('s1', 'd', '"a string"', h), /tool "s1": schema must be a JSON object, got string/);
  assert.throws(() => ext.tool('s2', 'd', [], h), /tool "s2": schema must be a JSON object, got an array/);
  assert.throws(() => ext.tool('s3', 'd', 42, h), /got number/);
  assert.throws(() => ext.tool('s4', 'd', undefined, h), /got undefined/);
  assert.throws(() => ext.tool('s5', 'd', '{not json', h), /schema is not valid JSON/);
  assert.throws(() => ext.structuredTool('s6', 'd', OBJ, 'nope', h), /outputSchema is not valid JSON/);
  assert.throws(() => ext.toolWithOptions('s7', 'd', OBJ, { exposure: 'public' }, h), /exposure "public" is not one of direct, codemode, deferred, model-only/);
  assert.throws(() => ext.tool('s8', 'd', OBJ, 'not a function'), /handler must be a function/);
  ext.tool('ok_name-1', 'd', OBJ, h);
  assert.throws(() => ext.tool('ok_name-1', 'd', OBJ, h), /registered twice/);
  assert.throws(() => ext.command('has space', 'd', h), /command name/);
  assert.throws(() => ext.submitSlash('no slash'), /must start with "\/"/);
});

test('a cancel that arrives before the handler starts: the handler sees an aborted signal, no reply', async () => {
  const ext = new Extension('early', '1');
  const seen = deferred();
  ext.tool('slow', 'd', OBJ, async (_args, ctx) => {
    seen.resolve(ctx.signal.aborted);
    return textResult('must not be sent');
  });
  const h = await started(ext);
  // One write: the call and its cancel reach the read loop together.
  h.wire.send(JSON.stringify({ type: 'tool_call', id: 'x1', name: 'slow', args: {} }) + '\n' + JSON.stringify({ type: 'tool_cancel', id: 'x1' }) + '\n');
  assert.equal(await within(seen.promise), true);
  await barrier(h.wire);
  assert.deepEqual(h.wire.pending({ type: 'tool_result' }), []);
  await h.wire.stderrHas('dropped the result of x1 (slow)');
  await shutdown(h);
});

test('a cancel after the handler started aborts its signal; the late result is dropped', async () => {
  const ext = new Extension('late', '1');
  const startedCall = deferred();
  const returned = deferred();
  ext.tool('wait', 'd', OBJ, async (_args, ctx) => {
    startedCall.resolve();
    await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve, { once: true }));
    returned.resolve(ctx.signal.reason.message);
    return textErrorResult('cancelled');
  });
  const h = await started(ext);
  h.wire.send({ type: 'tool_call', id: 'w1', name: 'wait', args: {} });
  await within(startedCall.promise);
  h.wire.send({ type: 'tool_cancel', id: 'w1' });
  h.wire.send({ type: 'tool_cancel', id: 'unknown-id' });
  assert.equal(await within(returned.promise), 'cancelled');
  await barrier(h.wire);
  assert.deepEqual(h.wire.pending({ type: 'tool_result' }), []);
  await h.wire.stderrHas('dropped the result of w1 (wait): the call was cancelled');
  await shutdown(h);
});

test('shutdown: running handlers are aborted, none replies, shutdown_ack, run() resolves', async () => {
  const ext = new Extension('sd', '1');
  const startedCall = deferred();
  const aborted = deferred();
  ext.tool('wait', 'd', OBJ, async (_args, ctx) => {
    startedCall.resolve();
    await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve, { once: true }));
    aborted.resolve(ctx.signal.reason.message);
    return textResult('too late');
  });
  ext.command('slowcmd', 'd', async () => {
    await aborted.promise;
    return display('too late');
  });
  const h = await started(ext);
  h.wire.send({ type: 'tool_call', id: 'w1', name: 'wait', args: {} });
  await within(startedCall.promise);
  h.wire.send({ type: 'command_invoked', id: 'c1', name: 'slowcmd', args: '' });
  h.wire.send({ type: 'shutdown' });
  await h.wire.next('shutdown_ack');
  assert.equal(await within(h.done), 'shutdown');
  assert.equal(await within(aborted.promise), 'shutdown');
  await within(new Promise((resolve) => setImmediate(resolve)));
  const after = h.wire.all.slice(h.wire.all.findIndex((f) => f.type === 'shutdown_ack') + 1);
  assert.deepEqual(after, []);
  assert.deepEqual(h.wire.pending({ type: 'tool_result' }), []);
  // Nothing may be written after the ack.
  assert.equal(ext.notify('info', 'after'), false);
});

test('EOF: handlers are aborted, pending calls rejected, run() resolves eof', async () => {
  const ext = new Extension('eof', '1');
  const startedCall = deferred();
  const outcome = deferred();
  ext.tool('nest', 'd', OBJ, async (_args, ctx) => {
    const p = ext.callTool('read', { path: 'a' });
    startedCall.resolve();
    try {
      await p;
      outcome.resolve('resolved');
    } catch (err) {
      outcome.resolve(`${ctx.signal.aborted} ${err.code}`);
    }
    return textResult('never sent');
  });
  const h = await started(ext);
  h.wire.send({ type: 'tool_call', id: 'n1', name: 'nest', args: {} });
  await within(startedCall.promise);
  await h.wire.next('call_tool');
  h.input.end();
  assert.equal(await within(h.done), 'eof');
  assert.equal(await within(outcome.promise), 'true closed');
  assert.deepEqual(h.wire.pending({ type: 'tool_result' }), []);
});

test('a call a handler forgot to await, ended by shutdown or by its parent finishing, is no unhandled rejection', async () => {
  const ext = new Extension('forgot', '1');
  const fired = deferred();
  let late;
  ext.tool('fire', 'd', OBJ, () => {
    ext.callTool('read', { path: 'never awaited' }).catch(() => {});
    fired.resolve();
    return textResult('done');
  });
  ext.tool('leak', 'd', OBJ, (_args, ctx) => {
    ext.callTool('read', { path: 'x' }); // not awaited, never answered
    late = () => ctx.callTool('read', { path: 'after' });
    return textResult('leaked');
  });
  const h = await started(ext);
  h.wire.send({ type: 'tool_call', id: 'f1', name: 'fire', args: {} });
  await h.wire.next('call_tool');
  await h.wire.next({ id: 'f1' });
  // The parent finished: its outstanding call is cancelled.
  await h.wire.next('call_tool_cancel');
  h.wire.send({ type: 'tool_call', id: 'l1', name: 'leak', args: {} });
  const leaked = await h.wire.next('call_tool');
  assert.equal(leaked.parent_id, 'l1');
  await h.wire.next({ id: 'l1' });
  await h.wire.next({ type: 'call_tool_cancel', id: leaked.id });
  // A call made from a finished handler is refused at once.
  await assert.rejects(late(), (err) => err.code === 'aborted' && /finished/.test(err.message));
  await shutdown(h);
  await within(fired.promise);
});

test('a throw becomes an error result naming the tool; the extension keeps running', async () => {
  const ext = new Extension('throws', '1');
  ext.tool('boom', 'd', OBJ, async () => {
    throw new Error('kaput');
  });
  ext.tool('syncboom', 'd', OBJ, () => {
    throw new RangeError('sync kaput');
  });
  ext.tool('weird', 'd', OBJ, () => 42);
  ext.tool('fine', 'd', OBJ, () => textResult('still here'));
  const h = await started(ext);
  h.wire.send({ type: 'tool_call', id: 'b1', name: 'boom', args: {} });
  assert.deepEqual(await h.wire.next({ id: 'b1' }), { type: 'tool_result', id: 'b1', content: [{ type: 'text', text: 'boom: kaput' }], is_error: true });
  h.wire.send({ type: 'tool_call', id: 'b2', name: 'syncboom', args: {} });
  assert.equal((await h.wire.next({ id: 'b2' })).content[0].text, 'syncboom: sync kaput');
  h.wire.send({ type: 'tool_call', id: 'b3', name: 'weird', args: {} });
  const w = await h.wire.next({ id: 'b3' });
  assert.equal(w.is_error, true);
  assert.match(w.content[0].text, /returned no ToolResult/);
  h.wire.send({ type: 'tool_call', id: 'b4', name: 'fine', args: {} });
  assert.equal((await h.wire.next({ id: 'b4' })).content[0].text, 'still here');
  await shutdown(h);
});

test('an oversized result becomes an error result saying so', async () => {
  const ext = new Extension('big', '1');
  ext.tool('big', 'd', OBJ, () => textResult('x'.repeat(MAX_FRAME_BYTES)));
  ext.tool('bigwide', 'd', OBJ, () => textResult('é'.repeat(MAX_FRAME_BYTES / 2)));
  ext.tool('edge', 'd', OBJ, () => textResult('y'.repeat(MAX_FRAME_BYTES - 200)));
  const h = await started(ext);
  h.wire.send({ type: 'tool_call', id: 'g1', name: 'big', args: {} });
  const r = await h.wire.next({ id: 'g1' });
  assert.equal(r.is_error, true);
  assert.match(r.content[0].text, /^big: result of \d+ bytes is over the 4 MiB frame limit$/);
  h.wire.send({ type: 'tool_call', id: 'g2', name: 'bigwide', args: {} });
  assert.match((await h.wire.next({ id: 'g2' })).content[0].text, /over the 4 MiB frame limit/);
  h.wire.send({ type: 'tool_call', id: 'g3', name: 'edge', args: {} });
  const e = await h.wire.next({ id: 'g3' });
  assert.equal(e.is_error, false);
  assert.equal(e.content[0].text.length, MAX_FRAME_BYTES - 200);
  await h.wire.stderrHas('over the 4 MiB frame limit; sent an error result instead');
  await shutdown(h);
});

test('an oversized inbound line is skipped with a log line; the next frame works', async () => {
  const ext = new Extension('skip', '1');
  ext.tool('echo', 'd', OBJ, (args) => textResult(args.text));
  const h = await started(ext);
  // Over the bound, arriving in pieces as a pipe would deliver it.
  const huge = JSON.stringify({ type: 'tool_call', id: 'huge', name: 'echo', args: { text: 'z'.repeat(MAX_FRAME_BYTES) } });
  for (let i = 0; i < huge.length; i += 65536) h.wire.send(huge.slice(i, i + 65536));
  await h.wire.stderrHas('skipping an inbound line over the 4 MiB frame limit');
  // Bounded memory: nothing of the runaway line is held while skipping.
  await inputRead(h.input);
  assert.equal(ext._partLen, 0);
  assert.equal(ext._parts.length, 0);
  assert.equal(ext._skipping, true);
  h.wire.send('\n' + JSON.stringify({ type: 'tool_call', id: 'small', name: 'echo', args: { text: 'ok' } }) + '\n');
  // One huge line inside one chunk too.
  h.wire.send(huge + '\n');
  h.wire.send('not json at all\n[1,2]\n{"no_type":1}\n');
  h.wire.send({ type: 'brand_new_frame', id: 'q' });
  h.wire.send({ type: 'tool_call', id: 'small2', name: 'echo', args: { text: 'ok2' } });
  assert.equal((await h.wire.next({ id: 'small' })).content[0].text, 'ok');
  assert.equal((await h.wire.next({ id: 'small2' })).content[0].text, 'ok2');
  assert.deepEqual(h.wire.pending({ id: 'huge' }), []);
  await h.wire.stderrHas('skipping an inbound line over the 4 MiB frame limit');
  await h.wire.stderrHas('skipped an inbound line of');
  await h.wire.stderrHas('skipped a malformed line');
  await h.wire.stderrHas('ignored an unknown frame type "brand_new_frame"');
  await shutdown(h);
});

// Every chunk written so far has been read once this resolves (the
// PassThrough delivers writes in order, each in its own turn at most).
function inputRead(input) {
  return within(new Promise((resolve) => {
    const check = () => (input.readableLength === 0 ? setImmediate(resolve) : setImmediate(check));
    check();
  }));
}

test('a frame split inside a UTF-8 character and across chunks arrives whole', async () => {
  const ext = new Extension('utf8', '1');
  ext.tool('echo', 'd', OBJ, (args) => textResult(args.text));
  const h = await started(ext);
  const bytes = Buffer.from(JSON.stringify({ type: 'tool_call', id: 'u', name: 'echo', args: { text: 'héllo wörld ✓ 😀' } }) + '\n');
  const cut = bytes.indexOf(Buffer.from('😀')) + 2;
  h.input.write(bytes.subarray(0, 10));
  h.input.write(bytes.subarray(10, cut));
  h.input.write(bytes.subarray(cut));
  assert.equal((await h.wire.next({ id: 'u' })).content[0].text, 'héllo wörld ✓ 😀');
  await shutdown(h);
});

test('a reply to a finished invocation is dropped and logged', async () => {
  const ext = new Extension('twice', '1');
  const second = deferred();
  ext.tool('early', 'd', OBJ, async (_args, ctx) => {
    ctx.reply(textResult('first'));
    ctx.reply(textResult('second'));
    second.resolve();
    return textResult('third');
  });
  const h = await started(ext);
  h.wire.send({ type: 'tool_call', id: 'e1', name: 'early', args: {} });
  assert.equal((await h.wire.next({ id: 'e1' })).content[0].text, 'first');
  await within(second.promise);
  await barrier(h.wire);
  assert.deepEqual(h.wire.pending({ id: 'e1' }), []);
  await h.wire.stderrHas('dropped a reply to the finished invocation e1 (early)');
  await shutdown(h);
});

test('interceptors: decisions, a throw blocks naming it, a slow one is answered (allow)', async () => {
  const ext = new Extension('guard', '1');
  const never = new Promise(() => {});
  ext.setInterceptTimeout(100);
  ext.interceptToolCall(async (name, args, ev) => {
    if (name === 'bash' && args.command.includes('rm -rf')) return { block: true, reason: 'no' };
    if (name === 'edit') return { modifiedArgs: { path: 'safe' } };
    if (name === 'boom') throw new Error('guard exploded');
    if (name === 'slow') return never;
    if (name === 'false') return false;
    if (name === 'origin') return { block: true, reason: ev.originExtension };
    return undefined;
  });
  ext.interceptTurnStart((step) => (step > 3 ? { block: true, reason: 'too many steps' } : {}));
  ext.interceptAssistantMessage((t) => (t === 'secret' ? { replaceText: '[redacted]' } : t === 'hide' ? { block: true } : undefined));
  const h = await started(ext);
  const ask = async (id, fields) => {
    h.wire.send({ type: 'event_intercept', id, ...fields });
    return h.wire.next({ type: 'event_intercept_response', id });
  };
  assert.deepEqual(await ask('a', { event: 'tool_call', tool_name: 'bash', tool_args: { command: 'rm -rf /' } }), { type: 'event_intercept_response', id: 'a', block: true, reason: 'no' });
  assert.deepEqual(await ask('b', { event: 'tool_call', tool_name: 'edit', tool_args: {} }), { type: 'event_intercept_response', id: 'b', modified_args: { path: 'safe' } });
  assert.deepEqual(await ask('c', { event: 'tool_call', tool_name: 'read', tool_args: {} }), { type: 'event_intercept_response', id: 'c' });
  const boom = await ask('d', { event: 'tool_call', tool_name: 'boom', tool_args: {} });
  assert.equal(boom.block, true);
  assert.match(boom.reason, /tool_call interceptor failed: guard exploded/);
  assert.deepEqual(await ask('e', { event: 'tool_call', tool_name: 'slow', tool_args: {} }), { type: 'event_intercept_response', id: 'e' });
  assert.deepEqual(await ask('f', { event: 'tool_call', tool_name: 'false', tool_args: {} }), { type: 'event_intercept_response', id: 'f', block: true });
  assert.equal((await ask('g', { event: 'tool_call', tool_name: 'origin', tool_args: {}, origin_extension: 'other' })).reason, 'other');
  assert.deepEqual(await ask('h', { event: 'turn_start', step: 5 }), { type: 'event_intercept_response', id: 'h', block: true, reason: 'too many steps' });
  assert.deepEqual(await ask('i', { event: 'turn_start', step: 1 }), { type: 'event_intercept_response', id: 'i' });
  assert.deepEqual(await ask('j', { event: 'assistant_message', text: 'secret' }), { type: 'event_intercept_response', id: 'j', replace_text: '[redacted]' });
  assert.deepEqual(await ask('k', { event: 'assistant_message', text: 'hide' }), { type: 'event_intercept_response', id: 'k', block: true });
  // An event nobody intercepts still gets its answer.
  assert.deepEqual(await ask('l', { event: 'before_agent_start', system_prompt: 'x' }), { type: 'event_intercept_response', id: 'l' });
  await h.wire.stderrHas('tool_call interceptor took over 100 ms');
  await shutdown(h);
});

test('interceptors never wait for a tool handler that blocks', async () => {
  const ext = new Extension('noblock', '1');
  const release = deferred();
  ext.tool('hog', 'd', OBJ, async () => {
    await release.promise;
    return textResult('done');
  });
  ext.interceptToolCall(() => ({ block: true, reason: 'r' }));
  const h = await started(ext);
  h.wire.send({ type: 'tool_call', id: 'hog1', name: 'hog', args: {} });
  h.wire.send({ type: 'event_intercept', id: 'q', event: 'tool_call', tool_name: 'x', tool_args: {} });
  await h.wire.next({ id: 'q' });
  assert.deepEqual(h.wire.pending({ id: 'hog1' }), []);
  release.resolve();
  await h.wire.next({ id: 'hog1' });
  await shutdown(h);
});

test('before_agent_start: undefined keeps the prompt, "" removes it, a string replaces it, a throw blocks', async () => {
  const ext = new Extension('prompt', '1');
  ext.interceptBeforeAgentStart(async (ev) => {
    if (ev.systemPrompt === 'keep') return undefined;
    if (ev.systemPrompt === 'remove') return '';
    if (ev.systemPrompt === 'bad') return 7;
    if (ev.systemPrompt === 'throw') throw new Error('no prompt for you');
    return `${ev.systemPrompt} / ${ev.provider} / ${ev.agentRunId}`;
  });
  const h = await started(ext);
  assert.deepEqual(h.regs.find((f) => f.type === 'subscribe'), { type: 'subscribe', intercept: ['before_agent_start'] });
  const ask = async (id, p) => {
    h.wire.send({ type: 'event_intercept', id, event: 'before_agent_start', system_prompt: p, provider: 'prov', agent_run_id: 'run-1', session_id: 's' });
    return h.wire.next({ type: 'event_intercept_response', id });
  };
  const kept = await ask('1', 'keep');
  assert.ok(!('system_prompt' in kept));
  assert.deepEqual(kept, { type: 'event_intercept_response', id: '1' });
  assert.deepEqual(await ask('2', 'remove'), { type: 'event_intercept_response', id: '2', system_prompt: '' });
  assert.deepEqual(await ask('3', 'base'), { type: 'event_intercept_response', id: '3', system_prompt: 'base / prov / run-1' });
  const bad = await ask('4', 'bad');
  assert.equal(bad.block, true);
  assert.ok(!('system_prompt' in bad));
  const thrown = await ask('5', 'throw');
  assert.match(thrown.reason, /before_agent_start interceptor failed: no prompt for you/);
  await shutdown(h);
});

test('callTool: parent_id from the running handler (no ctx needed), key only with call_tool_durable', async () => {
  // Two sessions, one per host kind.
  for (const [caps, keyExpected] of [
    [['call_tool'], undefined],
    [['call_tool', 'call_tool_durable'], 'step-1'],
  ]) {
    const e = new Extension('nest', '1');
    e.tool('outer', 'd', OBJ, async (_args, ctx) => {
      // A helper that never sees ctx: AsyncLocalStorage finds the parent.
      const a = await readThrough(e, 'a');
      const b = await ctx.callTool('read', { path: 'b' });
      return textResult(`${a.content[0].text}+${b.content[0].text}+${a.isError}+${b.truncated}`);
    });
    const h = await started(e, caps);
    h.wire.send({ type: 'tool_call', id: 'parent-7', name: 'outer', args: {} });
    const c1 = await h.wire.next('call_tool');
    assert.equal(c1.parent_id, 'parent-7');
    assert.equal(c1.name, 'read');
    assert.deepEqual(c1.args, { path: 'a' });
    assert.equal(c1.key, keyExpected);
    h.wire.send({ type: 'tool_result', id: c1.id, name: 'read', content: [{ type: 'text', text: 'A' }], is_error: false });
    const c2 = await h.wire.next('call_tool');
    assert.equal(c2.parent_id, 'parent-7');
    assert.notEqual(c2.id, c1.id);
    assert.ok(!('key' in c2));
    h.wire.send({ type: 'tool_result', id: c2.id, name: 'read', content: [{ type: 'text', text: 'B' }], is_error: false, truncated: true });
    assert.equal((await h.wire.next({ id: 'parent-7' })).content[0].text, 'A+B+false+true');
    await shutdown(h);
  }
});

test('callTool: refused at once without call_tool, bad keys refused, no parent outside handlers', async () => {
  const ext = new Extension('refuse', '1');
  await assert.rejects(ext.callTool('read', {}), /before the handshake/);
  const h = await started(ext, []);
  await assert.rejects(ext.callTool('read', {}), (err) => err.code === 'unsupported' && /does not offer call_tool/.test(err.message));
  await shutdown(h);

  const ext2 = new Extension('refuse2', '1');
  ext2.command('c', 'd', async () => {
    const r = await ext2.callTool('read', { path: 'x' });
    return display(r.content[0].text);
  });
  const h2 = await started(ext2, ['call_tool', 'call_tool_durable']);
  await assert.rejects(ext2.callTool('read', {}, { key: 'a/b' }), /key "a\/b" must be 1 to 128 bytes without "\/" or NUL/);
  await assert.rejects(ext2.callTool('read', {}, { key: 'k'.repeat(129) }), /must be 1 to 128 bytes/);
  await assert.rejects(ext2.callTool('read', [1]), /args must be a JSON object/);
  h2.wire.send({ type: 'command_invoked', id: 'c1', name: 'c', args: '' });
  const call = await h2.wire.next('call_tool');
  assert.ok(!('parent_id' in call));
  h2.wire.send({ type: 'tool_result', id: call.id, name: 'read', content: [{ type: 'text', text: 'from command' }], is_error: true });
  assert.equal((await h2.wire.next('command_response')).display, 'from command');
  await shutdown(h2);
});

test('callTool: concurrent calls resolve by id, out of order', async () => {
  const ext = new Extension('conc', '1');
  ext.tool('fan', 'd', OBJ, async () => {
    const rs = await Promise.all([1, 2, 3].map((n) => ext.callTool('read', { n }, { key: `k${n}` })));
    return textResult(rs.map((r) => r.content[0].text).join(','));
  });
  const h = await started(ext, ['call_tool', 'call_tool_durable']);
  h.wire.send({ type: 'tool_call', id: 'f1', name: 'fan', args: {} });
  const calls = [await h.wire.next('call_tool'), await h.wire.next('call_tool'), await h.wire.next('call_tool')];
  assert.equal(new Set(calls.map((c) => c.id)).size, 3);
  assert.deepEqual(calls.map((c) => c.key), ['k1', 'k2', 'k3']);
  for (const c of [calls[2], calls[0], calls[1]]) {
    h.wire.send({ type: 'tool_result', id: c.id, content: [{ type: 'text', text: `r${c.args.n}` }], is_error: false });
  }
  // A stray result for an id nobody waits for is ignored.
  h.wire.send({ type: 'tool_result', id: 'call-999', content: [], is_error: false });
  assert.equal((await h.wire.next({ id: 'f1' })).content[0].text, 'r1,r2,r3');
  await shutdown(h);
});

test('callTool: an abort (own signal or the parent cancelled) sends call_tool_cancel and rejects', async () => {
  const ext = new Extension('abort', '1');
  const outcome = deferred();
  const parentOutcome = deferred();
  ext.tool('own', 'd', OBJ, async () => {
    const ac = new AbortController();
    const p = ext.callTool('bash', { command: 'sleep 100' }, { signal: ac.signal });
    ac.abort(new Error('changed my mind'));
    try {
      await p;
    } catch (err) {
      outcome.resolve(err);
    }
    return textResult('after abort');
  });
  ext.tool('parent', 'd', OBJ, async () => {
    try {
      await ext.callTool('bash', { command: 'sleep 100' });
    } catch (err) {
      parentOutcome.resolve(err);
    }
    // An already-cancelled parent refuses further calls at once.
    await ext.callTool('read', {}).catch((err) => parentOutcome.second = err);
    return textResult('ignored');
  });
  const h = await started(ext);
  h.wire.send({ type: 'tool_call', id: 'o1', name: 'own', args: {} });
  const call = await h.wire.next('call_tool');
  assert.deepEqual(await h.wire.next('call_tool_cancel'), { type: 'call_tool_cancel', id: call.id });
  const err = await within(outcome.promise);
  assert.equal(err.code, 'aborted');
  assert.match(err.message, /changed my mind/);
  // The host's terminal answer for the cancelled call is ignored.
  h.wire.send({ type: 'tool_result', id: call.id, content: [{ type: 'text', text: 'cancelled' }], is_error: true });
  assert.equal((await h.wire.next({ id: 'o1' })).content[0].text, 'after abort');

  h.wire.send({ type: 'tool_call', id: 'p1', name: 'parent', args: {} });
  const pcall = await h.wire.next('call_tool');
  assert.equal(pcall.parent_id, 'p1');
  h.wire.send({ type: 'tool_cancel', id: 'p1' });
  assert.deepEqual(await h.wire.next('call_tool_cancel'), { type: 'call_tool_cancel', id: pcall.id });
  assert.equal((await within(parentOutcome.promise)).code, 'aborted');
  await barrier(h.wire);
  assert.deepEqual(h.wire.pending('call_tool'), []);
  assert.deepEqual(h.wire.pending({ id: 'p1' }), []);
  await shutdown(h);
});

test('commands: every response helper, a throw, no return, an unknown name', async () => {
  const ext = new Extension('cmds', '1');
  ext.command('p', 'd', (a) => prompt(`hello ${a}`));
  ext.command('i', 'd', (a) => insert(a));
  ext.command('d', 'd', async (a) => display(`shown: ${a}`));
  ext.command('n', 'd', () => noop());
  ext.command('e', 'd', (a) => errorf('failed: %s (%d)', a, 3));
  ext.command('tp', 'd', (a) => toolPrompt('skill', { name: a }, 'and push'));
  ext.command('tpbad', 'd', () => toolPrompt('skill', 'not an object', 'x'));
  ext.command('op', 'd', () => openPanel('pid', 'Title', ['a', 'b'], 'foot'));
  ext.command('throw', 'd', () => {
    throw new Error('cmd broke');
  });
  ext.command('nothing', 'd', () => {});
  const h = await started(ext);
  const run = async (name, args = 'x') => {
    const id = `c-${name}`;
    h.wire.send({ type: 'command_invoked', id, name, args });
    const r = await h.wire.next({ type: 'command_response', id });
    delete r.type;
    delete r.id;
    return r;
  };
  assert.deepEqual(await run('p', 'you'), { action: 'prompt', prompt: 'hello you' });
  assert.deepEqual(await run('i'), { action: 'insert', insert: 'x' });
  assert.deepEqual(await run('d'), { action: 'display', display: 'shown: x' });
  assert.deepEqual(await run('n'), { action: 'noop' });
  assert.deepEqual(await run('e'), { action: 'noop', error: 'failed: x (3)' });
  assert.deepEqual(await run('tp', 'dev:commit'), { action: 'tool_prompt', prompt: 'and push', tool_name: 'skill', tool_args: { name: 'dev:commit' } });
  assert.deepEqual(await run('tpbad'), { action: 'noop', error: 'tool_prompt args must be a JSON object' });
  assert.deepEqual(await run('op'), { action: 'open_panel', open_panel: { id: 'pid', title: 'Title', lines: ['a', 'b'], footer: 'foot' } });
  assert.deepEqual(await run('throw'), { action: 'noop', error: 'throw: cmd broke' });
  assert.deepEqual(await run('nothing'), { action: 'noop' });
  assert.deepEqual(await run('missing'), { action: 'noop', error: 'no handler for /missing' });
  await shutdown(h);
});

test('events: fields camelCased, absent stays undefined, several listeners, a throw is logged', async () => {
  const ext = new Extension('events', '1');
  const got = [];
  const second = [];
  ext.on('tool_result', (ev) => got.push(ev));
  ext.on('tool_result', (ev) => second.push(ev.toolName));
  ext.on('turn_end', () => {
    throw new Error('listener broke');
  });
  const h = await started(ext);
  assert.deepEqual(h.regs.find((f) => f.type === 'subscribe'), { type: 'subscribe', events: ['tool_result', 'turn_end'] });
  h.wire.send({
    type: 'event',
    event: 'tool_result',
    session_id: 's1',
    cwd: '/w',
    sequence: 12,
    tool_id: 'call-1',
    tool_name: 'bash',
    tool_args: { command: 'ls' },
    status: 'completed',
    executed: false,
    result: { content: [{ type: 'text', text: 'ok' }, { type: 'image', mime_type: 'image/png', data: 'AA' }], is_error: false, truncated: true },
  });
  h.wire.send({ type: 'event', event: 'tool_result', tool_name: 'read', sequence: 13 });
  h.wire.send({ type: 'event', event: 'turn_end', stop: 'end_turn', sequence: 14 });
  h.wire.send({ type: 'event', event: 'not_subscribed', sequence: 15 });
  await barrier(h.wire);
  assert.equal(got.length, 2);
  const [a, b] = got;
  assert.equal(a.name, 'tool_result');
  assert.equal(a.sessionId, 's1');
  assert.equal(a.sequence, 12);
  assert.equal(a.toolId, 'call-1');
  assert.deepEqual(a.toolArgs, { command: 'ls' });
  assert.equal(a.executed, false);
  assert.deepEqual(a.result, { content: [{ type: 'text', text: 'ok' }, { type: 'image', mimeType: 'image/png', data: 'AA' }], isError: false, truncated: true });
  assert.equal(b.executed, undefined);
  assert.equal(b.result, undefined);
  assert.equal(b.messageCount, undefined);
  assert.deepEqual(second, ['bash', 'read']);
  await h.wire.stderrHas('event turn_end handler failed: listener broke');
  await shutdown(h);
});

test('panels: open, render, close, keys, panel_close, link to the running tool call', async () => {
  const ext = new Extension('panels', '1');
  const keys = [];
  let closed = 0;
  ext.onPanelKey('p1', (key, t) => keys.push(`${key}:${t}`), () => closed++);
  const answered = deferred();
  ext.interactiveTool('ask', 'd', OBJ, async () => {
    ext.openPanel({ id: 'q', title: 'Q', lines: ['?'], footer: 'f' });
    return answered.promise;
  });
  const h = await started(ext);
  ext.openPanel('p1', 'Title', ['one'], 'foot');
  assert.deepEqual(await h.wire.next('open_panel'), { type: 'open_panel', panel: { id: 'p1', title: 'Title', lines: ['one'], footer: 'foot' } });
  ext.renderPanel('p1', '', ['two']);
  assert.deepEqual(await h.wire.next('panel_render'), { type: 'panel_render', panel_id: 'p1', title: '', lines: ['two'] });
  ext.closePanel('p1');
  assert.deepEqual(await h.wire.next('panel_close'), { type: 'panel_close', panel_id: 'p1' });
  h.wire.send({ type: 'panel_key', panel_id: 'p1', key: 'down' });
  h.wire.send({ type: 'panel_key', panel_id: 'p1', key: 'rune', text: 'q' });
  h.wire.send({ type: 'panel_key', panel_id: 'other', key: 'up' });
  h.wire.send({ type: 'panel_resize', panel_id: 'p1', width: 80, height: 24 });
  h.wire.send({ type: 'panel_close', panel_id: 'p1' });
  await barrier(h.wire);
  assert.deepEqual(keys, ['down:', 'rune:q']);
  assert.equal(closed, 1);

  h.wire.send({ type: 'tool_call', id: 'ask-1', name: 'ask', args: {} });
  assert.deepEqual(await h.wire.next('open_panel'), { type: 'open_panel', panel: { id: 'q', title: 'Q', lines: ['?'], footer: 'f', tool_call_id: 'ask-1' } });
  answered.resolve(textResult('yes'));
  assert.equal((await h.wire.next({ id: 'ask-1' })).content[0].text, 'yes');
  await shutdown(h);
});

test('panels: widgets go out where the host has panel_widgets, lines otherwise; panel_event reaches its handler', async () => {
  const widgets = [
    { id: 'h', type: 'heading', text: 'Clean-up' },
    { id: 'go', type: 'button', label: 'Delete' },
    { id: 'box', type: 'box', children: [{ id: 'agree', type: 'check', label: 'Also folders', value: true }] },
    { id: 'items', type: 'list', rows: [{ id: 'a', title: 'a.log', checked: false }] },
  ];
  for (const caps of [['panel_widgets'], []]) {
    const ext = new Extension('widgets', '1');
    const evs = [];
    ext.onPanelEvent('w', (ev) => evs.push(ev));
    const h = await started(ext, caps);
    ext.openPanel({ id: 'w', title: 'W', widgets });
    ext.renderPanel({ id: 'w', title: 'W', widgets: widgets.slice(0, 1) });
    const open = await h.wire.next('open_panel');
    const render = await h.wire.next('panel_render');
    if (caps.length) {
      assert.deepEqual(open.panel, { id: 'w', title: 'W', widgets });
      assert.deepEqual(render.widgets, widgets.slice(0, 1));
    } else {
      assert.deepEqual(open.panel, { id: 'w', title: 'W', lines: ['Clean-up', '[Delete]', '[x] Also folders', '[ ] a.log'] });
      assert.deepEqual(render.lines, ['Clean-up']);
    }
    h.wire.send({ type: 'panel_event', panel_id: 'w', widget_id: 'items', event: 'toggled', value: { row: 'a', checked: true } });
    await barrier(h.wire);
    assert.deepEqual(evs, [{ panelId: 'w', widgetId: 'items', event: 'toggled', value: { row: 'a', checked: true } }]);
    await shutdown(h);
  }
});

test('notes, submit, submitSlash, activateTools', async () => {
  const ext = new Extension('misc', '1');
  ext.tool('unlock', 'd', OBJ, () => {
    ext.activateTools('hidden_a', ['hidden_b']);
    return { content: [text('unlocked')], activateTools: ['hidden_c'] };
  });
  const h = await started(ext);
  ext.notify('warn', 'careful');
  ext.clearNotes();
  ext.submit('do it');
  ext.submitSlash('/other args');
  assert.deepEqual(await h.wire.next('notify'), { type: 'notify', level: 'warn', message: 'careful' });
  assert.deepEqual(await h.wire.next('clear_notes'), { type: 'clear_notes' });
  assert.deepEqual(await h.wire.next('submit'), { type: 'submit', text: 'do it' });
  assert.deepEqual(await h.wire.next('submit_slash'), { type: 'submit_slash', text: '/other args' });
  assert.throws(() => ext.activateTools('x'), /inside a tool handler/);
  h.wire.send({ type: 'tool_call', id: 'u1', name: 'unlock', args: {} });
  assert.deepEqual((await h.wire.next({ id: 'u1' })).activate_tools, ['hidden_c', 'hidden_a', 'hidden_b']);
  await shutdown(h);
});

test('writes respect backpressure: frames queue while the reader stalls and arrive whole, in order', async () => {
  const ext = new Extension('bp', '1');
  const input = new PassThrough();
  const output = new PassThrough({ highWaterMark: 1024 });
  const stderr = new PassThrough();
  const done = ext.run({ input, output, stderr, exit: false });
  input.write(JSON.stringify({ type: 'hello_ack', protocol_version: 1, capabilities: [] }) + '\n');
  // Nobody reads output yet: the stream fills, and the SDK must queue.
  await within(new Promise((resolve) => setImmediate(resolve)));
  const payload = 'p'.repeat(500);
  for (let i = 0; i < 200; i++) ext.notify('info', `${i} ${payload}`);
  await within(new Promise((resolve) => setImmediate(resolve)));
  assert.ok(ext._blocked, 'the output stream should report backpressure');
  // Written while blocked: these wait in the SDK's queue.
  for (let i = 200; i < 400; i++) ext.notify('info', `${i} ${payload}`);
  const wire = new Wire(input, output, stderr);
  await wire.next('ready');
  for (let i = 0; i < 400; i++) {
    assert.equal((await wire.next('notify')).message, `${i} ${payload}`);
  }
  wire.send({ type: 'shutdown' });
  await wire.next('shutdown_ack');
  assert.equal(await within(done), 'shutdown');
});

test('helpers build the wire shapes', () => {
  assert.deepEqual(textResult('a'), { content: [{ type: 'text', text: 'a' }], isError: false });
  assert.deepEqual(textErrorResult('b'), { content: [{ type: 'text', text: 'b' }], isError: true });
  assert.deepEqual(imageBytes('image/png', new Uint8Array([1, 2, 3])), { type: 'image', mimeType: 'image/png', data: 'AQID' });
  assert.deepEqual(toolPrompt('', {}, 'x'), { action: 'noop', error: 'tool_prompt requires a name and prompt' });
});

test('annotations, unregistering and re-registering tools and commands', async () => {
  const ext = new Extension('dyn', '1.0.0');
  ext.tool('wipe', 'W', OBJ, () => 'x', { readOnly: false, destructive: true });
  ext.tool('look', 'L', OBJ, () => 'x', { readOnly: true });
  ext.tool('plain', 'P', OBJ, () => 'x');
  ext.command('Go', 'G', () => noop());
  assert.throws(() => ext.tool('bad', 'B', OBJ, () => 'x', { destructive: 'yes' }), /destructive must be true or false/);
  const h = await started(ext);
  const by = Object.fromEntries(h.regs.filter((f) => f.type === 'register_tool').map((f) => [f.name, f]));
  assert.deepEqual(by.wipe.annotations, { read_only: false, destructive: true });
  assert.deepEqual(by.look.annotations, { read_only: true });
  assert.equal(by.plain.annotations, undefined);

  ext.unregisterTool('wipe');
  assert.deepEqual(await h.wire.next('unregister_tool'), { type: 'unregister_tool', name: 'wipe' });
  ext.unregisterCommand('/go');
  assert.deepEqual(await h.wire.next('unregister_command'), { type: 'unregister_command', name: 'Go' });
  assert.throws(() => ext.unregisterTool('wipe'), /not registered/);
  assert.throws(() => ext.unregisterCommand('go'), /not registered/);

  ext.tool('wipe', 'W2', { type: 'object', properties: { x: {} } }, () => 'again');
  const again = await h.wire.next({ type: 'register_tool', name: 'wipe' });
  assert.deepEqual(again.schema.properties, { x: {} });
  h.wire.send({ type: 'tool_call', id: 'w', name: 'wipe', args: {} });
  assert.equal((await h.wire.next({ type: 'tool_result', id: 'w' })).content[0].text, 'again');
  await shutdown(h);
});

test('ctx.progress reports while the call runs, not after', async () => {
  const ext = new Extension('prog', '1.0.0');
  const seen = {};
  ext.tool('slow', 'S', OBJ, (_args, ctx) => {
    seen.sent = ctx.progress('half way');
    ctx.reply(textResult('done'));
    seen.late = ctx.progress('too late');
    return undefined;
  });
  const h = await started(ext);
  h.wire.send({ type: 'tool_call', id: 'p1', name: 'slow', args: {} });
  assert.deepEqual(await h.wire.next('tool_progress'), { type: 'tool_progress', id: 'p1', text: 'half way' });
  await h.wire.next({ type: 'tool_result', id: 'p1' });
  await barrier(h.wire);
  assert.deepEqual(seen, { sent: true, late: false });
  await shutdown(h);
});
