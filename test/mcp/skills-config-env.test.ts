/**
 * The skills are read from one place: the user's config folder of the tool system's
 * `configEnv` (what `skillFoldersPresent` decides the MCP skills extension by, and what
 * `start()` registers the skills' tools from). Before, `list_skills`, `read_skill` and the MCP
 * skills extension read `process.env`, so a tool system given another `configEnv` (the CLI
 * gives its context's) offered the extension for one folder and listed another's skills.
 * Here the two differ: `process.env` names a folder with the skill `from-process-env`, the
 * system's `configEnv` one with `from-config-env`. In-process calls, and the SDK v2 client
 * over the in-memory transport; the folders are removed and `process.env` restored.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { Client, InMemoryTransport } from '@modelcontextprotocol/client';
import { SkillsClient } from '@modelcontextprotocol/client/ext/skills';
import { createMcpServer, ToolSystem } from 'toolgate';
import { skillFoldersPresent } from '../../src/system/skill-folders.js';
import { portedRegistry, tempWorkspace, type TempWorkspace } from '../helpers.js';

const skill = (name: string) => `---\nname: ${name}\ndescription: The ${name} skill. Use it for ${name} work.\n---\n# ${name}\nInstructions of ${name}.\n`;

describe('skills: the catalog and skillFoldersPresent read the same config env', () => {
  let tmp: TempWorkspace;
  let system: ToolSystem;
  const saved = process.env.XDG_CONFIG_HOME;
  const clients: Client[] = [];

  before(async () => {
    tmp = tempWorkspace();
    for (const [folder, name] of [['config-env', 'from-config-env'], ['process-env', 'from-process-env']] as const) {
      const dir = path.join(tmp.root, folder, 'toolgate', 'skills', name);
      fs.mkdirSync(dir, { recursive: true });
      fs.writeFileSync(path.join(dir, 'SKILL.md'), skill(name));
    }
    process.env.XDG_CONFIG_HOME = path.join(tmp.root, 'process-env');
    system = new ToolSystem({
      registry: await portedRegistry(), workspace: tmp.ws, configEnv: { ...process.env, XDG_CONFIG_HOME: path.join(tmp.root, 'config-env') },
      executor: { ledger: false, outputStore: false, sweepLeftovers: false },
    });
  });
  after(async () => {
    await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
    await system?.close();
    if (saved === undefined) delete process.env.XDG_CONFIG_HOME;
    else process.env.XDG_CONFIG_HOME = saved;
    tmp.cleanup();
  });

  it('skillFoldersPresent reads the system\'s configEnv (and the empty process folder alone has none)', () => {
    assert.equal(skillFoldersPresent(tmp.ws, system.configEnv), true);
    assert.equal(skillFoldersPresent(tmp.ws, { ...process.env, XDG_CONFIG_HOME: path.join(tmp.root, 'nowhere') }), false);
  });

  it('list_skills and read_skill read the skills of the configEnv folder, not of process.env', async () => {
    const listed = await system.execute({ name: 'list_skills', arguments: {}, callId: 'list' });
    assert.equal(listed.success, true, listed.output);
    assert.match(listed.output, /from-config-env \(user\)/);
    assert.doesNotMatch(listed.output, /from-process-env/);
    const read = await system.execute({ name: 'read_skill', arguments: { name: 'from-config-env' }, callId: 'read' });
    assert.equal(read.success, true, read.output);
    assert.match(read.output, /Instructions of from-config-env/);
    const other = await system.execute({ name: 'read_skill', arguments: { name: 'from-process-env' }, callId: 'other' });
    assert.equal(other.success, false, other.output);
    assert.match(other.output, /there is no skill "from-process-env"; skills: from-config-env/);
  });

  it('the MCP skills extension lists and reads the same skills', async () => {
    const client = new Client({ name: 'skills-config-env', version: '1.0.0' });
    clients.push(client);
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await createMcpServer({ system, workspaceRoot: tmp.ws, tasks: false }).connect(serverSide as never);
    await client.connect(clientSide);
    const skills = new SkillsClient(client);
    assert.equal(skills.supported, true);
    const { skills: entries } = await skills.list();
    assert.deepEqual(entries.map((e) => e.frontmatter.name), ['from-config-env']);
    assert.match((await skills.read(entries[0]!)).body ?? '', /Instructions of from-config-env/);
  });
});
