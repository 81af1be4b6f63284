/**
 * Policy on the command line (issue 15, items 2, 3, 4 and 8): `--approve MODE`, the policy
 * files the CLI reads by default (and `--no-policy`), `call --explain`, and `policy check
 * --explain` on a shell command that a wrapper hides.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { tempWorkspace } from '../helpers.js';
import { cliInProcess } from './in-process.js';

describe('toolgate and policy', () => {
  const t = tempWorkspace();
  after(t.cleanup);
  const config = path.join(t.root, 'config');
  // The user's file lives where this environment says: never the real user's.
  const env = { ...process.env, XDG_CONFIG_HOME: config };
  const userFile = path.join(config, 'toolgate', 'policy.toml');
  const workspaceFile = path.join(t.ws, '.toolgate', 'policy.toml');
  const cli = (args: string[]) => cliInProcess([...args, '--workspace', t.ws], { env });

  it('--approve allow-all runs a call that would ask; deny-all refuses a read; an unknown mode is a usage error', async () => {
    const written = await cli(['call', 'write_file', '{"filepath":"a.md","content":"x"}', '--approve', 'allow-all']);
    assert.equal(written.code, 0, written.stderr);
    assert.equal(fs.readFileSync(path.join(t.ws, 'a.md'), 'utf8'), 'x');
    const refused = await cli(['call', 'list_files', '{}', '--approve', 'deny-all']);
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /the approval mode is deny-all/);
    const bad = await cli(['call', 'list_files', '{}', '--approve', 'sometimes']);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /--approve must be one of allow-all, deny-all, read-only, always-ask/);
  });

  it('reads the user\'s and the workspace\'s policy files, names the rule in the refusal and in --explain; --no-policy reads none', async () => {
    fs.mkdirSync(path.dirname(userFile), { recursive: true });
    fs.mkdirSync(path.dirname(workspaceFile), { recursive: true });
    fs.writeFileSync(userFile, '[[rules]]\nkind = "file_read"\naction = "allow"\n');
    fs.writeFileSync(workspaceFile, '# the repository says\n[[rules]]\ntool = "write_file"\naction = "deny"\nreason = "generated files only"\n');
    try {
      const denied = await cli(['call', 'write_file', '{"filepath":"b.md","content":"x"}', '--yes', '--explain']);
      assert.equal(denied.code, 1);
      assert.match(denied.stderr, /Denied by policy: .*generated files only/);
      assert.ok(denied.stderr.includes(`policy: deny [${workspaceFile}:2]: Denied by policy`), denied.stderr);
      assert.match(denied.stderr, /=> not run \(POLICY_DENIED\)/);
      const allowed = await cli(['call', 'list_files', '{}', '--explain', '--approve', 'always-ask']);
      // always-ask beats the allow rule: with no terminal, nobody can answer.
      assert.equal(allowed.code, 1);
      assert.match(allowed.stderr, /1\. policy: allow/);
      assert.match(allowed.stderr, /2\. approval: ask \[always-ask\]/);
      // Arguments that fail validation never reach the deciders: --explain does not call that allowed.
      const invalid = await cli(['call', 'write_file', '{"filepath":"b.md"}', '--yes', '--explain']);
      assert.equal(invalid.code, 1);
      assert.match(invalid.stderr, /no decider was asked: the call stopped before the decisions \(INVALID_ARGUMENTS\)/);
      assert.doesNotMatch(invalid.stderr, /no decider had an opinion/);
      const ignored = await cli(['call', 'write_file', '{"filepath":"b.md","content":"x"}', '--yes', '--no-policy']);
      assert.equal(ignored.code, 0, ignored.stderr);
    } finally {
      fs.rmSync(workspaceFile, { force: true });
      fs.rmSync(userFile, { force: true });
    }
  });

  it('policy check --explain shows the command a wrapper hides and the rule that denies it', async () => {
    fs.mkdirSync(path.dirname(userFile), { recursive: true });
    fs.writeFileSync(userFile, '[[rules]]\ncommand = "rm"\naction = "deny"\n');
    try {
      const r = await cli(['policy', 'check', '--explain', JSON.stringify({ name: 'run_command', arguments: { command: 'timeout 5 rm -rf data' } })]);
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stdout, /command rm -rf data \(wrapped in timeout\): shell_command/);
      assert.match(r.stdout, /verdict {4}deny/);
      assert.ok(r.stdout.includes(`${userFile}:1`), r.stdout);
    } finally {
      fs.rmSync(userFile, { force: true });
    }
  });
  it('P9: policy check --explain shows input redirections and judges command words as the decider does (a redirect target, a folder holding a denied path)', async () => {
    fs.mkdirSync(path.dirname(userFile), { recursive: true });
    fs.writeFileSync(userFile, '[[rules]]\npaths = ["secrets/**"]\naction = "deny"\n[[rules]]\ncommand = "cat"\naction = "allow"\n[[rules]]\ncommand = "grep"\naction = "allow"\n');
    fs.mkdirSync(path.join(t.ws, 'secrets'), { recursive: true });
    fs.writeFileSync(path.join(t.ws, 'secrets/key.txt'), 'K\n');
    try {
      const explain = (command: string) => cli(['policy', 'check', '--explain', JSON.stringify({ name: 'run_command', arguments: { command } })]);
      const read = await explain('cat < secrets/key.txt');
      assert.equal(read.code, 0, read.stderr);
      assert.match(read.stdout, /command cat reads secrets\/key\.txt: shell_command/);
      assert.match(read.stdout, /verdict {4}deny: .*names "secrets\/key\.txt"/);
      const folder = await explain('grep -r K .');
      assert.match(folder.stdout, /verdict {4}deny: .*the folder "\.", which holds/);
      const plain = await explain('cat README.none');
      assert.match(plain.stdout, /verdict {4}allow/);
    } finally {
      fs.rmSync(userFile, { force: true });
      fs.rmSync(path.join(t.ws, 'secrets'), { recursive: true, force: true });
    }
  });
});
