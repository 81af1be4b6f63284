/**
 * Issue 33, item 4: `ask_user` for an MCP 2026-07-28 client is an "input required" result (the
 * question as a form elicitation, its state naming the question stored in the ledger), and
 * the retry carries the answer: checked against the stored question (same call, same
 * question, an answer that fits it), counted once, the stored call ended with it; a forged or
 * concurrent retry records nothing, and a replayed one gets the recorded end. Two servers over one SQLite state folder stand
 * for two instances: the retry lands on the other one. A client without elicitation is told
 * how the person can answer (`--cockpit`, `toolgate approvals deny ID`), and with `--cockpit`
 * (`waitForAnswers`) its question waits for an answer given there. In-process servers behind
 * the SDK's `createMcpHandler` (no network) or the in-memory transport; the folders are removed.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { createMcpHandler, type McpHttpHandler } from '@modelcontextprotocol/server';
import { createMcpServer, ToolSystem } from 'toolgate';
import { fixtureRegistry, inMemoryTransport, runCli, tempWorkspace, type TempWorkspace } from '../helpers.js';
import { callModern, CONFIRM_KEY, type Rpc, twoInstancesOnOneLedger } from './input-required-helpers.js';

const KEY = 'toolgate_question';
const answer = (value: unknown) => ({ [KEY]: { action: 'accept', content: { answer: value } } });
const text = (result: { content?: { type: string; text?: string }[] } | undefined) => (result?.content ?? []).map((c) => c.text ?? '').join('');

describe('MCP 2026-07-28: ask_user as input required, answered by a retry (issue 33, item 4)', () => {
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
  /** The stored ask_user call and question a first round's state names. */
  async function stored(first: Rpc) {
    const decoded = JSON.parse(Buffer.from(first.result!.requestState!.slice(5), 'base64url').toString('utf8')) as { q: number; c: string; s: string };
    return { call: await ledger().get(decoded.c, decoded.s), question: await ledger().approval(decoded.q), decoded };
  }

  it('the first round stores the question and asks it as a form; the retry on another instance ends the call with the answer, once', async () => {
    const args = { question: 'Which color?', choices: ['red', 'blue'] };
    const first = await ask(a, args);
    assert.equal(first.result?.resultType, 'input_required', JSON.stringify(first));
    const asked = first.result!.inputRequests![KEY] as unknown as { method: string; params: { mode?: string; message: string; requestedSchema: { properties: { answer: { enum?: string[] } } } } };
    assert.equal(asked.method, 'elicitation/create');
    assert.equal(asked.params.message, 'Which color?');
    assert.deepEqual(asked.params.requestedSchema.properties.answer.enum, ['red', 'blue']);
    const before = await stored(first);
    assert.equal(before.call?.state, 'pending');
    assert.deepEqual(before.call?.arguments, args);
    assert.equal(before.question?.answer, undefined);
    assert.equal((before.question?.request as { kind?: string }).kind, 'question');

    const retried = await ask(b, args, { inputResponses: answer('blue'), requestState: first.result!.requestState });
    assert.equal(retried.result?.isError, undefined, JSON.stringify(retried));
    assert.equal(text(retried.result), 'blue');
    await flush(); // the instance that ran it writes its end off the call's way
    const after = await stored(first);
    assert.equal(after.call?.state, 'done');
    assert.equal(after.question?.answer, JSON.stringify({ reply: 'blue' }));
    assert.equal((await ledger().result(before.decoded.c, before.decoded.s))?.result.output, 'blue');

    // The same state again: the recorded end (idempotent by call id), nothing recorded again.
    const replayed = await ask(a, args, { inputResponses: answer('red'), requestState: first.result!.requestState });
    assert.equal(replayed.error, undefined, JSON.stringify(replayed));
    assert.equal(text(replayed.result), 'blue');
    assert.equal((await ledger().result(before.decoded.c, before.decoded.s))?.result.output, 'blue');
    assert.equal((await ledger().approval(before.decoded.q))?.answer, JSON.stringify({ reply: 'blue' }));

    // toolgate trace shows the question and the answer.
    const traced = await runCli(['trace', '--workspace', tmp.ws, '--state-dir', state, '--call', before.decoded.c]);
    assert.equal(traced.code, 0, traced.stderr);
    assert.match(traced.stdout, /ask_user@1\.0\.0 {2}done .*question "Which color\?" answer "blue" \(by mcp retry\)/);
  });

  it('a forged retry records nothing: the state of another question, an answer that does not fit, another tool, a tampered state', async () => {
    const argsA = { question: 'Deploy to which region?', choices: ['eu', 'us'] };
    const argsB = { question: 'Delete everything?', choices: ['yes', 'no'] };
    const first = await ask(a, argsA);
    const requestState = first.result!.requestState!;
    // The state of question A with the arguments of question B.
    const other = await ask(b, argsB, { inputResponses: answer('yes'), requestState });
    assert.match(other.error?.message ?? '', /another call/, JSON.stringify(other));
    // An answer that is not one of the choices: refused, and the question stays open.
    const unfit = await ask(b, argsA, { inputResponses: answer('mars'), requestState });
    assert.match(unfit.error?.message ?? '', /does not fit/, JSON.stringify(unfit));
    // The question's state sent with another tool, and an approval's answer key: refused.
    const otherTool = await callModern(b, { name: 'write_file', arguments: { filepath: 'x.txt', content: 'x' }, inputResponses: { [CONFIRM_KEY]: { action: 'accept', content: { approve: true } } }, requestState });
    assert.match(otherTool.error?.message ?? '', /another call/, JSON.stringify(otherTool));
    const decoded = JSON.parse(Buffer.from(requestState.slice(5), 'base64url').toString('utf8')) as { q: number; c: string; s: string };
    const tampered = `tgq1.${Buffer.from(JSON.stringify({ ...decoded, s: 'mcp_guessed' })).toString('base64url')}`;
    const t1 = await ask(b, argsA, { inputResponses: answer('eu'), requestState: tampered });
    assert.match(t1.error?.message ?? '', /names no stored question/, JSON.stringify(t1));
    assert.equal((await ledger().approval(decoded.q))?.answer, undefined, 'a forged retry answered the question');
    assert.equal((await ledger().get(decoded.c, decoded.s))?.state, 'pending');
    // An approval's state sent to ask_user: refused too.
    const approval = await callModern(a, { name: 'write_file', arguments: { filepath: 'never.txt', content: 'x' } });
    const crossed = await ask(b, argsA, { inputResponses: answer('eu'), requestState: approval.result!.requestState });
    assert.match(crossed.error?.message ?? '', /another call/, JSON.stringify(crossed));
    // The real answer still counts after the forgeries.
    const real = await ask(b, argsA, { inputResponses: answer('eu'), requestState });
    assert.equal(text(real.result), 'eu', JSON.stringify(real));
  });

  it('two retries with one state at once: one answer counts; the other is refused, or gets that same end', async () => {
    const args = { question: 'Pick one', choices: ['left', 'right'] };
    const first = await ask(a, args);
    const requestState = first.result!.requestState!;
    const both = await Promise.all([ask(a, args, { inputResponses: answer('left'), requestState }), ask(b, args, { inputResponses: answer('right'), requestState })]);
    const ok = both.filter((r) => r.result !== undefined && r.result.isError === undefined);
    assert.ok(ok.length >= 1, JSON.stringify(both));
    // The call runs once: the other retry is refused (answered already, the call in progress elsewhere) or replays the same end.
    for (const other of both) {
      if (other.error !== undefined) assert.match(other.error.message, /answered already/, JSON.stringify(both));
      else if (other.result?.isError === true) assert.equal((other.result as { _meta?: Record<string, unknown> })._meta?.['toolgate/errorCode'], 'CALL_IN_PROGRESS', JSON.stringify(both));
      else assert.equal(text(other.result), text(ok[0]!.result), JSON.stringify(both));
    }
    await flush();
    const { call, decoded } = await stored(first);
    assert.equal(call?.state, 'done');
    assert.equal((await ledger().result(decoded.c, decoded.s))?.result.output, text(ok[0]!.result));
  });

  it('several choices, a free answer, and a declined question', async () => {
    const multi = { question: 'Which files?', choices: ['a.txt', 'b.txt', 'c.txt'], multi: true };
    const m1 = await ask(a, multi);
    const schema = (m1.result!.inputRequests![KEY] as unknown as { params: { requestedSchema: { properties: { answer: { type: string; items?: { enum: string[] } } } } } }).params.requestedSchema.properties.answer;
    assert.equal(schema.type, 'array');
    assert.deepEqual(schema.items?.enum, multi.choices);
    const m2 = await ask(b, multi, { inputResponses: answer(['a.txt', 'c.txt']), requestState: m1.result!.requestState });
    assert.equal(text(m2.result), 'a.txt\nc.txt', JSON.stringify(m2));

    const free = { question: 'What should the release be called?' };
    const f1 = await ask(a, free);
    const f2 = await ask(b, free, { inputResponses: answer('Aurora'), requestState: f1.result!.requestState });
    assert.equal(text(f2.result), 'Aurora', JSON.stringify(f2));

    const d1 = await ask(a, free);
    const d2 = await ask(b, free, { inputResponses: { [KEY]: { action: 'decline' } }, requestState: d1.result!.requestState });
    assert.equal(d2.result?.isError, true, JSON.stringify(d2));
    assert.match(text(d2.result), /declined to answer/);
    await flush();
    const { call } = await stored(d1);
    assert.equal(call?.state, 'failed');
  });

  it('a 2026-07-28 client without elicitation is told how the person can answer', async () => {
    const result = await callModern(a, { name: 'ask_user', arguments: { question: 'Anyone there?' } }, {});
    assert.equal(result.result?.isError, true, JSON.stringify(result));
    assert.match(text(result.result), /cannot be asked/);
    assert.match(text(result.result), /toolgate mcp` with --cockpit/);
    assert.match(text(result.result), /toolgate approvals deny ID/);
  });
});

describe('MCP 2025-11-25: ask_user for a client without elicitation', () => {
  const tmp = tempWorkspace();
  const state = path.join(tmp.root, 'state');
  after(() => tmp.cleanup());

  async function connect(options: { ledger?: boolean; waitForAnswers?: boolean }) {
    const system = new ToolSystem({ registry: await fixtureRegistry(), workspace: tmp.ws, executor: { ledger: options.ledger === false ? false : { dir: state }, outputStore: false, sweepLeftovers: false } });
    const client = new Client({ name: 'no-elicitation', version: '1.0.0' }, { capabilities: {} });
    await client.connect(await inMemoryTransport(createMcpServer({ system, workspaceRoot: tmp.ws, waitForAnswers: options.waitForAnswers, tasks: false })));
    return { client, system, close: async () => { await client.close(); await system.close(); } };
  }

  it('is listed; a call fails at once with a message that says how to answer (--cockpit; without a ledger, the ledger too)', async () => {
    for (const ledger of [true, false]) {
      const { client, close } = await connect({ ledger });
      try {
        assert.ok((await client.listTools()).tools.some((t) => t.name === 'ask_user'));
        const result = (await client.callTool({ name: 'ask_user', arguments: { question: 'Anyone there?' } })) as CallToolResult;
        assert.equal(result.isError, true);
        assert.match(text(result), /this MCP client cannot be asked \(it declares no form elicitation\)/);
        assert.match(text(result), /toolgate mcp` with (the ledger \(without --no-ledger\) and )?--cockpit/);
        if (ledger) assert.match(text(result), /toolgate approvals deny ID/);
        else assert.match(text(result), /--no-ledger/);
      } finally {
        await close();
      }
    }
  });

  it('with --cockpit (waitForAnswers) the question waits in the ledger, and an answer given there is the result', async () => {
    const { client, system, close } = await connect({ waitForAnswers: true });
    try {
      const called = client.callTool({ name: 'ask_user', arguments: { question: 'Ship it?', choices: ['yes', 'no'] } });
      const ledger = system.executor.ledger!;
      let id: number | undefined;
      for (let look = 0; id === undefined && look < 1500; look++) {
        id = (await ledger.pendingApprovals()).find((q) => q.tool === 'ask_user' && q.answer === undefined)?.id;
        if (id === undefined) await new Promise((resolve) => setTimeout(resolve, 20));
      }
      assert.ok(id !== undefined, 'the question was never stored');
      assert.equal((await ledger.answer(id, JSON.stringify({ reply: 'yes' }), 'cockpit:test'))?.first, true);
      const result = (await called) as CallToolResult;
      assert.equal(result.isError, undefined, text(result));
      assert.equal(text(result), 'yes');
    } finally {
      await close();
    }
  });
});
