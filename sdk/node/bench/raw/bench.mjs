// bench_echo answered by a minimal hand-written loop: the baseline the
// SDK's cost per call is measured against (same frames, no SDK).
const out = process.stdout;
const send = (frame) => out.write(JSON.stringify(frame) + '\n');

send({ type: 'hello', name: 'bench-node-raw', version: '1.0.0', capabilities: ['tools', 'tool_cancel'] });

let buf = '';
let registered = false;
process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk) => {
  buf += chunk;
  let nl;
  while ((nl = buf.indexOf('\n')) !== -1) {
    const line = buf.slice(0, nl);
    buf = buf.slice(nl + 1);
    if (line === '') continue;
    const f = JSON.parse(line);
    if (f.type === 'hello_ack' && !registered) {
      registered = true;
      send({ type: 'register_tool', name: 'bench_echo', description: 'Echo the text argument', schema: { type: 'object' } });
      send({ type: 'ready' });
    } else if (f.type === 'tool_call') {
      send({ type: 'tool_result', id: f.id, content: [{ type: 'text', text: String(f.args?.text ?? '') }], is_error: false });
    } else if (f.type === 'shutdown') {
      out.write(JSON.stringify({ type: 'shutdown_ack' }) + '\n', () => process.exit(0));
    }
  }
});
process.stdin.on('end', () => process.exit(0));
