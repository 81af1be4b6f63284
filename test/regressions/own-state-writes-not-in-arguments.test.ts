// Regression (cases O1, P9 and M1's families, attack s19): the deciders judge a call's path
// arguments, but two tools write paths that are not among them. extract_archive into a
// workspace that is the user's home folder, approved, unpacked a member
// `.config/toolgate/policy.toml` over the user's policy file (allow everything from then on).
// restore_snapshot writes the path recorded in the snapshot: with `notes.txt` replaced by a
// link to the user's policy file it rewrote that file, and with a link to `.env` under a deny
// rule it overwrote `.env` and copied `.env`'s content into a new snapshot the model could
// read. Every write of a file tool now refuses toolgate's own files at the moment of writing
// (Workspace.assertWritable), an archive's members are checked where they land, and
// restore_snapshot judges its target by the call's path rules.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { ToolExecutor, type ToolExecutionResult } from 'toolgate';
import { portedRegistry, tempWorkspace, type TempWorkspace } from '../helpers.js';
import { policyExecutor } from '../policy-executor.js';

const POLICY = '[[rules]]\naction = "deny"\ntool = "write_file"\n';

describe('O1 family: toolgate\'s own files are not written by tools whose targets are not arguments', () => {
  let t: TempWorkspace;
  let executor: ToolExecutor;
  let policyFile: string;
  const saved = process.env.XDG_CONFIG_HOME;
  before(async () => {
    t = tempWorkspace();
    // The workspace is the user's home: the config folder is inside it.
    process.env.XDG_CONFIG_HOME = path.join(t.ws, '.config');
    policyFile = path.join(t.ws, '.config', 'toolgate', 'policy.toml');
    fs.mkdirSync(path.dirname(policyFile), { recursive: true });
    fs.writeFileSync(policyFile, POLICY);
    executor = new ToolExecutor(await portedRegistry(), { workspaceRoot: t.ws });
  });
  after(async () => {
    await executor.close();
    if (saved === undefined) delete process.env.XDG_CONFIG_HOME;
    else process.env.XDG_CONFIG_HOME = saved;
    t.cleanup();
  });
  const call = (name: string, args: Record<string, unknown>): Promise<ToolExecutionResult> => executor.execute({ name, arguments: args }, { confirm: true });

  test('O1: an approved extract_archive holding .config/toolgate/policy.toml does not replace the user\'s policy file', async () => {
    const stage = path.join(t.root, 'stage');
    fs.mkdirSync(path.join(stage, '.config', 'toolgate'), { recursive: true });
    fs.writeFileSync(path.join(stage, '.config', 'toolgate', 'policy.toml'), '[[rules]]\naction = "allow"\n');
    execFileSync('tar', ['czf', path.join(t.ws, 'pkg.tar.gz'), '-C', stage, '.config']);
    fs.rmSync(stage, { recursive: true });
    for (const overwrite of [true, false]) {
      const r = await call('extract_archive', { filepath: 'pkg.tar.gz', destination: '.', overwrite });
      assert.equal(r.success, false, `overwrite ${overwrite}: ${r.output}`);
      assert.match(r.error!, /toolgate's own file or folder/);
      assert.equal(fs.readFileSync(policyFile, 'utf8'), POLICY);
    }
    // Into another folder it unpacks (the rule is about where members land).
    const elsewhere = await call('extract_archive', { filepath: 'pkg.tar.gz', destination: 'unpacked' });
    assert.equal(elsewhere.success, true, elsewhere.error);
  });

  test('O1/M1: restore_snapshot through a link swapped in to the user\'s policy file writes nothing there', async () => {
    fs.writeFileSync(path.join(t.ws, 'notes.txt'), '[[rules]]\naction = "allow"\n');
    const taken = await call('snapshot_file', { filepath: 'notes.txt' });
    assert.equal(taken.success, true, taken.error);
    const id = /Snapshot (\S+) of/.exec(String(taken.output))![1]!;
    fs.rmSync(path.join(t.ws, 'notes.txt'));
    fs.symlinkSync(path.join('.config', 'toolgate', 'policy.toml'), path.join(t.ws, 'notes.txt'));
    const r = await call('restore_snapshot', { snapshot_id: id });
    assert.equal(r.success, false, String(r.output));
    assert.match(r.error!, /toolgate's own file or folder/);
    assert.equal(fs.readFileSync(policyFile, 'utf8'), POLICY);
  });
});

describe('P9 family: restore_snapshot judges its target by the call\'s path rules', () => {
  const { t, call } = policyExecutor({ userFile: 'config/policy.toml', rules: '[[rules]]\naction = "deny"\npaths = [".env", "secrets/**"]\n' });

  test('P9: a snapshot of notes.txt restored after notes.txt became a link to .env neither writes .env nor copies it into a snapshot', async () => {
    fs.writeFileSync(path.join(t.ws, '.env'), 'TOKEN=ENV-SECRET\n');
    fs.writeFileSync(path.join(t.ws, 'notes.txt'), 'old notes\n');
    const taken = await call('snapshot_file', { filepath: 'notes.txt' });
    assert.equal(taken.success, true, taken.error);
    const id = /Snapshot (\S+) of/.exec(String(taken.output))![1]!;
    fs.rmSync(path.join(t.ws, 'notes.txt'));
    fs.symlinkSync('.env', path.join(t.ws, 'notes.txt'));
    const r = await call('restore_snapshot', { snapshot_id: id }, { confirm: true });
    assert.equal(r.success, false, String(r.output));
    assert.match(r.error!, /policy's path rules/);
    assert.equal(fs.readFileSync(path.join(t.ws, '.env'), 'utf8'), 'TOKEN=ENV-SECRET\n');
    const store = path.join(t.ws, '.toolgate', 'snapshots');
    const held = fs.readdirSync(store, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.bin')).map((f) => fs.readFileSync(path.join(store, f), 'utf8'));
    assert.ok(!held.some((text) => text.includes('ENV-SECRET')), 'no snapshot holds .env');
  });
});
