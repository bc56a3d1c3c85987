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
  for (const resolution of [['--module', 'nodenext', '--moduleResolution', 'nodenext'], ['--module', 'es2022', '--moduleResolution', 'node']]) {
    const r = spawnSync(tsc, ['--noEmit', '--strict', '--target', 'es2022', ...resolution, join(here, 'types-check.ts')], { encoding: 'utf8' });
    assert.equal(r.status, 0, `tsc ${resolution.join(' ')} failed:\n${r.stdout}${r.stderr}`);
  }
});
