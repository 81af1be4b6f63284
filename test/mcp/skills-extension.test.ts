/**
 * `toolgate mcp` serves skills through the SDK v2 skills extension (issue 35 item 4): the SDK
 * v2 client (`SkillsClient`), pinned to 2026-07-28 and in its default 2025-11-25 mode, over
 * stdio, sees the extension in the server's capabilities, lists the skills the tool system
 * trusts (the user's and a pinned workspace skill, not an untrusted workspace skill), gets one
 * by URI, and reads its SKILL.md and a resource, each file verified against the listed digest
 * (and over HTTP, both eras).
 * Reading goes through read_skill as the client's call: a policy that denies read_skill denies
 * the read. Without skill folders, the extension is not offered.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { SkillsClient } from '@modelcontextprotocol/client/ext/skills';
import { SKILLS_EXTENSION_ID } from '@modelcontextprotocol/core/ext/skills';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { SKILLS_EXTENSION_ID as OURS } from '../../src/mcp/early-initialize.js';
import { skillDigest } from '../../tools-ported/skills/skill-catalog.js';
import { BIN } from '../helpers.js';
import { mcpFolders, startHttpCommand } from './http-command.js';

const MODERN = '2026-07-28';

const skill = (name: string, body: string) => `---\nname: ${name}\ndescription: The ${name} skill. Use it for ${name} work.\n---\n${body}\n`;

describe('toolgate mcp: the skills extension', () => {
  let folders: ReturnType<typeof mcpFolders>;
  let config: string;
  const clients: Client[] = [];
  let stderr = '';
  before(() => {
    folders = mcpFolders('toolgate-skills-ext-');
    config = path.join(folders.root, 'config');
    const user = path.join(config, 'toolgate', 'skills', 'release-notes');
    fs.mkdirSync(path.join(user, 'templates'), { recursive: true });
    fs.writeFileSync(path.join(user, 'SKILL.md'), skill('release-notes', '# Release notes\nFollow templates/notes.md.'));
    fs.writeFileSync(path.join(user, 'templates', 'notes.md'), '# {{version}}\nNotes here.\n');
    fs.writeFileSync(path.join(user, 'logo.png'), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0xff, 0xfe, 0x00]));
    const ws = path.join(folders.ws, '.toolgate', 'skills');
    fs.mkdirSync(path.join(ws, 'repo-helper'), { recursive: true });
    fs.writeFileSync(path.join(ws, 'repo-helper', 'SKILL.md'), skill('repo-helper', 'Untrusted instructions.'));
    fs.mkdirSync(path.join(ws, 'pinned-helper'));
    fs.writeFileSync(path.join(ws, 'pinned-helper', 'SKILL.md'), skill('pinned-helper', 'Pinned instructions.'));
    const pins = { 'pinned-helper': skillDigest(path.join(ws, 'pinned-helper')) };
    fs.writeFileSync(path.join(config, 'toolgate', 'skills-trust.json'), JSON.stringify({ workspaces: [{ path: folders.ws, skills: pins }] }));
  });
  after(async () => {
    await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
    fs.rmSync(folders.root, { recursive: true, force: true });
  });

  const connect = async (era: 'modern' | 'legacy', workspace = folders.ws): Promise<Client> => {
    const client = new Client({ name: `skills-${era}`, version: '1.0.0' }, era === 'modern' ? { versionNegotiation: { mode: { pin: MODERN } } } : {});
    clients.push(client);
    const env = { ...getDefaultEnvironment(), XDG_STATE_HOME: folders.state, XDG_CONFIG_HOME: config };
    const transport = new StdioClientTransport({ command: process.execPath, args: [BIN, 'mcp', '--workspace', workspace], stderr: 'pipe', env });
    transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    await client.connect(transport);
    return client;
  };

  test('the identifier the early initialize answer uses is the SDK\'s', () => {
    assert.equal(OURS, SKILLS_EXTENSION_ID);
  });

  for (const era of ['modern', 'legacy'] as const) {
    test(`over stdio, a ${era === 'modern' ? MODERN : '2025-11-25'} client lists, gets and reads the trusted skills`, async () => {
      const client = await connect(era);
      assert.equal(client.getNegotiatedProtocolVersion(), era === 'modern' ? MODERN : '2025-11-25');
      const skills = new SkillsClient(client);
      assert.equal(skills.supported, true, JSON.stringify(client.getServerCapabilities()));
      const { skills: entries } = await skills.list();
      assert.deepEqual(entries.map((e) => e.frontmatter.name), ['pinned-helper', 'release-notes'], 'the untrusted workspace skill is not served');
      const notes = entries.find((e) => e.frontmatter.name === 'release-notes')!;
      assert.equal(notes.uri, 'skill://release-notes/SKILL.md');
      const files = (notes.resources as Array<{ uri: string }>).map((r) => r.uri).sort();
      assert.deepEqual(files, ['skill://release-notes/SKILL.md', 'skill://release-notes/templates/notes.md'], 'text files only');
      const manifest = await skills.read(notes);
      assert.equal(manifest.verified, true);
      assert.match(manifest.body ?? '', /Follow templates\/notes\.md/);
      const template = await skills.read(notes, 'templates/notes.md');
      assert.equal(template.verified, true);
      assert.equal(template.text, '# {{version}}\nNotes here.\n');
      const got = await skills.get('skill://pinned-helper/SKILL.md');
      assert.equal(got.skill.frontmatter.name, 'pinned-helper');
      assert.match((await skills.read(got.skill)).body ?? '', /Pinned instructions/);
      await assert.rejects(skills.get('skill://repo-helper/SKILL.md'), /No skill is served/);
      await assert.rejects(client.readResource({ uri: 'skill://repo-helper/SKILL.md' }), /not found|-32002/i);
      // The early initialize answer (stdio, 2025) advertised the extension as the SDK's server does.
      assert.doesNotMatch(stderr, /early_initialize_mismatch/);
    });
  }

  test('over HTTP, 2026-07-28 and 2025-11-25 clients list and read the same skills', async () => {
    const served = await startHttpCommand(['--workspace', folders.ws], { ...process.env, XDG_STATE_HOME: folders.state, XDG_CONFIG_HOME: config });
    try {
      for (const era of ['modern', 'legacy'] as const) {
        const client = new Client({ name: `skills-http-${era}`, version: '1.0.0' }, era === 'modern' ? { versionNegotiation: { mode: { pin: MODERN } } } : {});
        clients.push(client);
        await client.connect(new StreamableHTTPClientTransport(new URL(served.url), { requestInit: { headers: { authorization: `Bearer ${served.token}` } } }));
        const skills = new SkillsClient(client);
        const { skills: entries } = await skills.list();
        assert.deepEqual(entries.map((e) => e.frontmatter.name), ['pinned-helper', 'release-notes'], era);
        assert.equal((await skills.read(entries[1]!, 'templates/notes.md')).verified, true, era);
        await client.close();
      }
    } finally {
      served.child.kill('SIGTERM');
      await new Promise((resolve) => (served.child.exitCode === null ? served.child.once('exit', resolve) : resolve(undefined)));
    }
  });

  test('reading runs read_skill through the decisions: a policy that denies it denies the read', async () => {
    const client = await connect('modern');
    const skills = new SkillsClient(client);
    const { skills: entries } = await skills.list();
    const policy = path.join(config, 'toolgate', 'policy.toml');
    fs.writeFileSync(policy, '[[rules]]\ntool = "read_skill"\naction = "deny"\nreason = "no skills today"\n');
    try {
      await assert.rejects(skills.read(entries[0]!), /read_skill did not read .*no skills today/);
    } finally {
      fs.rmSync(policy);
    }
    assert.equal((await skills.read(entries[0]!)).verified, true);
  });

  test('without skill folders the extension is not offered', async () => {
    const empty = path.join(folders.root, 'empty-ws');
    fs.mkdirSync(empty);
    const moved = `${config}-away`;
    fs.renameSync(path.join(config, 'toolgate', 'skills'), moved);
    try {
      const client = await connect('legacy', empty);
      const skills = new SkillsClient(client);
      assert.equal(skills.supported, false);
      assert.equal(client.getServerCapabilities()?.extensions, undefined);
    } finally {
      fs.renameSync(moved, path.join(config, 'toolgate', 'skills'));
    }
  });
});
