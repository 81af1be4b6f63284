/**
 * What the CLI says about a command line it cannot run and about a call it did not run again
 * (issue 34, item 10): an unknown flag named with the command's flags (not Node's message with
 * its unbalanced quote), a flag missing its value, and a repeated call id marked as a replay.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { tempWorkspace } from '../helpers.js';
import { cliInProcess } from './in-process.js';

describe('usage errors name the flag', () => {
  test('an unknown flag: named, with the flags the command takes, and where its help is', async () => {
    const run = await cliInProcess(['call', 'read_file', '--bogus']);
    assert.equal(run.code, 2);
    assert.match(run.stderr, /^toolgate: unknown flag --bogus; this command takes .*--call-id.*--workspace, --yes \(-y\)/);
    assert.match(run.stderr, /Run `toolgate call --help` for its options\.\n$/);
    assert.equal((run.stderr.match(/'/g) ?? []).length % 2, 0, 'quotes are balanced');
    assert.doesNotMatch(run.stderr, /Unknown option/);
    const short = await cliInProcess(['list', '-x']);
    assert.equal(short.code, 2);
    assert.match(short.stderr, /unknown flag -x; this command takes --config, --domain, --help \(-h\), --json/);
  });

  test('a flag without its value, and a switch given one', async () => {
    const missing = await cliInProcess(['call', 'read_file', '--workspace']);
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /^toolgate: --workspace needs a value \(--workspace VALUE\)\n/);
    const valued = await cliInProcess(['call', 'read_file', '--json=yes']);
    assert.match(valued.stderr, /^toolgate: --json takes no value\n/);
  });
});

describe('a repeated call id', () => {
  const t = tempWorkspace();
  const state = path.join(t.root, 'state');
  fs.writeFileSync(path.join(t.ws, 'a.txt'), 'first\n');
  after(t.cleanup);

  test('is marked as a replay: the stored result, not run again', async () => {
    const args = ['call', 'read_file', '{"filepath":"a.txt"}', '--workspace', t.ws, '--state-dir', state, '--call-id', 'again'];
    const first = await cliInProcess(args);
    assert.equal(first.code, 0, first.stderr);
    assert.doesNotMatch(first.stderr, /replay/);
    fs.writeFileSync(path.join(t.ws, 'a.txt'), 'changed\n');
    const second = await cliInProcess(args);
    assert.equal(second.code, 0, second.stderr);
    assert.equal(second.stdout, 'first\n');
    assert.match(second.stderr, /^toolgate: replay: call again of session cli already ran \(done, \d{4}-\d\d-\d\dT[\d:.]+Z\); this is its stored result, it did not run again/);
    // The same id for another request is refused, and is no replay.
    const other = await cliInProcess(['call', 'read_file', '{"filepath":"b.txt"}', ...args.slice(3)]);
    assert.equal(other.code, 1);
    assert.doesNotMatch(other.stderr, /replay/);
    assert.match(other.stderr, /was used before for another request/);
  });
});
