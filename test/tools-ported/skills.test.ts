/**
 * Malformed skills (issue 35: "a malformed SKILL.md gets a clear error and changes
 * nothing"): bad YAML, no front matter, a missing name or description, a name that cannot be
 * snake_case, a declared tool with a bad schema (refused by the parser, or by the registry's
 * meta-schema check: then none of that skill's tools is registered), a script path that
 * climbs out of the skill folder or is a symlink out, a script changed after loading. Each
 * names its file; the good skill beside it still loads. Also: an HTTP skill tool fills its URL
 * placeholders and sends the other arguments as JSON.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ToolSystem } from '../../src/index.js';
import { bubblewrapAvailable } from '../../src/internal.js';
import { findSkills } from '../../tools-ported/skills/skill-catalog.js';
import { readSkill, SkillFileError, snakeName } from '../../tools-ported/skills/skill-file.js';
import { NET_ALLOW_ENV } from '../../tools-ported/common/net-policy.js';
import { tempWorkspace } from '../helpers.js';
import { startWebFixture, type WebFixture } from '../web-fixture.js';

const SANDBOX = bubblewrapAvailable() ? {} : { sandbox: 'none' as const };

const GOOD = '---\nname: good-skill\ndescription: Works.\ntools:\n  - name: hello\n    description: Say hello.\n    shell: echo hello\n---\nBody.\n';

/** Bad SKILL.md texts, each with what its error must say. */
const BAD: Array<[folder: string, text: string, error: RegExp]> = [
  ['bad-yaml', '---\nname: [unclosed\ndescription: x\n---\n', /not valid YAML/],
  ['no-front-matter', '# Just a heading\n', /no YAML front matter/],
  ['no-name', '---\ndescription: x\n---\n', /has no name/],
  ['no-description', '---\nname: no-description\n---\n', /no description/],
  ['bad-name', '---\nname: "Not A Name!"\ndescription: x\n---\n', /cannot be a tool name prefix/],
  ['duplicate-key', '---\nname: a\nname: b\ndescription: x\n---\n', /not valid YAML/],
  ['schema-not-object', '---\nname: schema-not-object\ndescription: x\ntools:\n  - name: t\n    description: x\n    shell: "true"\n    input_schema: { type: string }\n---\n', /input_schema must be a JSON Schema of type "object"/],
  ['two-ways', '---\nname: two-ways\ndescription: x\ntools:\n  - name: t\n    description: x\n    shell: "true"\n    script: run.sh\n---\n', /exactly one of shell, script or http/],
  ['bad-tool-name', '---\nname: bad-tool-name\ndescription: x\ntools:\n  - name: "Bad Name"\n    description: x\n    shell: "true"\n---\n', /is not a snake_case name/],
  ['climbs-out', '---\nname: climbs-out\ndescription: x\ntools:\n  - name: t\n    description: x\n    script: ../good-skill/SKILL.md\n---\n', /leaves the skill folder/],
  ['absolute-script', '---\nname: absolute-script\ndescription: x\ntools:\n  - name: t\n    description: x\n    script: /bin/sh\n---\n', /leaves the skill folder/],
  ['http-host-placeholder', '---\nname: http-host-placeholder\ndescription: x\ntools:\n  - name: t\n    description: x\n    http: { url: "https://{host}/x" }\n---\n', /host is fixed/],
  // A placeholder after a fixed start of the host still picks the host: {sub} = ".evil.example" (dots are not escaped), or the port, or the user part.
  ['http-host-suffix', '---\nname: http-host-suffix\ndescription: x\ntools:\n  - name: t\n    description: x\n    http: { url: "https://api.example.com{sub}/x" }\n---\n', /host is fixed/],
  ['http-port-placeholder', '---\nname: http-port-placeholder\ndescription: x\ntools:\n  - name: t\n    description: x\n    http: { url: "https://api.example.com:{port}/x" }\n---\n', /host is fixed/],
  ['tool-kind', '---\nname: tool-kind\ndescription: x\ntools:\n  - name: t\n    description: x\n    shell: "true"\n    kind: file_read\n---\n', /kind is not a known key/],
  ['tool-no-confirm', '---\nname: tool-no-confirm\ndescription: x\ntools:\n  - name: t\n    description: x\n    shell: "true"\n    requires_confirmation: false\n---\n', /requires_confirmation is not a known key/],
  ['unknown-key', '---\nname: unknown-key\ndescription: x\ntools:\n  - name: t\n    description: x\n    shell: "true"\n    run_as: root\n---\n', /run_as is not a known key/],
];

describe('malformed skills', () => {
  const t = tempWorkspace();
  const config = path.join(t.root, 'config');
  const skills = path.join(config, 'toolgate', 'skills');
  const saved = process.env.XDG_CONFIG_HOME;
  before(() => {
    process.env.XDG_CONFIG_HOME = config;
    fs.mkdirSync(path.join(skills, 'good-skill'), { recursive: true });
    fs.writeFileSync(path.join(skills, 'good-skill', 'SKILL.md'), GOOD);
    for (const [folder, text] of BAD) {
      fs.mkdirSync(path.join(skills, folder));
      fs.writeFileSync(path.join(skills, folder, 'SKILL.md'), text);
    }
    // A script that is a symlink leading out of the skill folder.
    const out = path.join(skills, 'symlink-out');
    fs.mkdirSync(out);
    fs.writeFileSync(path.join(out, 'SKILL.md'), '---\nname: symlink-out\ndescription: x\ntools:\n  - name: t\n    description: x\n    script: run.sh\n---\n');
    fs.symlinkSync(t.sentinel, path.join(out, 'run.sh'));
    // A schema the parser lets through and the registry's meta-schema check refuses.
    const meta = path.join(skills, 'bad-meta-schema');
    fs.mkdirSync(meta);
    fs.writeFileSync(path.join(meta, 'SKILL.md'), '---\nname: bad-meta-schema\ndescription: x\ntools:\n  - name: first\n    description: x\n    shell: "true"\n  - name: second\n    description: x\n    shell: "true"\n    input_schema: { type: object, properties: { a: { type: nope } } }\n---\n');
  });
  after(() => {
    if (saved === undefined) delete process.env.XDG_CONFIG_HOME;
    else process.env.XDG_CONFIG_HOME = saved;
    t.cleanup();
  });

  it('each gets an error naming its SKILL.md; the good skill still loads', () => {
    const catalog = findSkills({ workspaceRoot: t.ws });
    assert.deepEqual(catalog.skills.map((s) => s.name), ['bad-meta-schema', 'good-skill']);
    for (const [folder, , error] of BAD) {
      const problem = catalog.problems.find((p) => p.file === path.join(skills, folder, 'SKILL.md'));
      assert.ok(problem, `a problem for ${folder}`);
      assert.match(problem.message, error, folder);
      assert.match(problem.message, new RegExp(`${folder}/SKILL\\.md: `), 'the message names the file');
    }
    const symlink = catalog.problems.find((p) => p.file.includes('symlink-out'));
    assert.match(symlink!.message, /symbolic link .* leads out of the skill folder/);
  });

  it('a tool system registers the good skill\'s tool and none of a skill whose schema the registry refuses', async () => {
    const tools = new ToolSystem({ workspace: t.ws, ledger: false, executor: SANDBOX });
    await tools.start();
    try {
      assert.equal(tools.registry.get('skill__good_skill__hello')?.kind, 'dynamic_skill_tool');
      assert.equal(tools.registry.get('skill__bad_meta_schema__first'), undefined, 'all or none: the first tool was rolled back');
      assert.equal(tools.registry.get('skill__bad_meta_schema__second'), undefined);
      const listed = await tools.execute({ name: 'list_skills', arguments: {}, callId: 'l' });
      assert.match(listed.output, /good-skill \(user\): Works\./);
      assert.match(listed.output, /bad-yaml\/SKILL\.md: the front matter is not valid YAML/);
      const ran = await tools.execute({ name: 'skill__good_skill__hello', arguments: {}, callId: 'h' }, { confirm: true });
      assert.match(ran.output, /^hello$/m);
    } finally {
      await tools.close();
    }
  });

  it('a skill cannot widen a policy: allowed-tools in its front matter pre-approves nothing', async () => {
    const dir = path.join(skills, 'wide');
    fs.mkdirSync(dir);
    fs.writeFileSync(path.join(dir, 'SKILL.md'), '---\nname: wide\ndescription: x\nallowed-tools: [run_command, write_file]\n---\nRun anything.\n');
    const tools = new ToolSystem({ workspace: t.ws, ledger: false, executor: SANDBOX });
    await tools.start();
    try {
      const listed = await tools.execute({ name: 'list_skills', arguments: {}, callId: 'w0' });
      assert.match(listed.output, /wide \(user\)/);
      const asked = await tools.execute({ name: 'run_command', arguments: { command: 'echo hi' }, callId: 'w1' });
      assert.equal(asked.errorCode, 'CONFIRMATION_REQUIRED', asked.output);
    } finally {
      await tools.close();
      fs.rmSync(dir, { recursive: true });
    }
  });

  it('a script changed after loading is not run', async () => {
    const dir = path.join(skills, 'changing');
    fs.mkdirSync(dir);
    fs.writeFileSync(path.join(dir, 'SKILL.md'), '---\nname: changing\ndescription: x\ntools:\n  - name: run\n    description: x\n    script: run.sh\n---\n');
    fs.writeFileSync(path.join(dir, 'run.sh'), '#!/bin/sh\necho original\n', { mode: 0o755 });
    const tools = new ToolSystem({ workspace: t.ws, ledger: false, executor: SANDBOX });
    await tools.start();
    try {
      assert.match((await tools.execute({ name: 'skill__changing__run', arguments: {}, callId: 'c1' }, { confirm: true })).output, /^original$/m);
      fs.writeFileSync(path.join(dir, 'run.sh'), '#!/bin/sh\necho swapped\n');
      const refused = await tools.execute({ name: 'skill__changing__run', arguments: {}, callId: 'c2' }, { confirm: true });
      assert.equal(refused.success, false);
      assert.match(refused.error ?? refused.output, /changed since the skill was loaded; nothing was run/);
      assert.doesNotMatch(refused.output, /swapped/);
    } finally {
      await tools.close();
      fs.rmSync(dir, { recursive: true });
    }
  });

  it('readSkill throws SkillFileError; snakeName turns kebab-case into snake_case and refuses the rest', () => {
    assert.throws(() => readSkill(path.join(skills, 'no-name'), 'user'), (e: unknown) => e instanceof SkillFileError && e.file.endsWith('no-name/SKILL.md'));
    assert.throws(() => readSkill(path.join(skills, 'missing'), 'user'), /no SKILL\.md in the skill folder/);
    assert.equal(snakeName('pdf-tools'), 'pdf_tools');
    assert.equal(snakeName('9lives'), undefined);
    assert.equal(snakeName('x'.repeat(65)), undefined);
  });
});

describe('an HTTP skill tool', () => {
  const t = tempWorkspace();
  const config = path.join(t.root, 'config');
  const saved = { config: process.env.XDG_CONFIG_HOME, allow: process.env[NET_ALLOW_ENV] };
  let web: WebFixture;
  before(async () => {
    web = await startWebFixture();
    process.env.XDG_CONFIG_HOME = config;
    process.env[NET_ALLOW_ENV] = '127.0.0.1';
    const dir = path.join(config, 'toolgate', 'skills', 'tracker');
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, 'SKILL.md'), `---\nname: tracker\ndescription: Issue tracker.\ntools:\n  - name: comment\n    description: Comment on an item.\n    http:\n      method: POST\n      url: ${web.base}/items/{id}/comments\n      headers: { X-Skill: tracker }\n    input_schema:\n      type: object\n      properties:\n        id: { type: string }\n        text: { type: string }\n      required: [id, text]\n---\n`);
  });
  after(async () => {
    await web.close();
    for (const [name, value] of [['XDG_CONFIG_HOME', saved.config], [NET_ALLOW_ENV, saved.allow]] as const) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
    t.cleanup();
  });

  it('fills the URL placeholders (encoded) and sends the other arguments as the JSON body', async () => {
    const tools = new ToolSystem({ workspace: t.ws, ledger: false, executor: SANDBOX });
    await tools.start();
    try {
      const result = await tools.execute({ name: 'skill__tracker__comment', arguments: { id: 'a b/c', text: 'looks good' }, callId: 'h1' }, { confirm: true });
      assert.ok(result.output.length > 0);
      const hit = web.hits.at(-1)!;
      assert.deepEqual([hit.method, hit.url], ['POST', '/items/a%20b%2Fc/comments']);
      assert.deepEqual(JSON.parse(hit.body), { text: 'looks good' });
      assert.equal(hit.headers['x-skill'], 'tracker');
      // A placeholder value "." or ".." would climb out of the path the skill fixed (/items/../comments is /comments): refused, nothing sent.
      const hits = web.hits.length;
      for (const id of ['..', '.']) {
        const climb = await tools.execute({ name: 'skill__tracker__comment', arguments: { id, text: 'x' }, callId: `h-${id}` }, { confirm: true });
        assert.equal(climb.errorCode, 'INVALID_ARGUMENTS', climb.output);
      }
      assert.equal(web.hits.length, hits);
    } finally {
      await tools.close();
    }
  });
});

describe('a workspace skill folder that cannot be trusted as it is', () => {
  const t = tempWorkspace();
  const config = path.join(t.root, 'config');
  const saved = process.env.XDG_CONFIG_HOME;
  before(() => {
    process.env.XDG_CONFIG_HOME = config;
    const skills = path.join(t.ws, '.toolgate', 'skills');
    fs.mkdirSync(path.join(skills, 'linked-file'), { recursive: true });
    fs.writeFileSync(path.join(t.outside, 'SKILL.md'), GOOD.replace('good-skill', 'linked-file'));
    fs.symlinkSync(path.join(t.outside, 'SKILL.md'), path.join(skills, 'linked-file', 'SKILL.md'));
    fs.mkdirSync(path.join(t.outside, 'skill-elsewhere'));
    fs.writeFileSync(path.join(t.outside, 'skill-elsewhere', 'SKILL.md'), GOOD.replace('good-skill', 'skill-elsewhere'));
    fs.symlinkSync(path.join(t.outside, 'skill-elsewhere'), path.join(skills, 'skill-elsewhere'));
    fs.mkdirSync(path.join(config, 'toolgate'), { recursive: true });
  });
  after(() => {
    if (saved === undefined) delete process.env.XDG_CONFIG_HOME;
    else process.env.XDG_CONFIG_HOME = saved;
    t.cleanup();
  });

  it('a symlinked SKILL.md or skill folder is refused, naming it', () => {
    fs.writeFileSync(path.join(config, 'toolgate', 'skills-trust.json'), JSON.stringify({ workspaces: [t.ws] }));
    const catalog = findSkills({ workspaceRoot: t.ws });
    assert.deepEqual(catalog.skills, []);
    assert.ok(catalog.workspaceTrusted);
    assert.match(catalog.problems.find((p) => p.file.endsWith('linked-file/SKILL.md'))!.message, /SKILL\.md is a symbolic link/);
    assert.match(catalog.problems.find((p) => p.file.endsWith('skill-elsewhere'))!.message, /is a symbolic link; a workspace's skill must be a real folder/);
  });

  it('an invalid skills-trust.json trusts no workspace, naming the file', () => {
    fs.writeFileSync(path.join(config, 'toolgate', 'skills-trust.json'), JSON.stringify({ workspaces: 'everything' }));
    const catalog = findSkills({ workspaceRoot: t.ws });
    assert.equal(catalog.workspaceTrusted, false);
    assert.match(catalog.problems.find((p) => p.file.endsWith('skills-trust.json'))!.message, /is not valid .*no workspace's skills are trusted/);
  });
});
