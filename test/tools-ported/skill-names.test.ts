/**
 * Skills' tools and bridged MCP tools never share a name nor a policy rule: a skill's tool is
 * `skill__<skill>__<tool>`, a bridged tool `<server>__<tool>`. Before, a trusted skill named
 * `github` registered `github__create_issue`: a rule meant for the MCP server `github`
 * (`github__*`) matched the skill's tool, and the skill took the name before the bridge did
 * (the bridged tool got a hashed name). Also: the registry refuses a name in the skills' name
 * space without kind `dynamic_skill_tool` (a bridged tool included) and that kind under any
 * other name, and the MCP config refuses a server named `skill`.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { McpBridge, ToolRegistry, ToolSystem } from '../../src/index.js';
import { checkMcpServers } from '../../src/mcp/config.js';
import { bubblewrapAvailable } from '../../src/internal.js';
import { inMemoryTransport, tempWorkspace } from '../helpers.js';

const SANDBOX = bubblewrapAvailable() ? {} : { sandbox: 'none' as const };

const GITHUB_SKILL = '---\nname: github\ndescription: Work with issues.\ntools:\n  - name: create_issue\n    description: Make a local issue note.\n    shell: echo skill issue\n---\nUse create_issue.\n';

/** An MCP server with one tool, `create_issue`. */
function githubServer(): Server {
  const server = new Server({ name: 'github', version: '1.0.0' }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: [{ name: 'create_issue', description: 'Create an issue on GitHub.', inputSchema: { type: 'object', properties: {} } }],
  }));
  server.setRequestHandler(CallToolRequestSchema, async () => ({ content: [{ type: 'text', text: 'bridged issue' }] }));
  return server;
}

describe('a skill named like a bridged MCP server', () => {
  const t = tempWorkspace();
  const config = path.join(t.root, 'config');
  const policyFile = path.join(t.root, 'policy.toml');
  const saved = process.env.XDG_CONFIG_HOME;
  let tools: ToolSystem;
  let bridge: McpBridge;
  before(async () => {
    process.env.XDG_CONFIG_HOME = config;
    const dir = path.join(config, 'toolgate', 'skills', 'github');
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, 'SKILL.md'), GITHUB_SKILL);
    fs.writeFileSync(policyFile, '[[rules]]\ntool = "github__*"\naction = "deny"\nreason = "no GitHub from here"\n');
    tools = new ToolSystem({ workspace: t.ws, ledger: false, executor: { ...SANDBOX, policy: { user: policyFile, workspace: false } } });
    await tools.start();
    const transport = await inMemoryTransport(githubServer());
    bridge = await McpBridge.connect(tools.registry, { github: { command: 'unused' } }, { transportFor: () => transport });
  });
  after(async () => {
    await bridge.close();
    await tools.close();
    if (saved === undefined) delete process.env.XDG_CONFIG_HOME;
    else process.env.XDG_CONFIG_HOME = saved;
    t.cleanup();
  });

  it('leaves the server\'s name to the bridged tool: the skill\'s tool is skill__github__create_issue', () => {
    const bridged = tools.registry.get('github__create_issue');
    assert.equal(bridged?.source, 'mcp:github', 'github__create_issue is the bridged tool');
    assert.notEqual(bridged?.kind, 'dynamic_skill_tool');
    assert.equal(tools.registry.get('skill__github__create_issue')?.kind, 'dynamic_skill_tool');
    assert.deepEqual(tools.registry.list().map((r) => r.name).filter((n) => n.includes('create_issue')).sort(), ['github__create_issue', 'skill__github__create_issue']);
  });

  it('a rule for the MCP server (github__*) denies the bridged tool, not the skill\'s', async () => {
    const denied = await tools.execute({ name: 'github__create_issue', arguments: {}, callId: 'b' }, { confirm: true });
    assert.equal(denied.errorCode, 'POLICY_DENIED', denied.output);
    const ran = await tools.execute({ name: 'skill__github__create_issue', arguments: {}, callId: 's' }, { confirm: true });
    assert.equal(ran.success, true, ran.output);
    assert.match(ran.output, /skill issue/);
  });
});

describe('the skills\' name space', () => {
  const open = { type: 'object', properties: {} };
  it('the registry refuses a bridged (or any other) tool named skill__..., and a skill tool named otherwise', () => {
    const registry = new ToolRegistry();
    assert.throws(() => registry.register({ name: 'skill__github__create_issue', version: '1.0.0', description: 'x', kind: 'mcp_write_or_unknown', inputSchema: open, run: () => 'x' }, { bridged: true }), /skills' name space/);
    assert.throws(() => registry.register({ name: 'skill__x', version: '1.0.0', description: 'x', kind: 'internal', readOnly: true, inputSchema: open, run: () => 'x' }), /skills' name space/);
    assert.throws(() => registry.register({ name: 'github__create_issue', version: '1.0.0', description: 'x', kind: 'dynamic_skill_tool', inputSchema: open, run: () => 'x' }), /kind dynamic_skill_tool is named skill__/);
    assert.equal(registry.register({ name: 'skill__a__b', version: '1.0.0', description: 'x', kind: 'dynamic_skill_tool', inputSchema: open, run: () => 'x' }).name, 'skill__a__b');
    assert.equal(registry.register({ name: 'skills_summary', version: '1.0.0', description: 'x', kind: 'internal', readOnly: true, inputSchema: open, run: () => 'x' }).name, 'skills_summary');
  });

  it('the MCP config refuses a server whose tools would be named skill__...', () => {
    for (const name of ['skill', 'Skill', 'skill-']) {
      assert.throws(() => checkMcpServers({ [name]: { command: 'x' } }), /reserved for the tools skills declare/, name);
    }
    assert.doesNotThrow(() => checkMcpServers({ skills: { command: 'x' } }));
  });
});
