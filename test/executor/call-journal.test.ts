/**
 * The call journal (issue 31 items 3 and 5): what the executor writes to the ledger through it,
 * and the two codes the parallel tables disagreed on: a rate-limit refusal and a replaced
 * definition are gate refusals, stored `denied` and not run; a tool failure is `failed`.
 */
import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ToolExecutor } from 'toolgate';
import { fixtureRegistry, tempWorkspace } from '../helpers.js';

describe('the call journal', () => {
  const t = tempWorkspace();
  let executor: ToolExecutor;
  before(async () => {
    executor = new ToolExecutor(await fixtureRegistry(), {
      workspaceRoot: t.ws, sweepLeftovers: false, session: 'journal', rateLimitMaxWaitMs: 1, ledger: { dir: path.join(t.root, 'state') },
    });
  });
  after(async () => {
    await executor.close();
    t.cleanup();
  });

  const stateOf = async (callId: string) => (await executor.ledger!.get(callId, 'journal'))?.state;

  it('stores a call that ran `done`, with its decisions', async () => {
    const result = await executor.call('ping_rate_limited', {}, { callId: 'ran' });
    assert.equal(result.success, true, result.output);
    assert.equal(await stateOf('ran'), 'done');
  });

  it('stores a RATE_LIMITED refusal `denied` (a gate refused it; it did not run)', async () => {
    const result = await executor.call('ping_rate_limited', {}, { callId: 'limited' });
    assert.equal(result.errorCode, 'RATE_LIMITED', result.output);
    assert.equal(result.stopReason, 'not_run');
    assert.equal(result.outcome, 'recoverable');
    assert.equal(await stateOf('limited'), 'denied');
  });

  it('stores a TOOL_REPLACED refusal `denied` (the definition approved is not the one that would run)', async () => {
    const result = await executor.call('echo_arguments', { text: 'x' }, { callId: 'replaced', approvedRevision: 'an-older-definition' });
    assert.equal(result.errorCode, 'TOOL_REPLACED', result.output);
    assert.equal(result.outcome, 'fatal');
    assert.equal(await stateOf('replaced'), 'denied');
  });

  it('answers a retry of an ended call with its stored result, and refuses the same id for another request', async () => {
    const again = await executor.call('echo_arguments', { text: 'x' }, { callId: 'replaced', approvedRevision: 'an-older-definition' });
    assert.equal(again.errorCode, 'TOOL_REPLACED');
    const other = await executor.call('echo_arguments', { text: 'y' }, { callId: 'replaced' });
    assert.equal(other.errorCode, 'INVALID_ARGUMENTS');
    assert.match(other.error!, /was used before for another request/);
  });

  it('refuses a bad session option with INVALID_OPTIONS (a ledger session must be named)', async () => {
    const result = await executor.call('ping_rate_limited', {}, { callId: 'bad-session', session: '' as string });
    assert.equal(result.errorCode, 'INVALID_OPTIONS', result.output);
  });
});
