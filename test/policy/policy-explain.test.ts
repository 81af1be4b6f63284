/**
 * `toolgate policy check --explain` for a shell call (issue 30, item 1): per command of a line
 * of five, the rule, and the table entry or the unknown option that decided.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { runCli } from '../helpers.js';

describe('toolgate policy check --explain, per command', () => {
  let root: string;
  let env: NodeJS.ProcessEnv;
  before(() => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'toolgate-policy-explain-'));
    fs.mkdirSync(path.join(root, 'config', 'toolgate'), { recursive: true });
    fs.mkdirSync(path.join(root, 'ws'), { recursive: true });
    env = { ...process.env, XDG_CONFIG_HOME: path.join(root, 'config'), HOME: path.join(root, 'home') };
  });
  after(() => fs.rmSync(root, { recursive: true, force: true }));

  test('C4: a line of 5 commands: each with its rule and table entry, the unknown option and the writing option named', async () => {
    const userFile = path.join(root, 'config', 'toolgate', 'policy.toml');
    fs.writeFileSync(userFile, '[[rules]]\ncommand = "git"\naction = "allow"\n\n[[rules]]\ncommand = "sed"\naction = "allow"\n\n[[rules]]\ncommand = "timeout"\naction = "allow"\n\n[[rules]]\ncommand = "rm"\naction = "deny"\n');
    const line = "git status -s && git log --output=out.txt; sed -n '1p' notes.txt | git diff --frobnicate; timeout 5 rm -rf data";
    const run = await runCli(['policy', 'check', '--workspace', path.join(root, 'ws'), '--explain', JSON.stringify({ name: 'run_command', arguments: { command: line } })], { env, cwd: root });
    assert.equal(run.code, 0, run.stderr);
    const out = run.stdout;
    assert.ok(out.includes(`\`git status -s\`: allow by ${userFile}:1 [table: git status]`), out);
    assert.ok(out.includes(`\`git log --output=out.txt\`: ask by ${userFile}:1 [table: git log]: --output writes files`), out);
    assert.ok(out.includes(`\`sed -n '1p' notes.txt\`: allow by ${userFile}:5 [table: sed]`), out);
    assert.ok(out.includes(`\`git diff --frobnicate\`: ask by ${userFile}:1 [table: git diff]: unknown option --frobnicate`), out);
    assert.ok(out.includes(`\`timeout 5 rm -rf data\`: deny by ${userFile}:13`), out);
    assert.match(out, /^verdict {4}deny: `timeout 5 rm -rf data` is denied/m);
  });

  test('an allow rule whose command ends in * gets a warning: it no longer widens the rule', async () => {
    const userFile = path.join(root, 'config', 'toolgate', 'policy.toml');
    fs.writeFileSync(userFile, '[[rules]]\ncommand = "npm run *"\naction = "allow"\n\n[[rules]]\ncommand = "rm *"\naction = "deny"\n');
    const run = await runCli(['policy', 'check', '--workspace', path.join(root, 'ws')], { env, cwd: root });
    assert.equal(run.code, 0, run.stderr);
    assert.ok(run.stdout.includes(`warning: ${userFile}:1: the trailing "*" of command = "npm run *" adds nothing`), run.stdout);
    assert.equal(run.stdout.includes(`${userFile}:5`), false, 'a deny rule is not warned about');
  });
});
