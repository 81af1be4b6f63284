/**
 * A one-shot `toolgate call exec_command` that leaves its command running: the command ends
 * with the CLI, and the printed result says so (before, it offered a process_id for
 * input_command that no later process knew); input_command's error for an unknown id names
 * every way a session ends, not only a reported exit status. Real CLI processes, a temporary
 * workspace and state folder; the command is looked for in /proc after the CLI exited.
 */
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { bubblewrapAvailable } from '../../src/internal.js';
import { runCli, tempWorkspace } from '../helpers.js';
import { waitFor } from '../wait.js';

/** Pids whose command line holds `token`. */
function processesWith(token: string): number[] {
  const found: number[] = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (fs.readFileSync(path.join('/proc', entry, 'cmdline'), 'utf8').includes(token)) found.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return found;
}

describe('toolgate call: a command session left running', () => {
  const tmp = tempWorkspace();
  const state = path.join(tmp.root, 'state');
  // Without bubblewrap the command runs unsandboxed (as a user who turned it off), under a home
  // folder of its own: the login shell reads no profile of this machine's user.
  const sandbox = bubblewrapAvailable() ? [] : ['--dangerously-disable-sandbox'];
  const home = path.join(tmp.root, 'home');
  fs.mkdirSync(home);
  const env = { ...process.env, HOME: home };
  after(() => tmp.cleanup());

  test('exec_command: the command is stopped as the CLI exits, and the result says so', { timeout: 120_000 }, async () => {
    const seconds = 900_000 + Math.floor(Math.random() * 99_999);
    const cmd = `echo begun; sleep ${seconds}`;
    const run = await runCli(['call', 'exec_command', JSON.stringify({ cmd, yield_time_ms: 500 }), '--yes', ...sandbox, '--workspace', tmp.ws, '--state-dir', state, '--json'], { env });
    const result = JSON.parse(run.stdout) as { success: boolean; output: string };
    assert.equal(result.success, true, run.stdout + run.stderr);
    assert.match(result.output, /begun/);
    assert.match(result.output, /\[stopped when toolgate call exited \(process_id cmd_\S+\): command sessions live as long as the toolgate process that started them \(toolgate mcp, toolgate agent, or your program\)\]/);
    assert.doesNotMatch(result.output, /still running as process_id/);
    await waitFor(() => processesWith(`sleep ${seconds}`).length === 0, { what: `no process left running sleep ${seconds}` });
  });

  test('input_command with an unknown process_id: the error names every way a session ends', { timeout: 60_000 }, async () => {
    const run = await runCli(['call', 'input_command', JSON.stringify({ process_id: 'cmd_gone' }), '--yes', '--workspace', tmp.ws, '--state-dir', state, '--json']);
    const result = JSON.parse(run.stdout) as { success: boolean; output: string; errorCode?: string };
    assert.equal(result.success, false);
    assert.equal(result.errorCode, 'INVALID_ARGUMENTS');
    assert.match(result.output, /once the toolgate process that started it exited \(each `toolgate call` is a process of its own/);
    assert.doesNotMatch(result.output, /Sessions end once their exit status was reported\./);
  });
});
