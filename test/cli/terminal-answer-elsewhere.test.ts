/**
 * `toolgate call` on a real terminal (a pseudo-terminal from util-linux `script`) whose
 * question is answered from another process: it stops asking and exits on its own, with no
 * key pressed (issue 34, items 1 and 15: it used to print the result and wait for Enter).
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { BIN, runCli, tempWorkspace } from '../helpers.js';

const SCRIPT = ['/usr/bin/script', '/bin/script'].find((p) => fs.existsSync(p));
const skip = SCRIPT === undefined ? 'util-linux script is not installed (no pseudo-terminal to test on)' : false;

/** The command line, quoted for the shell `script -c` runs it with. */
function shellLine(words: string[]): string {
  return words.map((w) => `'${w.replace(/'/g, `'\\''`)}'`).join(' ');
}

describe('toolgate call on a terminal, answered elsewhere', { skip }, () => {
  const t = tempWorkspace();
  const state = path.join(t.root, 'state');
  const children: ChildProcess[] = [];
  after(() => {
    for (const child of children) {
      // The whole group: script, its shell and toolgate (started detached, in a group of their own).
      if (child.exitCode === null && child.signalCode === null && child.pid !== undefined) {
        try {
          process.kill(-child.pid, 'SIGKILL');
        } catch {
          // already gone
        }
      }
    }
    t.cleanup();
  });

  it('prints the result and exits without any input once `toolgate approvals allow` answers', { timeout: 30_000 }, async () => {
    const env = { ...process.env, HOME: t.root, XDG_CONFIG_HOME: path.join(t.root, 'config'), XDG_STATE_HOME: state };
    const line = shellLine([process.execPath, BIN, 'call', 'write_file', JSON.stringify({ filepath: 'note.txt', content: 'line one\nline two' }), '--workspace', t.ws, '--state-dir', state, '--no-policy']);
    // stdin stays an open pipe nobody writes to: nothing is ever typed.
    const child = spawn(SCRIPT!, ['-qfec', line, '/dev/null'], { cwd: t.root, env, stdio: ['pipe', 'pipe', 'pipe'], detached: true });
    children.push(child);
    let screen = '';
    child.stdout!.on('data', (d) => (screen += d));
    child.stderr!.on('data', (d) => (screen += d));
    const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
    while (!/Allow\? /.test(screen)) {
      if (child.exitCode !== null) assert.fail(`toolgate exited before asking:\n${screen}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    // The prompt names its question, shows the text's lines as lines, and says how to answer elsewhere.
    const id = /Question (\d+): answer here, or from another terminal with toolgate approvals allow \1/.exec(screen)?.[1];
    assert.ok(id !== undefined, screen);
    assert.match(screen, /content: line one\r?\n {4}\| line two/);
    const answered = await runCli(['approvals', 'allow', id, '--workspace', t.ws, '--state-dir', state], { env });
    assert.equal(answered.code, 0, answered.stderr);
    // No input, no timed assertion: the test's timeout is what fails a call that keeps waiting.
    const code = await exited;
    assert.equal(code, 0, screen);
    assert.match(screen, /\(answered elsewhere\)/);
    assert.match(screen, /Wrote \d+ bytes to note\.txt/);
    assert.equal(fs.readFileSync(path.join(t.ws, 'note.txt'), 'utf8'), 'line one\nline two');
  });
});
