// clock — a zot extension in Node on the zotext SDK: lifecycle events,
// notes, timers and `submit`.
//
// /clock                          the time, and what this session did so far
// /clock remind DELAY TEXT        a note with TEXT after DELAY
// /clock remind DELAY --submit TEXT   the note, then TEXT submitted as a prompt
// /clock list | cancel [N] | clear

import { Extension, display, errorf } from './vendor/zotext.mjs';

const ext = new Extension('clock', '1.0.0');

// A day is long enough for a reminder; a timer much longer than that is
// more likely a typo (24h typed as 24 without the unit is 24 s, fine).
const MAX_DELAY_MS = 24 * 60 * 60 * 1000;
// Each reminder holds a timer: a bound keeps a script from piling them up.
const MAX_REMINDERS = 100;
const USAGE = 'usage: /clock | /clock remind DELAY [--submit] TEXT | /clock list | /clock cancel [N] | /clock clear ' +
  '(DELAY: 10, 10s, 500ms, 5m, 1h)';

const UNITS = { ms: 1, s: 1000, '': 1000, m: 60 * 1000, min: 60 * 1000, h: 60 * 60 * 1000 };

// What this session did, from the lifecycle events.
const session = { startedAt: Date.now(), prompts: 0, turns: 0, turnMs: 0, turnStartedAt: null };
const reminders = new Map(); // number → { text, submit, due, timer }
let nextReminder = 1;

function resetSession() {
  session.startedAt = Date.now();
  session.prompts = 0;
  session.turns = 0;
  session.turnMs = 0;
  session.turnStartedAt = null;
}

ext.on('session_start', () => resetSession());
ext.on('user_prompt_submit', () => { session.prompts += 1; });
ext.on('turn_start', () => {
  session.turns += 1;
  session.turnStartedAt = Date.now();
});
ext.on('turn_end', (ev) => {
  if (session.turnStartedAt !== null) session.turnMs += Date.now() - session.turnStartedAt;
  session.turnStartedAt = null;
  // A failed model turn is worth a note; a normal one is not.
  if (ev.stop === 'error') ext.notify('warn', `model turn ${session.turns} failed: ${ev.error ?? 'no reason given'}`);
});
ext.on('session_end', (ev) => ext.log('session ended (%s) after %s', ev.reason ?? 'unknown', duration(Date.now() - session.startedAt)));

const pad = (n) => String(n).padStart(2, '0');

function clockTime(date) {
  return `${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}`;
}

function duration(ms) {
  if (ms < 1000) return `${ms} ms`;
  if (ms < 60 * 1000) return `${(ms / 1000).toFixed(1)} s`;
  if (ms < 60 * 60 * 1000) return `${Math.floor(ms / 60000)} min ${Math.round((ms % 60000) / 1000)} s`;
  return `${Math.floor(ms / 3600000)} h ${Math.round((ms % 3600000) / 60000)} min`;
}

const plural = (n, word) => `${n} ${word}${n === 1 ? '' : 's'}`;

function status() {
  const now = new Date();
  return [
    `It is ${clockTime(now)} (${now.toDateString()}).`,
    `This session: ${plural(session.prompts, 'prompt')}, ${plural(session.turns, 'model turn')} ` +
      `(${duration(session.turnMs)} in turns), started ${duration(Date.now() - session.startedAt)} ago.`,
    reminders.size === 0 ? 'No reminders.' : `${plural(reminders.size, 'reminder')} pending (/clock list).`,
  ].join('\n');
}

// "10" and "10s" are seconds; fractions are fine ("0.5", "1.5m").
function parseDelay(word) {
  const m = /^(\d+(?:\.\d+)?)(ms|s|min|m|h)?$/.exec(word ?? '');
  if (!m) return null;
  const ms = Math.round(Number(m[1]) * UNITS[m[2] ?? '']);
  return Number.isFinite(ms) ? ms : null;
}

function fire(n) {
  const r = reminders.get(n);
  if (!r) return;
  reminders.delete(n);
  ext.notify('info', `Reminder: ${r.text}`);
  // The host takes one submit at a time from an extension and refuses the
  // rest; the note above is there either way.
  if (r.submit) ext.submit(r.text);
}

function remind(words) {
  const submit = words.includes('--submit');
  const rest = words.filter((w) => w !== '--submit');
  const delay = parseDelay(rest[0]);
  const text = rest.slice(1).join(' ');
  if (delay === null) return errorf('"%s" is not a delay: give a number of seconds, or 500ms, 10s, 5m, 1h; %s', rest[0] ?? '', USAGE);
  if (delay > MAX_DELAY_MS) return errorf('%s is longer than a day: give at most 24h', rest[0]);
  if (text === '') return errorf('a reminder needs a text: /clock remind %s [--submit] TEXT', rest[0]);
  if (reminders.size >= MAX_REMINDERS) return errorf('%d reminders are pending already: cancel some with /clock cancel', MAX_REMINDERS);

  const n = nextReminder++;
  reminders.set(n, { text, submit, due: Date.now() + delay, timer: setTimeout(fire, delay, n) });
  return display(`Reminder ${n} at ${clockTime(new Date(Date.now() + delay))} (in ${duration(delay)}): ${text}` +
    (submit ? ' — then submitted as a prompt' : ''));
}

function list() {
  if (reminders.size === 0) return 'No reminders.';
  const lines = [...reminders].map(([n, r]) =>
    `${n}. ${clockTime(new Date(r.due))} (in ${duration(Math.max(0, r.due - Date.now()))}) ${r.text}${r.submit ? ' [submit]' : ''}`);
  return ['Reminders:', ...lines].join('\n');
}

function cancel(which) {
  if (which === undefined) {
    const count = reminders.size;
    cancelAll();
    return display(`Cancelled ${plural(count, 'reminder')}.`);
  }
  const r = reminders.get(Number(which));
  if (!/^\d+$/.test(which) || !r) return errorf('no reminder %s: see /clock list', which);
  clearTimeout(r.timer);
  reminders.delete(Number(which));
  return display(`Cancelled reminder ${which}: ${r.text}`);
}

function cancelAll() {
  for (const r of reminders.values()) clearTimeout(r.timer);
  const count = reminders.size;
  reminders.clear();
  return count;
}

ext.command('clock', 'The time and this session\'s turns; /clock remind DELAY [--submit] TEXT for a reminder', (args) => {
  const words = args.split(/\s+/).filter((w) => w !== '');
  switch (words[0]) {
    case undefined:
      return display(status());
    case 'remind':
      return remind(words.slice(1));
    case 'list':
      return display(list());
    case 'cancel':
      return cancel(words[1]);
    case 'clear':
      ext.clearNotes();
      return display('Cleared the clock\'s notes.');
    default:
      return errorf('unknown subcommand \'%s\'; %s', words[0], USAGE);
  }
});

// exit: false so that the timers are ours to cancel: a reminder must not
// fire into a session that has ended (the SDK would drop its frames after
// shutdown_ack anyway, but a --submit would be lost without a word).
ext.run({ exit: false }).then((how) => {
  const count = cancelAll();
  ext.log('%s: cancelled %s', how, plural(count, 'pending reminder'));
  process.exit(0);
});
