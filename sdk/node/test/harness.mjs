// Plays the host against an extension: in-process over PassThrough streams
// (ext.run({input, output, stderr})) or against a child process's pipes.
// Every wait has a deadline; nothing sleeps.

import { PassThrough } from 'node:stream';
import { spawn } from 'node:child_process';

export const DEADLINE_MS = 20000;

export class Wire {
  constructor(toExt, fromExt, errFromExt) {
    this.toExt = toExt;
    this.frames = []; // unconsumed
    this.all = []; // every frame, in order
    this.stderr = '';
    this.waiters = [];
    this.errWaiters = [];
    this.ended = false;
    let buf = '';
    fromExt.setEncoding('utf8');
    fromExt.on('data', (s) => {
      buf += s;
      let nl;
      while ((nl = buf.indexOf('\n')) !== -1) {
        const line = buf.slice(0, nl);
        buf = buf.slice(nl + 1);
        let f;
        try {
          f = JSON.parse(line);
        } catch {
          f = { type: '__not_json__', line };
        }
        this.frames.push(f);
        this.all.push(f);
      }
      this._wake();
    });
    fromExt.on('end', () => {
      this.ended = true;
      this._wake();
    });
    if (errFromExt) {
      errFromExt.setEncoding('utf8');
      errFromExt.on('data', (s) => {
        this.stderr += s;
        for (const w of this.errWaiters.splice(0)) w();
      });
    }
  }

  _wake() {
    for (const w of this.waiters.splice(0)) w();
  }

  send(frame) {
    this.toExt.write(typeof frame === 'string' ? frame : JSON.stringify(frame) + '\n');
  }

  // The first unconsumed frame matching `match` (a type string, an object
  // of fields to compare, or a predicate); consumed on return.
  async next(match, ms = DEADLINE_MS) {
    const pred = toPred(match);
    const deadline = Date.now() + ms;
    for (;;) {
      const i = this.frames.findIndex(pred);
      if (i !== -1) return this.frames.splice(i, 1)[0];
      const left = deadline - Date.now();
      if (left <= 0 || this.ended) {
        throw new Error(`no frame matching ${describe(match)} ${this.ended ? 'before EOF' : `within ${ms} ms`}; unconsumed: ${JSON.stringify(this.frames)}`);
      }
      await new Promise((resolve) => {
        const t = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(t);
          resolve();
        });
      });
    }
  }

  // Resolves once stderr contains `text`.
  async stderrHas(text, ms = DEADLINE_MS) {
    const deadline = Date.now() + ms;
    while (!this.stderr.includes(text)) {
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`stderr never said ${JSON.stringify(text)}; it has: ${this.stderr}`);
      await new Promise((resolve) => {
        const t = setTimeout(resolve, left);
        this.errWaiters.push(() => {
          clearTimeout(t);
          resolve();
        });
      });
    }
  }

  // Frames not yet consumed that match.
  pending(match) {
    return this.frames.filter(toPred(match));
  }

  // Read registrations up to ready; returns {hello, regs}.
  async handshake(capabilities = ['call_tool'], extra = {}) {
    const hello = await this.next('hello');
    this.send({ type: 'hello_ack', protocol_version: 1, zot_version: 'test', provider: 'p', model: 'm', cwd: '/tmp', extension_dir: '/ext', data_dir: '/ext', capabilities, ...extra });
    await this.next('ready');
    const regs = this.frames.splice(0);
    return { hello, regs };
  }
}

function toPred(match) {
  if (typeof match === 'function') return match;
  if (typeof match === 'string') return (f) => f.type === match;
  return (f) => Object.entries(match).every(([k, v]) => JSON.stringify(f[k]) === JSON.stringify(v));
}

function describe(match) {
  return typeof match === 'function' ? match.toString() : JSON.stringify(match);
}

// Run `ext` in-process; returns {wire, done} where done resolves with
// run()'s 'shutdown' or 'eof'.
export function inProcess(ext) {
  const input = new PassThrough();
  const output = new PassThrough();
  const stderr = new PassThrough();
  const wire = new Wire(input, output, stderr);
  const done = ext.run({ input, output, stderr, exit: false });
  return { wire, done, input, output };
}

// Spawn `node script` in `cwd`; returns {wire, child, exited} where exited
// resolves with {code, signal}.
export function subprocess(script, cwd, args = []) {
  const child = spawn(process.execPath, [script, ...args], { cwd, stdio: ['pipe', 'pipe', 'pipe'] });
  const wire = new Wire(child.stdin, child.stdout, child.stderr);
  const exited = new Promise((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
  return { wire, child, exited };
}

// A promise with its resolve function, for handlers to report progress.
export function deferred() {
  let resolve;
  let reject;
  const promise = new Promise((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

// Rejects when `p` does not settle within ms.
export function within(p, ms = DEADLINE_MS, what = 'promise') {
  let t;
  return Promise.race([
    p,
    new Promise((_, reject) => {
      t = setTimeout(() => reject(new Error(`${what} did not settle within ${ms} ms`)), ms);
    }),
  ]).finally(() => clearTimeout(t));
}
