/**
 * The ToolSystem's `mcpServers` option and `toolgate agent` with a config file: bridged MCP
 * tools reach agents like native ones, behind the same gates.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { ToolSystem, type McpServerConfig } from '../../src/index.js';
import { REPO_ROOT, runCli, tempWorkspace } from '../helpers.js';
import { startOpenAIFixture, turn } from '../openai-fixture.js';

const FIXTURE = path.join(REPO_ROOT, 'dist/test/fixtures/mcp-fixture-server.js');
const fixtureServer = (): McpServerConfig => ({ command: process.execPath, args: [FIXTURE, 'basic'] }) as McpServerConfig;

describe('ToolSystem mcpServers', () => {
  const t = tempWorkspace();
  after(t.cleanup);

  it('bridges the servers at start, offers their tools, runs them through the gates, and closes them', async () => {
    const tools = new ToolSystem({ workspace: t.ws, builtins: false, mcpServers: { fx: fixtureServer(), broken: { command: path.join(t.root, 'no-such-binary') } as McpServerConfig } });
    try {
      await tools.start();
      const status = tools.mcp!.status();
      assert.equal(status.find((s) => s.name === 'fx')?.state, 'connected');
      assert.equal(status.find((s) => s.name === 'broken')?.state, 'failed', 'a server that cannot start is skipped, the rest works (T12)');
      const offered = tools.toolSpecs('openai').map((s) => (s as { function: { name: string } }).function.name);
      assert.ok(offered.includes('fx__ping'), offered.join(', '));
      // Untrusted, so it counts as writing: it asks before it runs (issue 18), as write_file does.
      const asked = await tools.execute({ name: 'fx__ping', arguments: '{}' });
      assert.equal(asked.errorCode, 'CONFIRMATION_REQUIRED');
      const ping = await tools.execute({ name: 'fx__ping', arguments: '{}' }, { confirm: true });
      assert.equal(ping.success, true, ping.output);
      assert.equal(ping.output, 'pong');
      // The server is not trusted, so its readOnlyHint is a hint only: explore mode refuses it.
      const denied = await tools.execute({ name: 'fx__ping', arguments: '{}' }, { mode: 'explore' });
      assert.equal(denied.errorCode, 'MODE_DENIED');
    } finally {
      await tools.close();
    }
    assert.equal(tools.mcp!.status().find((s) => s.name === 'fx')?.state, 'closed');
  });

  it('a malformed entry is an option error from start()', async () => {
    const tools = new ToolSystem({ workspace: t.ws, builtins: false, mcpServers: { bad: { command: 'x', url: 'http://127.0.0.1:1/mcp' } as unknown as McpServerConfig } });
    try {
      await assert.rejects(tools.start(), (error: Error & { code?: string }) => /bad/.test(error.message));
    } finally {
      await tools.close();
    }
  });
});

describe('toolgate agent with toolgate.config.json', () => {
  const t = tempWorkspace();
  after(t.cleanup);

  it('bridges the config file servers: the model calls a bridged tool and gets its answer', async () => {
    fs.writeFileSync(path.join(t.ws, 'toolgate.config.json'), JSON.stringify({ mcpServers: { fx: fixtureServer() } }));
    const fixture = await startOpenAIFixture([turn(null, [{ id: 'call_p', name: 'fx__ping', arguments: '{}' }]), turn('The server said pong.')]);
    try {
      const env = { ...process.env, OPENAI_BASE_URL: fixture.baseUrl, OPENAI_MODEL: 'm' };
      const r = await runCli(['agent', 'Ping the server', '--workspace', t.ws, '--config', path.join(t.ws, 'toolgate.config.json'), '--yes'], { env });
      assert.equal(r.code, 0, r.stderr);
      assert.equal(r.stdout, 'The server said pong.\n');
      assert.ok(fixture.requests[0]!.tools!.some((s) => s.function.name === 'fx__ping'), 'the bridged tool is offered');
      assert.deepEqual(fixture.requests[1]!.messages.at(-1), { role: 'tool', tool_call_id: 'call_p', content: 'pong' });
    } finally {
      await fixture.close();
    }
  });

  it('a config file that does not parse is a usage error before the model is asked', async () => {
    fs.writeFileSync(path.join(t.ws, 'bad.json'), '{ not json');
    const r = await runCli(['agent', 'x', '--workspace', t.ws, '--config', path.join(t.ws, 'bad.json'), '--base-url', 'http://127.0.0.1:9/v1', '--model', 'm']);
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, /config.*bad\.json/);
  });
});
