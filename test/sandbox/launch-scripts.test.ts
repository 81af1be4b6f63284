/**
 * The launch scripts are files shipped with the package (issue 31 item 6): each is found,
 * parses, is listed in package.json's `files`, and does what its callers rely on.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { launchScript, type LaunchScriptName } from 'toolgate/internal';
import { REPO_ROOT } from '../helpers.js';

const SHELLS: Record<LaunchScriptName, string> = { 'parent-death': 'sh', 'command-wrapper': 'bash', lifeline: 'bash', 'close-inherited-fds': 'bash' };

describe('launch scripts', () => {
  test('each is the file of src/sandbox/scripts, parses in its shell, and ships with the package', () => {
    const files = (JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as { files: string[] }).files;
    assert.ok(files.includes('src/sandbox/scripts'), 'package.json files lists the scripts');
    for (const [name, shell] of Object.entries(SHELLS) as Array<[LaunchScriptName, string]>) {
      const file = path.join(REPO_ROOT, 'src', 'sandbox', 'scripts', `${name}.sh`);
      assert.equal(launchScript(name), fs.readFileSync(file, 'utf8'), name);
      const parsed = spawnSync(shell, ['-n', file], { encoding: 'utf8' });
      assert.equal(parsed.status, 0, `${name}: ${parsed.stderr}`);
    }
  });

  test('parent-death: runs the program only while the parent is the pid given (exit 125 otherwise)', () => {
    const script = launchScript('parent-death');
    const mine = spawnSync('sh', ['-c', script, 'toolgate-child', String(process.pid), 'echo', 'ran'], { encoding: 'utf8' });
    assert.equal(mine.status, 0, mine.stderr);
    assert.equal(mine.stdout, 'ran\n');
    const other = spawnSync('sh', ['-c', script, 'toolgate-child', '1', 'echo', 'ran'], { encoding: 'utf8' });
    assert.equal(other.status, 125);
    assert.equal(other.stdout, '');
  });

  test('command-wrapper: without a cgroup, lowers the process limit and hands the command line last to the launcher', () => {
    const run = spawnSync('bash', ['--norc', '--noprofile', '-c', launchScript('command-wrapper'), 'toolgate-command', '', 'the command', '77', 'bash', '-c', 'echo "$(ulimit -u) [$1]"', 'launcher'], { encoding: 'utf8' });
    assert.equal(run.status, 0, run.stderr);
    // root's limit may stay unlimited where ulimit -u does not bind it; the command line comes last.
    assert.match(run.stdout, /^(77|unlimited|\d+) \[the command\]\n$/);
  });

  test('close-inherited-fds: the program started after it does not have an inherited descriptor 3', () => {
    const show = ['bash', '-c', 'if [ -e /proc/$$/fd/3 ]; then echo open; else echo closed; fi'];
    const without = spawnSync(show[0]!, show.slice(1), { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe', 'pipe'] });
    assert.equal(without.stdout, 'open\n', 'the descriptor is inherited without the script');
    const closed = spawnSync('bash', ['--norc', '--noprofile', '-c', launchScript('close-inherited-fds'), 'toolgate-python', ...show], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe', 'pipe'] });
    assert.equal(closed.status, 0, closed.stderr);
    assert.equal(closed.stdout, 'closed\n');
  });

  test('lifeline: runs the command line in a login shell; at end-of-file of descriptor 3 it kills its target (here its process group)', async () => {
    const done = spawnSync('bash', ['--norc', '--noprofile', '-c', launchScript('lifeline'), 'toolgate-lifeline', '0', 'echo "$0 ok"'], { encoding: 'utf8' });
    assert.equal(done.status, 0, done.stderr);
    assert.match(done.stdout, /bash ok\n$/);
    const held = spawn('bash', ['--norc', '--noprofile', '-c', launchScript('lifeline'), 'toolgate-lifeline', '0', 'sleep 30'], { detached: true, stdio: ['ignore', 'ignore', 'ignore', 'pipe'] });
    const exited = new Promise<NodeJS.Signals | null>((resolve) => held.once('exit', (_code, signal) => resolve(signal)));
    try {
      await new Promise((resolve) => setTimeout(resolve, 300));
      assert.equal(held.exitCode, null, 'the command runs while descriptor 3 is open');
      held.stdio[3]!.destroy();
      const timeout = new Promise<string>((resolve) => setTimeout(() => resolve('still running after 5 s'), 5000).unref());
      assert.equal(await Promise.race([exited, timeout]), 'SIGKILL');
    } finally {
      try {
        process.kill(-held.pid!, 'SIGKILL');
      } catch {
        // gone
      }
    }
  });

  test('lifeline --exec: runs a program with its arguments as given, without a login shell (nothing of the profile runs); a command line "--exec" alone (or any starting with "-") is still a command line', () => {
    const home = fs.mkdtempSync(path.join(os.tmpdir(), 'toolgate-lifeline-home-'));
    try {
      const marker = path.join(home, 'profile-ran');
      fs.writeFileSync(path.join(home, '.bash_profile'), `touch '${marker}'\n`);
      const env = { ...process.env, HOME: home };
      const direct = spawnSync('bash', ['--norc', '--noprofile', '-c', launchScript('lifeline'), 'toolgate-lifeline', '0', '--exec', 'printf', '[%s]', 'two words', "it's", '$HOME'], { encoding: 'utf8', env });
      assert.equal(direct.status, 0, direct.stderr);
      assert.equal(direct.stdout, "[two words][it's][$HOME]");
      assert.equal(fs.existsSync(marker), false, 'the login profile did not run');
      const login = spawnSync('bash', ['--norc', '--noprofile', '-c', launchScript('lifeline'), 'toolgate-lifeline', '0', 'echo ran'], { encoding: 'utf8', env });
      assert.equal(login.stdout, 'ran\n', login.stderr);
      assert.equal(fs.existsSync(marker), true, 'a command line runs in the login shell, its profile first');
      fs.rmSync(marker);
      const alone = spawnSync('bash', ['--norc', '--noprofile', '-c', launchScript('lifeline'), 'toolgate-lifeline', '0', '--exec'], { encoding: 'utf8', env });
      assert.equal(alone.status, 127, 'the login shell looked for a command named --exec');
      const dashed = spawnSync('bash', ['--norc', '--noprofile', '-c', launchScript('lifeline'), 'toolgate-lifeline', '0', '-x'], { encoding: 'utf8', env });
      assert.equal(dashed.status, 127, `a command line starting with '-' is a command for the login shell, not its option: ${dashed.stderr}`);
      assert.equal(fs.existsSync(marker), true);
    } finally {
      fs.rmSync(home, { recursive: true, force: true });
    }
  });
});
