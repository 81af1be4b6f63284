/**
 * Progress people can see on the CLI (issue 34): `toolgate call --stream` writes the tool's
 * progress and log messages on stderr as they come, and on a terminal a live line shows the
 * call's elapsed time and its last message, erased before the result.
 */
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import fs from 'node:fs';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { Ledger } from 'toolgate';
import { runCli } from '../../src/cli/main.js';
import { FIXTURE_SCHEMAS, FIXTURES_DIR, tempWorkspace } from '../helpers.js';
import { cliInProcess } from './in-process.js';

const fixtures = ['--tools', FIXTURES_DIR, '--schemas', FIXTURE_SCHEMAS, '--no-policy', '--no-ledger'];

describe('toolgate call: the tool\'s progress', () => {
  for (const tool of ['talk_to_caller_main', 'talk_to_caller_process']) {
    test(`--stream writes each progress and log message on stderr (${tool})`, async () => {
      const run = await cliInProcess(['call', tool, '{}', '--stream', ...fixtures]);
      assert.equal(run.code, 0, run.stderr);
      assert.equal(run.stdout, '{}\n', 'stdout holds the result alone');
      assert.equal(run.stderr, [
        '[progress 1/3] started',
        '[info] {"step":"middle","values":[1,2]}',
        '[progress 2/3]',
        // (A debug message shows with --log-level debug.)
        '[progress 3/3] done',
        '[warning] the last line',
        '',
      ].join('\n'));
    });
  }

  test('without --stream and with no terminal: nothing but the result', async () => {
    const run = await cliInProcess(['call', 'talk_to_caller_main', '{}', ...fixtures]);
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stderr, '');
  });

  test('on a terminal: a live line with the elapsed time and the last message, erased before the result', async () => {
    const stdin = new PassThrough();
    stdin.end('');
    const stdout = new PassThrough();
    const stderr = Object.assign(new PassThrough(), { isTTY: true, columns: 60 });
    let out = '';
    let err = '';
    stdout.on('data', (d) => (out += d));
    stderr.on('data', (d) => (err += d));
    const code = await runCli(['call', 'talk_to_caller_main', '{}', '--yes', ...fixtures], { stdin, stdout, stderr });
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(code, 0, err);
    assert.equal(out, '{}\n');
    assert.match(err, /\r\u001b\[2Ktalk_to_caller_main \d+\.\d s {2}\[1\/3\] started/);
    assert.ok(err.endsWith('\r\u001b[2K'), `the line is erased at the end: ${JSON.stringify(err)}`);
    for (const line of err.split('\r\u001b[2K')) assert.ok(line.length <= 59, `cut to the terminal's width: ${line}`);
  });

  test('on a terminal with --stream: the lines alone, no live line drawn between them (it ran into them in a kept transcript)', async () => {
    const stdin = new PassThrough();
    stdin.end('');
    const stdout = new PassThrough();
    const stderr = Object.assign(new PassThrough(), { isTTY: true, columns: 60 });
    let out = '';
    let err = '';
    stdout.on('data', (d) => (out += d));
    stderr.on('data', (d) => (err += d));
    const code = await runCli(['call', 'talk_to_caller_main', '{}', '--yes', '--stream', ...fixtures], { stdin, stdout, stderr });
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(code, 0, err);
    assert.equal(out, '{}\n');
    assert.equal(err.includes('\r'), false, `no carriage return, no redrawn line: ${JSON.stringify(err)}`);
    assert.match(err, /^\[progress 1\/3\] started\n/);
    assert.ok(err.endsWith('[warning] the last line\n'), JSON.stringify(err));
  });
});

describe('toolgate call records its progress for the cockpit', () => {
  const t = tempWorkspace();
  after(t.cleanup);

  test('the first progress of a running call is in the ledger (later ones at most once a second)', async () => {
    const state = path.join(t.root, 'state');
    const run = await cliInProcess(['call', 'talk_to_caller_main', '{}', '--call-id', 'p1', '--workspace', t.ws, '--state-dir', state, '--tools', FIXTURES_DIR, '--schemas', FIXTURE_SCHEMAS, '--no-policy']);
    assert.equal(run.code, 0, run.stderr);
    assert.ok(fs.existsSync(state));
    const ledger = Ledger.open({ dir: state, workspace: t.ws });
    try {
      const progress = (await ledger.events('p1', 'cli')).filter((e) => e.kind === 'progress');
      assert.deepEqual(progress[0]?.detail, { done: 1, total: 3, message: 'started' });
      assert.ok(progress.length < 5, 'throttled');
    } finally {
      await ledger.close();
    }
  });
});
