// Regression (case P9's family, attack s19): a deny rule on `.env` and `secrets/**` withheld
// those paths from folder-walking tools by their real path and spelling only. A hard link of
// `.env` under another name (`notes/hl`, made by a command or present in the workspace) is
// the same file: `grep_files directory="notes"` printed `.env`'s content, `create_archive`
// packed it. The deciders already judged a path argument's other names (judged-paths.ts);
// `Workspace.withholds` now does the same for what a tool finds by itself.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { before, describe, test } from 'node:test';
import { callsTo } from '../helpers.js';
import { policyExecutor } from '../policy-executor.js';

describe('P9 family: a hard link of a withheld file is withheld from folder walks too', () => {
  const fx = policyExecutor({ rules: '[[rules]]\naction = "deny"\npaths = [".env", "secrets/**"]\n', executor: { approvalMode: 'allow-all' } });
  const { t } = fx;
  before(() => {
    fs.writeFileSync(path.join(t.ws, '.env'), 'TOKEN=SECRET-ENV needle\n');
    fs.mkdirSync(path.join(t.ws, 'secrets'));
    fs.writeFileSync(path.join(t.ws, 'secrets/key.txt'), 'SECRET-KEY needle\n');
    fs.mkdirSync(path.join(t.ws, 'notes'));
    fs.linkSync(path.join(t.ws, '.env'), path.join(t.ws, 'notes/hl'));
    fs.linkSync(path.join(t.ws, 'secrets/key.txt'), path.join(t.ws, 'notes/hl2'));
    fs.writeFileSync(path.join(t.ws, 'notes/plain.txt'), 'plain needle\n');
    // Two names of a file no rule covers: shown under both.
    fs.writeFileSync(path.join(t.ws, 'notes/shared.txt'), 'shared needle\n');
    fs.linkSync(path.join(t.ws, 'notes/shared.txt'), path.join(t.ws, 'shared-too.txt'));
  });
  const call = callsTo(() => fx.executor, { confirm: true });

  for (const directory of ['notes', '.']) {
    test(`P9: grep_files directory=${JSON.stringify(directory)} shows nothing of .env or secrets/ through their hard links`, async () => {
      const r = await call('grep_files', { pattern: 'needle', directory });
      assert.equal(r.success, true, `${r.errorCode} ${r.error}`);
      assert.doesNotMatch(String(r.output), /SECRET/);
      assert.match(String(r.output), /plain needle/);
      assert.match(String(r.output), /shared needle/);
      assert.match(String(r.output), /withheld by the policy's path rules/);
    });
  }

  test('P9: the hard links are withheld from find_files, tree and list_files, and from an archive of their folder', async () => {
    for (const [name, args] of [['find_files', { pattern: '*', directory: 'notes' }], ['tree', { directory: 'notes' }], ['list_files', { directory: 'notes' }]] as const) {
      const r = await call(name, args);
      assert.equal(r.success, true, `${name}: ${r.errorCode} ${r.error}`);
      assert.doesNotMatch(String(r.output), /\bhl2?\b/, name);
      assert.match(String(r.output), /plain\.txt/, name);
    }
    const made = await call('create_archive', { paths: ['notes'], destination: 'notes.tar.gz' });
    assert.equal(made.success, true, `${made.errorCode} ${made.error}`);
    const tar = zlib.gunzipSync(fs.readFileSync(path.join(t.ws, 'notes.tar.gz'))).toString('latin1');
    assert.doesNotMatch(tar, /SECRET/);
    assert.match(tar, /plain needle/);
  });

  test('P9: read_file of the hard link is denied (the deciders judge its other names)', async () => {
    const r = await call('read_file', { filepath: 'notes/hl' });
    assert.equal(r.errorCode, 'POLICY_DENIED', r.error);
  });
});
