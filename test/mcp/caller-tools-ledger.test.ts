/**
 * Over MCP with lazy domains, request_tools and the TOOL_HIDDEN refusal are calls of the
 * executor like every other: recorded in the ledger with their decisions, and a policy rule
 * can deny request_tools. The MCP behaviour stays: request_tools answered at once, a hidden
 * tool's call a tool result (isError) naming request_tools and the domain.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { createMcpServer, Ledger, ToolSystem } from 'toolgate';
import { inMemoryTransport, tempWorkspace } from '../helpers.js';

const text = (result: CallToolResult) => result.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');

describe('request_tools and TOOL_HIDDEN over MCP are ledger calls', () => {
  const tmp = tempWorkspace();
  const policyFile = path.join(tmp.root, 'policy.toml');
  let ledger: Ledger;
  let system: ToolSystem;
  const clients: Client[] = [];
  before(async () => {
    fs.writeFileSync(policyFile, '');
    ledger = Ledger.open({ dir: path.join(tmp.root, 'state'), workspace: tmp.ws });
    system = new ToolSystem({ workspace: tmp.ws, executor: { ledger, policy: { user: policyFile, workspace: false } } });
    await system.start();
  });
  after(async () => {
    await Promise.all(clients.map((c) => c.close()));
    await system.close();
    await ledger.close();
    tmp.cleanup();
  });
  const connect = async () => {
    const client = new Client({ name: 'toolgate-test', version: '1.0.0' });
    clients.push(client);
    await client.connect(await inMemoryTransport(createMcpServer({ system, workspaceRoot: tmp.ws, lazyDomains: true })));
    return client;
  };
  const stored = async (callId: string) => {
    const [call] = await ledger.list({ callId });
    assert.ok(call, `no ledger row for ${callId}`);
    return { call, decisions: (await ledger.decisions(call.callId, call.session)).map((d) => `${d.decider}:${d.verdict}`) };
  };

  test('a hidden call is denied by the visibility decider and recorded; request_tools is recorded done', async () => {
    const client = await connect();
    const hidden = (await client.callTool({ name: 'git_log', arguments: {} })) as CallToolResult;
    assert.equal(hidden._meta?.['toolgate/errorCode'], 'TOOL_HIDDEN');
    assert.match(text(hidden), /Call request_tools with \{"domains": \["git"\]/);
    const hiddenRow = (await ledger.list()).find((c) => c.tool === 'git_log')!;
    assert.deepEqual([hiddenRow.state, hiddenRow.errorCode], ['denied', 'TOOL_HIDDEN']);
    assert.deepEqual((await stored(hiddenRow.callId)).decisions, ['visibility:deny']);

    const answered = (await client.callTool({ name: 'request_tools', arguments: { domains: ['git'], reason: 'history' } })) as CallToolResult;
    assert.notEqual(answered.isError, true, text(answered));
    const requestRow = (await ledger.list()).find((c) => c.tool === 'request_tools')!;
    assert.deepEqual([requestRow.state, requestRow.errorCode], ['done', undefined]);
    assert.ok((await client.listTools()).tools.some((t) => t.name === 'git_log'));
  });

  test('a policy rule denies request_tools: the session\'s visibility does not grow', async () => {
    fs.writeFileSync(policyFile, '[[rules]]\ntool = "request_tools"\naction = "deny"\nreason = "the core tools are enough here"\n');
    try {
      const client = await connect();
      const denied = (await client.callTool({ name: 'request_tools', arguments: { domains: ['archive'], reason: 'zip' } })) as CallToolResult;
      assert.equal(denied.isError, true);
      assert.equal(denied._meta?.['toolgate/errorCode'], 'POLICY_DENIED');
      assert.match(text(denied), /the core tools are enough here/);
      assert.ok(!(await client.listTools()).tools.some((t) => t.name === 'list_archive'));
    } finally {
      fs.writeFileSync(policyFile, '');
    }
  });
});
