// Regression: the memory file (notes a model keeps: decisions, hosts, sometimes secrets) was
// made with SQLite's default mode, 0644 under the usual umask, and so were its WAL and
// shared-memory companions: readable by every local user wherever the state folder is not
// private (one made before, or shared). The ledger next to it is the owner's alone whatever
// the umask; the memory file now is too.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { memoryFile, SqliteMemoryStore } from '../../src/ledger/sqlite/memory.js';

describe('the memory file is the owner\'s alone', { skip: process.platform === 'win32' }, () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'toolgate-memory-mode-'));
  after(() => fs.rmSync(root, { recursive: true, force: true }));

  it('0600 for the file and its companions, in a state folder others can read, under umask 022', async () => {
    const stateDir = path.join(root, 'state', 'toolgate');
    fs.mkdirSync(path.join(root, 'state', 'toolgate'), { recursive: true, mode: 0o755 });
    const saved = process.umask(0o022);
    try {
      const store = SqliteMemoryStore.open(stateDir, path.join(root, 'ws'));
      try {
        await store.remember('workspace', 'the staging password is in the vault, not in .env', []);
        const file = memoryFile(stateDir, path.join(root, 'ws'));
        for (const f of [file, `${file}-wal`, `${file}-shm`]) {
          assert.equal(fs.statSync(f).mode & 0o077, 0, `${path.basename(f)} is readable or writable by others`);
        }
      } finally {
        await store.close();
      }
    } finally {
      process.umask(saved);
    }
  });
});
