/**
 * What a `ToolSystem` does by default for a new user (issue 34, items 5 to 7): a workspace
 * escape is a result like every other failure (the throw only when asked for), every call is
 * recorded in the ledger of the CLI's state folder (unless `ledger: false`), a call that asks
 * with nobody to ask here can wait for an answer given elsewhere, and a misspelled
 * `toolFolders` entry is refused.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Ledger, PathTraversalError, ToolgateOptionError, ToolSystem } from 'toolgate';
import { FIXTURE_SCHEMAS, FIXTURES_DIR, tempWorkspace, type TempWorkspace } from '../helpers.js';

describe('ToolSystem defaults', () => {
  let tmp: TempWorkspace;

  before(() => {
    tmp = tempWorkspace();
    fs.writeFileSync(path.join(tmp.ws, 'notes.txt'), 'hello\n');
  });

  after(() => tmp.cleanup());

  it('counts agree (s21): the unknown-tool error counts the tools toolSpecs exports, not the caller tools; a toolset narrows both', async () => {
    const system = new ToolSystem({ workspace: tmp.ws, ledger: false });
    await system.start();
    try {
      const specs = system.toolSpecs('openai');
      const unknown = await system.execute({ name: 'no_such_tool_here', arguments: {} });
      assert.equal(unknown.errorCode, 'UNKNOWN_TOOL');
      assert.ok(unknown.error!.includes(`(${specs.length} in all)`), `${specs.length} specs: ${unknown.error}`);
      for (const callerTool of ['ask_user', 'input_subagent', 'run_subagent']) assert.equal(unknown.error!.includes(callerTool), false, callerTool);
      assert.ok(specs.some((s) => s.function.name === 'run_command'));
      const explore = system.toolSpecs('openai', { mode: 'explore' }).map((s) => s.function.name);
      assert.ok(explore.includes('read_file') && !explore.includes('run_command') && !explore.includes('write_file'), explore.join(', '));
    } finally {
      await system.close();
    }
    // README's narrowing: a toolset keeps only the shipped tools it names.
    const narrow = new ToolSystem({ workspace: tmp.ws, ledger: false, toolset: ['read_file', 'grep_files'] });
    await narrow.start();
    try {
      assert.deepEqual(narrow.toolSpecs('openai').map((s) => s.function.name).sort(), ['grep_files', 'read_file']);
      assert.equal((await narrow.execute({ name: 'run_command', arguments: { command: 'true' } })).errorCode, 'UNKNOWN_TOOL');
    } finally {
      await narrow.close();
    }
  });

  it('answers a workspace escape with a PATH_TRAVERSAL result, and stops the rest of the turn', async () => {
    const system = new ToolSystem({ workspace: tmp.ws, ported: false, ledger: false });
    await system.start();
    try {
      // Before: execute() threw PathTraversalError, crashing a loop on a model's first bad path.
      const result = await system.execute({ name: 'read_file', arguments: { filepath: '../outside/sentinel.txt' }, callId: 'esc1' });
      assert.equal(result.success, false);
      assert.equal(result.errorCode, 'PATH_TRAVERSAL');
      assert.equal(result.callId, 'esc1');
      assert.match(result.output, /^Error: refused: .*outside/);
      const turn = await system.handler.handle([
        { id: 't1', name: 'read_file', arguments: '{"filepath":"../outside/sentinel.txt"}' },
        { id: 't2', name: 'write_file', arguments: '{"filepath":"after.txt","content":"x"}' },
      ]);
      assert.deepEqual(turn.map((r) => r.errorCode), ['PATH_TRAVERSAL', 'ABORTED']);
    } finally {
      await system.close();
    }
    const throwing = new ToolSystem({ workspace: tmp.ws, ported: false, ledger: false, pathTraversal: 'throw' });
    await throwing.start();
    try {
      await assert.rejects(throwing.execute({ name: 'read_file', arguments: { filepath: '../outside/sentinel.txt' } }), PathTraversalError);
    } finally {
      await throwing.close();
    }
    assert.throws(() => new ToolSystem({ workspace: tmp.ws, pathTraversal: 'ignore' as never }), ToolgateOptionError);
  });

  it('records every call in the ledger of the CLI state folder by default; ledger: false keeps none', async () => {
    const state = path.join(process.env.XDG_STATE_HOME!, 'toolgate');
    const file = Ledger.fileOf({ dir: state, workspace: tmp.ws });
    assert.equal(fs.existsSync(file), false);
    const system = new ToolSystem({ workspace: tmp.ws, ported: false, executor: { session: 'defaults' } });
    await system.start();
    try {
      const result = await system.execute({ name: 'read_file', arguments: { filepath: 'notes.txt' }, callId: 'rec1' });
      assert.equal(result.success, true, result.output);
    } finally {
      await system.close();
    }
    // Before: no ledger unless one was given.
    const ledger = Ledger.open({ file, readonly: true });
    try {
      const stored = await ledger.get('rec1', 'defaults');
      assert.equal(stored?.tool, 'read_file');
      assert.equal(stored?.state, 'done');
    } finally {
      await ledger.close();
    }
    fs.rmSync(file, { force: true });
    const none = new ToolSystem({ workspace: tmp.ws, ported: false, ledger: false });
    await none.start();
    await none.execute({ name: 'read_file', arguments: { filepath: 'notes.txt' }, callId: 'rec2' });
    await none.close();
    assert.equal(fs.existsSync(file), false);
    assert.throws(() => new ToolSystem({ workspace: tmp.ws, ledger: false, executor: { ledger: false } }), /given twice/);
    // A state folder that cannot be used: the error says how to choose another, or none.
    const saved = process.env.XDG_STATE_HOME;
    const blocker = path.join(tmp.root, 'not-a-folder');
    fs.writeFileSync(blocker, '');
    process.env.XDG_STATE_HOME = blocker;
    try {
      assert.throws(() => new ToolSystem({ workspace: tmp.ws }), (error: Error) => error instanceof ToolgateOptionError && /options\.ledger \(default: the state folder .*not-a-folder.*ledger: false for none/s.test(error.message));
    } finally {
      process.env.XDG_STATE_HOME = saved;
    }
  });

  it('waitForAnswers: a call that asks with no handler waits for an answer given in the ledger', async () => {
    const dir = path.join(tmp.root, 'state-wait');
    const system = new ToolSystem({ workspace: tmp.ws, ported: false, ledger: { dir, pollMs: 20 }, waitForAnswers: true });
    await system.start();
    const other = Ledger.open({ dir, workspace: tmp.ws });
    try {
      const pending = system.execute({ name: 'write_file', arguments: { filepath: 'waited.txt', content: 'answered elsewhere' }, callId: 'w1' });
      // As `toolgate approvals allow ID` does from another process.
      let question;
      while ((question = (await other.pendingApprovals()).find((q) => q.callId === 'w1')) === undefined) await new Promise((r) => setTimeout(r, 10));
      await other.answer(question.id, 'allow_once', 'test');
      const result = await pending;
      assert.equal(result.success, true, result.output);
      assert.equal(fs.readFileSync(path.join(tmp.ws, 'waited.txt'), 'utf8'), 'answered elsewhere');
      // Bounded by the call's timeout: nobody answers, the call is refused (not left hanging).
      const unanswered = await system.execute({ name: 'write_file', arguments: { filepath: 'never.txt', content: 'x' }, callId: 'w3' }, { timeoutMs: 50 });
      assert.equal(unanswered.errorCode, 'CONFIRMATION_DENIED');
      // Said as a wait that ran out, not as the user's no (before: "the user did not approve").
      assert.doesNotMatch(unanswered.output, /the user did not approve/);
      assert.match(unanswered.output, /nobody approved this write_file call .*nobody answered .* within 50 ms/);
      assert.equal(fs.existsSync(path.join(tmp.ws, 'never.txt')), false);
    } finally {
      await other.close();
      await system.close();
    }
    // Without it, refused at once.
    const quick = new ToolSystem({ workspace: tmp.ws, ported: false, ledger: { dir } });
    await quick.start();
    try {
      const refused = await quick.execute({ name: 'write_file', arguments: { filepath: 'unasked.txt', content: 'x' }, callId: 'w2' });
      assert.equal(refused.errorCode, 'CONFIRMATION_REQUIRED');
      // The developer reads how a person could be asked; the model's text stays about the user.
      assert.match(refused.error!, /confirmationHandler .*waitForAnswers: true /);
      // The exact commands that reach this ledger: its workspace and (not the default) state folder.
      const flags = `--workspace ${tmp.ws} --state-dir ${dir}`;
      assert.ok(refused.error!.includes(`\`toolgate approvals list ${flags}\``), refused.error);
      assert.ok(refused.error!.includes(`\`toolgate approvals allow <question id> ${flags}\``), refused.error);
      assert.ok(refused.error!.includes(`\`toolgate cockpit ${flags}\``), refused.error);
      assert.doesNotMatch(refused.output, /waitForAnswers/);
    } finally {
      await quick.close();
    }
  });

  it('refuses a misspelled toolFolders entry, naming it, as the CLI refuses --tools', async () => {
    const misspelled = new ToolSystem({ workspace: tmp.ws, ledger: false, builtins: false, toolFolders: [{ directory: `${FIXTURES_DIR}-typo`, schemas: FIXTURE_SCHEMAS }] });
    // Before: silently ignored (no tools, no error).
    await assert.rejects(misspelled.start(), (error: Error) => error instanceof ToolgateOptionError && /toolFolders\[0\]\.directory .*no such folder/.test(error.message));
    const noSchemas = new ToolSystem({ workspace: tmp.ws, ledger: false, builtins: false, toolFolders: [{ directory: FIXTURES_DIR, schemas: `${FIXTURE_SCHEMAS}.typo` }] });
    await assert.rejects(noSchemas.start(), /toolFolders\[0\]\.schemas .*no such file/);
    const empty = path.join(tmp.root, 'empty-tools');
    fs.mkdirSync(empty);
    const noModules = new ToolSystem({ workspace: tmp.ws, ledger: false, builtins: false, toolFolders: [{ directory: empty, schemas: FIXTURE_SCHEMAS }] });
    await assert.rejects(noModules.start(), /no compiled tool modules/);
  });
});
