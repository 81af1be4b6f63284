/**
 * The truncation note says where the whole output is kept (issue: a huge output's cut marker
 * gave no way to the rest). Unit: withKeptNote puts the words inside truncate's own note, found
 * only where that note begins (text of the tool's that looks like one is left alone). CLI: a
 * `toolgate call run_command` with a long output carries `toolgate result CALL_ID` in its note,
 * and that command prints the whole output from the ledger.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { truncate, withKeptNote } from '../../src/closeout/closeout.js';
import { bubblewrapAvailable } from '../../src/internal.js';
import { runCli, tempWorkspace } from '../helpers.js';

describe('withKeptNote', () => {
  it('head-tail: inside the note in the middle, not in a look-alike the tool printed', () => {
    const fake = '\n[... 1 characters (1 line) omitted from the middle of 2; limit 3 characters ...]\n';
    const text = `${fake}${'x'.repeat(500)}${fake}`;
    const cut = truncate(text, 100, 'head-tail');
    const said = withKeptNote(cut, 'kept HERE', 100, 'head-tail');
    assert.equal((said.match(/kept HERE/g) ?? []).length, 1);
    assert.match(said, /omitted from the middle of \d+; limit 100 characters; kept HERE \.\.\.\]\n/);
    assert.ok(said.startsWith(cut.slice(0, 50)), 'the head is untouched');
    assert.ok(said.endsWith(cut.slice(-50)), 'the tail is untouched');
  });

  it('head: inside the note at the cut; notes after it stay', () => {
    const cut = `${truncate('y'.repeat(300), 100, 'head')}\n[exit status 0]`;
    assert.equal(withKeptNote(cut, 'kept HERE', 100, 'head'), `${'y'.repeat(100)}\n[output truncated: 200 of 300 characters (1 line) omitted; limit 100 characters; kept HERE]\n[exit status 0]`);
  });

  it('a surrogate pair at the cut (the note one unit earlier) is found too', () => {
    const text = `${'a'.repeat(49)}\u{1F600}${'b'.repeat(300)}`;
    const cut = truncate(text, 100, 'head-tail');
    assert.match(withKeptNote(cut, 'kept HERE', 100, 'head-tail'), /limit 100 characters; kept HERE \.\.\.\]/);
  });

  it('no note where one would begin (a summary): the output as it is', () => {
    assert.equal(withKeptNote('a summary', 'kept HERE', 100, 'head'), 'a summary');
  });
});

describe('toolgate call: a long output names where its whole is kept', () => {
  const tmp = tempWorkspace();
  const state = path.join(tmp.root, 'state');
  // A home folder of its own: the command's login shell reads no profile of this machine's user.
  const home = path.join(tmp.root, 'home');
  fs.mkdirSync(home);
  after(() => tmp.cleanup());

  it('the note names `toolgate result CALL_ID` and its size; that command prints the whole', { timeout: 120_000 }, async () => {
    const run = await runCli(['call', 'run_command', JSON.stringify({ command: 'seq 1 100000' }), '--yes', ...(bubblewrapAvailable() ? [] : ['--dangerously-disable-sandbox']), '--workspace', tmp.ws, '--state-dir', state, '--json', '--call-id', 'long1'], { env: { ...process.env, HOME: home } });
    const result = JSON.parse(run.stdout) as { success: boolean; output: string };
    assert.equal(result.success, true, run.stdout + run.stderr);
    // (The whole is seq's 588,895 characters and the notes run_command adds.)
    const note = /omitted from the middle of (\d+); limit \d+ characters; the whole output \((\d+) characters, (\d+) bytes\) is kept by call id long1: `toolgate result long1` prints it \(the ledger keeps its first 8 MiB unless its maxOutputBytes is set otherwise\) \.\.\.\]/.exec(result.output);
    assert.ok(note !== null, result.output.slice(0, 200));
    assert.ok(Number(note[1]) >= 588_895);
    assert.equal(note[2], note[1]);
    assert.equal(note[3], note[1]);
    const whole = await runCli(['result', 'long1', '--workspace', tmp.ws, '--state-dir', state]);
    assert.equal(whole.code, 0, whole.stderr);
    // (A login shell may write a line of its own first, on standard error, which the output holds too.)
    assert.match(whole.stdout.slice(0, 300), /(^|\n)1\n2\n3\n/, whole.stdout.slice(0, 300));
    assert.ok(whole.stdout.includes('\n50000\n') && whole.stdout.includes('\n100000'), 'the middle and the end are there');
  });
});
