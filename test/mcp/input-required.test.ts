/**
 * Issue 33, item 4: for an MCP 2026-07-28 client that can fill forms, a call that requires
 * confirmation is answered "input required" (its question stored in the ledger first, the
 * state naming it), and the client's retry carries the answer: checked against the stored
 * question (same tool, revision and arguments), answered once, run once; a forged or tampered
 * retry runs nothing, and a replayed one gets the call's recorded end. Two servers over one SQLite state folder stand for two
 * instances behind a load balancer: the retry lands on the other one. In-process servers
 * behind the SDK's `createMcpHandler` (fetch-shaped, no network); the folders are removed.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { Client, StreamableHTTPClientTransport, type CallToolResult } from '@modelcontextprotocol/client';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { createMcpHandler, type McpHttpHandler } from '@modelcontextprotocol/server';
import type { ToolSystem } from 'toolgate';
import { BIN, type TempWorkspace } from '../helpers.js';

import { callModern, CONFIRM_KEY as KEY, MODERN, MODERN_URL as URL_, type Rpc, twoInstancesOnOneLedger } from './input-required-helpers.js';

describe('MCP 2026-07-28: confirmation as input required, answered by a retry (issue 33, item 4)', () => {
  const instances = twoInstancesOnOneLedger();
  let tmp: TempWorkspace;
  let state: string;
  let systems: ToolSystem[];
  let a: McpHttpHandler;
  let b: McpHttpHandler;
  before(() => void ({ tmp, state, systems, a, b } = instances.get()));

  const call = (to: McpHttpHandler, params: Record<string, unknown>, capabilities?: Record<string, unknown>): Promise<Rpc> => callModern(to, params, capabilities);

  const accept = { [KEY]: { action: 'accept', content: { approve: true } } };

  /** The stored questions and calls of `tool`, from a fresh look at the shared ledger. */
  async function ledgerOf(filepath: string) {
    const ledger = systems[0]!.executor.ledger!;
    const calls = (await ledger.list()).filter((c) => c.tool === 'write_file' && (c.arguments as { filepath?: string }).filepath === filepath);
    const questions = [];
    for (const c of calls) {
      const pending = (await ledger.pendingApprovals()).filter((q) => q.callId === c.callId);
      questions.push(...pending);
    }
    return { calls, questions };
  }

  it('the first round stores the question and answers input required; the retry on another instance runs the call once', async () => {
    const args = { filepath: 'once.txt', content: 'written once\n' };
    const first = await call(a, { name: 'write_file', arguments: args });
    assert.equal(first.result?.resultType, 'input_required', JSON.stringify(first));
    assert.equal(fs.existsSync(path.join(tmp.ws, 'once.txt')), false, 'nothing ran before the answer');
    const asked = first.result!.inputRequests![KEY]!;
    assert.equal(asked.method, 'elicitation/create');
    assert.match(asked.params.message, /write_file/);
    const requestState = first.result!.requestState!;
    const before = await ledgerOf('once.txt');
    assert.equal(before.calls.length, 1);
    assert.equal(before.calls[0]!.state, 'pending');
    assert.equal(before.questions.length, 1, 'one question stored');
    // The retry goes to the other instance (same store).
    const retried = await call(b, { name: 'write_file', arguments: args, inputResponses: accept, requestState });
    assert.equal(retried.result?.isError, undefined, JSON.stringify(retried));
    assert.equal(fs.readFileSync(path.join(tmp.ws, 'once.txt'), 'utf8'), 'written once\n');
    await systems[1]!.executor.ledger!.flush(); // the instance that ran it writes its end off the call's way
    const ledger = systems[0]!.executor.ledger!;
    const stored = await ledger.get(before.calls[0]!.callId, before.calls[0]!.session);
    assert.equal(stored?.state, 'done');
    const question = await ledger.approval(before.questions[0]!.id);
    assert.equal(question?.answer, 'allow_once');
    assert.equal((await ledgerOf('once.txt')).calls.length, 1, 'one call recorded');
    // The same state again: the call's recorded end (idempotent by call id), nothing runs again.
    fs.rmSync(path.join(tmp.ws, 'once.txt'));
    const replayed = await call(a, { name: 'write_file', arguments: args, inputResponses: accept, requestState });
    assert.equal(replayed.error, undefined, JSON.stringify(replayed));
    assert.deepEqual(replayed.result?.content, retried.result?.content);
    assert.equal(fs.existsSync(path.join(tmp.ws, 'once.txt')), false, 'a replayed state ran the call again');
  });

  it('a retry that declines is refused, and the answer is stored', async () => {
    const args = { filepath: 'declined.txt', content: 'no\n' };
    const first = await call(a, { name: 'write_file', arguments: args });
    const requestState = first.result!.requestState!;
    const retried = await call(b, { name: 'write_file', arguments: args, inputResponses: { [KEY]: { action: 'decline' } }, requestState });
    assert.equal(retried.result?.isError, true, JSON.stringify(retried));
    assert.match(retried.result!.content![0]!.text, /denied/i);
    assert.equal(fs.existsSync(path.join(tmp.ws, 'declined.txt')), false);
  });

  it('a forged retry (the state of call A with the arguments of call B, or a tampered state) runs nothing', async () => {
    const argsA = { filepath: 'a.txt', content: 'harmless\n' };
    const argsB = { filepath: 'b.txt', content: 'something else\n' };
    const first = await call(a, { name: 'write_file', arguments: argsA });
    const requestState = first.result!.requestState!;
    const forged = await call(b, { name: 'write_file', arguments: argsB, inputResponses: accept, requestState });
    assert.equal(forged.error?.code, -32602, JSON.stringify(forged));
    assert.match(forged.error!.message, /another call/);
    const otherTool = await call(b, { name: 'confirm_action', arguments: {}, inputResponses: accept, requestState });
    assert.match(otherTool.error?.message ?? '', /another call/, JSON.stringify(otherTool));
    // Tampered: another question id, or garbage.
    const decoded = JSON.parse(Buffer.from(requestState.slice(5), 'base64url').toString('utf8')) as { q: number; c: string; s: string };
    const tampered = `tgq1.${Buffer.from(JSON.stringify({ ...decoded, q: decoded.q + 1000 })).toString('base64url')}`;
    const t1 = await call(b, { name: 'write_file', arguments: argsA, inputResponses: accept, requestState: tampered });
    assert.match(t1.error?.message ?? '', /names no stored question/, JSON.stringify(t1));
    const t2 = await call(b, { name: 'write_file', arguments: argsA, inputResponses: accept, requestState: 'not-a-state' });
    assert.match(t2.error?.message ?? '', /not one this server issued/, JSON.stringify(t2));
    assert.equal(fs.existsSync(path.join(tmp.ws, 'a.txt')), false);
    assert.equal(fs.existsSync(path.join(tmp.ws, 'b.txt')), false);
    // The real answer still works after the forgeries.
    const real = await call(a, { name: 'write_file', arguments: argsA, inputResponses: accept, requestState });
    assert.equal(real.result?.isError, undefined, JSON.stringify(real));
    assert.equal(fs.readFileSync(path.join(tmp.ws, 'a.txt'), 'utf8'), 'harmless\n');
  });

  it('a 2026-07-28 client without elicitation in its capabilities cannot answer through a retry (a requestState is refused, nothing runs)', async () => {
    const first = await call(a, { name: 'write_file', arguments: { filepath: 'noelicit.txt', content: 'x' }, requestState: 'tgq1.e30' }, {});
    assert.equal(first.error?.code, -32602, JSON.stringify(first));
    assert.match(first.error!.message, /needs elicitation/);
  });

  it('the SDK v2 client pinned to 2026-07-28 answers through its elicitation handler and retries by itself', async () => {
    const asked: string[] = [];
    const client = new Client({ name: 'mrtr', version: '1.0.0' }, { versionNegotiation: { mode: { pin: MODERN } }, capabilities: { elicitation: { form: {} } } });
    client.setRequestHandler('elicitation/create', async (request) => {
      asked.push(String(request.params.message));
      return { action: 'accept', content: { approve: true } };
    });
    let turn = 0;
    // Alternate instances: the retry lands on the other one.
    const fetchVia = (url: string | URL | Request, init?: RequestInit) => ((turn++ % 2 === 0 ? a : b).fetch(new Request(url, init)));
    await client.connect(new StreamableHTTPClientTransport(new URL(URL_), { fetch: fetchVia as typeof fetch }));
    try {
      const result = (await client.callTool({ name: 'write_file', arguments: { filepath: 'client.txt', content: 'by the client\n' } })) as CallToolResult;
      assert.notEqual(result.isError, true, JSON.stringify(result));
      assert.equal(asked.length, 1);
      assert.equal(fs.readFileSync(path.join(tmp.ws, 'client.txt'), 'utf8'), 'by the client\n');
    } finally {
      await client.close();
    }
  });

  it('over stdio, `toolgate mcp` asks a 2026-07-28 client through input required; a decline writes nothing, an accept writes once', async () => {
    for (const approve of [false, true]) {
      const asked: string[] = [];
      const client = new Client({ name: 'mrtr-stdio', version: '1.0.0' }, { versionNegotiation: { mode: { pin: MODERN } }, capabilities: { elicitation: { form: {} } } });
      client.setRequestHandler('elicitation/create', async (request) => {
        asked.push(String(request.params.message));
        return approve ? { action: 'accept', content: { approve: true } } : { action: 'decline' };
      });
      const env = { ...getDefaultEnvironment(), XDG_STATE_HOME: process.env.XDG_STATE_HOME! };
      await client.connect(new StdioClientTransport({ command: process.execPath, args: [BIN, 'mcp', '--workspace', tmp.ws, '--state-dir', path.join(tmp.root, 'stdio-state')], stderr: 'pipe', env }));
      try {
        assert.equal(client.getNegotiatedProtocolVersion(), MODERN);
        const result = (await client.callTool({ name: 'write_file', arguments: { filepath: 'stdio.txt', content: 'over stdio\n' } })) as CallToolResult;
        assert.equal(asked.length, 1, JSON.stringify(result));
        if (approve) {
          assert.notEqual(result.isError, true, JSON.stringify(result));
          assert.equal(fs.readFileSync(path.join(tmp.ws, 'stdio.txt'), 'utf8'), 'over stdio\n');
        } else {
          assert.equal(result.isError, true, JSON.stringify(result));
          assert.equal(fs.existsSync(path.join(tmp.ws, 'stdio.txt')), false);
        }
      } finally {
        await client.close();
      }
    }
  });
});
