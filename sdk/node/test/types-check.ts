// Type-checked, never run: every API of zotext.d.ts used once, the way a
// TypeScript author would. `tsc --noEmit --strict` must accept it; the
// lines marked @ts-expect-error must be rejected.
import {
  Extension,
  CallToolError,
  MAX_FRAME_BYTES,
  MAX_CALL_KEY_BYTES,
  text,
  image,
  imageBytes,
  textResult,
  textErrorResult,
  reconcileNotStarted,
  reconcileCompleted,
  reconcileUnknown,
  prompt,
  toolPrompt,
  insert,
  display,
  openPanel,
  noop,
  errorf,
  type ToolResult,
  type CallToolResult,
  type Response,
  type ZotEvent,
  type HostInfo,
  type Widget,
  type ToolContext,
} from '../zotext.mjs';
import ExtensionDefault from '../zotext.mjs';

const ext: Extension = new ExtensionDefault('types', '1.0.0');
const limit: number = MAX_FRAME_BYTES + MAX_CALL_KEY_BYTES;

ext.onHello((host: HostInfo) => {
  ext.log('host %s %s %d', host.provider, host.model, host.protocolVersion, limit);
});

ext.tool('echo', 'Echo', { type: 'object' }, async (args: { text: string }) => textResult(args.text));
ext.tool('plain_string', 'A string is a text result', '{"type":"object"}', () => 'ok');
ext.structuredTool('add', 'Add', { type: 'object' }, { type: 'object' }, async (args) => {
  const sum = Number(args.a) + Number(args.b);
  return { content: [text(String(sum))], structuredContent: { sum } };
});
ext.toolWithOptions(
  'opts',
  'Options',
  { type: 'object' },
  {
    outputSchema: { type: 'object' },
    namespace: 'ns',
    namespaceDescription: 'd',
    namespaceInstructions: 'i',
    exposure: 'codemode',
    deferred: false,
    interactive: false,
    replay: 'idempotent',
    readOnly: true,
    destructive: false,
  },
  async (_args, ctx: ToolContext) => {
    const shown: boolean = ctx.progress('reading');
    void shown;
    const r: CallToolResult = await ctx.callTool('read', { path: 'a' }, { key: 'k', signal: ctx.signal });
    ctx.reply(textResult('early'));
    const res: ToolResult = { content: r.content, isError: r.isError, activateTools: ["x"] };
    return res;
  },
);
ext.interactiveTool('ask', 'Ask', { type: 'object' }, async (args, ctx) => {
  ext.openPanel({ id: 'q', title: 'Q', lines: [String(args.question)], footer: 'f', toolCallId: ctx.id });
  ext.openPanel('q2', 'Q', ['a'], 'f');
  ext.onPanelKey(
    'q',
    (key, t) => {
      if (key === 'rune') ext.log(t);
    },
    () => ext.closePanel('q'),
  );
  ext.activateTools('hidden', ['more']);
  if (ctx.signal.aborted || ctx.reconcile || ctx.operationKey) return textErrorResult('cancelled');
  return textResult(ctx.name);
});
ext.toolWithOptions('settle', 'Settle', { type: 'object' }, {
  reconcile: async (_args, ctx) => {
    if (ctx.operationKey === 'a') return reconcileNotStarted();
    if (ctx.operationKey === 'b') return reconcileCompleted(textResult('paid'));
    if (ctx.operationKey === 'c') return reconcileUnknown('no record');
  },
}, async () => textResult('paid'));
ext.deferredTool('hidden', 'Hidden', { type: 'object' }, () => ({
  content: [image('image/png', 'AAAA'), imageBytes('image/png', new Uint8Array([1]))],
}));

const widgets: Widget[] = [
  { id: 'h', type: 'heading', text: 'Title', level: 1 },
  { id: 'b', type: 'box', orientation: 'horizontal', children: [{ id: 'go', type: 'button', label: 'Go', style: 'suggested' }] },
  { id: 'l', type: 'list', rows: [{ id: 'r', title: 'Row', checked: true }] },
];
ext.onPanelEvent('w', (ev) => ext.log(ev.panelId, ev.widgetId, ev.event, ev.value));

ext.command('p', 'Prompt', (args) => prompt(`hello ${args}`));
ext.command('tp', 'Tool prompt', () => toolPrompt('skill', { name: 'x' }, 'go'));
ext.command('i', 'Insert', async (args) => insert(args));
ext.command('d', 'Display', (_args, ctx) => display(ctx.id + ctx.name));
ext.command('o', 'Panel', () => openPanel('p', 'T', ['l'], 'f'));
ext.command('ow', 'Widgets', () => openPanel({ id: 'w', title: 'W', widgets }));
ext.command('n', 'Noop', () => {
  ext.notify('info', 'note');
  ext.clearNotes();
  ext.submit('text');
  ext.submitSlash('/other');
  ext.renderPanel('p', '', ['x']);
  ext.renderPanel({ id: 'w', widgets });
  if (ext.hostHas('panel_widgets')) return noop();
});
ext.command('e', 'Error', (): Response => errorf('failed: %s', 'x'));
ext.command('c', 'Call', async () => {
  try {
    const r = await ext.callTool('read', { path: 'x' }, { parentId: 'p', key: 'k' });
    return display(r.truncated ? 'cut' : String(r.name));
  } catch (err) {
    if (err instanceof CallToolError && err.code === 'unsupported') return errorf('%s', err.message);
    throw err;
  }
});

ext.on('tool_result', (ev: ZotEvent) => {
  if (ev.executed === undefined || ev.result?.truncated) return;
  ext.log(ev.toolName, ev.sequence, ev.result?.isError, ev.raw);
});
ext.on('custom_future_event', async () => {});
ext.interceptToolCall((name, args, ev) => {
  if (name === 'bash' && String(args.command).includes('rm -rf')) return { block: true, reason: 'no' };
  if (ev.originExtension) return false;
  return { modifiedArgs: { ...args } };
});
ext.interceptTurnStart(async (step) => (step > 10 ? { block: true, reason: 'limit' } : undefined));
ext.interceptAssistantMessage((t) => ({ replaceText: t.toUpperCase() }));
ext.interceptBeforeAgentStart((ev) => (ev.provider === 'x' ? undefined : `${ev.systemPrompt}\nmore`));
ext.setInterceptTimeout(1000);

// @ts-expect-error an exposure that does not exist
ext.toolWithOptions('bad', 'd', {}, { exposure: 'public' }, () => 'x');
// @ts-expect-error a handler must return a result
ext.tool('bad2', 'd', {}, () => 42);
ext.unregisterTool('plain_string').unregisterCommand('hi');
// @ts-expect-error annotations are booleans
ext.toolWithOptions('bad3', 'd', {}, { destructive: 'yes' }, () => 'x');
// @ts-expect-error notify levels are fixed
ext.notify('loud', 'x');

const how: Promise<'shutdown' | 'eof'> = ext.run();
void how;
