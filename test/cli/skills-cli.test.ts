/**
 * `toolgate skills list|trust|untrust`: a workspace skill is trusted by its content from the
 * command line, where before the user had to paste the entry a warning printed into
 * `skills-trust.json`. `list` gives each skill's digest and status (trusted, untrusted,
 * changed); `trust` shows the files and the tools first, needs `--yes` off a terminal (or a
 * "y" on one), and pins the digest of what it showed; a skill changed afterwards is untrusted
 * again; `untrust` removes the pin and keeps the file's other entries. The user's config folder
 * is this file's own (XDG_CONFIG_HOME); the folders are removed.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { after, describe, it } from 'node:test';
import { runCli as runCliInProcess } from '../../src/cli/main.js';
import { skillDigest } from '../../tools-ported/skills/skill-catalog.js';
import { runCli, tempWorkspace } from '../helpers.js';
import { onEachPrompt } from '../wait.js';
import { cliInProcess } from './in-process.js';

const SKILL = '---\nname: repo-helper\ndescription: Helps with the repository.\ntools:\n  - name: count\n    description: Count the files.\n    shell: ls | wc -l\n  - name: render\n    description: Render the notes.\n    script: scripts/render.sh\n---\nUse count first.\n';

describe('toolgate skills', () => {
  const t = tempWorkspace();
  after(t.cleanup);
  const config = path.join(t.root, 'config');
  const env = { ...process.env, XDG_CONFIG_HOME: config };
  const trustFile = path.join(config, 'toolgate', 'skills-trust.json');
  const folder = path.join(t.ws, '.toolgate', 'skills', 'repo-helper');
  fs.mkdirSync(path.join(folder, 'scripts'), { recursive: true });
  fs.writeFileSync(path.join(folder, 'SKILL.md'), SKILL);
  fs.writeFileSync(path.join(folder, 'scripts', 'render.sh'), '#!/bin/sh\necho notes\n');
  const skills = (args: string[], input?: string) => cliInProcess(['skills', ...args, '--workspace', t.ws], { env, ...(input === undefined ? {} : { input }) });
  /** The skill tools a real `toolgate list` process registers in the workspace. */
  const registered = async () => {
    const listed = await runCli(['list', '--json'], { cwd: t.ws, env });
    assert.equal(listed.code, 0, listed.stderr);
    return (JSON.parse(listed.stdout) as Array<{ name: string }>).map((r) => r.name).filter((n) => n.startsWith('skill__')).sort();
  };
  /** `toolgate skills trust` with a terminal on stdin that answers `answer`. */
  async function onTerminal(answer: string) {
    const stdin = Object.assign(new PassThrough(), { isTTY: true });
    const stdout = new PassThrough();
    const stderr = new PassThrough();
    let out = '';
    let err = '';
    stdout.on('data', (d) => (out += d));
    stderr.on('data', (d) => (err += d));
    onEachPrompt(stderr, '[y/N]', () => stdin.write(`${answer}\n`));
    const code = await runCliInProcess(['skills', 'trust', 'repo-helper', '--workspace', t.ws], { stdin, stdout, stderr, env, cwd: t.ws });
    await new Promise((resolve) => setImmediate(resolve));
    return { code, stdout: out, stderr: err };
  }

  it('list shows the skill untrusted with its digest; trust off a terminal shows the files and tools and needs --yes', async () => {
    const digest = skillDigest(folder)!;
    const listed = await skills(['list']);
    assert.equal(listed.code, 0, listed.stderr);
    assert.match(listed.stdout, /^NAME +ORIGIN +STATUS +DIGEST +TOOLS\nrepo-helper +workspace +untrusted +sha256:[0-9a-f]{16}… +skill__repo_helper__count, skill__repo_helper__render\n/);
    const json = JSON.parse((await skills(['list', '--json'])).stdout) as { skills: Array<{ name: string; status: string; digest: string }> };
    assert.deepEqual(json.skills.map((s) => [s.name, s.status, s.digest]), [['repo-helper', 'untrusted', digest]]);
    assert.deepEqual(await registered(), []);

    const refused = await skills(['trust', 'repo-helper']);
    assert.equal(refused.code, 2);
    assert.match(refused.stderr, /not on a terminal.*--yes/);
    assert.match(refused.stdout, /Files \(2\):\n {2}SKILL\.md {2}\(\d+ bytes\)\n {2}scripts\/render\.sh {2}\(\d+ bytes\)\n/);
    assert.match(refused.stdout, /skill__repo_helper__count: .*Count the files\.\n {4}runs: shell ls \| wc -l\n/);
    assert.match(refused.stdout, /skill__repo_helper__render: .*\n {4}runs: script .*scripts\/render\.sh\n/);
    assert.ok(refused.stdout.includes(`Digest: ${digest}`));
    assert.equal(fs.existsSync(trustFile), false, 'nothing written without --yes');
  });

  it('on a terminal, "n" trusts nothing and "y" pins the digest; its tools then register', async () => {
    const no = await onTerminal('n');
    assert.equal(no.code, 1, no.stderr);
    assert.equal(fs.existsSync(trustFile), false);
    const yes = await onTerminal('y');
    assert.equal(yes.code, 0, yes.stderr);
    assert.match(yes.stdout, /trusted repo-helper with sha256:/);
    const written = JSON.parse(fs.readFileSync(trustFile, 'utf8')) as { workspaces: Array<{ path: string; skills: Record<string, string> }> };
    assert.deepEqual(written.workspaces, [{ path: fs.realpathSync(t.ws), skills: { 'repo-helper': skillDigest(folder) } }]);
    assert.match((await skills(['list'])).stdout, /repo-helper +workspace +trusted /);
    assert.deepEqual(await registered(), ['skill__repo_helper__count', 'skill__repo_helper__render']);
  });

  it('a skill changed after trust is "changed" and registers nothing; the warning names the command; trust --yes pins it again', async () => {
    fs.writeFileSync(path.join(folder, 'scripts', 'render.sh'), '#!/bin/sh\necho other notes\n');
    assert.match((await skills(['list'])).stdout, /repo-helper +workspace +changed /);
    assert.deepEqual(await registered(), []);
    const warned = await runCli(['list', '--log-level', 'warn'], { cwd: t.ws, env });
    assert.match(warned.stderr, /it changed since it was trusted.*toolgate skills trust repo-helper --workspace /);
    const again = await skills(['trust', 'repo-helper', '--yes']);
    assert.equal(again.code, 0, again.stderr);
    assert.match(again.stdout, /pinned before: sha256:[0-9a-f]{64}; the content changed since/);
    assert.deepEqual(await registered(), ['skill__repo_helper__count', 'skill__repo_helper__render']);
  });

  it('untrust removes the pin and keeps the other entries; a bad trust file is reported and left as it is', async () => {
    const other = { path: t.outside, skills: { tool: `sha256:${'a'.repeat(64)}` } };
    const data = JSON.parse(fs.readFileSync(trustFile, 'utf8')) as { workspaces: unknown[] };
    fs.writeFileSync(trustFile, JSON.stringify({ workspaces: ['/some/bare/path', other, ...data.workspaces] }));
    const removed = await skills(['untrust', 'repo-helper']);
    assert.equal(removed.code, 0, removed.stderr);
    assert.match(removed.stdout, /no longer trusted/);
    assert.deepEqual(JSON.parse(fs.readFileSync(trustFile, 'utf8')), { workspaces: ['/some/bare/path', other] });
    assert.match((await skills(['list'])).stdout, /repo-helper +workspace +untrusted /);
    assert.deepEqual(await registered(), []);
    assert.match((await skills(['untrust', 'repo-helper'])).stdout, /was not trusted/);

    fs.writeFileSync(trustFile, '{"workspaces": [oops');
    const bad = await skills(['trust', 'repo-helper', '--yes']);
    assert.equal(bad.code, 1);
    assert.match(bad.stderr, /is not valid JSON.*nothing was written/);
    assert.equal(fs.readFileSync(trustFile, 'utf8'), '{"workspaces": [oops');
    fs.rmSync(trustFile);
  });

  it('an unknown skill, a user\'s skill and bad usage', async () => {
    const unknown = await skills(['trust', 'nope', '--yes']);
    assert.equal(unknown.code, 2, 'a NAME that is not there is a usage error');
    assert.match(unknown.stderr, /no skill "nope".*skills: repo-helper/);
    assert.equal((await skills(['untrust', 'nope'])).code, 2);
    const mine = path.join(config, 'toolgate', 'skills', 'mine');
    fs.mkdirSync(mine, { recursive: true });
    fs.writeFileSync(path.join(mine, 'SKILL.md'), '---\nname: mine\ndescription: Mine.\n---\nx\n');
    assert.match((await skills(['list'])).stdout, /mine +user +trusted \(yours\)/);
    const user = await skills(['trust', 'mine', '--yes']);
    assert.equal(user.code, 0);
    assert.match(user.stderr, /one of your own skills/);
    assert.equal((await skills(['frobnicate'])).code, 2);
    assert.equal((await skills(['trust'])).code, 2);
    assert.match((await cliInProcess(['skills', '--help'])).stdout, /toolgate skills trust\|untrust NAME/);
  });

  it('--state-dir is refused (exit 2), naming the trust file the environment places, which call and list read whatever their --state-dir', async () => {
    const run = await runCli(['skills', 'list', '--workspace', t.ws, '--state-dir', path.join(t.root, 'state')], { env });
    assert.equal(run.code, 2);
    assert.ok(run.stderr.includes(`skills takes no --state-dir: trust is your configuration, not state; it is kept in ${trustFile}`), run.stderr);
    assert.match(run.stderr, /set XDG_CONFIG_HOME to keep it elsewhere/);
    assert.match((await cliInProcess(['skills', '--help'])).stdout, /No --state-dir: trust is configuration/);
  });

  it('the skills\' tools are registered from the trust of the context\'s environment, not the process\'s (runCli in process)', async () => {
    assert.notEqual(process.env.XDG_CONFIG_HOME, config, 'the process knows another config folder');
    assert.equal((await skills(['trust', 'repo-helper', '--yes'])).code, 0);
    try {
      const listed = await cliInProcess(['list', '--json', '--domain', 'skills'], { cwd: t.ws, env });
      assert.equal(listed.code, 0, listed.stderr);
      assert.deepEqual((JSON.parse(listed.stdout) as Array<{ name: string }>).map((r) => r.name).sort(), ['skill__repo_helper__count', 'skill__repo_helper__render']);
    } finally {
      assert.equal((await skills(['untrust', 'repo-helper'])).code, 0);
    }
  });
});
