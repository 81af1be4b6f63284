/**
 * `ask_user` of an MCP 2026-07-28 client under the approval mode `always-ask`: the call is
 * approved in a first input-required round, its question is asked in a second, and the
 * retry carrying the answer ends the call with it. Before the fix, the approved run could not
 * ask (it failed saying "call ask_user again"), and calling again asked for approval again: a
 * loop that never reached the question. The approval given is consumed by its call once: the
 * answer round asks nobody again, a new call is asked again, and neither answer counts for
 * other arguments or another call. Two in-process instances over one SQLite state folder (the
 * rounds land on either); the folder is removed.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { createMcpHandler, type McpHttpHandler } from '@modelcontextprotocol/server';
import { createMcpServer, ToolSystem } from 'toolgate';
import { fixtureRegistry, runCli, tempWorkspace, type TempWorkspace } from '../helpers.js';
import { callModern, CONFIRM_KEY, type Rpc } from './input-required-helpers.js';

const QUESTION_KEY = 'toolgate_question';
const approve = { [CONFIRM_KEY]: { action: 'accept', content: { approve: true } } };
const answer = (value: unknown) => ({ [QUESTION_KEY]: { action: 'accept', content: { answer: value } } });
const text = (rpc: Rpc) => (rpc.result?.content ?? []).map((c) => c.text ?? '').join('');
/** What a request state names (`tgq1.` + base64url JSON). */
const named = (rpc: Rpc) => JSON.parse(Buffer.from(rpc.result!.requestState!.slice(5), 'base64url').toString('utf8')) as { q: number; c: string; s: string };

describe('MCP 2026-07-28: ask_user under always-ask is approved once, then asked, then answered', () => {
  let tmp: TempWorkspace;
  let state: string;
  const systems: ToolSystem[] = [];
  let a: McpHttpHandler;
  let b: McpHttpHandler;

  before(async () => {
    tmp = tempWorkspace();
    state = path.join(tmp.root, 'state');
    const handler = async () => {
      const system = new ToolSystem({ registry: await fixtureRegistry(), workspace: tmp.ws, executor: { approvalMode: 'always-ask', ledger: { dir: state }, outputStore: false, sweepLeftovers: false } });
      systems.push(system);
      return createMcpHandler((ctx) => createMcpServer({ system, workspaceRoot: tmp.ws, tasks: false }, { era: ctx.era }));
    };
    a = await handler();
    b = await handler();
  });
  after(async () => {
    for (const system of systems) await system.close();
    tmp.cleanup();
  });

  const ledger = () => systems[0]!.executor.ledger!;
  const flush = async () => {
    for (const system of systems) await system.executor.ledger!.flush();
  };
  const ask = (to: McpHttpHandler, args: Record<string, unknown>, more: Record<string, unknown> = {}) => callModern(to, { name: 'ask_user', arguments: args, ...more });

  /** The approval round and the question round of a new ask_user call of `args`. */
  async function approvedAndAsked(args: Record<string, unknown>) {
    const first = await ask(a, args);
    assert.equal(first.result?.resultType, 'input_required', JSON.stringify(first));
    assert.ok(first.result?.inputRequests?.[CONFIRM_KEY], `the first round asks for approval: ${JSON.stringify(first)}`);
    const second = await ask(b, args, { inputResponses: approve, requestState: first.result!.requestState });
    assert.equal(second.error, undefined, JSON.stringify(second));
    assert.equal(second.result?.resultType, 'input_required', `the approved call asks its question: ${JSON.stringify(second)}`);
    assert.ok(second.result?.inputRequests?.[QUESTION_KEY], JSON.stringify(second));
    assert.equal(second.result?.inputRequests?.[CONFIRM_KEY], undefined, 'the approved call is not asked for approval again');
    assert.equal(second.result!.inputRequests![QUESTION_KEY]!.params.message, args.question);
    assert.equal(named(second).c, named(first).c, 'the question belongs to the approved call');
    return { first, second };
  }

  it('the approved call asks its question, and the answer round ends it with the answer, asking nobody again', async () => {
    const args = { question: 'Which color?', choices: ['red', 'blue'] };
    const { first, second } = await approvedAndAsked(args);
    const third = await ask(a, args, { inputResponses: answer('blue'), requestState: second.result!.requestState });
    assert.equal(third.error, undefined, JSON.stringify(third));
    assert.notEqual(third.result?.resultType, 'input_required', `the answer round asked again: ${JSON.stringify(third)}`);
    assert.equal(third.result?.isError, undefined, JSON.stringify(third));
    assert.equal(text(third), 'blue');
    await flush();
    const { c, s } = named(first);
    assert.equal((await ledger().get(c, s))?.state, 'done');
    assert.equal((await ledger().result(c, s))?.result.output, 'blue');
    assert.equal((await ledger().approval(named(first).q))?.answer, 'allow_once');
    assert.equal((await ledger().approval(named(second).q))?.answer, JSON.stringify({ reply: 'blue' }));

    // Either state again: the call's recorded end, nothing asked or recorded again.
    for (const [rpc, responses] of [[second, answer('red')], [first, approve]] as const) {
      const replayed = await ask(b, args, { inputResponses: responses, requestState: rpc.result!.requestState });
      assert.equal(replayed.error, undefined, JSON.stringify(replayed));
      assert.equal(text(replayed), 'blue', JSON.stringify(replayed));
    }
    assert.equal((await ledger().approval(named(second).q))?.answer, JSON.stringify({ reply: 'blue' }));

    // toolgate trace shows the approval and the question of the one call.
    const traced = await runCli(['trace', '--workspace', tmp.ws, '--state-dir', state, '--call', c]);
    assert.equal(traced.code, 0, traced.stderr);
    assert.match(traced.stdout, /ask_user@1\.0\.0 {2}done .*answer "blue" \(by mcp retry\)/);
  });

  it('a new call of the same arguments is asked for approval again (always-ask: an approval counts for its call only)', async () => {
    const args = { question: 'Again?', choices: ['yes', 'no'] };
    const { first, second } = await approvedAndAsked(args);
    assert.equal(text(await ask(b, args, { inputResponses: answer('yes'), requestState: second.result!.requestState })), 'yes');
    const again = await ask(a, args);
    assert.equal(again.result?.resultType, 'input_required', JSON.stringify(again));
    assert.ok(again.result?.inputRequests?.[CONFIRM_KEY], `a new call is asked for approval: ${JSON.stringify(again)}`);
    assert.notEqual(named(again).c, named(first).c);
  });

  it('neither round\'s state counts for other arguments or another call; the approval stays with its call', async () => {
    const args = { question: 'Deploy where?', choices: ['eu', 'us'] };
    const other = { question: 'Delete everything?', choices: ['yes', 'no'] };
    const { first, second } = await approvedAndAsked(args);
    // The question's state with other arguments, and with another tool: refused, nothing recorded.
    const otherArgs = await ask(b, other, { inputResponses: answer('yes'), requestState: second.result!.requestState });
    assert.match(otherArgs.error?.message ?? '', /another call/, JSON.stringify(otherArgs));
    const otherTool = await callModern(a, { name: 'write_file', arguments: { filepath: 'never.txt', content: 'x' }, inputResponses: approve, requestState: second.result!.requestState });
    assert.match(otherTool.error?.message ?? '', /another call/, JSON.stringify(otherTool));
    // The approval's state again, now that it is answered: refused while the call waits for its answer.
    const approvalAgain = await ask(b, other, { inputResponses: approve, requestState: first.result!.requestState });
    assert.ok(approvalAgain.error !== undefined, JSON.stringify(approvalAgain));
    // Another call of other arguments, approved: its question's state does not answer the first call.
    const { second: otherSecond } = await approvedAndAsked(other);
    const crossed = await ask(a, args, { inputResponses: answer('eu'), requestState: otherSecond.result!.requestState });
    assert.match(crossed.error?.message ?? '', /another call/, JSON.stringify(crossed));
    assert.equal((await ledger().approval(named(second).q))?.answer, undefined, 'a forged retry answered the question');
    // The real answer still counts.
    assert.equal(text(await ask(b, args, { inputResponses: answer('eu'), requestState: second.result!.requestState })), 'eu');
    assert.equal(text(await ask(a, other, { inputResponses: answer('no'), requestState: otherSecond.result!.requestState })), 'no');
  });

  it('a declined approval ends the call unasked; a declined question fails it', async () => {
    const args = { question: 'Proceed?' };
    const first = await ask(a, args);
    const refused = await ask(b, args, { inputResponses: { [CONFIRM_KEY]: { action: 'decline' } }, requestState: first.result!.requestState });
    assert.equal(refused.result?.isError, true, JSON.stringify(refused));
    assert.equal((refused.result as { _meta?: Record<string, unknown> })._meta?.['toolgate/errorCode'], 'CONFIRMATION_DENIED');
    const { second } = await approvedAndAsked({ question: 'Proceed now?' });
    const declined = await ask(a, { question: 'Proceed now?' }, { inputResponses: { [QUESTION_KEY]: { action: 'decline' } }, requestState: second.result!.requestState });
    assert.equal(declined.result?.isError, true, JSON.stringify(declined));
    assert.match(text(declined), /declined to answer/);
    await flush();
    assert.equal((await ledger().get(named(second).c, named(second).s))?.state, 'failed');
  });
});
