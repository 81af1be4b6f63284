/**
 * Regression: processes that open a new ledger file at the same moment (parallel `toolgate
 * call`s on a fresh state folder) all ran migration 1, and all but the first failed with
 * "table calls already exists". The version is now read under the write lock.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { Ledger } from 'toolgate';
import { REPO_ROOT } from '../helpers.js';

it('six processes opening one new ledger at once all succeed, and the schema is migrated once', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'toolgate-ledger-race-'));
  try {
    const entry = path.join(REPO_ROOT, 'dist/src/index.js');
    const script = `const { Ledger } = await import(${JSON.stringify(entry)}); const l = Ledger.open({ dir: ${JSON.stringify(dir)}, workspace: ${JSON.stringify(dir)} }); process.stdout.write(String(l.schemaVersion())); l.close();`;
    const runs = await Promise.all(Array.from({ length: 6 }, () => new Promise<{ code: number | null; out: string; err: string }>((resolve) => {
      const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'pipe'] });
      let out = '';
      let err = '';
      child.stdout.on('data', (d) => (out += d));
      child.stderr.on('data', (d) => (err += d));
      child.on('close', (code) => resolve({ code, out, err }));
    })));
    // The latest schema version, as a ledger opened alone has it.
    const alone = Ledger.open({ file: path.join(dir, 'alone.sqlite') });
    const latest = String(alone.schemaVersion());
    await alone.close();
    for (const r of runs) assert.deepEqual([r.code, r.out], [0, latest], r.err);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
