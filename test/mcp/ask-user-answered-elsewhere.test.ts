/**
 * `ask_user` for an MCP 2026-07-28 client, answered by the person elsewhere (the cockpit's
 * reply, `toolgate approvals deny ID`) before the client's retry. Before, the retry failed as
 * "answered already" and the call stayed `pending` (its question listed by `toolgate approvals`
 * for ever). Now the retry receives the person's answer (whatever its own form holds), the call
 * ends with it, and a second retry with the same state records nothing (it gets the recorded end).
 * `toolgate approvals deny` ends the waiting call itself (its asker waits for no one between the
 * rounds), and the retry receives that recorded refusal. Two in-process servers
 * over one SQLite state folder (the retry lands on the other one); the folders are removed.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { McpHttpHandler } from '@modelcontextprotocol/server';
import type { ToolSystem } from 'toolgate';
import { runCli, type TempWorkspace } from '../helpers.js';
import { callModern, type Rpc, twoInstancesOnOneLedger } from './input-required-helpers.js';

const KEY = 'toolgate_question';
const answer = (value: unknown) => ({ [KEY]: { action: 'accept', content: { answer: value } } });
const text = (result: { content?: { type: string; text?: string }[] } | undefined) => (result?.content ?? []).map((c) => c.text ?? '').join('');

describe('MCP 2026-07-28: an ask_user question answered elsewhere before the retry', () => {
  const instances = twoInstancesOnOneLedger();
  let tmp: TempWorkspace;
  let state: string;
  let systems: ToolSystem[];
  let a: McpHttpHandler;
  let b: McpHttpHandler;
  before(() => void ({ tmp, state, systems, a, b } = instances.get()));

  const ledger = () => systems[0]!.executor.ledger!;
  /** Commit what every instance queued: the instance that ran a call writes its end off the call's way. */
  const flush = async () => {
    for (const system of systems) await system.executor.ledger!.flush();
  };
  const ask = (to: McpHttpHandler, args: Record<string, unknown>, more: Record<string, unknown> = {}) => callModern(to, { name: 'ask_user', arguments: args, ...more });
  const named = (first: Rpc) => JSON.parse(Buffer.from(first.result!.requestState!.slice(5), 'base64url').toString('utf8')) as { q: number; c: string; s: string };
  const waiting = async () => (await ledger().pendingApprovals()).map((q) => q.id);

  it('a reply given in the cockpit before the retry is what the retry receives; the call ends done, no longer waiting', async () => {
    const args = { question: 'Which color?', choices: ['red', 'blue'] };
    const first = await ask(a, args);
    assert.equal(first.result?.resultType, 'input_required', JSON.stringify(first));
    const { q, c, s } = named(first);
    assert.ok((await waiting()).includes(q));
    // The cockpit stores a reply this way (src/cockpit/server.ts, answerQuestion).
    assert.equal((await ledger().answer(q, JSON.stringify({ reply: 'blue' }), 'cockpit:test'))?.first, true);
    // The client's retry carries its own form's answer: the person's counts.
    const retried = await ask(b, args, { inputResponses: answer('red'), requestState: first.result!.requestState });
    assert.equal(retried.error, undefined, JSON.stringify(retried));
    assert.equal(retried.result?.isError, undefined, JSON.stringify(retried));
    assert.equal(text(retried.result), 'blue');
    await flush();
    assert.equal((await ledger().get(c, s))?.state, 'done');
    assert.equal((await ledger().result(c, s))?.result.output, 'blue');
    assert.equal((await ledger().approval(q))?.answeredBy, 'cockpit:test');
    assert.ok(!(await waiting()).includes(q), 'the question is no longer listed as waiting');
    // The same state again: the recorded end, the result unchanged.
    const replayed = await ask(a, args, { inputResponses: answer('red'), requestState: first.result!.requestState });
    assert.equal(replayed.error, undefined, JSON.stringify(replayed));
    assert.equal(text(replayed.result), 'blue');
    assert.equal((await ledger().result(c, s))?.result.output, 'blue');
  });

  it('toolgate approvals deny before the retry: the call ends denied there (its asker waits for no one), and the retry receives that refusal', async () => {
    const args = { question: 'Deploy now?' };
    const first = await ask(a, args);
    const { q, c, s } = named(first);
    const denied = await runCli(['approvals', 'deny', String(q), '--workspace', tmp.ws, '--state-dir', state]);
    assert.equal(denied.code, 0, denied.stderr);
    const retried = await ask(b, args, { inputResponses: answer('yes'), requestState: first.result!.requestState });
    assert.equal(retried.result?.isError, true, JSON.stringify(retried));
    assert.match(text(retried.result), /declined to answer/);
    assert.equal((await ledger().get(c, s))?.state, 'denied');
    assert.ok(!(await waiting()).includes(q));
  });

  it('two retries after an answer given elsewhere: the call runs once with it; the other retry records nothing', async () => {
    const args = { question: 'Pick one', choices: ['left', 'right'] };
    const first = await ask(a, args);
    const { q, c, s } = named(first);
    await ledger().answer(q, JSON.stringify({ reply: 'left' }), 'cockpit:test');
    const requestState = first.result!.requestState;
    const both = await Promise.all([ask(a, args, { inputResponses: answer('right'), requestState }), ask(b, args, { inputResponses: answer('right'), requestState })]);
    const ok = both.filter((r) => r.result !== undefined && r.result.isError === undefined);
    assert.ok(ok.length >= 1, JSON.stringify(both));
    assert.equal(text(ok[0]!.result), 'left');
    // The other is refused (answered already, or the call in progress elsewhere), or replays the same end.
    for (const other of both) {
      if (other.error !== undefined) assert.match(other.error.message, /answered already/, JSON.stringify(both));
      else if (other.result?.isError === true) assert.equal((other.result as { _meta?: Record<string, unknown> })._meta?.['toolgate/errorCode'], 'CALL_IN_PROGRESS', JSON.stringify(both));
      else assert.equal(text(other.result), 'left', JSON.stringify(both));
    }
    await flush();
    assert.equal((await ledger().result(c, s))?.result.output, 'left');
  });
});
