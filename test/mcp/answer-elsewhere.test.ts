/**
 * Issue 34, item 3: an MCP client without elicitation, on a server with a ledger, is not
 * refused at once: the call's question waits in the ledger (bounded by `answerWaitMs`) for an
 * answer given elsewhere (`toolgate approvals allow ID`, the cockpit), and the client is told
 * the question's id and how to answer it at once (a log message, and a progress notification
 * when it sent a token). A question nobody answers in time refuses the call with a message
 * that says how to answer next time; without a ledger the refusal names the ways to allow it.
 * In-process servers over the in-memory transport, driven by the SDK v1 `Client`; the
 * folders are removed.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { LoggingMessageNotificationSchema, type CallToolResult, type Progress } from '@modelcontextprotocol/sdk/types.js';
import { createMcpServer, ToolSystem } from 'toolgate';
import { fixtureRegistry, inMemoryTransport, runCli, tempWorkspace } from '../helpers.js';

function text(result: CallToolResult): string {
  return result.content.map((c) => (c.type === 'text' ? c.text : '')).join('');
}

describe('MCP: a client without elicitation waits for an answer given elsewhere (issue 34, item 3)', () => {
  let tmp: ReturnType<typeof tempWorkspace>;
  let state: string;
  before(() => {
    tmp = tempWorkspace();
    state = path.join(tmp.root, 'state');
  });
  after(() => tmp.cleanup());

  async function connect(options: { answerWaitMs?: number; ledger?: boolean; cockpitUrl?: string }) {
    const system = new ToolSystem({ registry: await fixtureRegistry(), workspace: tmp.ws, executor: { ledger: options.ledger === false ? false : { dir: state }, outputStore: false, sweepLeftovers: false } });
    const client = new Client({ name: 'no-elicitation', version: '1.0.0' }, { capabilities: {} });
    const logs: unknown[] = [];
    client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => {
      logs.push(n.params.data);
    });
    await client.connect(await inMemoryTransport(createMcpServer({ system, workspaceRoot: tmp.ws, answerWaitMs: options.answerWaitMs, cockpitUrl: options.cockpitUrl, tasks: false })));
    return { client, logs, system, close: async () => { await client.close(); await system.close(); } };
  }

  it('the question waits; the client is told its id; `toolgate approvals allow ID` from another process runs the call', async () => {
    const { client, logs, close } = await connect({ cockpitUrl: 'http://127.0.0.1:9/' });
    try {
      const progress: Progress[] = [];
      let answered: Promise<unknown> | undefined;
      const called = client.callTool({ name: 'confirm_action', arguments: { value: 'elsewhere' } }, undefined, {
        onprogress: (p) => {
          progress.push(p);
          const id = /toolgate approvals allow (\d+)/.exec(p.message ?? '')?.[1];
          if (id !== undefined && answered === undefined) answered = runCli(['approvals', 'allow', id, '--workspace', tmp.ws, '--state-dir', state]);
        },
      });
      const result = (await called) as CallToolResult;
      assert.ok(answered, JSON.stringify(progress));
      assert.equal(((await answered) as { code: number }).code, 0);
      assert.equal(result.isError, undefined, text(result));
      assert.equal(text(result), 'confirmed elsewhere');
      const told = logs.find((d) => typeof d === 'string' && /question \d+ waits/.test(d)) as string | undefined;
      assert.ok(told, JSON.stringify(logs));
      assert.match(told, /toolgate approvals allow \d+/);
      // (s21) It names the workspace the answer must be given in, not "the same --workspace".
      assert.ok(told.includes(` --workspace ${tmp.ws}\``), told);
      assert.match(told, /cockpit at http:\/\/127\.0\.0\.1:9\//);
    } finally {
      await close();
    }
  });

  it('a question nobody answers in time refuses the call, saying how to answer; it is not remembered as a no', async () => {
    const { client, system, close } = await connect({ answerWaitMs: 300 });
    try {
      const result = (await client.callTool({ name: 'confirm_action', arguments: { value: 'late' } })) as CallToolResult;
      assert.equal(result.isError, true);
      assert.equal(result._meta?.['toolgate/errorCode'], 'CONFIRMATION_REQUIRED');
      assert.match(text(result), /nobody answered question \d+ within 300 ms, so the call did not run/);
      assert.match(text(result), /toolgate approvals allow ID/);
      assert.ok(text(result).includes(`toolgate approvals allow ID --workspace ${tmp.ws}\``), text(result));
      assert.match(text(result), /toolgate approvals deny ID/);
      assert.match(text(result), /restart `toolgate mcp` with --cockpit/);
      assert.match(text(result), /--yes/);
      // Not a person's no: the same call asks again (and waits again).
      const again = (await client.callTool({ name: 'confirm_action', arguments: { value: 'late' } })) as CallToolResult;
      assert.match(text(again), /nobody answered question \d+/);
      const id = Number(/question (\d+)/.exec(text(again))![1]);
      const question = await system.executor.ledger!.approval(id);
      assert.equal(question?.answeredBy, 'handler (no answer)', JSON.stringify(question));
      // (s21) What the store keeps, and so `toolgate trace`, agrees with the result: nobody said no.
      const stored = await system.executor.ledger!.get(question!.callId, question!.session);
      assert.equal(stored?.errorCode, 'CONFIRMATION_REQUIRED', JSON.stringify(stored));
    } finally {
      await close();
    }
  });

  it('without a ledger the refusal is at once and names the ledger, the cockpit and --yes', async () => {
    const { client, close } = await connect({ ledger: false });
    try {
      const result = (await client.callTool({ name: 'confirm_action', arguments: {} })) as CallToolResult;
      assert.equal(result.isError, true);
      assert.match(text(result), /--no-ledger/);
      assert.match(text(result), /--cockpit/);
      assert.match(text(result), /--yes/);
    } finally {
      await close();
    }
  });
});
