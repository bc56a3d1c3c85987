// The shared scenario (sdk/SCENARIO.md) written with the Node SDK.
import {
  Extension,
  textResult,
  textErrorResult,
  prompt,
  insert,
  display,
  noop,
  errorf,
  toolPrompt,
  openPanel,
} from '../zotext.mjs';

const ext = new Extension('scenario-node', '1.0.0');

ext.tool(
  'sc_echo',
  'Echo the text argument',
  { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
  async (args) => textResult(String(args.text ?? '')),
);

ext.toolWithOptions(
  'sc_add',
  'Add two numbers',
  { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] },
  {
    outputSchema: { type: 'object', properties: { sum: { type: 'number' } } },
    namespace: 'scenario',
    namespaceDescription: 'Scenario arithmetic',
    exposure: 'codemode',
  },
  async (args) => {
    const sum = Number(args.a) + Number(args.b);
    return { ...textResult(String(sum)), structuredContent: { sum } };
  },
);

ext.tool('sc_fail', 'Always fails', { type: 'object' }, async () => textErrorResult('sc_fail always fails'));

ext.tool('sc_progress', 'Reports progress', { type: 'object' }, async (_args, ctx) => {
  ctx.progress('sc_progress half way');
  return textResult('sc_progress done');
}, { readOnly: true });

ext.tool('sc_panic', 'Always throws', { type: 'object' }, async () => {
  throw new Error('deliberate failure');
});

ext.tool('sc_wait', 'Waits until cancelled', { type: 'object' }, async (_args, ctx) => {
  ext.notify('info', 'sc_wait started');
  await new Promise((resolve) => {
    if (ctx.signal.aborted) resolve();
    else ctx.signal.addEventListener('abort', resolve, { once: true });
  });
  // The SDK drops this: the invocation was cancelled.
  return textErrorResult('cancelled');
});

ext.tool(
  'sc_nested',
  'Reads a file through the host',
  { type: 'object', properties: { path: { type: 'string' } } },
  async (args) => {
    const path = typeof args.path === 'string' && args.path !== '' ? args.path : 'scenario.txt';
    let reply;
    try {
      reply = await ext.callTool('read', { path }, { key: 'k1' });
    } catch (err) {
      return textErrorResult(`nested failed: ${err.message}`);
    }
    const out = reply.content
      .filter((b) => b.type === 'text')
      .map((b) => b.text)
      .join('\n');
    return reply.isError ? textErrorResult(`nested failed: ${out}`) : textResult(`nested: ${out}`);
  },
);

ext.interactiveTool(
  'sc_ask',
  'Ask the user a question',
  { type: 'object', properties: { question: { type: 'string' } } },
  async (args, ctx) => {
    const answer = await new Promise((resolve) => {
      ext.onPanelKey(
        'sc-ask',
        (key) => {
          if (key === 'enter') resolve('yes');
          else if (key === 'esc') resolve(null);
        },
        () => resolve(null),
      );
      ctx.signal.addEventListener('abort', () => resolve(null), { once: true });
      ext.openPanel('sc-ask', 'Question', [String(args.question ?? '')], 'enter answers, esc dismisses');
    });
    ext.onPanelKey('sc-ask', null, null);
    ext.closePanel('sc-ask');
    return answer === null ? textErrorResult('dismissed') : textResult(answer);
  },
);

ext.command('sc-prompt', 'Prompt', (args) => prompt(`hello ${args}`));
ext.command('sc-insert', 'Insert', (args) => insert(args));
ext.command('sc-display', 'Display', (args) => display(`shown: ${args}`));
ext.command('sc-noop', 'Nothing', () => noop());
ext.command('sc-error', 'Error', (args) => errorf('failed: %s', args));
ext.command('sc-tool-prompt', 'Tool prompt', (args) => toolPrompt('sc_echo', { text: args }, 'run echo'));

const menu = ['one', 'two'];
let cursor = 0;
const menuLines = () => menu.map((item, i) => `${i === cursor ? '>' : ' '} ${item}`);
ext.command('sc-panel', 'A panel', () => {
  cursor = 0;
  ext.onPanelKey('sc-panel', (key) => {
    if (key === 'down' || key === 'up') {
      cursor = key === 'down' ? Math.min(cursor + 1, menu.length - 1) : Math.max(cursor - 1, 0);
      ext.renderPanel('sc-panel', 'Scenario', menuLines(), 'esc closes');
    } else if (key === 'esc') {
      ext.closePanel('sc-panel');
    }
  });
  return openPanel('sc-panel', 'Scenario', menuLines(), 'esc closes');
});

ext.command('sc-submit', 'Submit', (args) => {
  ext.submit(`submitted ${args}`);
  return noop();
});

ext.on('turn_end', (event) => {
  ext.notify('info', `turn ended: ${event.stop}`);
});

ext.interceptToolCall((toolName, args) => {
  if (toolName === 'bash' && typeof args.command === 'string' && args.command.includes('rm -rf')) {
    return { block: true, reason: 'scenario guard: refused' };
  }
  if (toolName === 'sc_echo' && args.text === 'rewrite') {
    return { modifiedArgs: { text: 'rewritten' } };
  }
  return undefined;
});

ext.interceptBeforeAgentStart((event) => `${event.systemPrompt}\n(scenario)`);

ext.run();
