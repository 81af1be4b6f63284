/**
 * toolgate's own files out of reach of the file tools (issue 30, item 4, the file-tool half;
 * case O1): with the workspace at the user's home folder, the policy file, the config
 * folder and the state folder with the ledger are denied to every writing tool, and a
 * command naming them is denied; the next call still asks.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { ToolExecutor, type ConfirmationRequest, type ToolExecutionResult } from 'toolgate';
import { ownStatePaths } from '../../src/workspace/own-state-paths.js';
import { portedRegistry } from '../helpers.js';

describe('ownStatePaths', () => {
  test('the default config and state folders, the policy file and its lock, the state folder and extras; links listed by their real path too', () => {
    const home = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'toolgate-home-')));
    try {
      fs.mkdirSync(path.join(home, 'dotfiles'));
      fs.writeFileSync(path.join(home, 'dotfiles/policy.toml'), '');
      fs.symlinkSync(path.join(home, 'dotfiles/policy.toml'), path.join(home, 'linked.toml'));
      const paths = ownStatePaths({ env: { HOME: home }, policyFile: path.join(home, 'linked.toml'), stateDir: '/srv/state', extra: [path.join(home, 'out'), 'relative/ignored'] });
      assert.deepEqual(paths, [
        path.join(home, '.config/toolgate'),
        path.join(home, '.local/state/toolgate'),
        path.join(home, 'linked.toml'),
        path.join(home, 'dotfiles/policy.toml'),
        path.join(home, 'linked.toml.lock'),
        '/srv/state',
        path.join(home, 'out'),
      ]);
      const xdg = ownStatePaths({ env: { HOME: home, XDG_CONFIG_HOME: '/cfg', XDG_STATE_HOME: '/st' } });
      assert.deepEqual(xdg, ['/cfg/toolgate', '/st/toolgate']);
    } finally {
      fs.rmSync(home, { recursive: true, force: true });
    }
  });
});

describe('O1: toolgate\'s own files with the workspace at the home folder', () => {
  let home: string;
  let policyFile: string;
  let executor: ToolExecutor;
  let asked: ConfirmationRequest[];
  const savedEnv = { HOME: process.env.HOME, XDG_CONFIG_HOME: process.env.XDG_CONFIG_HOME, XDG_STATE_HOME: process.env.XDG_STATE_HOME };
  const POLICY = '[[rules]]\naction = "ask"\ntool = "write_file"\nreason = "writes are reviewed"\n';

  before(async () => {
    home = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'toolgate-home-')));
    process.env.HOME = home;
    delete process.env.XDG_CONFIG_HOME;
    delete process.env.XDG_STATE_HOME;
    policyFile = path.join(home, '.config/toolgate/policy.toml');
    fs.mkdirSync(path.dirname(policyFile), { recursive: true });
    fs.writeFileSync(policyFile, POLICY);
    asked = [];
    executor = new ToolExecutor(await portedRegistry(), {
      workspaceRoot: home,
      policy: { user: policyFile, workspace: false },
      ledger: { dir: path.join(home, '.local/state/toolgate'), workspace: home },
      confirmationHandler: (r) => (asked.push(r), true),
    });
  });
  after(async () => {
    await executor.close();
    for (const [k, v] of Object.entries(savedEnv)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
    fs.rmSync(home, { recursive: true, force: true });
  });

  const call = (name: string, args: Record<string, unknown>): Promise<ToolExecutionResult> => executor.execute({ name, arguments: args }, { confirm: true });
  const denied = (r: ToolExecutionResult, what: string) => {
    assert.equal(r.errorCode, 'POLICY_DENIED', `${what}: ${r.errorCode} ${r.error ?? r.output}`);
    assert.match(r.error!, /toolgate's own file or folder/, what);
  };

  test('O1: write and edit tools on the policy file, the config folder, the ledger and the state folder are denied, even approved', async () => {
    const ledger = fs.readdirSync(path.join(home, '.local/state/toolgate')).find((f) => f.endsWith('.sqlite'));
    assert.ok(ledger, 'the ledger file exists');
    const ledgerRel = `.local/state/toolgate/${ledger}`;
    const ledgerBefore = fs.readFileSync(path.join(home, ledgerRel));
    const calls: Array<[string, Record<string, unknown>]> = [
      ['write_file', { filepath: '.config/toolgate/policy.toml', content: '[[rules]]\naction = "allow"\n' }],
      ['replace_in_file', { filepath: '.config/toolgate/policy.toml', old_text: 'ask', new_text: 'allow' }],
      ['append_to_file', { filepath: '.config/toolgate/policy.toml', content: '[[rules]]\naction = "allow"\n' }],
      ['edit_file_line', { filepath: '.config/toolgate/policy.toml', line_number: 2, new_text: 'action = "allow"' }],
      ['delete_file', { filepath: '.config/toolgate/policy.toml' }],
      ['write_file', { filepath: '.config/toolgate/policy.json', content: '{}' }],
      ['write_file', { filepath: ledgerRel, content: 'x' }],
      ['delete_file', { filepath: ledgerRel }],
      ['write_file', { filepath: `${ledgerRel}-wal`, content: 'x' }],
      ['move_file', { source: '.config', destination: 'config-moved' }],
      ['move_file', { source: 'elsewhere.toml', destination: '.config/toolgate/policy.toml' }],
      ['copy_file', { source: 'elsewhere.toml', destination: '.local/state/toolgate/x' }],
      ['delete_file', { filepath: '.local' }],
      ['run_command', { command: 'printf "[[rules]]\\naction = \\"allow\\"\\n" > .config/toolgate/policy.toml' }],
      ['run_command', { command: `sqlite3 ${ledgerRel} "update x set mode='allow-all'"` }],
    ];
    fs.writeFileSync(path.join(home, 'elsewhere.toml'), '[[rules]]\naction = "allow"\n');
    fs.symlinkSync('.config/toolgate/policy.toml', path.join(home, 'innocent.txt'));
    calls.push(['write_file', { filepath: 'innocent.txt', content: 'x' }]);
    for (const [name, args] of calls) denied(await call(name, args), `${name} ${JSON.stringify(args)}`);
    assert.equal(fs.readFileSync(policyFile, 'utf8'), POLICY);
    assert.deepEqual(fs.readFileSync(path.join(home, ledgerRel)).subarray(0, 100), ledgerBefore.subarray(0, 100));
    // The next call still asks: the policy file's ask rule stands.
    asked = [];
    const next = await executor.execute({ name: 'write_file', arguments: { filepath: 'notes.txt', content: 'x' } });
    assert.equal(next.success, true, next.error);
    assert.equal(asked.length, 1);
    assert.equal(asked[0]!.ask.decider, 'policy');
  });

  test('reading toolgate\'s own files asks; other files of the home folder are untouched by the rule', async () => {
    asked = [];
    const r = await executor.execute({ name: 'read_file', arguments: { filepath: '.config/toolgate/policy.toml' } });
    assert.equal(r.success, true, r.error);
    assert.equal(asked.length, 1);
    assert.equal(asked[0]!.ask.decider, 'protected-paths');
    fs.mkdirSync(path.join(home, '.config/other'), { recursive: true });
    const other = await call('write_file', { filepath: '.config/other/settings.json', content: '{}' });
    assert.equal(other.success, true, other.error);
  });
});
