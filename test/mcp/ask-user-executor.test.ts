/**
 * `ask_user` of an MCP 2026-07-28 client goes through the executor like every other tool call
 * (issue 31, item 4; issue 33, item 4): both rounds are `system.execute` calls, so the call is
 * claimed and run by the executor of the instance that takes the retry, logged as a tool call,
 * given an OpenTelemetry span, and closed out by its journal. Before, the first round was a
 * preview and a store write, and the retry ended the stored call with a store write of its own:
 * no claim, no `tool_call` event, no span.
 *
 * And a retry is idempotent by call id: a retry whose `requestState` names a question whose call
 * has ended (answered by an earlier retry, in the cockpit, or by `toolgate approvals deny`) gets
 * the call's recorded end, for `ask_user` and for an approval alike, and nothing runs again.
 * Before, it was refused as "answered already".
 *
 * Two in-process servers over one SQLite state folder (the retry lands on the other one), and
 * `toolgate mcp` over stdio with the SDK v2 client pinned to 2026-07-28; folders are removed.
 */
import { after, before, beforeEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { context, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { Client, type CallToolResult } from '@modelcontextprotocol/client';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import type { McpHttpHandler } from '@modelcontextprotocol/server';
import { Ledger, type ToolSystem } from 'toolgate';
import { BIN, runCli, tempWorkspace, type TempWorkspace } from '../helpers.js';
import { callModern, CONFIRM_KEY, MODERN, type Rpc, twoInstancesOnOneLedger } from './input-required-helpers.js';

const KEY = 'toolgate_question';
const answer = (value: unknown) => ({ [KEY]: { action: 'accept', content: { answer: value } } });
const text = (result: Rpc['result'] | CallToolResult | undefined) => ((result?.content ?? []) as { text?: string }[]).map((c) => c.text ?? '').join('');
const named = (first: Rpc) => JSON.parse(Buffer.from(first.result!.requestState!.slice(5), 'base64url').toString('utf8')) as { q: number; c: string; s: string };

const spans = new InMemorySpanExporter();
const tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(spans)] });

describe('MCP 2026-07-28: ask_user runs through the executor; a retry of an ended call gets its recorded end', () => {
  const instances = twoInstancesOnOneLedger({ logs: true });
  let tmp: TempWorkspace;
  let state: string;
  let systems: ToolSystem[];
  let logs: Record<string, unknown>[][];
  let a: McpHttpHandler;
  let b: McpHttpHandler;
  before(() => {
    ({ tmp, state, systems, logs, a, b } = instances.get());
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
    trace.setGlobalTracerProvider(tracerProvider);
  });
  after(async () => {
    await tracerProvider.shutdown();
    trace.disable();
    context.disable();
  });
  beforeEach(() => spans.reset());

  const ledger = () => systems[0]!.executor.ledger!;
  const flush = async () => {
    for (const system of systems) await system.executor.ledger!.flush();
  };
  const ask = (to: McpHttpHandler, args: Record<string, unknown>, more: Record<string, unknown> = {}) => callModern(to, { name: 'ask_user', arguments: args, ...more });
  const kinds = async (c: string, s: string) => {
    await flush();
    return (await ledger().events(c, s)).map((e) => e.kind);
  };

  it('the retry on another instance is claimed, run, logged and traced by that instance\'s executor', async () => {
    const args = { question: 'Which color?', choices: ['red', 'blue'] };
    const first = await ask(a, args);
    assert.equal(first.result?.resultType, 'input_required', JSON.stringify(first));
    const { c, s } = named(first);
    assert.equal((await ledger().get(c, s))?.state, 'pending');
    const retried = await ask(b, args, { inputResponses: answer('blue'), requestState: first.result!.requestState });
    assert.equal(retried.result?.isError, undefined, JSON.stringify(retried));
    assert.equal(text(retried.result), 'blue');
    await flush();
    assert.equal((await ledger().get(c, s))?.state, 'done');
    assert.equal((await ledger().result(c, s))?.result.output, 'blue');
    // Claimed by the executor before its run (the claim writes the event `running`).
    assert.ok((await kinds(c, s)).includes('running'), `events: ${(await kinds(c, s)).join(', ')}`);
    // The executor of the instance that took the retry logged the call as a tool call.
    const logged = logs[1]!.filter((l) => l.event === 'tool_call' && l.callId === c);
    assert.equal(logged.length, 1, JSON.stringify(logs[1]!.filter((l) => l.callId === c)));
    assert.equal(logged[0]!.success, true);
    assert.equal(logged[0]!.tool, 'ask_user');
    // And gave it its span, as every executor call gets one.
    const traced = spans.getFinishedSpans().filter((span) => span.name === 'execute_tool ask_user' && span.attributes['gen_ai.tool.call.id'] === c);
    assert.ok(traced.length >= 1, `spans: ${spans.getFinishedSpans().map((span) => span.name).join(', ')}`);
  });

  it('the same retry again, on either instance and whatever its form holds, gets the recorded end', async () => {
    const args = { question: 'Pick a side', choices: ['left', 'right'] };
    const first = await ask(a, args);
    const requestState = first.result!.requestState;
    const { c, s } = named(first);
    const retried = await ask(b, args, { inputResponses: answer('left'), requestState });
    assert.equal(text(retried.result), 'left', JSON.stringify(retried));
    await flush(); // the instance that ran it writes its end off the call's way: the call has ended now
    for (const [to, form] of [[a, answer('left')], [b, answer('right')]] as const) {
      const replayed = await ask(to, args, { inputResponses: form, requestState });
      assert.equal(replayed.error, undefined, JSON.stringify(replayed));
      assert.equal(replayed.result?.isError, undefined, JSON.stringify(replayed));
      assert.equal(text(replayed.result), 'left');
    }
    assert.equal((await ledger().result(c, s))?.result.output, 'left');
    assert.ok((await kinds(c, s)).includes('replayed'));
    // A forged replay is still refused: the state with other arguments.
    const forged = await ask(a, { question: 'Something else?' }, { inputResponses: answer('x'), requestState });
    assert.match(forged.error?.message ?? '', /another call/, JSON.stringify(forged));
  });

  it('answered in the cockpit and ended by one retry: a second retry gets that end, not a refusal', async () => {
    const args = { question: 'Which branch?', choices: ['main', 'dev'] };
    const first = await ask(a, args);
    const { q, c, s } = named(first);
    assert.equal((await ledger().answer(q, JSON.stringify({ reply: 'dev' }), 'cockpit:test'))?.first, true);
    const requestState = first.result!.requestState;
    const retried = await ask(b, args, { inputResponses: answer('main'), requestState });
    assert.equal(text(retried.result), 'dev', JSON.stringify(retried));
    await flush();
    const again = await ask(a, args, { inputResponses: answer('main'), requestState });
    assert.equal(again.error, undefined, JSON.stringify(again));
    assert.equal(text(again.result), 'dev');
    assert.equal((await ledger().get(c, s))?.state, 'done');
  });

  it('refused with toolgate approvals deny: every retry gets the recorded refusal', async () => {
    const args = { question: 'Deploy now?' };
    const first = await ask(a, args);
    const { q, c, s } = named(first);
    const denied = await runCli(['approvals', 'deny', String(q), '--workspace', tmp.ws, '--state-dir', state]);
    assert.equal(denied.code, 0, denied.stderr);
    const requestState = first.result!.requestState;
    const retried = await ask(b, args, { inputResponses: answer('yes'), requestState });
    assert.equal(retried.error, undefined, JSON.stringify(retried));
    assert.equal(retried.result?.isError, true, JSON.stringify(retried));
    const again = await ask(a, args, { inputResponses: answer('yes'), requestState });
    assert.equal(again.error, undefined, JSON.stringify(again));
    assert.deepEqual({ text: text(again.result), isError: again.result?.isError }, { text: text(retried.result), isError: true });
    assert.notEqual((await ledger().get(c, s))?.state, 'pending');
  });

  it('an approval answered by its retry: the same retry again gets the recorded result, and nothing runs again', async () => {
    const args = { filepath: 'replayed.txt', content: 'written once\n' };
    const accept = { [CONFIRM_KEY]: { action: 'accept', content: { approve: true } } };
    const first = await callModern(a, { name: 'write_file', arguments: args });
    assert.equal(first.result?.resultType, 'input_required', JSON.stringify(first));
    const { c, s } = named(first);
    const requestState = first.result!.requestState;
    const retried = await callModern(b, { name: 'write_file', arguments: args, inputResponses: accept, requestState });
    assert.equal(retried.result?.isError, undefined, JSON.stringify(retried));
    fs.rmSync(path.join(tmp.ws, 'replayed.txt'));
    await flush();
    const again = await callModern(a, { name: 'write_file', arguments: args, inputResponses: accept, requestState });
    assert.equal(again.error, undefined, JSON.stringify(again));
    assert.deepEqual({ text: text(again.result), isError: again.result?.isError }, { text: text(retried.result), isError: undefined });
    assert.equal(fs.existsSync(path.join(tmp.ws, 'replayed.txt')), false, 'the replay ran the call again');
    assert.equal((await kinds(c, s)).filter((k) => k === 'running').length, 1);
  });
});

describe('MCP 2026-07-28 over stdio: ask_user answered through input required is an executor call', () => {
  const tmp = tempWorkspace();
  const stateDir = path.join(tmp.root, 'stdio-state');
  after(() => tmp.cleanup());

  it('the SDK v2 client answers the question form and retries; the ledger shows the call claimed and done', async () => {
    const asked: string[] = [];
    const client = new Client({ name: 'ask-stdio', version: '1.0.0' }, { versionNegotiation: { mode: { pin: MODERN } }, capabilities: { elicitation: { form: {} } } });
    client.setRequestHandler('elicitation/create', async (request) => {
      asked.push(String(request.params.message));
      return { action: 'accept', content: { answer: 'blue' } };
    });
    const env = { ...getDefaultEnvironment(), XDG_STATE_HOME: process.env.XDG_STATE_HOME! };
    await client.connect(new StdioClientTransport({ command: process.execPath, args: [BIN, 'mcp', '--workspace', tmp.ws, '--state-dir', stateDir], stderr: 'pipe', env }));
    let result: CallToolResult;
    try {
      assert.equal(client.getNegotiatedProtocolVersion(), MODERN);
      result = (await client.callTool({ name: 'ask_user', arguments: { question: 'Which color?', choices: ['red', 'blue'] } })) as CallToolResult;
    } finally {
      await client.close();
    }
    assert.deepEqual(asked, ['Which color?']);
    assert.notEqual(result.isError, true, JSON.stringify(result));
    assert.equal(text(result), 'blue');
    const ledger = Ledger.open({ dir: stateDir, workspace: tmp.ws });
    try {
      const calls = (await ledger.list()).filter((call) => call.tool === 'ask_user');
      assert.equal(calls.length, 1, JSON.stringify(calls));
      const [call] = calls;
      assert.equal(call!.state, 'done');
      assert.equal((await ledger.result(call!.callId, call!.session))?.result.output, 'blue');
      const events = (await ledger.events(call!.callId, call!.session)).map((e) => e.kind);
      assert.ok(events.includes('running'), `events: ${events.join(', ')}`);
    } finally {
      await ledger.close();
    }
  });
});
