/**
 * Over MCP, a call that asks is asked of the MCP client, never of the confirmation handler the
 * embedder gave its executor (`executor.confirmationHandler`: a terminal prompt, or one that
 * allows everything). A call's `confirmationHandler` left out falls back to the executor's
 * (`ToolExecutor`), so every call `createMcpServer` runs names its own: elicitation of a
 * 2025-11-25 client that declared it, an input-required result for a 2026-07-28 one, a wait
 * in the ledger for an answer given elsewhere, or nobody (`null`: refused,
 * `CONFIRMATION_REQUIRED`).
 *
 * Each case has an embedder's handler that would allow the call and records being asked: it
 * is never asked, and a client that cannot be asked gets a refusal, the tool not run. Covered:
 * ordinary calls (both revisions, with and without elicitation, with and without a ledger),
 * `request_tools` (lazy domains) and skills reads under the approval mode `always-ask`, and
 * the answer round of a 2026-07-28 `ask_user` when the session's approval mode became
 * `always-ask` between rounds (before the fix, these four reached the embedder's handler,
 * which allowed them). In-process servers over the in-memory transport and `createMcpHandler`;
 * the folders are removed.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ElicitRequestSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { createMcpHandler } from '@modelcontextprotocol/server';
import { createMcpServer, setSessionApprovalMode, ToolSystem, type ConfirmationHandler } from 'toolgate';
import { inMemoryTransport, portedRegistry, tempWorkspace, type TempWorkspace } from '../helpers.js';
import { callModern, CONFIRM_KEY } from './input-required-helpers.js';

const text = (result: { content?: Array<{ type: string; text?: string }> } | undefined) => (result?.content ?? []).map((c) => c.text ?? '').join('');
const codeOf = (result: { _meta?: Record<string, unknown> } | undefined) => result?._meta?.['toolgate/errorCode'];

describe('MCP: a call that asks goes to the MCP client, never to the embedder\'s confirmation handler', () => {
  let tmp: TempWorkspace;
  let config: string;
  const savedConfig = process.env.XDG_CONFIG_HOME;
  /** The tools the embedder's handler was asked about (it allows each). */
  const embedderAsked: string[] = [];
  const embedder: ConfirmationHandler = (request) => {
    embedderAsked.push(request.tool);
    return 'allow_once';
  };
  const systems: ToolSystem[] = [];
  const clients: Client[] = [];
  let states = 0;

  before(() => {
    tmp = tempWorkspace();
    // A user skill, for the skills extension (the catalog reads the user's config folder from the environment).
    config = path.join(tmp.root, 'config');
    const skill = path.join(config, 'toolgate', 'skills', 'release-notes');
    fs.mkdirSync(skill, { recursive: true });
    fs.writeFileSync(path.join(skill, 'SKILL.md'), '---\nname: release-notes\ndescription: Release notes. Use it for release notes.\n---\n# Release notes\n');
    process.env.XDG_CONFIG_HOME = config;
  });
  after(async () => {
    await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
    for (const system of systems) await system.close();
    if (savedConfig === undefined) delete process.env.XDG_CONFIG_HOME;
    else process.env.XDG_CONFIG_HOME = savedConfig;
    tmp.cleanup();
  });

  /** A tool system whose executor has the embedder's handler; with `ledger`, a new state folder. */
  async function system(options: { ledger?: boolean; approvalMode?: 'always-ask' } = {}): Promise<ToolSystem> {
    const made = new ToolSystem({
      registry: await portedRegistry(), workspace: tmp.ws, configEnv: { ...process.env, XDG_CONFIG_HOME: config },
      executor: { confirmationHandler: embedder, approvalMode: options.approvalMode, ledger: options.ledger === true ? { dir: path.join(tmp.root, `state-${++states}`) } : false, outputStore: false, sweepLeftovers: false },
    });
    systems.push(made);
    return made;
  }

  /** A 2025-11-25 client over the in-memory transport; with `consent`, it declares form elicitation and answers so. */
  async function client2025(on: ToolSystem, consent: 'accept' | 'decline' | undefined, more: { lazyDomains?: boolean; answerWaitMs?: number } = {}) {
    const asked: string[] = [];
    const client = new Client({ name: 'embedder-handler', version: '1.0.0' }, { capabilities: consent === undefined ? {} : { elicitation: { form: {} } } });
    if (consent !== undefined) {
      client.setRequestHandler(ElicitRequestSchema, async (request) => {
        asked.push(String(request.params.message));
        return consent === 'accept' ? { action: 'accept', content: { approve: true } } : { action: 'decline' };
      });
    }
    clients.push(client);
    await client.connect(await inMemoryTransport(createMcpServer({ system: on, workspaceRoot: tmp.ws, tasks: false, ...more })));
    return { client, asked };
  }

  const call = async (client: Client, name: string, args: Record<string, unknown>) => (await client.callTool({ name, arguments: args })) as CallToolResult;

  it('2025-11-25, the client elicits: the client is asked, its no counts, the embedder is not asked', async () => {
    const on = await system();
    const { client, asked } = await client2025(on, 'decline');
    const result = await call(client, 'confirm_action', { value: 'declined' });
    assert.equal(result.isError, true, text(result));
    assert.equal(codeOf(result), 'CONFIRMATION_DENIED');
    assert.equal(asked.length, 1);
    assert.deepEqual(embedderAsked, []);
    const yes = await client2025(on, 'accept');
    assert.equal(text(await call(yes.client, 'confirm_action', { value: 'by the client' })), 'confirmed by the client');
    assert.equal(yes.asked.length, 1);
    assert.deepEqual(embedderAsked, []);
  });

  it('2025-11-25, the client cannot elicit: refused without a ledger, and after the wait with one; the call does not run', async () => {
    const bare = await client2025(await system(), undefined);
    const refused = await call(bare.client, 'confirm_action', { value: 'nobody' });
    assert.equal(refused.isError, true, text(refused));
    assert.equal(codeOf(refused), 'CONFIRMATION_REQUIRED');
    assert.doesNotMatch(text(refused), /confirmed/);
    const ledgered = await client2025(await system({ ledger: true }), undefined, { answerWaitMs: 200 });
    const waited = await call(ledgered.client, 'confirm_action', { value: 'nobody' });
    assert.equal(codeOf(waited), 'CONFIRMATION_REQUIRED', text(waited));
    assert.match(text(waited), /nobody answered question \d+ within 200 ms/);
    assert.deepEqual(embedderAsked, []);
  });

  it('2026-07-28: a client that fills forms gets input required; one that cannot is refused; the embedder is not asked', async () => {
    const withLedger = await system({ ledger: true });
    const handler = createMcpHandler((ctx) => createMcpServer({ system: withLedger, workspaceRoot: tmp.ws, tasks: false }, { era: ctx.era }));
    const first = await callModern(handler, { name: 'confirm_action', arguments: { value: 'modern' } });
    assert.equal(first.result?.resultType, 'input_required', JSON.stringify(first));
    assert.ok(first.result?.inputRequests?.[CONFIRM_KEY]);
    const bare = await system();
    const noLedger = createMcpHandler((ctx) => createMcpServer({ system: bare, workspaceRoot: tmp.ws, tasks: false }, { era: ctx.era }));
    for (const capabilities of [{}, { elicitation: { form: {} } }]) {
      const refused = await callModern(noLedger, { name: 'confirm_action', arguments: { value: 'modern' } }, capabilities);
      assert.equal(refused.result?.isError, true, JSON.stringify(refused));
      assert.equal(codeOf(refused.result as never), 'CONFIRMATION_REQUIRED');
    }
    assert.deepEqual(embedderAsked, []);
  });

  it('request_tools (lazy domains) under always-ask: the client is asked, or the call is refused', async () => {
    const on = await system({ approvalMode: 'always-ask' });
    const bare = await client2025(on, undefined, { lazyDomains: true });
    const refused = await call(bare.client, 'request_tools', { domains: ['git'], reason: 'to see the history' });
    assert.equal(codeOf(refused), 'CONFIRMATION_REQUIRED', text(refused));
    assert.ok(!(await bare.client.listTools()).tools.some((t) => t.name === 'git_log'), 'the domain stayed hidden');
    const asking = await client2025(on, 'accept', { lazyDomains: true });
    const answered = await call(asking.client, 'request_tools', { domains: ['git'], reason: 'to see the history' });
    assert.notEqual(answered.isError, true, text(answered));
    assert.equal(asking.asked.length, 1);
    assert.deepEqual(embedderAsked, []);
  });

  it('a skill read under always-ask: the client is asked, or the read is refused', async () => {
    const on = await system({ approvalMode: 'always-ask' });
    const bare = await client2025(on, undefined);
    await assert.rejects(bare.client.readResource({ uri: 'skill://release-notes/SKILL.md' }), /read_skill did not read/);
    const asking = await client2025(on, 'accept');
    const read = await asking.client.readResource({ uri: 'skill://release-notes/SKILL.md' });
    assert.match(String((read.contents[0] as { text?: string }).text), /# Release notes/);
    assert.equal(asking.asked.length, 1);
    assert.deepEqual(embedderAsked, []);
  });

  it('2026-07-28 ask_user: a gate that asks in the answer round refuses the call; nobody else answers for the client', async () => {
    const on = await system({ ledger: true });
    const handler = createMcpHandler((ctx) => createMcpServer({ system: on, workspaceRoot: tmp.ws, tasks: false }, { era: ctx.era }));
    const args = { question: 'Which color?', choices: ['red', 'blue'] };
    const first = await callModern(handler, { name: 'ask_user', arguments: args });
    assert.equal(first.result?.resultType, 'input_required', JSON.stringify(first));
    // Between the rounds, a person sets every session to always-ask (the cockpit does so through the ledger).
    await setSessionApprovalMode(on.executor.ledger!, '*', 'always-ask', 'test');
    const retried = await callModern(handler, {
      name: 'ask_user', arguments: args, requestState: first.result!.requestState,
      inputResponses: { toolgate_question: { action: 'accept', content: { answer: 'blue' } } },
    });
    assert.equal(retried.result?.isError, true, JSON.stringify(retried));
    assert.equal(codeOf(retried.result as never), 'CONFIRMATION_REQUIRED');
    assert.match(text(retried.result), /ask_user did not run: a gate asks for approval of this call now/);
    assert.deepEqual(embedderAsked, []);
  });
});
