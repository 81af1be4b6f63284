/**
 * The executor with a ledger: a call is recorded before the deciders and claimed before its
 * runner; a retried call id returns its stored result without running again; a question is
 * stored before it is asked, an answer given in the ledger wins over a handler that never
 * answers, and closing the executor leaves the question pending; denied calls are recorded
 * `denied`, a path outside the workspace too (and still thrown); the whole output of a cut
 * call is stored.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Ledger, PathTraversalError, ToolExecutor, type ToolRegistry } from 'toolgate';
import { fixtureRegistry } from '../helpers.js';

let registry: ToolRegistry;
let dir: string;
before(async () => {
  registry = await fixtureRegistry();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'toolgate-ledger-exec-'));
});
after(() => fs.rmSync(dir, { recursive: true, force: true }));

function executorWith(ledger: Ledger, options: ConstructorParameters<typeof ToolExecutor>[1] = {}): ToolExecutor {
  return new ToolExecutor(registry, { workspaceRoot: dir, ledger, session: 'S', sweepLeftovers: false, ...options });
}

describe('executor with a ledger', () => {
  it('a retried call id returns the stored result without running the tool again', async () => {
    const ledger = Ledger.open({ dir: path.join(dir, 'state1'), workspace: dir });
    const executor = executorWith(ledger);
    try {
      const first = await executor.call('append_marker', { filepath: 'once.txt', marker: 'm1' }, { callId: 'retry-1' });
      assert.equal(first.success, true, first.output);
      const again = await executor.call('append_marker', { marker: 'm1', filepath: 'once.txt' }, { callId: 'retry-1' });
      assert.equal(again.output, first.output, 'the stored result (the same arguments, in another order)');
      assert.equal(fs.readFileSync(path.join(dir, 'once.txt'), 'utf8'), 'm1\n', 'the tool ran once');
      // The same id for another request is refused, never answered with the first result.
      const reused = await executor.call('append_marker', { filepath: 'once.txt', marker: 'm2' }, { callId: 'retry-1' });
      assert.equal(reused.errorCode, 'INVALID_ARGUMENTS');
      assert.match(reused.error!, /was used before for another request/);
      assert.equal(fs.readFileSync(path.join(dir, 'once.txt'), 'utf8'), 'm1\n');
      const other = await executor.call('append_marker', { filepath: 'once.txt', marker: 'm3' }, { callId: 'retry-1', session: 'another' });
      assert.equal(other.success, true);
      assert.equal(fs.readFileSync(path.join(dir, 'once.txt'), 'utf8'), 'm1\nm3\n', 'another session is another call');
      const record = (await ledger.get('retry-1', 'S'))!;
      assert.equal(record.state, 'done');
      assert.ok(record.startedAt !== undefined && record.endedAt !== undefined);
      // A second executor (a restarted process) sees the same.
      const restarted = executorWith(ledger);
      const third = await restarted.call('append_marker', { filepath: 'once.txt', marker: 'm1' }, { callId: 'retry-1' });
      assert.equal(third.output, first.output);
      assert.equal(fs.readFileSync(path.join(dir, 'once.txt'), 'utf8'), 'm1\nm3\n');
      await restarted.close();
    } finally {
      await executor.close();
      await ledger.close();
    }
  });

  it('a retry of a call retention deleted is answered from its tombstone (RESULT_PRUNED) and never runs again', async () => {
    const ledger = Ledger.open({ dir: path.join(dir, 'state-prune'), workspace: dir, maxCalls: 1 });
    const executor = executorWith(ledger);
    const file = path.join(dir, 'pruned.txt');
    try {
      const first = await executor.call('append_marker', { filepath: 'pruned.txt', marker: 'p1' }, { callId: 'pruned-1' });
      assert.equal(first.success, true, first.output);
      await executor.call('append_marker', { filepath: 'pruned.txt', marker: 'p2' }, { callId: 'pruned-2' });
      await ledger.flush();
      assert.equal((await ledger.prune()), 1, 'maxCalls 1: the older call goes');
      assert.equal((await ledger.get('pruned-1', 'S')), undefined, 'its row and output are gone');
      assert.equal((await ledger.tombstone('pruned-1', 'S'))?.state, 'done');
      const retried = await executor.call('append_marker', { marker: 'p1', filepath: 'pruned.txt' }, { callId: 'pruned-1' });
      assert.equal(retried.success, false);
      assert.equal(retried.errorCode, 'RESULT_PRUNED', retried.output);
      assert.equal(retried.stopReason, 'not_run');
      assert.match(retried.output, /already ran \(done.*its output is no longer kept \(ledger retention\) and it was not run again/);
      assert.equal(fs.readFileSync(file, 'utf8'), 'p1\np2\n', 'the pruned call did not run again');
      // The same id with other arguments is still another request.
      const reused = await executor.call('append_marker', { filepath: 'pruned.txt', marker: 'other' }, { callId: 'pruned-1' });
      assert.equal(reused.errorCode, 'INVALID_ARGUMENTS', reused.output);
      assert.equal(fs.readFileSync(file, 'utf8'), 'p1\np2\n');
      // Another session is another call.
      const other = await executor.call('append_marker', { filepath: 'pruned.txt', marker: 'p1' }, { callId: 'pruned-1', session: 'another' });
      assert.equal(other.success, true, other.output);
      assert.equal(fs.readFileSync(file, 'utf8'), 'p1\np2\np1\n');
    } finally {
      await executor.close();
      await ledger.close();
    }
  });

  it('the running claim is committed before the runner starts', async () => {
    const ledger = Ledger.open({ dir: path.join(dir, 'state2'), workspace: dir });
    const seen: string[] = [];
    const executor = executorWith(ledger);
    try {
      const running = executor.call('sleep_then_answer', { ms: 300 }, { callId: 'claim-1' });
      // Another connection (as another process would) sees the claim while the tool runs.
      const other = Ledger.open({ file: ledger.file });
      await new Promise((resolve) => setTimeout(resolve, 150));
      seen.push((await other.get('claim-1', 'S'))!.state);
      await other.close();
      assert.equal((await running).success, true);
      seen.push((await ledger.get('claim-1', 'S'))!.state);
      assert.deepEqual(seen, ['running', 'done']);
      const duplicate = executor.call('sleep_then_answer', { ms: 300 }, { callId: 'claim-2' });
      const concurrent = await executor.call('sleep_then_answer', { ms: 1 }, { callId: 'claim-2' });
      assert.equal(concurrent.errorCode, 'CALL_IN_PROGRESS', concurrent.output);
      assert.equal((await duplicate).success, true);
    } finally {
      await executor.close();
      await ledger.close();
    }
  });

  it('a denied call is recorded denied with its decisions; an invalid one is not recorded', async () => {
    const ledger = Ledger.open({ dir: path.join(dir, 'state3'), workspace: dir });
    const executor = executorWith(ledger);
    try {
      const denied = await executor.call('confirm_action', {}, { callId: 'deny-1' });
      assert.equal(denied.errorCode, 'CONFIRMATION_REQUIRED');
      assert.equal((await ledger.get('deny-1', 'S'))?.state, 'denied');
      assert.deepEqual((await ledger.decisions('deny-1', 'S')).map((d) => `${d.decider}:${d.verdict}`), ['approval:ask', 'confirmation:deny']);
      const invalid = await executor.call('confirm_action', { value: 42 }, { callId: 'bad-1' });
      assert.equal(invalid.errorCode, 'INVALID_ARGUMENTS');
      assert.equal((await ledger.get('bad-1', 'S')), undefined, 'recorded only once the arguments are valid');
    } finally {
      await executor.close();
      await ledger.close();
    }
  });

  it('a path outside the workspace is recorded denied (PATH_TRAVERSAL, not run) and still thrown; a retry throws again; a preview records nothing', async () => {
    const ledger = Ledger.open({ dir: path.join(dir, 'state-escape'), workspace: dir });
    const executor = executorWith(ledger);
    try {
      const call = { name: 'read_file', arguments: { filepath: '../../etc/passwd' }, callId: 'escape-1' };
      await assert.rejects(executor.execute(call), PathTraversalError);
      const record = await ledger.get('escape-1', 'S');
      assert.equal(record?.state, 'denied');
      assert.equal(record.tool, 'read_file');
      const stored = (await ledger.result('escape-1', 'S'))!.result;
      assert.deepEqual([stored.errorCode, stored.stopReason], ['PATH_TRAVERSAL', 'not_run']);
      await assert.rejects(executor.execute(call), PathTraversalError, 'the retry is refused the same way');
      assert.equal((await ledger.list()).filter((c) => c.callId === 'escape-1').length, 1);
      const preview = await executor.preview({ ...call, callId: 'escape-2' });
      assert.equal(preview.code, 'PATH_TRAVERSAL');
      assert.equal((await ledger.get('escape-2', 'S')), undefined, 'a preview records nothing');
    } finally {
      await executor.close();
      await ledger.close();
    }
  });

  it('the whole output of a cut call is stored', async () => {
    const ledger = Ledger.open({ dir: path.join(dir, 'state4'), workspace: dir });
    const executor = executorWith(ledger);
    try {
      const cut = await executor.call('print_long_output', { chars: 5000 }, { callId: 'long-1' });
      assert.equal(cut.success, true);
      assert.ok(cut.output.length < 5000);
      const stored = (await ledger.result('long-1'))!;
      assert.equal(stored.fullOutput.length, 5000);
      assert.equal(stored.result.output, cut.output, 'the model-visible result too');
      assert.equal(cut.fullOutput, undefined, 'the ledger keeps it, not a temporary file');
    } finally {
      await executor.close();
      await ledger.close();
    }
  });

  it('a question is stored before the handler is asked; an answer given in the ledger wins over a handler that never answers', async () => {
    const ledger = Ledger.open({ dir: path.join(dir, 'state5'), workspace: dir, pollMs: 20 });
    let asked = 0;
    const executor = executorWith(ledger, {
      confirmationHandler: () => {
        asked++;
        return new Promise<boolean>(() => {});
      },
    });
    try {
      const pending = executor.call('append_marker', { filepath: 'asked.txt', marker: 'a1' }, { callId: 'ask-1', approvalMode: 'always-ask' });
      await new Promise((resolve) => setTimeout(resolve, 100));
      assert.equal(asked, 1);
      const [question] = await ledger.pendingApprovals();
      assert.equal(question?.callId, 'ask-1');
      assert.equal(question?.ownerAlive, true);
      assert.equal((question?.request.arguments as { marker: string }).marker, 'a1', 'the request the person sees');
      const other = Ledger.open({ file: ledger.file });
      assert.deepEqual((await other.answer(question!.id, 'allow_once', 'cli:test')), { answer: 'allow_once', first: true });
      await other.close();
      const result = await pending;
      assert.equal(result.success, true, result.output);
      assert.match(result.decisions!.at(-1)!.reason, /given elsewhere/);
      assert.equal(fs.readFileSync(path.join(dir, 'asked.txt'), 'utf8'), 'a1\n');
      assert.equal((await ledger.get('ask-1', 'S'))?.state, 'done');
    } finally {
      await executor.close();
      await ledger.close();
    }
  });

  it('the handler answers first: its answer is recorded; closing while a question waits leaves it pending', async () => {
    const ledger = Ledger.open({ dir: path.join(dir, 'state6'), workspace: dir });
    const answering = executorWith(ledger, { confirmationHandler: () => 'deny' });
    const result = await answering.call('confirm_action', {}, { callId: 'h-1' });
    assert.equal(result.errorCode, 'CONFIRMATION_DENIED');
    const answered = (await ledger.events('h-1', 'S')).find((e) => e.kind === 'answered');
    assert.deepEqual((answered?.detail as { by: string }).by, 'handler');
    await answering.close();
    const waiting = executorWith(ledger, { confirmationHandler: () => new Promise<boolean>(() => {}) });
    const pending = waiting.call('confirm_action', {}, { callId: 'h-2' });
    await new Promise((resolve) => setTimeout(resolve, 50));
    await waiting.close();
    assert.equal((await pending).errorCode, 'ABORTED');
    assert.equal((await ledger.get('h-2', 'S'))?.state, 'pending');
    assert.deepEqual((await ledger.pendingApprovals()).map((q) => q.callId), ['h-2']);
    await ledger.close();
  });

  it('without a ledger nothing is recorded, and ledger options open one the executor closes', async () => {
    const executor = new ToolExecutor(registry, { workspaceRoot: dir, sweepLeftovers: false });
    assert.equal(executor.ledger, undefined);
    await executor.close();
    const owning = new ToolExecutor(registry, { workspaceRoot: dir, sweepLeftovers: false, ledger: { dir: path.join(dir, 'state7') } });
    assert.ok(owning.ledger!.file.startsWith(path.join(dir, 'state7')));
    const r = await owning.call('count_calls', {}, { callId: 'own-1' });
    assert.equal(r.success, true);
    assert.equal((await owning.ledger!.get('own-1', owning.session))?.state, 'done');
    await owning.close();
  });
});
