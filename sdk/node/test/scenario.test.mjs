// Drives sdk/node/scenario over pipes, as `zot ext check --scenario` will,
// and checks the behaviour sdk/SCENARIO.md lists.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';
import { subprocess, within } from './harness.mjs';

const dir = join(dirname(fileURLToPath(import.meta.url)), '..', 'scenario');
const manifest = JSON.parse(readFileSync(join(dir, 'extension.json'), 'utf8'));

function start(caps = ['call_tool', 'panels', 'interactive_tools', 'call_tool_durable']) {
  const s = subprocess(manifest.args[0], dir);
  return { ...s, handshake: () => s.wire.handshake(caps) };
}

async function call(wire, id, name, args = {}) {
  wire.send({ type: 'tool_call', id, name, args });
  return wire.next({ type: 'tool_result', id });
}

async function command(wire, id, name, args) {
  wire.send({ type: 'command_invoked', id, name, args });
  const r = await wire.next({ type: 'command_response', id });
  delete r.type;
  delete r.id;
  return r;
}

async function intercept(wire, id, fields) {
  wire.send({ type: 'event_intercept', id, ...fields });
  const r = await wire.next({ type: 'event_intercept_response', id });
  delete r.type;
  delete r.id;
  return r;
}

const texts = (r) => r.content.filter((b) => b.type === 'text').map((b) => b.text);

test('manifest: name scenario-node, exec node scenario.mjs', () => {
  assert.equal(manifest.name, 'scenario-node');
  assert.equal(manifest.exec, 'node');
  assert.deepEqual(manifest.args, ['scenario.mjs']);
});

test('scenario over pipes: handshake, tools, commands, panels, events, interception, shutdown', async () => {
  const { wire, exited, handshake } = start();
  const { hello, regs } = await handshake();
  assert.equal(hello.name, 'scenario-node');
  for (const cap of ['commands', 'tools', 'panels', 'tool_cancel', 'call_tool']) {
    assert.ok(hello.capabilities.includes(cap), `hello.capabilities lacks ${cap}`);
  }
  // Nothing but hello before hello_ack; exactly one ready, last.
  assert.equal(wire.all[0].type, 'hello');
  assert.equal(wire.all.filter((f) => f.type === 'ready').length, 1);
  assert.equal(wire.all.at(-1).type, 'ready');

  const tools = Object.fromEntries(regs.filter((f) => f.type === 'register_tool').map((f) => [f.name, f]));
  assert.deepEqual(Object.keys(tools).sort(), ['sc_add', 'sc_ask', 'sc_echo', 'sc_fail', 'sc_nested', 'sc_panic', 'sc_progress', 'sc_wait']);
  assert.deepEqual(tools.sc_echo.schema, { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] });
  assert.equal(tools.sc_add.namespace, 'scenario');
  assert.equal(tools.sc_add.namespace_description, 'Scenario arithmetic');
  assert.equal(tools.sc_add.exposure, 'codemode');
  assert.deepEqual(tools.sc_add.output_schema, { type: 'object', properties: { sum: { type: 'number' } } });
  assert.deepEqual(tools.sc_add.schema.required, ['a', 'b']);
  assert.equal(tools.sc_ask.interactive, true);
  const commands = regs.filter((f) => f.type === 'register_command').map((f) => f.name).sort();
  assert.deepEqual(commands, ['sc-display', 'sc-error', 'sc-insert', 'sc-noop', 'sc-panel', 'sc-prompt', 'sc-submit', 'sc-tool-prompt']);
  const sub = regs.find((f) => f.type === 'subscribe');
  assert.deepEqual(sub.events, ['turn_end']);
  assert.deepEqual([...sub.intercept].sort(), ['before_agent_start', 'tool_call']);

  // Tools.
  assert.deepEqual(await call(wire, 't1', 'sc_echo', { text: 'héllo' }), { type: 'tool_result', id: 't1', content: [{ type: 'text', text: 'héllo' }], is_error: false });
  const add = await call(wire, 't2', 'sc_add', { a: 1, b: 2 });
  assert.deepEqual(texts(add), ['3']);
  assert.deepEqual(add.structured_content, { sum: 3 });
  assert.equal(add.is_error, false);
  const fail = await call(wire, 't3', 'sc_fail');
  assert.equal(fail.is_error, true);
  assert.deepEqual(texts(fail), ['sc_fail always fails']);
  const panic = await call(wire, 't4', 'sc_panic');
  assert.equal(panic.is_error, true);
  assert.match(texts(panic)[0], /^sc_panic:/);
  assert.deepEqual(texts(await call(wire, 't4b', 'sc_echo', { text: 'still alive' })), ['still alive']);

  // sc_wait: notify, then nothing after its cancel.
  wire.send({ type: 'tool_call', id: 'w1', name: 'sc_wait', args: {} });
  assert.deepEqual(await wire.next('notify'), { type: 'notify', level: 'info', message: 'sc_wait started' });
  wire.send({ type: 'tool_cancel', id: 'w1' });
  // A round trip after the cancel: by its answer the cancelled result
  // would have been written.
  assert.deepEqual(texts(await call(wire, 'after-w1', 'sc_echo', { text: 'x' })), ['x']);
  assert.deepEqual(wire.pending({ id: 'w1' }), []);

  // sc_nested, with the durable key and parent_id.
  wire.send({ type: 'tool_call', id: 'n1', name: 'sc_nested', args: {} });
  const nested = await wire.next('call_tool');
  assert.equal(nested.name, 'read');
  assert.deepEqual(nested.args, { path: 'scenario.txt' });
  assert.equal(nested.parent_id, 'n1');
  assert.equal(nested.key, 'k1');
  wire.send({ type: 'tool_result', id: nested.id, name: 'read', content: [{ type: 'text', text: 'file body' }], is_error: false });
  assert.deepEqual(texts(await wire.next({ type: 'tool_result', id: 'n1' })), ['nested: file body']);
  wire.send({ type: 'tool_call', id: 'n2', name: 'sc_nested', args: { path: 'missing.txt' } });
  const nested2 = await wire.next('call_tool');
  assert.deepEqual(nested2.args, { path: 'missing.txt' });
  assert.notEqual(nested2.id, nested.id);
  wire.send({ type: 'tool_result', id: nested2.id, name: 'read', content: [{ type: 'text', text: 'no such file' }], is_error: true });
  const n2 = await wire.next({ type: 'tool_result', id: 'n2' });
  assert.equal(n2.is_error, true);
  assert.deepEqual(texts(n2), ['nested failed: no such file']);

  // sc_ask: enter answers yes; esc and panel_close dismiss; the panel closes before the result.
  for (const [id, how, expected] of [
    ['a1', { type: 'panel_key', panel_id: 'sc-ask', key: 'enter' }, { is_error: false, text: 'yes' }],
    ['a2', { type: 'panel_key', panel_id: 'sc-ask', key: 'esc' }, { is_error: true, text: 'dismissed' }],
    ['a3', { type: 'panel_close', panel_id: 'sc-ask' }, { is_error: true, text: 'dismissed' }],
  ]) {
    wire.send({ type: 'tool_call', id, name: 'sc_ask', args: { question: 'Proceed?' } });
    const open = await wire.next('open_panel');
    assert.deepEqual({ ...open.panel, tool_call_id: undefined }, { id: 'sc-ask', title: 'Question', lines: ['Proceed?'], footer: 'enter answers, esc dismisses', tool_call_id: undefined });
    wire.send(how);
    const r = await wire.next({ type: 'tool_result', id });
    const closeAt = wire.all.findIndex((f) => f.type === 'panel_close' && f.panel_id === 'sc-ask');
    const resultAt = wire.all.indexOf(r);
    assert.ok(closeAt !== -1 && closeAt < resultAt, 'panel_close before the result');
    await wire.next({ type: 'panel_close', panel_id: 'sc-ask' });
    wire.all.splice(closeAt, 1);
    assert.equal(r.is_error, expected.is_error);
    assert.deepEqual(texts(r), [expected.text]);
  }

  // Commands.
  assert.deepEqual(await command(wire, 'c1', 'sc-prompt', 'world'), { action: 'prompt', prompt: 'hello world' });
  assert.deepEqual(await command(wire, 'c2', 'sc-insert', 'as is'), { action: 'insert', insert: 'as is' });
  assert.deepEqual(await command(wire, 'c3', 'sc-display', 'it'), { action: 'display', display: 'shown: it' });
  assert.deepEqual(await command(wire, 'c4', 'sc-noop', ''), { action: 'noop' });
  assert.deepEqual(await command(wire, 'c5', 'sc-error', 'why'), { action: 'noop', error: 'failed: why' });
  assert.deepEqual(await command(wire, 'c6', 'sc-tool-prompt', 'abc'), { action: 'tool_prompt', prompt: 'run echo', tool_name: 'sc_echo', tool_args: { text: 'abc' } });
  assert.deepEqual(await command(wire, 'c7', 'sc-panel', ''), { action: 'open_panel', open_panel: { id: 'sc-panel', title: 'Scenario', lines: ['> one', '  two'], footer: 'esc closes' } });
  wire.send({ type: 'panel_key', panel_id: 'sc-panel', key: 'down' });
  assert.deepEqual((await wire.next('panel_render')).lines, ['  one', '> two']);
  wire.send({ type: 'panel_key', panel_id: 'sc-panel', key: 'up' });
  const up = await wire.next('panel_render');
  assert.equal(up.panel_id, 'sc-panel');
  assert.deepEqual(up.lines, ['> one', '  two']);
  wire.send({ type: 'panel_key', panel_id: 'sc-panel', key: 'esc' });
  assert.deepEqual(await wire.next('panel_close'), { type: 'panel_close', panel_id: 'sc-panel' });
  assert.deepEqual(await command(wire, 'c8', 'sc-submit', 'this'), { action: 'noop' });
  assert.deepEqual(await wire.next('submit'), { type: 'submit', text: 'submitted this' });

  // Events and interception.
  wire.send({ type: 'event', event: 'turn_end', session_id: 's', cwd: '/', sequence: 3, stop: 'end_turn' });
  assert.deepEqual(await wire.next('notify'), { type: 'notify', level: 'info', message: 'turn ended: end_turn' });
  assert.deepEqual(await intercept(wire, 'i1', { event: 'tool_call', tool_id: 'x', tool_name: 'bash', tool_args: { command: 'cd / && rm -rf *' } }), { block: true, reason: 'scenario guard: refused' });
  assert.deepEqual(await intercept(wire, 'i2', { event: 'tool_call', tool_id: 'x', tool_name: 'sc_echo', tool_args: { text: 'rewrite' } }), { modified_args: { text: 'rewritten' } });
  assert.deepEqual(await intercept(wire, 'i3', { event: 'tool_call', tool_id: 'x', tool_name: 'bash', tool_args: { command: 'ls' } }), {});
  assert.deepEqual(await intercept(wire, 'i4', { event: 'tool_call', tool_id: 'x', tool_name: 'sc_echo', tool_args: { text: 'other' } }), {});
  assert.deepEqual(await intercept(wire, 'i5', { event: 'before_agent_start', session_id: 's', agent_run_id: 'r', cwd: '/', provider: 'p', model: 'm', system_prompt: 'You are zot.' }), { system_prompt: 'You are zot.\n(scenario)' });

  // Shutdown with a handler running: it is cancelled, never replies, ack, exit 0.
  wire.send({ type: 'tool_call', id: 'w2', name: 'sc_wait', args: {} });
  await wire.next({ type: 'notify', message: 'sc_wait started' });
  wire.send({ type: 'shutdown' });
  await wire.next('shutdown_ack');
  assert.deepEqual(await within(exited, undefined, 'exit after shutdown'), { code: 0, signal: null });
  const afterAck = wire.all.slice(wire.all.findIndex((f) => f.type === 'shutdown_ack') + 1);
  assert.deepEqual(afterAck, []);
  assert.deepEqual(wire.pending({ id: 'w2' }), []);
  assert.ok(!wire.all.some((f) => f.type === '__not_json__'), 'stdout carries frames only');
});

test('scenario: without call_tool_durable the key is not sent; EOF ends the process', async () => {
  const { wire, child, exited, handshake } = start(['call_tool']);
  await handshake();
  wire.send({ type: 'tool_call', id: 'n1', name: 'sc_nested', args: {} });
  const nested = await wire.next('call_tool');
  assert.ok(!('key' in nested));
  assert.equal(nested.parent_id, 'n1');
  child.stdin.end();
  assert.deepEqual(await within(exited, undefined, 'exit after EOF'), { code: 0, signal: null });
  assert.deepEqual(wire.pending({ id: 'n1' }), []);
});
