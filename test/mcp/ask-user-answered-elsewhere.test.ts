/**
 * `ask_user` for an MCP 2026-07-28 client, answered by the person elsewhere (the cockpit's
 * reply, `toolgate approvals deny ID`) before the client's retry. Before, the retry failed as
 * "answered already" and the call stayed `pending` (its question listed by `toolgate approvals`
 * for ever). Now the retry receives the person's answer (whatever its own form holds), the call
 * ends with it, and a second retry with the same state records nothing. Two in-process servers
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
    assert.equal((await ledger().get(c, s))?.state, 'done');
    assert.equal((await ledger().result(c, s))?.result.output, 'blue');
    assert.equal((await ledger().approval(q))?.answeredBy, 'cockpit:test');
    assert.ok(!(await waiting()).includes(q), 'the question is no longer listed as waiting');
    // The same state again: refused, the result unchanged.
    const replayed = await ask(a, args, { inputResponses: answer('red'), requestState: first.result!.requestState });
    assert.match(replayed.error?.message ?? '', /answered already/, JSON.stringify(replayed));
    assert.equal((await ledger().result(c, s))?.result.output, 'blue');
  });

  it('toolgate approvals deny before the retry: the retry receives the refusal, the call ends failed', async () => {
    const args = { question: 'Deploy now?' };
    const first = await ask(a, args);
    const { q, c, s } = named(first);
    const denied = await runCli(['approvals', 'deny', String(q), '--workspace', tmp.ws, '--state-dir', state]);
    assert.equal(denied.code, 0, denied.stderr);
    const retried = await ask(b, args, { inputResponses: answer('yes'), requestState: first.result!.requestState });
    assert.equal(retried.result?.isError, true, JSON.stringify(retried));
    assert.match(text(retried.result), /declined to answer/);
    assert.equal((await ledger().get(c, s))?.state, 'failed');
    assert.ok(!(await waiting()).includes(q));
  });

  it('two retries after an answer given elsewhere: one receives it, the other records nothing', async () => {
    const args = { question: 'Pick one', choices: ['left', 'right'] };
    const first = await ask(a, args);
    const { q, c, s } = named(first);
    await ledger().answer(q, JSON.stringify({ reply: 'left' }), 'cockpit:test');
    const requestState = first.result!.requestState;
    const both = await Promise.all([ask(a, args, { inputResponses: answer('right'), requestState }), ask(b, args, { inputResponses: answer('right'), requestState })]);
    const ok = both.filter((r) => r.result !== undefined && r.result.isError === undefined);
    const refused = both.filter((r) => r.error !== undefined);
    assert.equal(ok.length, 1, JSON.stringify(both));
    assert.equal(text(ok[0]!.result), 'left');
    assert.equal(refused.length, 1, JSON.stringify(both));
    assert.match(refused[0]!.error!.message, /answered already/);
    assert.equal((await ledger().result(c, s))?.result.output, 'left');
  });
});
