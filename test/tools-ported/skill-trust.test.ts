/**
 * A workspace's skills are trusted by content, not by the workspace's name: the user's
 * `skills-trust.json` pins each skill's digest (every file of its folder). Before, naming the
 * workspace trusted whatever `.toolgate/skills/` held at the next start, so a command the user
 * approved in a trusted workspace without `.toolgate` could create `.toolgate/skills/x/` whose
 * tools registered at the next start. Now a new skill, or a pinned one changed (SKILL.md, a
 * script, any other file), is listed and read but adds no tools until pinned again, and the
 * messages give the exact entry to add.
 */
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ToolSystem } from '../../src/index.js';
import { bubblewrapAvailable } from '../../src/internal.js';
import { findSkills, skillDigest } from '../../tools-ported/skills/skill-catalog.js';
import { readSkill } from '../../tools-ported/skills/skill-file.js';
import { snapshotSkillFolder } from '../../tools-ported/skills/skill-snapshot.js';
import { tempWorkspace } from '../helpers.js';

const SANDBOX = bubblewrapAvailable() ? {} : { sandbox: 'none' as const };

const skillText = (name: string, says: string) => `---\nname: ${name}\ndescription: Says something.\ntools:\n  - name: say\n    description: Say it.\n    shell: echo ${says}\n---\nSay it.\n`;

describe('workspace skills trusted by content', () => {
  const t = tempWorkspace();
  const config = path.join(t.root, 'config');
  const trustFile = path.join(config, 'toolgate', 'skills-trust.json');
  const skills = path.join(t.ws, '.toolgate', 'skills');
  const saved = process.env.XDG_CONFIG_HOME;
  const registered = async (): Promise<string[]> => {
    const tools = new ToolSystem({ workspace: t.ws, ledger: false, executor: SANDBOX });
    await tools.start();
    try {
      return tools.registry.list().map((r) => r.name).filter((n) => n.startsWith('skill__')).sort();
    } finally {
      await tools.close();
    }
  };
  before(() => {
    process.env.XDG_CONFIG_HOME = config;
    fs.mkdirSync(path.dirname(trustFile), { recursive: true });
  });
  after(() => {
    if (saved === undefined) delete process.env.XDG_CONFIG_HOME;
    else process.env.XDG_CONFIG_HOME = saved;
    t.cleanup();
  });

  it('a skill created later in a trusted workspace without .toolgate adds no tools; pinned, it does', async () => {
    // The workspace is trusted (named, the earlier form) while it has no .toolgate at all.
    fs.writeFileSync(trustFile, JSON.stringify({ workspaces: [t.ws] }));
    assert.deepEqual(await registered(), []);
    // What an approved command could do: create a skill folder.
    fs.mkdirSync(path.join(skills, 'planted'), { recursive: true });
    fs.writeFileSync(path.join(skills, 'planted', 'SKILL.md'), skillText('planted', 'planted'));
    assert.deepEqual(await registered(), [], 'a skill nobody pinned registers no tools');
    const catalog = findSkills({ workspaceRoot: t.ws });
    assert.equal(catalog.trusted.size, 0);
    const digest = skillDigest(path.join(skills, 'planted'))!;
    assert.match(digest, /^sha256:[0-9a-f]{64}$/);
    const tools = new ToolSystem({ workspace: t.ws, ledger: false, executor: SANDBOX });
    await tools.start();
    try {
      const read = await tools.execute({ name: 'read_skill', arguments: { name: 'planted' }, callId: 'r' });
      assert.match(read.output, /\(workspace, untrusted\)/);
      assert.ok(read.output.includes(`"skills":{"planted":"${digest}"}`), `the message gives the entry to add: ${read.output}`);
    } finally {
      await tools.close();
    }
    fs.writeFileSync(trustFile, JSON.stringify({ workspaces: [{ path: t.ws, skills: { planted: digest } }] }));
    assert.deepEqual(await registered(), ['skill__planted__say']);
  });

  it('a pinned skill changed in any file, or a new skill beside it, is untrusted until pinned again', async () => {
    fs.writeFileSync(path.join(skills, 'planted', 'helper.sh'), '#!/bin/sh\necho changed\n');
    assert.deepEqual(await registered(), [], 'a new file un-trusts the skill');
    fs.rmSync(path.join(skills, 'planted', 'helper.sh'));
    assert.deepEqual(await registered(), ['skill__planted__say'], 'the pinned content again');
    fs.writeFileSync(path.join(skills, 'planted', 'SKILL.md'), skillText('planted', 'other'));
    assert.deepEqual(await registered(), [], 'an edited SKILL.md');
    fs.writeFileSync(path.join(skills, 'planted', 'SKILL.md'), skillText('planted', 'planted'));
    fs.mkdirSync(path.join(skills, 'second'));
    fs.writeFileSync(path.join(skills, 'second', 'SKILL.md'), skillText('second', 'second'));
    assert.deepEqual(await registered(), ['skill__planted__say'], 'the new skill beside it adds nothing');
  });

  it('a malformed trust file trusts nothing and says why', () => {
    fs.writeFileSync(trustFile, JSON.stringify({ workspaces: [{ path: t.ws, skills: { planted: 'sha256:nothex' } }] }));
    const catalog = findSkills({ workspaceRoot: t.ws });
    assert.equal(catalog.trusted.size, 0);
    assert.match(catalog.problems.map((p) => p.message).join('\n'), /must map names to digests/);
  });
});

describe('a workspace skill is read once: what is digested is what is loaded', () => {
  const t = tempWorkspace();
  after(t.cleanup);

  it('the skill parsed from a snapshot is the snapshot\'s, whatever the folder holds by then', () => {
    const dir = path.join(t.ws, '.toolgate', 'skills', 'once');
    fs.mkdirSync(path.join(dir, 'bin'), { recursive: true });
    fs.writeFileSync(path.join(dir, 'SKILL.md'), '---\nname: once\ndescription: Once.\ntools:\n  - name: go\n    description: Go.\n    script: bin/go.sh\n---\nRead once.\n');
    fs.writeFileSync(path.join(dir, 'bin', 'go.sh'), '#!/bin/sh\necho reviewed\n');
    const snapshot = snapshotSkillFolder(dir)!;
    assert.equal(snapshot.digest, skillDigest(dir), 'the digest a pin compares with is the snapshot\'s');
    // The folder changes after it was read (between the read and the parse, before).
    fs.writeFileSync(path.join(dir, 'SKILL.md'), '---\nname: once\ndescription: Once.\ntools:\n  - name: go\n    description: Go.\n    shell: echo swapped\n---\nSwapped.\n');
    fs.writeFileSync(path.join(dir, 'bin', 'go.sh'), '#!/bin/sh\necho swapped\n');
    const skill = readSkill(dir, 'workspace', snapshot);
    assert.equal(skill.instructions, 'Read once.');
    const run = skill.tools[0]!.run as { type: string; sha256: string };
    assert.equal(run.type, 'script');
    assert.equal(run.sha256, crypto.createHash('sha256').update('#!/bin/sh\necho reviewed\n').digest('hex'), 'the script checked at each call is the one read');
    assert.equal(readSkill(dir, 'workspace').instructions, 'Swapped.', 'from the disk, the new content');
    // A script reached through a link is not taken from a snapshot (the link's target was not digested as the script).
    fs.rmSync(path.join(dir, 'bin', 'go.sh'));
    fs.writeFileSync(path.join(dir, 'real.sh'), '#!/bin/sh\necho real\n');
    fs.symlinkSync('../real.sh', path.join(dir, 'bin', 'go.sh'));
    fs.writeFileSync(path.join(dir, 'SKILL.md'), '---\nname: once\ndescription: Once.\ntools:\n  - name: go\n    description: Go.\n    script: bin/go.sh\n---\nLinked.\n');
    assert.throws(() => readSkill(dir, 'workspace', snapshotSkillFolder(dir)), /is a symbolic link; a workspace skill's script must be a regular file/);
  });
});

describe('read_skill with a file', () => {
  const t = tempWorkspace();
  const config = path.join(t.root, 'config');
  const saved = process.env.XDG_CONFIG_HOME;
  let tools: ToolSystem;
  before(async () => {
    process.env.XDG_CONFIG_HOME = config;
    const dir = path.join(config, 'toolgate', 'skills', 'docs-helper');
    fs.mkdirSync(path.join(dir, 'ref'), { recursive: true });
    fs.writeFileSync(path.join(dir, 'SKILL.md'), '---\nname: docs-helper\ndescription: Helps.\n---\nRead ref/guide.md.\n');
    fs.writeFileSync(path.join(dir, 'ref', 'guide.md'), 'The guide.\n');
    fs.writeFileSync(path.join(dir, 'blob.bin'), Buffer.from([0xff, 0xfe, 0xfd]));
    fs.symlinkSync(t.sentinel, path.join(dir, 'outside.md'));
    tools = new ToolSystem({ workspace: t.ws, ledger: false, executor: SANDBOX });
    await tools.start();
  });
  after(async () => {
    await tools.close();
    if (saved === undefined) delete process.env.XDG_CONFIG_HOME;
    else process.env.XDG_CONFIG_HOME = saved;
    t.cleanup();
  });
  const read = (file: string) => tools.execute({ name: 'read_skill', arguments: { name: 'docs-helper', file }, callId: `f-${file}` });

  it('returns a file of the skill\'s folder as it is, and refuses paths out of it, links and binary files', async () => {
    assert.equal((await read('ref/guide.md')).output, 'The guide.\n');
    assert.match((await read('SKILL.md')).output, /^---\nname: docs-helper/);
    for (const [file, why] of [['../../policy.toml', /relative to the skill's folder/], ['/etc/passwd', /relative/], ['outside.md', /symbolic link/], ['blob.bin', /not UTF-8/], ['nope.md', /no such file/], ['ref', /not a regular file/]] as const) {
      const result = await read(file);
      assert.equal(result.success, false, file);
      assert.equal(result.errorCode, 'INVALID_ARGUMENTS', file);
      assert.match(result.output, why, file);
    }
  });
});
