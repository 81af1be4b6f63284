/**
 * Lazy visibility over MCP: `toolgate mcp --lazy-domains` (spawned over stdio, the SDK
 * client) lists no domain tools, answers request_tools, sends notifications/tools/list_changed
 * to that session, and then lists the domain's tools; a hidden tool called directly is a tool
 * result (isError, TOOL_HIDDEN) naming request_tools and the domain, not a protocol error. The
 * same over streamable HTTP (the notification rides on the request's stream), per session.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ToolListChangedNotificationSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { createMcpServer, serveHttp, ToolgateOptionError, ToolSystem, type McpServerHandle } from 'toolgate';
import type { RequestToolsAnswer } from '../../src/registry/lazy-visibility.js';
import { BIN, inMemoryTransport, runCli, tempWorkspace } from '../helpers.js';

function text(result: CallToolResult): string {
  return result.content.map((c) => (c.type === 'text' ? c.text : `[${c.type}]`)).join('\n');
}

/** A client that counts the list_changed notifications it gets. */
function countingClient(): { client: Client; changes: () => number; nextChange: () => Promise<void> } {
  const client = new Client({ name: 'toolgate-test', version: '1.0.0' });
  let count = 0;
  let waiters: Array<() => void> = [];
  client.setNotificationHandler(ToolListChangedNotificationSchema, async () => {
    count += 1;
    for (const w of waiters.splice(0)) w();
  });
  return { client, changes: () => count, nextChange: () => new Promise<void>((resolve) => waiters.push(resolve)) };
}

const names = async (client: Client) => (await client.listTools()).tools.map((t) => t.name);

/** The shared scenario: hidden, direct call answered TOOL_HIDDEN, request_tools, list_changed, listed. */
async function scenario(made: ReturnType<typeof countingClient>): Promise<void> {
  const { client, changes, nextChange } = made;
  const before = await names(client);
  assert.ok(before.includes('read_file'), 'core tools are listed');
  assert.ok(before.includes('request_tools'));
  assert.deepEqual(before.filter((n) => n.startsWith('git_')), [], 'the git domain is not listed yet');
  const spec = (await client.listTools()).tools.find((t) => t.name === 'request_tools')!;
  const domains = (spec.inputSchema.properties as { domains: { items: { enum: string[] } } }).domains.items.enum;
  assert.deepEqual(domains, ['archive', 'artifact', 'computer_use', 'data', 'git', 'memory', 'snapshot', 'task']);

  // Called directly while hidden: a tool result the model can read, not a -32602.
  const hidden = (await client.callTool({ name: 'git_status', arguments: {} })) as CallToolResult;
  assert.equal(hidden.isError, true);
  assert.equal(hidden._meta?.['toolgate/errorCode'], 'TOOL_HIDDEN');
  assert.match(text(hidden), /request_tools/);
  assert.match(text(hidden), /"git"/);

  const changed = nextChange();
  const answered = (await client.callTool({ name: 'request_tools', arguments: { domains: ['git', 'nope'], reason: 'to see what changed' } })) as CallToolResult;
  assert.notEqual(answered.isError, true, text(answered));
  const answer = JSON.parse(text(answered)) as RequestToolsAnswer;
  assert.ok(answer.visible.git!.includes('git_status'));
  assert.deepEqual(answer.unavailable, [{ domain: 'nope', reason: 'unknown' }]);
  await changed;
  assert.equal(changes(), 1);
  const after = await names(client);
  for (const name of ['git_status', 'git_diff', 'git_log']) assert.ok(after.includes(name), `${name} is listed after request_tools`);
  assert.deepEqual(after.filter((n) => n.startsWith('list_archive')), []);

  // Asking again changes nothing: no second notification, reported as already visible.
  const again = JSON.parse(text((await client.callTool({ name: 'request_tools', arguments: { domains: ['git'], reason: 'again' } })) as CallToolResult)) as RequestToolsAnswer;
  assert.ok(again.alreadyVisible.git!.includes('git_status'));
  const called = (await client.callTool({ name: 'git_status', arguments: {} })) as CallToolResult;
  assert.notEqual(called._meta?.['toolgate/errorCode'], 'TOOL_HIDDEN');
  assert.equal(changes(), 1);
}

describe('toolgate mcp --lazy-domains over stdio', () => {
  const tmp = tempWorkspace();
  const clients: Client[] = [];
  after(async () => {
    await Promise.all(clients.map((c) => c.close()));
    tmp.cleanup();
  });

  const spawnClient = async (args: string[]) => {
    const made = countingClient();
    const env = { ...getDefaultEnvironment(), XDG_STATE_HOME: process.env.XDG_STATE_HOME! };
    await made.client.connect(new StdioClientTransport({ command: process.execPath, args: [BIN, 'mcp', '--workspace', tmp.ws, ...args], stderr: 'pipe', env }));
    clients.push(made.client);
    return made;
  };

  test('tools/list lacks the domain; request_tools; list_changed; tools/list has it', async () => {
    const made = await spawnClient(['--lazy-domains']);
    assert.equal(made.client.getServerCapabilities()?.tools?.listChanged, true);
    await scenario(made);
    // With the CLI's ledger the server offers tasks, but request_tools is answered at once.
    const listed = (await made.client.listTools()).tools;
    assert.equal(listed.find((t) => t.name === 'read_file')!.execution?.taskSupport, 'optional');
    assert.equal(listed.find((t) => t.name === 'request_tools')!.execution, undefined);
  });

  test('the memory and artifact domains: requested, listed, used (issue 35)', async () => {
    const { client } = await spawnClient(['--lazy-domains']);
    assert.deepEqual((await names(client)).filter((n) => /^(memory|artifact)_/.test(n)), [], 'hidden at first');
    const answer = JSON.parse(text((await client.callTool({ name: 'request_tools', arguments: { domains: ['memory', 'artifact'], reason: 'notes and files' } })) as CallToolResult)) as RequestToolsAnswer;
    assert.deepEqual(answer.visible, {
      memory: ['memory_forget', 'memory_get', 'memory_list', 'memory_remember', 'memory_search'],
      artifact: ['artifact_prepare', 'artifact_register'],
    });
    const listed = await names(client);
    for (const name of [...answer.visible.memory!, ...answer.visible.artifact!]) assert.ok(listed.includes(name), name);
    const kept = (await client.callTool({ name: 'memory_remember', arguments: { text: 'The build needs Node 20.', tags: ['build'] } })) as CallToolResult;
    assert.notEqual(kept.isError, true, text(kept));
    assert.match(text((await client.callTool({ name: 'memory_search', arguments: { query: 'node build' } })) as CallToolResult), /Node 20/);
    assert.match(text((await client.callTool({ name: 'artifact_prepare', arguments: { name: 'out.txt' } })) as CallToolResult), /\.artifacts\/staging\/[0-9a-f]{12}\/out\.txt/);
  });

  test('the task domain: requested, a task created and waited for (issue 35)', async () => {
    const { client } = await spawnClient(['--lazy-domains']);
    assert.deepEqual((await names(client)).filter((n) => n.startsWith('task_')), [], 'hidden at first');
    const answer = JSON.parse(text((await client.callTool({ name: 'request_tools', arguments: { domains: ['task'], reason: 'background work' } })) as CallToolResult)) as RequestToolsAnswer;
    assert.equal(answer.visible.task?.length, 10);
    const created = (await client.callTool({ name: 'task_create', arguments: { tool: 'current_time', arguments: {} } })) as CallToolResult;
    assert.notEqual(created.isError, true, text(created));
    const id = /"id": "(task_[0-9a-f]{16})"/.exec(text(created))![1]!;
    const waited = text((await client.callTool({ name: 'task_wait', arguments: { id, timeoutSeconds: 60 } })) as CallToolResult);
    assert.match(waited, /"status": "done"[\s\S]*iso[\s\S]*"waitEnded": "finished"/);
  });

  test('--tag-domain puts a tag\'s tools in a domain; without --lazy-domains it is a usage error', async () => {
    const { client } = await spawnClient(['--lazy-domains', '--tag-domain', 'edit=editing']);
    const listed = await names(client);
    assert.ok(!listed.includes('replace_in_file'), 'the edit tools are now the hidden domain editing');
    const spec = (await client.listTools()).tools.find((t) => t.name === 'request_tools')!;
    assert.ok((spec.inputSchema.properties as { domains: { items: { enum: string[] } } }).domains.items.enum.includes('editing'));
    const refused = await runCli(['mcp', '--workspace', tmp.ws, '--tag-domain', 'edit=editing']);
    assert.notEqual(refused.code, 0);
    assert.match(refused.stderr, /--tag-domain needs --lazy-domains/);
  });

  test('without --lazy-domains every tool is listed and there is no request_tools', async () => {
    const { client } = await spawnClient([]);
    const listed = await names(client);
    assert.ok(listed.includes('git_status'));
    assert.ok(!listed.includes('request_tools'));
  });
});

describe('lazy domains in the MCP server, per session', () => {
  const tmp = tempWorkspace();
  let system: ToolSystem;
  let http: (McpServerHandle & { url: string; token: string | undefined }) | undefined;
  const clients: Client[] = [];
  before(async () => {
    system = new ToolSystem({ workspace: tmp.ws });
    await system.start();
  });
  after(async () => {
    await Promise.all(clients.map((c) => c.close()));
    await http?.close();
    await system.close();
    tmp.cleanup();
  });

  test('over streamable HTTP: the notification reaches the session that asked, and another session still lacks the domain', async () => {
    http = await serveHttp({ system, workspaceRoot: tmp.ws, lazyDomains: true });
    const first = countingClient();
    const second = countingClient();
    const requestInit = { headers: { authorization: `Bearer ${http.token}` } };
    await first.client.connect(new StreamableHTTPClientTransport(new URL(http.url), { requestInit }));
    await second.client.connect(new StreamableHTTPClientTransport(new URL(http.url), { requestInit }));
    clients.push(first.client, second.client);
    await scenario(first);
    assert.ok(!(await names(second.client)).includes('git_status'), 'visibility is per session');
    assert.equal(second.changes(), 0);
  });

  test('explore mode: a domain none of whose tools the mode runs is unavailable; tagDomains makes domains', async () => {
    const made = countingClient();
    clients.push(made.client);
    await made.client.connect(await inMemoryTransport(createMcpServer({ system, workspaceRoot: tmp.ws, mode: 'explore', lazyDomains: { tagDomains: { edit: 'editing' } } })));
    const answer = JSON.parse(text((await made.client.callTool({ name: 'request_tools', arguments: { domains: ['editing'], reason: 'edit' } })) as CallToolResult)) as RequestToolsAnswer;
    assert.deepEqual(answer.unavailable, [{ domain: 'editing', reason: 'not_in_mode' }]);
    assert.equal(made.changes(), 0);
    // A writing domain tool the mode never runs is denied by the mode, as without lazy visibility.
    const denied = (await made.client.callTool({ name: 'git_commit', arguments: { message: 'x' } })) as CallToolResult;
    assert.equal(denied._meta?.['toolgate/errorCode'], 'MODE_DENIED');
  });

  test('a malformed lazyDomains option is refused, naming it', () => {
    assert.throws(() => createMcpServer({ system, lazyDomains: { tagDomains: { git: 'Git!' } } }), (e: unknown) => e instanceof ToolgateOptionError && /options\.lazyDomains/.test(e.message));
  });
});
