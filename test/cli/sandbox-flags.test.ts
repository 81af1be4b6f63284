/**
 * The sandbox flags of `toolgate call` (shared with `mcp` and `agent`): `--sandbox`,
 * `--sandbox-network`, and `--dangerously-disable-sandbox`, the only way to choose the profile
 * `none` on the command line. Machines without bubblewrap are simulated with `TOOLGATE_BWRAP`
 * naming a missing binary, in spawned runs (the probe reads the process's environment).
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { bubblewrapAvailable } from '../../src/internal.js';
import { runCli, tempWorkspace } from '../helpers.js';
import { cliInProcess } from './in-process.js';

describe('sandbox flags', () => {
  const tmp = tempWorkspace();
  after(() => tmp.cleanup());
  const noBwrap = { ...process.env, TOOLGATE_BWRAP: path.join(tmp.root, 'missing', 'bwrap') };

  test('--sandbox none is refused in favour of the flag that says what it does; unknown or conflicting profiles too', async () => {
    const none = await cliInProcess(['call', 'run_command', '{"command":"true"}', '--yes', '--sandbox', 'none', '--workspace', tmp.ws]);
    assert.equal(none.code, 2, none.stderr);
    assert.match(none.stderr, /--sandbox none is not accepted.*--dangerously-disable-sandbox/);
    const unknown = await cliInProcess(['call', 'run_command', '{"command":"true"}', '--yes', '--sandbox', 'off', '--workspace', tmp.ws]);
    assert.equal(unknown.code, 2);
    assert.match(unknown.stderr, /--sandbox must be workspace-write or read-only; got off/);
    const both = await cliInProcess(['mcp', '--sandbox', 'read-only', '--dangerously-disable-sandbox', '--workspace', tmp.ws]);
    assert.equal(both.code, 2);
    assert.match(both.stderr, /exclude each other/);
  });

  test('without bubblewrap: call run_command fails naming the package; --dangerously-disable-sandbox runs it, with a warning', async () => {
    const refused = await runCli(['call', 'run_command', '{"command":"echo ran"}', '--yes', '--workspace', tmp.ws], { env: noBwrap });
    assert.equal(refused.code, 1, refused.stderr);
    assert.equal(refused.stdout, '');
    assert.match(refused.stderr, /sandbox unavailable.*Debian package `bubblewrap`/s);
    const unconfined = await runCli(['call', 'run_command', '{"command":"echo ran"}', '--yes', '--workspace', tmp.ws, '--dangerously-disable-sandbox'], { env: noBwrap });
    assert.equal(unconfined.code, 0, unconfined.stderr);
    assert.equal(unconfined.stdout, 'ran\n[exit status 0]\n');
    assert.match(unconfined.stderr, /warning: --dangerously-disable-sandbox/);
  });

  test('--sandbox read-only reaches the tool: a write in the workspace fails (refused where bubblewrap is missing)', async () => {
    const run = await cliInProcess(['call', 'run_command', '{"command":"touch made-here"}', '--yes', '--workspace', tmp.ws, '--sandbox', 'read-only']);
    assert.equal(run.code, 1, run.stderr);
    if (bubblewrapAvailable()) assert.match(run.stderr, /Read-only file system/);
    else assert.match(run.stderr, /sandbox unavailable/);
    assert.ok(!fs.existsSync(path.join(tmp.ws, 'made-here')));
  });
});
