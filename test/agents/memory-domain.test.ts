/**
 * The memory domain through GeneralAgent with a scripted model and lazy domains: the model
 * requests `memory`, remembers, searches and sees its notes; a new process (a restart) finds
 * them in the same workspace; oversized or malformed notes get a clear error and store
 * nothing; `memory_forget` asks by default; scopes keep users' notes apart.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { GeneralAgent, ToolSystem } from 'toolgate';
import { ledgerFile } from '../../src/ledger/paths.js';
import { memoryFile, SqliteMemoryStore } from '../../src/ledger/sqlite/memory.js';
import { MEMORY_LIMITS } from '../../src/types/memory-service.js';
import { tempWorkspace } from '../helpers.js';
import { finalAnswer, offeredTools, ScriptedModel, toolCalls, toolMessages } from './scripted-model.js';

const INDEX = fileURLToPath(new URL('../../src/index.js', import.meta.url));

describe('the memory domain in an agent run', () => {
  const t = tempWorkspace();
  const state = path.join(t.root, 'state');
  const savedState = process.env.XDG_STATE_HOME;
  let tools: ToolSystem;
  before(async () => {
    process.env.XDG_STATE_HOME = state;
    tools = new ToolSystem({ workspace: t.ws });
    await tools.start();
  });
  after(async () => {
    await tools.close();
    if (savedState === undefined) delete process.env.XDG_STATE_HOME;
    else process.env.XDG_STATE_HOME = savedState;
    t.cleanup();
  });

  it('is requested, used, and its results seen by the model', async () => {
    const model = new ScriptedModel([
      toolCalls(['r', 'request_tools', { domains: ['memory'], reason: 'keep notes across runs' }]),
      toolCalls(
        ['m1', 'memory_remember', { text: 'The staging database runs on port 5433, not 5432.', tags: ['db', 'staging'] }],
        ['m2', 'memory_remember', { text: 'Deploys happen on Tuesdays after the review.', tags: ['deploy'] }],
      ),
      toolCalls(['s', 'memory_search', { query: 'which port does the staging database use' }], ['l', 'memory_list', { tag: 'deploy' }]),
      finalAnswer('noted'),
    ]);
    const run = await new GeneralAgent({ tools, model, lazyDomains: true }).run('remember the facts');
    assert.equal(run.stopReason, 'final');
    assert.ok(!offeredTools(model.requests[0]).includes('memory_remember'), 'hidden before request_tools');
    assert.ok(offeredTools(model.requests[1]).includes('memory_search'), 'offered after request_tools');
    for (const r of run.results) assert.equal(r.success, true, `${r.tool}: ${r.output}`);
    const seen = toolMessages(model.requests[3]!);
    assert.match(seen.get('s')!, /port 5433/);
    const found = seen.get('s')!;
    assert.ok(!found.includes('Tuesdays') || found.indexOf('5433') < found.indexOf('Tuesdays'), 'the best match first');
    assert.match(seen.get('l')!, /Tuesdays/);
    assert.doesNotMatch(seen.get('l')!, /5433/);
    // Its own file next to the ledger's, in the state folder.
    const file = memoryFile(path.join(state, 'toolgate'), fs.realpathSync(t.ws));
    assert.equal(path.dirname(file), path.dirname(ledgerFile(path.join(state, 'toolgate'), t.ws)));
    assert.ok(fs.existsSync(file));
  });

  it('survives a restart: a new process finds the notes', () => {
    const script = `
      import { ToolSystem } from ${JSON.stringify(INDEX)};
      const tools = new ToolSystem({ workspace: process.argv[1] });
      await tools.start();
      const result = await tools.execute({ name: 'memory_search', arguments: { query: 'staging port' }, callId: 'after-restart' });
      await tools.close();
      process.stdout.write(JSON.stringify(result));`;
    const out = execFileSync(process.execPath, ['--input-type=module', '-e', script, t.ws], { env: { ...process.env, XDG_STATE_HOME: state }, encoding: 'utf8' });
    const result = JSON.parse(out) as { success: boolean; output: string };
    assert.equal(result.success, true, result.output);
    assert.match(result.output, /port 5433/);
  });

  it('refuses an oversized note, too many tags and a bad user name, storing nothing', async () => {
    const before = (await tools.execute({ name: 'memory_list', arguments: {}, callId: 'count-1' })).output;
    const bad = [
      { text: 'x'.repeat(4001) },
      { text: 'fine', tags: Array.from({ length: 17 }, (_, i) => `t${i}`) },
      { text: 'fine', tags: ['Not A Tag!'] },
      { text: 'fine', user: '../../etc' },
      { text: '   ' },
    ];
    for (const [i, args] of bad.entries()) {
      const result = await tools.execute({ name: 'memory_remember', arguments: args, callId: `bad-${i}` });
      assert.equal(result.success, false, JSON.stringify(args).slice(0, 80));
      assert.ok((result.error ?? result.output).length > 0);
    }
    const oversized = await tools.execute({ name: 'memory_remember', arguments: { text: 'x'.repeat(4001) }, callId: 'bad-size' });
    assert.match(oversized.error ?? oversized.output, /4000/);
    const tag = await tools.execute({ name: 'memory_remember', arguments: { text: 'fine', tags: ['Not A Tag!'] }, callId: 'bad-tag' });
    assert.match(tag.error ?? tag.output, /Nothing was changed/);
    assert.equal((await tools.execute({ name: 'memory_list', arguments: {}, callId: 'count-2' })).output, before);
  });

  it('refuses a note past the count bound of a scope, storing nothing', async () => {
    const root = path.join(t.root, 'other-workspace');
    const store = SqliteMemoryStore.open(path.join(state, 'toolgate'), root);
    try {
      for (let i = 0; i < MEMORY_LIMITS.notes; i++) await store.remember('agent:filler', `note ${i}`, []);
      await assert.rejects(store.remember('agent:filler', 'one too many', []), /already holds 1000 notes.*Nothing was changed/);
      assert.equal((await store.list('agent:filler', 1)).total, MEMORY_LIMITS.notes);
      assert.equal((await store.remember('workspace', 'another scope still has room', [])).scope, 'workspace');
    } finally {
      await store.close();
    }
  });

  it('keeps a user\'s notes to that user', async () => {
    const kept = await tools.execute({ name: 'memory_remember', arguments: { text: 'Ada prefers tabs over spaces.', user: 'ada' }, callId: 'u1' });
    assert.equal(kept.success, true, kept.output);
    assert.match((await tools.execute({ name: 'memory_search', arguments: { query: 'tabs', user: 'ada' }, callId: 'u2' })).output, /Ada prefers tabs/);
    assert.match((await tools.execute({ name: 'memory_search', arguments: { query: 'tabs' }, callId: 'u3' })).output, /No notes/);
  });

  it('asks before memory_forget, and forgets once approved', async () => {
    const id = Number(/#(\d+)/.exec((await tools.execute({ name: 'memory_remember', arguments: { text: 'temporary note' }, callId: 'f0' })).output)![1]);
    const asked = await tools.execute({ name: 'memory_forget', arguments: { id }, callId: 'f1' });
    assert.equal(asked.errorCode, 'CONFIRMATION_REQUIRED', asked.output);
    assert.equal((await tools.execute({ name: 'memory_get', arguments: { id }, callId: 'f2' })).success, true, 'still there');
    const forgotten = await tools.execute({ name: 'memory_forget', arguments: { id }, callId: 'f3' }, { confirm: true });
    assert.equal(forgotten.success, true, forgotten.output);
    const gone = await tools.execute({ name: 'memory_get', arguments: { id }, callId: 'f4' });
    assert.equal(gone.success, false);
    assert.match(gone.error ?? gone.output, /no note #/);
  });
});
