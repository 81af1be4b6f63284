/**
 * The named launch profiles (issue 31 item 6): each builds its launcher in one place, and a
 * program started through it runs confined as the profile says.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sandboxLauncher } from 'toolgate/tool';
import { bubblewrapAvailable, DEFAULT_SANDBOX, LAUNCH_PROFILES, launchPrefix, probeBubblewrap } from 'toolgate/internal';

describe('launch profiles', () => {
  test('every profile is named; tool-child is the parent-death launcher, and a program started through it runs', () => {
    assert.deepEqual([...LAUNCH_PROFILES], ['tool-child', 'shell-command', 'interpreter']);
    const prefix = launchPrefix('tool-child');
    if (prefix.length !== 0) assert.equal(prefix.at(-1), String(process.pid), 'the launcher checks that its parent is this process');
    const run = spawnSync(prefix[0] ?? 'echo', [...prefix.slice(1), ...(prefix.length ? ['echo'] : []), 'ran'], { encoding: 'utf8' });
    assert.equal(run.stdout, 'ran\n', run.stderr);
  });

  test('shell-command is the sandbox of the caller\'s policy', { skip: bubblewrapAvailable() ? false : 'bubblewrap does not work here' }, () => {
    const ws = fs.realpathSync(os.tmpdir());
    const mounts = { workspace: ws, cwd: ws };
    assert.deepEqual(launchPrefix('shell-command', DEFAULT_SANDBOX, mounts, 'test'), sandboxLauncher(DEFAULT_SANDBOX, mounts, 'test'));
  });

  test('interpreter: an unprivileged user, an empty environment, no host files but the paths given', { skip: bubblewrapAvailable() ? false : 'bubblewrap does not work here' }, () => {
    const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'toolgate-launch-')));
    try {
      const given = path.join(root, 'given.txt');
      const other = path.join(root, 'other.txt');
      fs.writeFileSync(given, 'given');
      fs.writeFileSync(other, 'other');
      const prefix = launchPrefix('interpreter', { bwrap: probeBubblewrap().binary, readOnly: [given] });
      const script = `const fs = require('fs'); console.log(JSON.stringify({ uid: process.getuid(), env: Object.keys(process.env), given: fs.existsSync(${JSON.stringify(given)}), other: fs.existsSync(${JSON.stringify(other)}), home: fs.existsSync(${JSON.stringify(os.homedir())}) && fs.readdirSync(${JSON.stringify(os.homedir())}).length > 0, cwd: process.cwd() }))`;
      const run = spawnSync(prefix[0]!, [...prefix.slice(1), process.execPath, '-e', script], { encoding: 'utf8', env: { SECRET_TOKEN: 'x' } });
      assert.equal(run.status, 0, run.stderr);
      const seen = JSON.parse(run.stdout) as { uid: number; env: string[]; given: boolean; other: boolean; home: boolean; cwd: string };
      assert.equal(seen.uid, 65534);
      assert.ok(!seen.env.includes('SECRET_TOKEN'), 'the environment is cleared');
      assert.equal(seen.given, true);
      assert.equal(seen.other, false, 'a host file not given is not there');
      assert.equal(seen.home, false, 'the home folder is not there');
      assert.equal(seen.cwd, '/tmp');
      const bare = launchPrefix('interpreter', { bwrap: undefined, readOnly: [given] });
      assert.ok(!bare.includes(probeBubblewrap().binary), 'no bubblewrap when none is given (the user chose no sandbox)');
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });
});
