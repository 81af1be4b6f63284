// Regression: `toolgate result CALL_ID` printed a call's whole stored output to the terminal
// as it was, while `toolgate call` makes a tool's output safe on a terminal. A command's
// output (the model's to choose) with escape sequences, such as OSC 52 (writes the person's
// clipboard), a window title, or "clear screen", then acted on the person's terminal. On a
// terminal the output is shown with its control characters made visible; piped, it stays
// byte for byte.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { after, describe, it } from 'node:test';
import { Ledger, type ToolExecutionResult } from 'toolgate';
import { runCli } from '../../src/cli/main.js';

const HOSTILE = 'build ok\n\u001b]52;c;ZWNobyBwd25lZA==\u0007\u001b]0;owned\u0007\u001b[2J\u009b31mdone\n';

async function resultOn(tty: boolean, args: string[]): Promise<string> {
  const stdin = new PassThrough();
  stdin.end('');
  const stdout = Object.assign(new PassThrough(), tty ? { isTTY: true } : {});
  const stderr = new PassThrough();
  let out = '';
  stdout.on('data', (d) => (out += d));
  stderr.resume();
  const code = await runCli(['result', ...args], { stdin, stdout, stderr, cwd: os.tmpdir(), env: process.env });
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(code, 0);
  return out;
}

describe('toolgate result on a terminal', () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'toolgate-result-tty-'));
  after(() => fs.rmSync(root, { recursive: true, force: true }));
  const ws = path.join(root, 'ws');
  const state = path.join(root, 'state');
  fs.mkdirSync(ws);

  it('shows a stored output\'s escape sequences as text, not as terminal commands', async () => {
    const ledger = Ledger.open({ dir: state, workspace: ws });
    try {
      const call = { callId: 'c1', session: 's1', tool: 'run_command', version: '1.0.0', arguments: { command: 'make' }, workspace: ws, turn: '' };
      const result: ToolExecutionResult = { success: true, output: HOSTILE, durationMs: 1, confirmed: true, tool: 'run_command', version: '1.0.0', callId: 'c1', stopReason: 'completed', outcome: 'success', sideEffects: 'possible' };
      await ledger.finish(call, { state: 'done', decisions: undefined, result });
    } finally {
      await ledger.close();
    }
    const where = ['c1', '--workspace', ws, '--state-dir', state];
    const shown = await resultOn(true, where);
    assert.doesNotMatch(shown, /[\u001b\u0007\u009b]/, 'no escape, bell or CSI reaches the terminal');
    assert.match(shown, /build ok\n/);
    assert.match(shown, /\\u\{1b\}\]52;c;/, 'the sequence is shown as text');
    assert.equal(await resultOn(false, where), HOSTILE, 'piped, the output is unchanged');
  });
});
