/**
 * The memory tools against both memory stores (src/types/memory-service.ts): the SQLite file of
 * one machine (always) and the PostgreSQL call store (a server of this file's own,
 * test/ledger/postgres-server.ts; skipped with the reason when PostgreSQL is missing). The same
 * tests for both: remember, search, list, get, forget (asking by default); the ranking order;
 * the bounds (an oversized note refused, nothing stored; a full scope; a full workspace);
 * scoping (another workspace identity, another user: nothing seen); and the notes surviving a
 * restart, across two processes on the one store, the second with another workspace path but
 * the same workspace identity (`memoryWorkspace`), as a second machine would.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import pg from 'pg';
import Database from 'better-sqlite3';
import { ToolSystem, type ToolSystemOptions } from 'toolgate';
import { PostgresStore } from '../../src/ledger/postgres/store.js';
import { memoryFile, SqliteMemoryStore } from '../../src/ledger/sqlite/memory.js';
import { MEMORY_LIMITS, type MemoryStore } from '../../src/types/memory-service.js';
import { postgresForTests } from '../ledger/postgres-server.js';

const INDEX = fileURLToPath(new URL('../../src/index.js', import.meta.url));
const run = promisify(execFile);

/** One memory store as the tests see it. */
interface Backend {
  label: string;
  skip?: string;
  /** The tool system options of a process on this store, whose state folder is `stateDir`. */
  options(stateDir: string): ToolSystemOptions;
  /** The store itself for workspace identity `workspace`, and a way to fill it fast (`n` notes over scopes `user:fill<i>`, each full: at the scope bound). */
  open(stateDir: string, workspace: string): Promise<{ memory: MemoryStore; fill(n: number): Promise<void>; close(): Promise<void> }>;
}

const sqlite: Backend = {
  label: 'SQLite memory file',
  options: (stateDir) => ({ ledger: { dir: stateDir } }),
  async open(stateDir, workspace) {
    const memory = SqliteMemoryStore.open(stateDir, workspace);
    return {
      memory,
      async fill(n) {
        const raw = new Database(memoryFile(stateDir, workspace));
        const insert = raw.prepare("INSERT INTO notes (scope, text, tags, created) VALUES (?, 'filler', '[]', '2026-01-01T00:00:00.000Z')");
        raw.transaction(() => {
          for (let i = 0; i < n; i++) insert.run(`user:fill${Math.floor(i / MEMORY_LIMITS.notes)}`);
        })();
        raw.close();
      },
      close: () => memory.close(),
    };
  },
};

const server = await postgresForTests(import.meta.url);
const postgres: Backend = 'skip' in server ? { label: 'PostgreSQL store', skip: server.skip, options: () => ({}), open: () => Promise.reject(new Error(server.skip)) } : {
  label: 'PostgreSQL store',
  options: () => ({ store: server.url }),
  async open(_stateDir, workspace) {
    const store = await PostgresStore.open({ url: server.url });
    return {
      memory: store.openMemory(workspace),
      async fill(n) {
        const client = new pg.Client({ connectionString: server.url });
        await client.connect();
        try {
          await client.query(`INSERT INTO toolgate.memory_notes (workspace, scope, text, tags, created_at, search)
            SELECT $1, 'user:fill' || (g / $3), 'filler', '{}', 0, to_tsvector('simple', 'filler') FROM generate_series(0, $2 - 1) AS g`, [workspace, n, MEMORY_LIMITS.notes]);
        } finally {
          await client.end();
        }
      },
      close: () => store.close(),
    };
  },
};
if (!('skip' in server)) after(() => server.stop());

/** Run one tool call in a new process on `options` (a restart, or another machine). */
async function inAnotherProcess(options: ToolSystemOptions, call: { name: string; arguments: Record<string, unknown> }): Promise<{ success: boolean; output: string }> {
  const script = `
    import { ToolSystem } from ${JSON.stringify(INDEX)};
    const tools = new ToolSystem(JSON.parse(process.argv[1]));
    await tools.start();
    const result = await tools.execute({ ...JSON.parse(process.argv[2]), callId: 'another-process' });
    await tools.close();
    process.stdout.write(JSON.stringify(result));`;
  const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script, JSON.stringify(options), JSON.stringify(call)], { encoding: 'utf8' });
  return JSON.parse(stdout) as { success: boolean; output: string };
}

for (const backend of [sqlite, postgres]) {
  describe(`the memory tools on the ${backend.label}`, { skip: backend.skip }, () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'toolgate-memory-stores-'));
    const stateDir = path.join(root, 'state');
    const ws = path.join(root, 'ws');
    const otherWs = path.join(root, 'other-ws');
    fs.mkdirSync(ws);
    fs.mkdirSync(otherWs);
    // Each backend's own identity, so that the two never meet on a PostgreSQL server shared through TOOLGATE_PG_URL.
    const identity = `${backend === sqlite ? 'sqlite' : 'pg'}-project-${path.basename(root)}`;
    let tools: ToolSystem;
    let other: ToolSystem;
    const call = (name: string, args: Record<string, unknown>, id: string, on = tools, confirm = false) => on.execute({ name, arguments: args, callId: id }, confirm ? { confirm: true } : {});
    before(async () => {
      tools = new ToolSystem({ workspace: ws, memoryWorkspace: identity, ...backend.options(stateDir) });
      other = new ToolSystem({ workspace: otherWs, ...backend.options(stateDir) });
      await Promise.all([tools.start(), other.start()]);
    });
    after(async () => {
      await tools?.close();
      await other?.close();
      fs.rmSync(root, { recursive: true, force: true });
    });

    it('remembers, searches, lists, gets, and forgets once a person approves', async () => {
      const kept = await call('memory_remember', { text: 'The release checklist lives in docs/release.md.', tags: ['release'] }, 'r1');
      assert.equal(kept.success, true, kept.output);
      const id = Number(/#(\d+)/.exec(kept.output)![1]);
      assert.match((await call('memory_search', { query: 'where is the release checklist' }, 's1')).output, /docs\/release\.md/);
      assert.match((await call('memory_list', { tag: 'release' }, 'l1')).output, /^1 note\(s\) in workspace tagged release/);
      assert.match((await call('memory_get', { id }, 'g1')).output, new RegExp(`^#${id} \\[release\\]`));
      const asked = await call('memory_forget', { id }, 'f1');
      assert.equal(asked.errorCode, 'CONFIRMATION_REQUIRED', asked.output);
      assert.equal((await call('memory_get', { id }, 'g2')).success, true, 'still there after the question');
      assert.equal((await call('memory_forget', { id }, 'f2', tools, true)).success, true);
      const gone = await call('memory_get', { id }, 'g3');
      assert.equal(gone.success, false);
      assert.match(gone.error ?? gone.output, /no note #/);
      assert.match((await call('memory_search', { query: 'release checklist' }, 's2')).output, /No notes/);
    });

    it('ranks the best match first and filters by tag', async () => {
      for (const [i, [text, tags]] of ([
        ['Lunch is at noon on Fridays.', ['office']],
        ['The staging database listens on port 5433; the staging database user is app.', ['db', 'staging']],
        ['Staging deploys happen on Tuesdays.', ['deploy']],
      ] as Array<[string, string[]]>).entries()) {
        assert.equal((await call('memory_remember', { text, tags, agent: 'ranker' }, `rank-${i}`)).success, true);
      }
      const found = (await call('memory_search', { query: 'staging database port', agent: 'ranker' }, 'rank-s')).output;
      assert.match(found, /^2 note\(s\)/);
      assert.ok(found.indexOf('5433') < found.indexOf('Tuesdays'), `the note with every word first:\n${found}`);
      assert.doesNotMatch(found, /Lunch/);
      const tagged = (await call('memory_search', { query: 'staging', tag: 'deploy', agent: 'ranker' }, 'rank-t')).output;
      assert.match(tagged, /^1 note\(s\)[^]*Tuesdays/);
      assert.match((await call('memory_search', { query: 'db', agent: 'ranker' }, 'rank-tag-word')).output, /5433/, 'tags are searched too');
      const syntax = await call('memory_search', { query: 'staging OR "port" NEAR(x) -lunch', agent: 'ranker' }, 'rank-syntax');
      assert.equal(syntax.success, true, syntax.output);
    });

    it('refuses an oversized note, bad tags and names, and stores nothing', async () => {
      const before = (await call('memory_list', {}, 'b0')).output;
      const oversized = await call('memory_remember', { text: 'x'.repeat(MEMORY_LIMITS.textChars + 1) }, 'b1');
      assert.equal(oversized.success, false);
      assert.match(oversized.error ?? oversized.output, /4000/);
      for (const [i, args] of [{ text: 'fine', tags: ['Not A Tag!'] }, { text: 'fine', user: '../../etc' }, { text: '  ' }, { text: 'fine', tags: Array.from({ length: 17 }, (_, n) => `t${n}`) }].entries()) {
        assert.equal((await call('memory_remember', args, `b2-${i}`)).success, false, JSON.stringify(args).slice(0, 60));
      }
      assert.equal((await call('memory_list', {}, 'b3')).output, before);
    });

    it('refuses a note past the scope bound and past the workspace bound, storing nothing', async () => {
      const scoped = await backend.open(stateDir, `${identity}-bounds`);
      try {
        await scoped.fill(MEMORY_LIMITS.totalNotes - 1);
        const { memory } = scoped;
        await assert.rejects(memory.remember('user:fill0', 'one more', []), /already holds 1000 notes.*Nothing was changed/);
        assert.equal((await memory.remember('user:fresh', 'the last one that fits', [])).scope, 'user:fresh');
        await assert.rejects(memory.remember('user:fresher', 'past the workspace bound', []), /10000 notes in all scopes.*Nothing was changed/);
        assert.equal((await memory.list('user:fresher', 1)).total, 0);
        assert.equal((await memory.list('user:fill0', 1)).total, MEMORY_LIMITS.notes);
      } finally {
        await scoped.close();
      }
    });

    it('keeps notes to their workspace and user', async () => {
      assert.equal((await call('memory_remember', { text: 'Ada prefers tabs over spaces.', user: 'ada' }, 'u1')).success, true);
      assert.match((await call('memory_search', { query: 'tabs', user: 'ada' }, 'u2')).output, /Ada prefers tabs/);
      assert.match((await call('memory_search', { query: 'tabs' }, 'u3')).output, /No notes/, 'the workspace scope does not see a user\'s notes');
      assert.match((await call('memory_search', { query: 'tabs', user: 'bob' }, 'u4')).output, /No notes/, 'nor does another user');
      assert.match((await call('memory_search', { query: 'tabs', user: 'ada' }, 'u5', other)).output, /No notes/, 'nor another workspace');
      assert.match((await call('memory_list', { user: 'ada' }, 'u6', other)).output, /No notes/);
    });

    it('survives a restart: another process, with another workspace path and the same identity, finds the notes', async () => {
      const first = await inAnotherProcess({ workspace: ws, memoryWorkspace: identity, ...backend.options(stateDir) },
        { name: 'memory_remember', arguments: { text: 'The on-call rota is in the team calendar.', tags: ['oncall'] } });
      assert.equal(first.success, true, first.output);
      const second = await inAnotherProcess({ workspace: otherWs, memoryWorkspace: identity, ...backend.options(stateDir) },
        { name: 'memory_search', arguments: { query: 'on-call rota' } });
      assert.equal(second.success, true, second.output);
      assert.match(second.output, /team calendar/);
      const byPath = await inAnotherProcess({ workspace: otherWs, ...backend.options(stateDir) }, { name: 'memory_search', arguments: { query: 'on-call rota' } });
      assert.match(byPath.output, /No notes/, 'without the identity, the workspace is its path: another workspace');
      // And the process that stayed sees the other's note at once (its store stays open).
      assert.match((await call('memory_search', { query: 'rota' }, 'after-restart')).output, /team calendar/);
    });
  });
}
