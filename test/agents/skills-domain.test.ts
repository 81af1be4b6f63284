/**
 * Skills (issue 35 item 4) through GeneralAgent with a scripted model and lazy domains: the
 * model lists the skills, reads one with read_skill, requests the `skills` domain and calls
 * the skill's tool (asked and approved like any tool), and sees its result; a skill's tool
 * asks under a policy that says ask and is denied under one that says deny (rules on the kind
 * `dynamic_skill_tool` and on the tool name); a workspace's skills add no tools until the
 * user trusts the workspace.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { GeneralAgent, ToolSystem, type ConfirmationRequest } from '../../src/index.js';
import { bubblewrapAvailable } from '../../src/internal.js';
import { skillDigest } from '../../tools-ported/skills/skill-catalog.js';
import { cliInProcess } from '../cli/in-process.js';
import { tempWorkspace } from '../helpers.js';
import { finalAnswer, offeredTools, ScriptedModel, toolCalls, toolMessages } from './scripted-model.js';

const SANDBOX = bubblewrapAvailable() ? {} : { sandbox: 'none' as const };

/** A skill folder `<parent>/<folder>` with this SKILL.md text (and extra files). */
export function writeSkill(parent: string, folder: string, text: string, files: Record<string, string> = {}): string {
  const dir = path.join(parent, folder);
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'SKILL.md'), text);
  for (const [name, content] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    fs.writeFileSync(path.join(dir, name), content, { mode: 0o755 });
  }
  return dir;
}

const RELEASE_NOTES = `---
name: release-notes
description: Draft release notes. Use when the user asks for release notes or a changelog.
tools:
  - name: count_words
    description: Count the words of a draft.
    shell: printf '%s' "$SKILL_ARG_TEXT" | wc -w | tr -d ' '
    input_schema:
      type: object
      properties:
        text: { type: string, maxLength: 10000 }
      required: [text]
      additionalProperties: false
  - name: render
    description: Render the notes heading.
    script: scripts/render.sh
    input_schema:
      type: object
      properties:
        version: { type: string }
      required: [version]
---
# Release notes
Count the words of the draft with skill__release_notes__count_words before sending it.
`;

/** XDG_CONFIG_HOME set to a temp folder for the test's life (the user's skill folder is under it). */
function withConfigHome(dir: string): () => void {
  const saved = process.env.XDG_CONFIG_HOME;
  process.env.XDG_CONFIG_HOME = dir;
  return () => {
    if (saved === undefined) delete process.env.XDG_CONFIG_HOME;
    else process.env.XDG_CONFIG_HOME = saved;
  };
}

describe('skills in an agent run', () => {
  const t = tempWorkspace();
  const config = path.join(t.root, 'config');
  const userSkills = path.join(config, 'toolgate', 'skills');
  let restore: () => void;
  let tools: ToolSystem;
  before(async () => {
    restore = withConfigHome(config);
    writeSkill(userSkills, 'release-notes', RELEASE_NOTES, { 'scripts/render.sh': '#!/bin/sh\nprintf "# Release %s\\n" "$SKILL_ARG_VERSION"\n', 'templates/notes.md': '# {{version}}\n' });
    tools = new ToolSystem({ workspace: t.ws, ledger: false, executor: SANDBOX });
    await tools.start();
  });
  after(async () => {
    await tools.close();
    restore();
    t.cleanup();
  });

  it('is discovered, read with read_skill, its tool requested and called, and the result seen by the model', async () => {
    const asked: ConfirmationRequest[] = [];
    const model = new ScriptedModel([
      toolCalls(['l', 'list_skills', {}]),
      toolCalls(['r', 'read_skill', { name: 'release-notes' }]),
      toolCalls(['q', 'request_tools', { domains: ['skills'], reason: 'the skill declares tools' }]),
      toolCalls(['c', 'skill__release_notes__count_words', { text: 'three short words' }], ['s', 'skill__release_notes__render', { version: '1.2.0' }]),
      finalAnswer('done'),
    ]);
    const agent = new GeneralAgent({ tools, model, lazyDomains: true, confirmationHandler: (request) => {
      asked.push(request);
      return true;
    } });
    const run = await agent.run('write the release notes');
    assert.equal(run.stopReason, 'final');
    for (const r of run.results) assert.equal(r.success, true, `${r.tool}: ${r.output}`);
    const first = offeredTools(model.requests[0]);
    assert.ok(first.includes('list_skills') && first.includes('read_skill'), 'list_skills and read_skill are core');
    assert.ok(!first.includes('skill__release_notes__count_words'), 'the skill tools are hidden before request_tools');
    assert.ok(offeredTools(model.requests[3]).includes('skill__release_notes__count_words'), 'offered after request_tools');
    const seen = toolMessages(model.requests[4]!);
    assert.match(seen.get('l')!, /release-notes \(user\): Draft release notes/);
    assert.match(seen.get('r')!, /Count the words of the draft/);
    assert.match(seen.get('r')!, /scripts\/render\.sh/);
    assert.match(seen.get('r')!, /templates\/notes\.md/);
    assert.match(seen.get('c')!, /^3$/m);
    assert.match(seen.get('s')!, /# Release 1\.2\.0/);
    // Asked like run_command: skill tools ask by default.
    assert.deepEqual(asked.map((a) => a.tool).sort(), ['skill__release_notes__count_words', 'skill__release_notes__render']);
    const registered = tools.registry.get('skill__release_notes__count_words')!;
    assert.equal(registered.kind, 'dynamic_skill_tool');
    assert.equal(registered.domain, 'skills');
  });

  it('toolgate list shows the skill tools in the domain skills, and read_skill and list_skills as core', async () => {
    const run = await cliInProcess(['list', '--domain', 'skills'], { cwd: t.ws });
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /^skill__release_notes__count_words +1\.0\.0 +dynamic_skill_tool +write +yes +skills /m);
    assert.match(run.stdout, /^skill__release_notes__render /m);
    assert.doesNotMatch(run.stdout, /read_skill/);
    const core = await cliInProcess(['list', '--domain', 'core', '--tag', 'skills'], { cwd: t.ws });
    assert.match(core.stdout, /^list_skills .* file_read +read +no +- /m);
    assert.match(core.stdout, /^read_skill /m);
  });

  it('read_skill names the skills when asked for one that does not exist', async () => {
    const result = await tools.execute({ name: 'read_skill', arguments: { name: 'nope' }, callId: 'nope' });
    assert.equal(result.success, false);
    assert.match(result.error ?? result.output, /no skill "nope"; skills: release-notes/);
  });
});

describe('a skill tool under policy files', () => {
  const t = tempWorkspace();
  const config = path.join(t.root, 'config');
  const policyFile = path.join(t.root, 'policy.toml');
  let restore: () => void;
  let tools: ToolSystem;
  before(async () => {
    restore = withConfigHome(config);
    writeSkill(path.join(config, 'toolgate', 'skills'), 'release-notes', RELEASE_NOTES, { 'scripts/render.sh': '#!/bin/sh\necho rendered\n' });
    tools = new ToolSystem({ workspace: t.ws, ledger: false, executor: { ...SANDBOX, policy: { user: policyFile, workspace: false } } });
    await tools.start();
  });
  after(async () => {
    await tools.close();
    restore();
    t.cleanup();
  });
  const call = (id: string) => tools.execute({ name: 'skill__release_notes__count_words', arguments: { text: 'a b' }, callId: id }, { approvalMode: 'allow-all' });

  it('runs under allow-all with no rule, asks under a rule that says ask, and is denied under one that says deny', async () => {
    fs.writeFileSync(policyFile, '');
    const ran = await call('p0');
    assert.equal(ran.success, true, ran.output);
    assert.match(ran.output, /^2$/m);

    fs.writeFileSync(policyFile, '[[rules]]\nkind = "dynamic_skill_tool"\naction = "ask"\n');
    const asked = await call('p1');
    assert.equal(asked.errorCode, 'CONFIRMATION_REQUIRED', asked.output);

    fs.writeFileSync(policyFile, '[[rules]]\ntool = "skill__release_notes__*"\naction = "deny"\nreason = "no skill tools here"\n');
    const denied = await tools.execute({ name: 'skill__release_notes__count_words', arguments: { text: 'a b' }, callId: 'p2' }, { confirm: true });
    assert.equal(denied.errorCode, 'POLICY_DENIED', denied.output);
    assert.match(denied.output, /no skill tools here/);

    fs.writeFileSync(policyFile, '[[rules]]\nkind = "dynamic_skill_tool"\naction = "deny"\n');
    assert.equal((await call('p3')).errorCode, 'POLICY_DENIED');
  });

  it('a skill tool allowed by a rule runs without asking; read_skill and list_skills are reads', async () => {
    fs.writeFileSync(policyFile, '[[rules]]\ntool = "skill__release_notes__count_words"\naction = "allow"\n');
    const ran = await tools.execute({ name: 'skill__release_notes__count_words', arguments: { text: 'one' }, callId: 'a1' });
    assert.equal(ran.success, true, ran.output);
    assert.equal(tools.registry.get('read_skill')!.kind, 'file_read');
    assert.equal(tools.registry.get('list_skills')!.readOnly, true);
  });
});

describe('a workspace\'s skills', () => {
  const t = tempWorkspace();
  const config = path.join(t.root, 'config');
  let restore: () => void;
  const skill = `---\nname: repo-helper\ndescription: Helps with this repository.\ntools:\n  - name: greet\n    description: Say hello.\n    shell: echo hello from the repo\n---\nSay hello first.\n`;
  before(() => {
    restore = withConfigHome(config);
    writeSkill(path.join(t.ws, '.toolgate', 'skills'), 'repo-helper', skill);
  });
  after(() => {
    restore();
    t.cleanup();
  });

  it('are read but add no tools until the user pins them in skills-trust.json', async () => {
    const untrusted = new ToolSystem({ workspace: t.ws, ledger: false, executor: SANDBOX });
    await untrusted.start();
    try {
      assert.equal(untrusted.registry.get('skill__repo_helper__greet'), undefined, 'not registered');
      const read = await untrusted.execute({ name: 'read_skill', arguments: { name: 'repo-helper' }, callId: 'r' });
      assert.equal(read.success, true, read.output);
      assert.match(read.output, /\(workspace, untrusted\)/);
      assert.match(read.output, /NOT available/);
      assert.match((await untrusted.execute({ name: 'list_skills', arguments: {}, callId: 'l' })).output, /untrusted workspace skill/);
    } finally {
      await untrusted.close();
    }
    fs.mkdirSync(path.join(config, 'toolgate'), { recursive: true });
    const digest = skillDigest(path.join(t.ws, '.toolgate', 'skills', 'repo-helper'))!;
    fs.writeFileSync(path.join(config, 'toolgate', 'skills-trust.json'), JSON.stringify({ workspaces: [{ path: t.ws, skills: { 'repo-helper': digest } }] }));
    const trusted = new ToolSystem({ workspace: t.ws, ledger: false, executor: SANDBOX });
    await trusted.start();
    try {
      assert.equal(trusted.registry.get('skill__repo_helper__greet')?.kind, 'dynamic_skill_tool');
      const ran = await trusted.execute({ name: 'skill__repo_helper__greet', arguments: {}, callId: 'g' }, { confirm: true });
      assert.equal(ran.success, true, ran.output);
      assert.match(ran.output, /hello from the repo/);
    } finally {
      await trusted.close();
    }
  });

  it('cannot shadow a user\'s skill of the same name, nor come through a symlinked .toolgate', async () => {
    writeSkill(path.join(config, 'toolgate', 'skills'), 'repo-helper', skill.replace('echo hello from the repo', 'echo hello from the user'));
    const tools = new ToolSystem({ workspace: t.ws, ledger: false, executor: SANDBOX });
    await tools.start();
    try {
      const ran = await tools.execute({ name: 'skill__repo_helper__greet', arguments: {}, callId: 'g' }, { confirm: true });
      assert.match(ran.output, /hello from the user/);
    } finally {
      await tools.close();
      fs.rmSync(path.join(config, 'toolgate', 'skills', 'repo-helper'), { recursive: true });
    }
    const other = path.join(t.root, 'linked-ws');
    fs.mkdirSync(other);
    fs.symlinkSync(path.join(t.ws, '.toolgate'), path.join(other, '.toolgate'));
    fs.writeFileSync(path.join(config, 'toolgate', 'skills-trust.json'), JSON.stringify({ workspaces: [t.ws, other] }));
    const linked = new ToolSystem({ workspace: other, ledger: false, executor: SANDBOX });
    await linked.start();
    try {
      assert.equal(linked.registry.get('skill__repo_helper__greet'), undefined);
      assert.match((await linked.execute({ name: 'list_skills', arguments: {}, callId: 'l' })).output, /symbolic link/);
    } finally {
      await linked.close();
    }
  });
});
