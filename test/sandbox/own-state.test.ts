/**
 * toolgate's own files are out of reach of the commands it runs, whatever the workspace is
 * (issue 30 item 4, case O1): with the workspace at the user's home folder (a temporary one
 * here, `HOME` of the `toolgate` process), an approved `run_command` (`--yes`) cannot write,
 * remove, rename or rename over the user's policy file or the ledger in the state folder,
 * nor move their folders away and plant new ones; the next call without `--yes` still asks.
 * Needs bubblewrap (skipped, saying so, where it does not work).
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { bubblewrapAvailable } from 'toolgate/internal';
import { runCli } from '../helpers.js';
import { readOnlyStatePaths, ownStateProtections, protectOwnStatePath } from '../../src/sandbox/own-state-paths.js';

/** The user's policy: run_command asks (what a planted policy would turn into "allow"). */
const POLICY = '[[rules]]\ntool = "run_command"\naction = "ask"\n';
const PLANTED = '[[rules]]\naction = "allow"\n';

/** The environment of a toolgate whose home folder is `home` (XDG folders at their defaults under it). */
function homeEnv(home: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, HOME: home };
  for (const name of Object.keys(env)) if (name.startsWith('XDG_') || name.startsWith('TOOLGATE_')) delete env[name];
  return env;
}

/**
 * Whether `file` still looks like the SQLite database it was: its header, and a size of whole
 * pages (its content changes legitimately: toolgate records every call in it).
 */
function wholeDatabase(file: string): boolean {
  try {
    const bytes = fs.readFileSync(file);
    const pageSize = bytes.readUInt16BE(16);
    return bytes.subarray(0, 16).toString('latin1') === 'SQLite format 3\0' && bytes.length > 0 && bytes.length % pageSize === 0;
  } catch {
    return false;
  }
}

describe('toolgate\'s own state is read-only in the sandbox (O1)', { skip: bubblewrapAvailable() ? false : 'bubblewrap does not work here' }, () => {
  let home: string;
  let env: NodeJS.ProcessEnv;
  const policy = () => path.join(home, '.config', 'toolgate', 'policy.toml');
  const state = () => path.join(home, '.local', 'state', 'toolgate');
  const run = (command: string, yes = true) => runCli(['call', 'run_command', JSON.stringify({ command }), '--workspace', home, ...(yes ? ['--yes'] : [])], { env, cwd: home });

  before(() => {
    home = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'toolgate-o1-home-')));
    env = homeEnv(home);
    fs.mkdirSync(path.dirname(policy()), { recursive: true });
    fs.writeFileSync(policy(), POLICY);
  });
  after(() => {
    fs.rmSync(home, { recursive: true, force: true });
  });

  test('O1: with the workspace at the home folder, an approved command cannot rewrite, remove or replace the policy file or the ledger; the next call still asks', async () => {
    // A first approved call: the ledger exists in the state folder, and commands run at all.
    const first = await run('echo ran > ran.txt');
    assert.equal(first.code, 0, first.stderr + first.stdout);
    assert.equal(fs.readFileSync(path.join(home, 'ran.txt'), 'utf8'), 'ran\n', 'the workspace (the home folder) is writable');
    const ledgers = fs.readdirSync(state()).filter((f) => /^ledger-[0-9a-f]{16}\.sqlite$/.test(f)).map((f) => path.join(state(), f));
    assert.equal(ledgers.length, 1, 'the ledger is in the state folder under the home folder');
    const ledger = ledgers[0]!;
    assert.ok(wholeDatabase(ledger));

    // Each line a subshell of one command line (a call each would take a second more apiece).
    const files = [
      // write bytes to the files
      `printf '${PLANTED.replaceAll('\n', '\\n')}' > .config/toolgate/policy.toml`,
      `printf garbage > ${ledger}`,
      `printf garbage >> ${ledger}`,
      `truncate -s 0 ${ledger}`,
      // remove them
      'rm -f .config/toolgate/policy.toml',
      `rm -f ${ledger} ${ledger}-wal ${ledger}-shm`,
      // rename over them
      `printf '${PLANTED.replaceAll('\n', '\\n')}' > planted.toml && mv -f planted.toml .config/toolgate/policy.toml`,
      `cp ${ledger} copy.sqlite && mv -f copy.sqlite ${ledger}`,
    ];
    const folders = [
      // move their folders away and plant new ones
      `mv .config/toolgate .config/old && mkdir -p .config/toolgate && printf '${PLANTED.replaceAll('\n', '\\n')}' > .config/toolgate/policy.toml`,
      `mv .config .config-old && mkdir -p .config/toolgate && printf '${PLANTED.replaceAll('\n', '\\n')}' > .config/toolgate/policy.toml`,
      'mv .local/state/toolgate .local/state/old && mkdir .local/state/toolgate',
      'mv .local .local-old && mkdir -p .local/state/toolgate',
      'rm -rf .config .local',
    ];
    for (const attack of [files, folders].map((lines) => lines.map((line) => `(${line})`).join('; '))) {
      await run(attack);
      assert.equal(fs.readFileSync(policy(), 'utf8'), POLICY, `the policy file is unchanged after: ${attack}`);
      assert.ok(wholeDatabase(ledger), `the ledger is whole after: ${attack}`);
      for (const moved of ['.config-old', '.config/old', '.local-old', '.local/state/old', 'planted.toml/x']) {
        assert.equal(fs.existsSync(path.join(home, moved)), false, `${moved} after: ${attack}`);
      }
    }
    // The ledger is whole: toolgate reads every call above from it.
    const trace = await runCli(['trace', '--workspace', home, '--json', '--limit', '100'], { env, cwd: home });
    assert.equal(trace.code, 0, trace.stderr);
    assert.equal((trace.stdout.match(/"tool":\s*"run_command"/g) ?? []).length, 3, trace.stdout.slice(0, 500));

    // The next call without --yes still asks (non-interactive: not run, the question named).
    const next = await run('echo unasked > unasked.txt', false);
    assert.notEqual(next.code, 0, next.stdout);
    assert.match(next.stdout + next.stderr, /CONFIRMATION_REQUIRED|requires confirmation|--yes/);
    assert.equal(fs.existsSync(path.join(home, 'unasked.txt')), false, 'nothing ran unasked');
  });

  test('O1: where the user has no policy file yet, a command cannot plant one (nor a config folder)', async () => {
    const fresh = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'toolgate-o1-fresh-')));
    try {
      const freshEnv = homeEnv(fresh);
      const planted = await runCli(['call', 'run_command', JSON.stringify({ command: `mkdir -p .config/toolgate; printf '${PLANTED.replaceAll('\n', '\\n')}' > .config/toolgate/policy.toml` }), '--workspace', fresh, '--yes'], { env: freshEnv, cwd: fresh });
      assert.notEqual(planted.code, 0, 'the write failed');
      assert.equal(fs.existsSync(path.join(fresh, '.config', 'toolgate', 'policy.toml')), false);
      const next = await runCli(['call', 'run_command', JSON.stringify({ command: 'echo unasked > unasked.txt' }), '--workspace', fresh], { env: freshEnv, cwd: fresh });
      assert.notEqual(next.code, 0, next.stdout);
      assert.equal(fs.existsSync(path.join(fresh, 'unasked.txt')), false);
    } finally {
      fs.rmSync(fresh, { recursive: true, force: true });
    }
  });
});

describe('own state paths (the list and the mounts)', () => {
  test('the config and state folders follow XDG_* when absolute, else HOME; added paths are listed', () => {
    assert.deepEqual(readOnlyStatePaths({ HOME: '/h' }).slice(0, 2), ['/h/.config/toolgate', '/h/.local/state/toolgate']);
    assert.deepEqual(readOnlyStatePaths({ HOME: '/h', XDG_CONFIG_HOME: '/c', XDG_STATE_HOME: 'relative' }).slice(0, 2), ['/c/toolgate', '/h/.local/state/toolgate']);
    protectOwnStatePath('/srv/toolgate-outputs');
    assert.ok(readOnlyStatePaths({ HOME: '/h' }).includes('/srv/toolgate-outputs'));
    assert.throws(() => protectOwnStatePath('relative/path'), TypeError);
  });

  test('only paths strictly inside a writable root get mounts: folders between pinned, the path read-only, a missing own folder made first', () => {
    const home = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'toolgate-own-paths-')));
    try {
      const env = { HOME: home };
      const args = ownStateProtections([home], env);
      const config = path.join(home, '.config', 'toolgate');
      const stateDir = path.join(home, '.local', 'state', 'toolgate');
      assert.ok(fs.statSync(config).isDirectory(), 'the missing config folder was made, to be mounted');
      assert.equal(fs.statSync(config).mode & 0o777, 0o700);
      const pairs: string[][] = [];
      for (let i = 0; i < args.length; i += 3) pairs.push(args.slice(i, i + 3));
      assert.deepEqual(pairs.filter(([, p]) => p!.startsWith(home)), [
        // every folder pinned before any read-only binding: a folder bound later would bring
        // back the host's view below it (~/.config pinned after ~/.config/autostart went read-only)
        ['--bind', path.join(home, '.config'), path.join(home, '.config')],
        ['--bind', path.join(home, '.local'), path.join(home, '.local')],
        ['--bind', path.join(home, '.local', 'state'), path.join(home, '.local', 'state')],
        ['--ro-bind', config, config],
        ['--ro-bind', stateDir, stateDir],
      ]);
      // A writable root that is elsewhere, or the protected folder itself: nothing to add.
      assert.deepEqual(ownStateProtections([path.join(home, 'project')], env).filter((a) => a.startsWith(home)), []);
      assert.deepEqual(ownStateProtections([config], env).filter((a) => a === config), []);
    } finally {
      fs.rmSync(home, { recursive: true, force: true });
    }
  });
});
