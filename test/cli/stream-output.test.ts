/**
 * `toolgate call run_command ... --stream` (new-user trial): each line of the command's output
 * appears once on stderr, as an `[info]` log line; the progress of a command (the characters
 * of output so far, no total) is a bare count, `[progress N]`, not the same line again; a line
 * written in pieces is reported once whole. The
 * command runs in the default sandbox where bubblewrap works, unconfined
 * (`--dangerously-disable-sandbox`) where it does not.
 */
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { bubblewrapAvailable } from '../../src/internal.js';
import { runCli, tempWorkspace } from '../helpers.js';

const SANDBOX = bubblewrapAvailable() ? [] : ['--dangerously-disable-sandbox'];

describe('toolgate call run_command --stream', () => {
  const tmp = tempWorkspace();
  after(tmp.cleanup);

  test('each output line once, as a log line; progress a bare count', async () => {
    const command = 'for i in 1 2 3; do echo line $i; sleep 0.2; done';
    const run = await runCli(['call', 'run_command', JSON.stringify({ command }), '--workspace', tmp.ws, '--yes', '--stream', '--no-ledger', ...SANDBOX]);
    assert.equal(run.code, 0, run.stderr);
    // (A login shell may print a line of its own first.)
    assert.match(run.stdout, /(^|\n)line 1\nline 2\nline 3\n\[exit status 0\]\n$/, 'stdout holds the result alone');
    const lines = run.stderr.split('\n').filter((line) => line.startsWith('[progress') || /line \d/.test(line));
    for (const n of [1, 2, 3]) {
      assert.deepEqual(lines.filter((line) => line.includes(`line ${n}`)), [`[info] line ${n}`], `line ${n} once, as a log line:\n${run.stderr}`);
    }
    const progress = lines.filter((line) => line.startsWith('[progress'));
    assert.ok(progress.length > 0, run.stderr);
    for (const line of progress) assert.match(line, /^\[progress \d+\]$/);
    assert.deepEqual(lines.filter((line) => !line.startsWith('[progress')), ['[info] line 1', '[info] line 2', '[info] line 3'], 'each line of a log message marked');
  });

  test('a line written in two pieces is one [info] line; the last line, unended, is whole too; the exit status on its own line', async () => {
    // Before: the first piece was reported at once (`[info] partial`), the rest as a line of its own (`[info] hi`).
    const command = 'printf partial; sleep 0.7; echo hi; printf tail';
    const run = await runCli(['call', 'run_command', JSON.stringify({ command }), '--workspace', tmp.ws, '--yes', '--stream', '--no-ledger', ...SANDBOX]);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /(^|\n)partialhi\ntail\n\[exit status 0\]\n$/);
    const info = run.stderr.split('\n').filter((line) => /partial|hi$|tail/.test(line));
    assert.deepEqual(info, ['[info] partialhi', '[info] tail'], run.stderr);
    assert.ok(run.stderr.endsWith('\n'), 'stderr ends with a whole line');
  });
});
