/**
 * makeFolders makes what recursive mkdir makes, and ends with an error where Node's own
 * recursive mkdir loops for good (a parent under /proc); `toolgate call --state-dir` under
 * /proc ends with a usage error instead of hanging.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFile } from 'node:child_process';
import { makeFolders } from '../../src/util/folders.js';
import { BIN } from '../helpers.js';

describe('makeFolders', () => {
  test('makes a folder and its missing parents with the mode asked; an existing folder is fine', (t) => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'toolgate-folders-'));
    t.after(() => fs.rmSync(root, { recursive: true, force: true }));
    const deep = path.join(root, 'a', 'b', 'c');
    makeFolders(deep, 0o700);
    assert.ok(fs.statSync(deep).isDirectory());
    assert.equal(fs.statSync(path.join(root, 'a')).mode & 0o777, 0o700 & ~process.umask());
    makeFolders(deep, 0o700);
    fs.symlinkSync(deep, path.join(root, 'link'));
    makeFolders(path.join(root, 'link'));
  });

  test('a file in the way is an error, as with recursive mkdir', (t) => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'toolgate-folders-'));
    t.after(() => fs.rmSync(root, { recursive: true, force: true }));
    fs.writeFileSync(path.join(root, 'file'), '');
    assert.throws(() => makeFolders(path.join(root, 'file')), { code: 'EEXIST' });
    assert.throws(() => makeFolders(path.join(root, 'file', 'below')), { code: 'ENOTDIR' });
  });

  test('a parent that cannot hold folders (/proc) is an error, not an endless loop', { skip: !fs.existsSync('/proc/self') }, () => {
    assert.throws(() => makeFolders('/proc/toolgate-no-such/state'), { code: 'ENOENT' });
  });

  test('toolgate call --state-dir under /proc exits with a usage error', { skip: !fs.existsSync('/proc/self') }, async () => {
    const run = await new Promise<{ code: number | null; stderr: string }>((resolve) => {
      execFile(process.execPath, [BIN, 'call', 'read_file', '{"filepath":"README.md"}', '--state-dir', '/proc/toolgate-no-such'], { timeout: 60_000 }, (error, _stdout, stderr) => resolve({ code: error ? (typeof error.code === 'number' ? error.code : -1) : 0, stderr }));
    });
    assert.equal(run.code, 2, run.stderr);
    assert.match(run.stderr, /ledger could not be opened: ENOENT/);
    assert.doesNotMatch(run.stderr, /ledger the ledger/);
  });
});
