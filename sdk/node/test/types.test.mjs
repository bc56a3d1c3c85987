// zotext.d.ts must type every API: types-check.ts uses each one and must
// pass `tsc --noEmit --strict`, including its @ts-expect-error lines.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';

const here = dirname(fileURLToPath(import.meta.url));
const tsc = process.env.TSC || 'tsc';
const found = spawnSync(tsc, ['--version'], { encoding: 'utf8' });

test('types-check.ts passes tsc --noEmit --strict', { skip: found.error ? `${tsc} not found` : false, timeout: 120000 }, () => {
  // One resolution mode only (tsc is slow); `node` resolution finds the
  // same zotext.d.mts.
  const args = ['--noEmit', '--strict', '--target', 'es2022', '--module', 'nodenext', '--moduleResolution', 'nodenext', join(here, 'types-check.ts')];
  const r = spawnSync(tsc, args, { encoding: 'utf8' });
  assert.equal(r.status, 0, `tsc ${args.join(' ')} failed:\n${r.stdout}${r.stderr}`);
});
