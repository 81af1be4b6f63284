// Regression: the memory store bounded notes per scope (1000) but not per file, and the scope
// is the model's to name (`user`, `agent`: any of 64-character names, in pairs), so a model
// could grow the state folder's memory file without end, 1000 notes of 4000 characters per
// new name. The file as a whole now has a bound too: past it, nothing more is stored.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { ToolExecutionError } from 'toolgate';
import { memoryFile, SqliteMemoryStore } from '../../src/ledger/sqlite/memory.js';
import { MEMORY_LIMITS } from '../../src/types/memory-service.js';

describe('the memory file has a bound across scopes', () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'toolgate-memory-'));
  after(() => fs.rmSync(root, { recursive: true, force: true }));
  const stateDir = path.join(root, 'state', 'toolgate');
  const ws = path.join(root, 'ws');

  it('a new scope gets no note once the file holds the most notes it may, and nothing is stored', async () => {
    await SqliteMemoryStore.open(stateDir, ws).close();
    const total = MEMORY_LIMITS.totalNotes;
    // Filled as a model could: many names, each under the per-scope bound.
    const raw = new Database(memoryFile(stateDir, ws));
    const insert = raw.prepare("INSERT INTO notes (scope, text, tags, created) VALUES (?, 'filler', '[]', '2026-01-01T00:00:00.000Z')");
    raw.transaction(() => {
      for (let i = 0; i < total; i++) insert.run(`user:u${Math.floor(i / (MEMORY_LIMITS.notes - 1))}`);
    })();
    raw.close();
    const store = SqliteMemoryStore.open(stateDir, ws);
    try {
      await assert.rejects(store.remember('user:fresh', 'one more', []), (e: unknown) => e instanceof ToolExecutionError && /Nothing was changed/.test((e as Error).message));
      assert.equal((await store.list('user:fresh', 1)).total, 0);
    } finally {
      await store.close();
    }
  });
});
