/**
 * A confirmation (an approval question, not `ask_user`) for an MCP 2026-07-28 client, answered
 * by the person elsewhere (the cockpit, `toolgate approvals allow|deny ID`) before the client's
 * retry. Before, the retry failed as "answered already": the call stayed `pending` (its
 * question listed by `toolgate approvals` for ever) or, ended by the CLI, its outcome never
 * reached the client. Now the person's answer wins whatever the retry's form holds: the retry
 * receives the call's real outcome (allowed: it runs once and its result is returned; denied:
 * a denied result), and a second retry with the same state runs nothing again. Two in-process
 * servers over one SQLite state folder (the retry lands on the other one); folders removed.
 * The same race for a 2025-11-25 client (the cockpit answers while the client's form is open):
 * the cockpit's answer wins over the form's.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { Client, type CallToolResult } from '@modelcontextprotocol/client';
import type { McpHttpHandler } from '@modelcontextprotocol/server';
import { createMcpServer, ToolSystem } from 'toolgate';
import { fixtureRegistry, inMemoryTransport, runCli, tempWorkspace, type TempWorkspace } from '../helpers.js';
import { callModern, CONFIRM_KEY as KEY, type Rpc, twoInstancesOnOneLedger } from './input-required-helpers.js';

const accept = { [KEY]: { action: 'accept', content: { approve: true } } };
const decline = { [KEY]: { action: 'decline' } };
const text = (result: Rpc['result']) => (result?.content ?? []).map((c) => c.text).join('');
const codeOf = (result: Rpc['result']) => (result as { _meta?: Record<string, unknown> } | undefined)?._meta?.['toolgate/errorCode'];

describe('MCP 2026-07-28: a confirmation answered elsewhere before the retry', () => {
  const instances = twoInstancesOnOneLedger();
  let tmp: TempWorkspace;
  let state: string;
  let systems: ToolSystem[];
  let a: McpHttpHandler;
  let b: McpHttpHandler;
  before(() => void ({ tmp, state, systems, a, b } = instances.get()));

  const ledger = () => systems[0]!.executor.ledger!;
  const write = (to: McpHttpHandler, args: Record<string, unknown>, more: Record<string, unknown> = {}) => callModern(to, { name: 'write_file', arguments: args, ...more });
  const named = (first: Rpc) => JSON.parse(Buffer.from(first.result!.requestState!.slice(5), 'base64url').toString('utf8')) as { q: number; c: string; s: string };
  const waiting = async () => (await ledger().pendingApprovals()).map((q) => q.id);
  /** How often the call was started (its `running` events), after every instance wrote its ends. */
  const runs = async (c: string, s: string) => {
    for (const system of systems) await system.executor.ledger!.flush();
    return (await ledger().events(c, s)).filter((e) => e.kind === 'running').length;
  };
  /** The first round: input required, nothing written; the names its state holds. */
  async function firstRound(args: { filepath: string; content: string }) {
    const first = await write(a, args);
    assert.equal(first.result?.resultType, 'input_required', JSON.stringify(first));
    assert.equal(fs.existsSync(path.join(tmp.ws, args.filepath)), false);
    const names = named(first);
    assert.ok((await waiting()).includes(names.q));
    return { ...names, requestState: first.result!.requestState! };
  }
  /** A replay of a retry: it runs nothing again (refused, or the same recorded end). */
  function assertReplay(replayed: Rpc, retried: Rpc) {
    if (replayed.error !== undefined) assert.match(replayed.error.message, /answered already/, JSON.stringify(replayed));
    else assert.deepEqual({ text: text(replayed.result), isError: replayed.result?.isError }, { text: text(retried.result), isError: retried.result?.isError });
  }

  it('allowed in the cockpit before the retry: a declining retry still runs the call, once, and gets its result', async () => {
    const args = { filepath: 'cockpit-allow.txt', content: 'allowed elsewhere\n' };
    const { q, c, s, requestState } = await firstRound(args);
    // The cockpit records an approval this way (src/cockpit/server.ts, recordOnly).
    assert.equal((await ledger().answer(q, 'allow_once', 'cockpit:test'))?.first, true);
    const retried = await write(b, args, { inputResponses: decline, requestState });
    assert.equal(retried.error, undefined, JSON.stringify(retried));
    assert.equal(retried.result?.isError, undefined, JSON.stringify(retried));
    assert.equal(fs.readFileSync(path.join(tmp.ws, args.filepath), 'utf8'), args.content);
    assert.equal(await runs(c, s), 1);
    assert.equal((await ledger().get(c, s))?.state, 'done');
    assert.equal((await ledger().approval(q))?.answeredBy, 'cockpit:test');
    assert.ok(!(await waiting()).includes(q), 'the question is no longer listed as waiting');
    const replayed = await write(a, args, { inputResponses: accept, requestState });
    assertReplay(replayed, retried);
    assert.equal(await runs(c, s), 1, 'the call ran once');
  });

  it('denied in the cockpit before the retry: an accepting retry gets a denied result, nothing runs', async () => {
    const args = { filepath: 'cockpit-deny.txt', content: 'never\n' };
    const { q, c, s, requestState } = await firstRound(args);
    await ledger().answer(q, 'deny', 'cockpit:test');
    const retried = await write(b, args, { inputResponses: accept, requestState });
    assert.equal(retried.error, undefined, JSON.stringify(retried));
    assert.equal(retried.result?.isError, true, JSON.stringify(retried));
    assert.equal(codeOf(retried.result), 'CONFIRMATION_DENIED', JSON.stringify(retried));
    assert.equal(fs.existsSync(path.join(tmp.ws, args.filepath)), false);
    assert.equal((await ledger().get(c, s))?.state, 'denied');
    assert.ok(!(await waiting()).includes(q));
    assertReplay(await write(a, args, { inputResponses: accept, requestState }), retried);
    assert.equal(fs.existsSync(path.join(tmp.ws, args.filepath)), false);
    assert.equal(await runs(c, s), 0);
  });

  it('toolgate approvals allow before the retry: the retry receives the call\'s result, the call ran once', async () => {
    const args = { filepath: 'cli-allow.txt', content: 'allowed by the cli\n' };
    const { q, c, s, requestState } = await firstRound(args);
    const allowed = await runCli(['approvals', 'allow', String(q), '--workspace', tmp.ws, '--state-dir', state]);
    assert.equal(allowed.code, 0, allowed.stderr);
    const retried = await write(b, args, { inputResponses: decline, requestState });
    assert.equal(retried.error, undefined, JSON.stringify(retried));
    assert.equal(retried.result?.isError, undefined, JSON.stringify(retried));
    assert.equal(fs.readFileSync(path.join(tmp.ws, args.filepath), 'utf8'), args.content);
    assert.equal((await ledger().get(c, s))?.state, 'done');
    assert.ok(!(await waiting()).includes(q));
    assertReplay(await write(a, args, { inputResponses: decline, requestState }), retried);
    assert.equal(await runs(c, s), 1);
  });

  it('toolgate approvals deny before the retry: an accepting retry gets a denied result, nothing runs', async () => {
    const args = { filepath: 'cli-deny.txt', content: 'never\n' };
    const { q, c, s, requestState } = await firstRound(args);
    const denied = await runCli(['approvals', 'deny', String(q), '--workspace', tmp.ws, '--state-dir', state]);
    assert.equal(denied.code, 0, denied.stderr);
    const retried = await write(b, args, { inputResponses: accept, requestState });
    assert.equal(retried.error, undefined, JSON.stringify(retried));
    assert.equal(retried.result?.isError, true, JSON.stringify(retried));
    assert.equal(codeOf(retried.result), 'CONFIRMATION_DENIED', JSON.stringify(retried));
    assert.equal(fs.existsSync(path.join(tmp.ws, args.filepath)), false);
    assert.equal((await ledger().get(c, s))?.state, 'denied');
    assert.ok(!(await waiting()).includes(q));
    assert.equal(await runs(c, s), 0);
  });

  it('two retries at once after an allow in the cockpit: the call runs once, neither retry loses the answer', async () => {
    const args = { filepath: 'cockpit-both.txt', content: 'once\n' };
    const { q, c, s, requestState } = await firstRound(args);
    await ledger().answer(q, 'allow_once', 'cockpit:test');
    const both = await Promise.all([write(a, args, { inputResponses: decline, requestState }), write(b, args, { inputResponses: decline, requestState })]);
    const ok = both.filter((r) => r.result !== undefined && r.result.isError === undefined);
    assert.ok(ok.length >= 1, JSON.stringify(both));
    for (const other of both) {
      if (ok.includes(other)) continue;
      // The other one is refused (answered already, or the call is in progress elsewhere): never a denial.
      assert.ok(other.error !== undefined || codeOf(other.result) === 'CALL_IN_PROGRESS', JSON.stringify(both));
    }
    assert.equal(fs.readFileSync(path.join(tmp.ws, args.filepath), 'utf8'), args.content);
    assert.equal(await runs(c, s), 1);
    assert.equal((await ledger().get(c, s))?.state, 'done');
  });
});

describe('MCP 2025-11-25: a confirmation answered elsewhere while the client\'s elicitation is open', () => {
  let tmp: ReturnType<typeof tempWorkspace>;
  let system: ToolSystem;
  before(async () => {
    tmp = tempWorkspace();
    system = new ToolSystem({ registry: await fixtureRegistry(), workspace: tmp.ws, executor: { ledger: { dir: path.join(tmp.root, 'state') }, outputStore: false, sweepLeftovers: false } });
  });
  after(async () => {
    await system.close();
    tmp.cleanup();
  });

  /** A 2025-11-25 client whose person answers `elsewhere` in the cockpit while the form is open, then `form` in the client. */
  async function exercise(filepath: string, elsewhere: 'allow_once' | 'deny', form: 'accept' | 'decline') {
    const ledger = system.executor.ledger!;
    const client = new Client({ name: 'elsewhere', version: '1.0.0' }, { capabilities: { elicitation: { form: {} } } });
    client.setRequestHandler('elicitation/create', async () => {
      const question = (await ledger.pendingApprovals()).find((q) => q.tool === 'write_file' && (q.request.arguments as { filepath?: string }).filepath === filepath);
      assert.ok(question !== undefined, 'the question is stored before the client is asked');
      await ledger.answer(question.id, elsewhere, 'cockpit:test');
      return form === 'accept' ? { action: 'accept', content: { approve: true } } : { action: 'decline' };
    });
    await client.connect(await inMemoryTransport(createMcpServer({ system, workspaceRoot: tmp.ws, tasks: false })));
    try {
      return (await client.callTool({ name: 'write_file', arguments: { filepath, content: 'x\n' } })) as CallToolResult;
    } finally {
      await client.close();
    }
  }

  it('allowed in the cockpit, declined in the client: the cockpit\'s answer wins, the call runs once', async () => {
    const result = await exercise('legacy-allow.txt', 'allow_once', 'decline');
    assert.notEqual(result.isError, true, JSON.stringify(result));
    assert.equal(fs.readFileSync(path.join(tmp.ws, 'legacy-allow.txt'), 'utf8'), 'x\n');
  });

  it('answered in the cockpit while the client\'s form is open: the elicitation is withdrawn before the result', async () => {
    const ledger = system.executor.ledger!;
    const filepath = 'legacy-withdrawn.txt';
    const client = new Client({ name: 'withdrawn', version: '1.0.0' }, { capabilities: { elicitation: { form: {} } } });
    let returned = false;
    let withdrawn: 'before the result' | 'after the result' | 'never' = 'never';
    client.setRequestHandler('elicitation/create', async (_request, ctx) => {
      const question = (await ledger.pendingApprovals()).find((q) => (q.request.arguments as { filepath?: string }).filepath === filepath);
      assert.ok(question !== undefined, 'the question is stored before the client is asked');
      await ledger.answer(question.id, 'allow_once', 'cockpit:test');
      // The person's form stays open here: the server must withdraw it (notifications/cancelled).
      await new Promise<void>((resolve) => {
        const bound = setTimeout(resolve, 15_000);
        ctx.mcpReq.signal.addEventListener('abort', () => {
          withdrawn = returned ? 'after the result' : 'before the result';
          clearTimeout(bound);
          resolve();
        });
      });
      return { action: 'decline' };
    });
    await client.connect(await inMemoryTransport(createMcpServer({ system, workspaceRoot: tmp.ws, tasks: false })));
    try {
      const result = (await client.callTool({ name: 'write_file', arguments: { filepath, content: 'x\n' } })) as CallToolResult;
      returned = true;
      assert.notEqual(result.isError, true, JSON.stringify(result));
      assert.equal(withdrawn, 'before the result');
    } finally {
      await client.close();
    }
  });

  it('denied in the cockpit, accepted in the client: the cockpit\'s answer wins, nothing runs', async () => {
    const result = await exercise('legacy-deny.txt', 'deny', 'accept');
    assert.equal(result.isError, true, JSON.stringify(result));
    assert.equal(result._meta?.['toolgate/errorCode'], 'CONFIRMATION_DENIED');
    assert.equal(fs.existsSync(path.join(tmp.ws, 'legacy-deny.txt')), false);
  });
});
