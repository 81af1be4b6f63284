/**
 * The ported snapshot tools (tools-ported/snapshot/): snapshot_file, restore_snapshot and
 * list_snapshots through the library (ported registry, real ToolExecutor, temporary workspace
 * `/tmp/x/proj` with siblings `proj-evil`, `proj_backup` and `outside/sentinel.txt`).
 *
 * Success paths, each documented error, the bound on snapshots kept per file, tampered
 * snapshots, paths outside the workspace (P1 to P5), a store folder replaced by a link that
 * leads outside (P3), and read-only modes (list allowed, snapshot and restore denied).
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { ToolExecutor, type ToolExecutionResult } from 'toolgate';
import { assertFailed as failed, assertOk as ok, assertTraversal, callsTo, closePortedWorkspace, portedWorkspace, putFile, runCli, type TempWorkspace, assertOutsideUnchanged } from '../helpers.js';
import { keyOf, MAX_SNAPSHOTS_PER_FILE } from '../../tools-ported/common/snapshot-store.js';

const STORE = '.toolgate/snapshots';

let tmp: TempWorkspace;
let ws: string;
let executor: ToolExecutor;

before(async () => {
  ({ tmp, ws, executor } = await portedWorkspace());
});

after(() => closePortedWorkspace({ tmp, executor }));

const call = callsTo(() => executor, { confirm: true });

function put(rel: string, content: string | Uint8Array): string {
  return putFile(ws, rel, content);
}

/** The id a snapshot_file or restore_snapshot output names first. */
function idIn(output: string): string {
  const m = /\b([0-9a-f]{12}-\d+)\b/.exec(output);
  assert.ok(m, `no snapshot id in: ${output}`);
  return m[1]!;
}

describe('snapshot_file, restore_snapshot, list_snapshots', () => {
  test('snapshot, edit, restore: the file comes back byte for byte, and the restore is itself undoable', async () => {
    const original = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('line one\r\nline two\r\n', 'utf16le')]);
    put('s/doc.txt', original);
    const taken = await call('snapshot_file', { filepath: 's/doc.txt' });
    ok(taken);
    const id = idIn(taken.output);
    assert.equal(id, `${keyOf('s/doc.txt')}-1`);
    assert.match(taken.output, new RegExp(`Snapshot ${id} of s/doc\\.txt taken \\(${original.length} bytes, sha256 [0-9a-f]{16}\\)`));
    // Metadata kept beside the bytes: original path, time, size, sha256.
    const meta = JSON.parse(fs.readFileSync(path.join(ws, STORE, keyOf('s/doc.txt'), '1.json'), 'utf8'));
    assert.deepEqual(Object.keys(meta).sort(), ['created', 'id', 'path', 'sha256', 'size']);
    assert.equal(meta.path, 's/doc.txt');
    assert.equal(meta.size, original.length);
    assert.equal(meta.sha256, crypto.createHash('sha256').update(original).digest('hex'));
    assert.ok(!Number.isNaN(Date.parse(meta.created)));

    ok(await call('replace_in_file', { filepath: 's/doc.txt', old_text: 'line two', new_text: 'EDITED' }));
    const edited = fs.readFileSync(path.join(ws, 's/doc.txt'));
    assert.notDeepEqual(edited, original);
    const restored = await call('restore_snapshot', { snapshot_id: id });
    ok(restored);
    assert.deepEqual(fs.readFileSync(path.join(ws, 's/doc.txt')), original);
    assert.match(restored.output, new RegExp(`Restored s/doc\\.txt from snapshot ${id}`));
    const undoId = /previous content is in snapshot ([0-9a-f]{12}-\d+)/.exec(restored.output)?.[1];
    assert.equal(undoId, `${keyOf('s/doc.txt')}-2`);
    ok(await call('restore_snapshot', { snapshot_id: undoId }));
    assert.deepEqual(fs.readFileSync(path.join(ws, 's/doc.txt')), edited);
  });

  test('an unchanged file reuses its newest snapshot; restoring a file that already matches changes nothing', async () => {
    put('s/same.txt', 'same\n');
    const first = idIn((await call('snapshot_file', { filepath: 's/same.txt' })).output);
    const again = await call('snapshot_file', { filepath: 's/same.txt' });
    ok(again);
    assert.match(again.output, new RegExp(`unchanged since snapshot ${first}`));
    const restored = await call('restore_snapshot', { snapshot_id: first });
    ok(restored);
    assert.match(restored.output, /already matches snapshot .*; nothing was changed/);
  });

  test('restore recreates a deleted file', async () => {
    put('s/deleted.txt', 'come back\n');
    const id = idIn((await call('snapshot_file', { filepath: 's/deleted.txt' })).output);
    ok(await call('delete_file', { filepath: 's/deleted.txt' }));
    const restored = await call('restore_snapshot', { snapshot_id: id });
    ok(restored);
    assert.match(restored.output, /had been deleted and was recreated/);
    assert.equal(fs.readFileSync(path.join(ws, 's/deleted.txt'), 'utf8'), 'come back\n');
  });

  test('M1 family: a file replaced by a link to .git/config after its snapshot is not restored through the link', async () => {
    put('s/planted.txt', '[core]\n\tfsmonitor = touch pwn\n');
    const id = idIn((await call('snapshot_file', { filepath: 's/planted.txt' })).output);
    put('.git/config', '[core]\n\tbare = false\n');
    fs.rmSync(path.join(ws, 's/planted.txt'));
    fs.symlinkSync('../.git/config', path.join(ws, 's/planted.txt'));
    failed(await call('restore_snapshot', { snapshot_id: id }), /protected path/);
    assert.equal(fs.readFileSync(path.join(ws, '.git/config'), 'utf8'), '[core]\n\tbare = false\n');
    fs.rmSync(path.join(ws, 's/planted.txt'));
    fs.rmSync(path.join(ws, '.git'), { recursive: true });
  });

  test(`at most ${MAX_SNAPSHOTS_PER_FILE} snapshots are kept per file, the oldest removed first`, async () => {
    const ids: string[] = [];
    for (let i = 1; i <= MAX_SNAPSHOTS_PER_FILE + 2; i++) {
      put('s/busy.txt', `version ${i}\n`);
      const result = await call('snapshot_file', { filepath: 's/busy.txt' });
      ok(result);
      ids.push(idIn(result.output));
      if (i === MAX_SNAPSHOTS_PER_FILE + 1) assert.match(result.output, new RegExp(`The oldest 1 snapshot of this file \\(${ids[0]}\\) were removed`));
    }
    const listed = await call('list_snapshots', { filepath: 's/busy.txt' });
    ok(listed);
    const shown = [...listed.output.matchAll(/^([0-9a-f]{12}-\d+)\s/gm)].map((m) => m[1]);
    assert.deepEqual(shown, ids.slice(2).reverse(), 'newest first, the two oldest gone');
    failed(await call('restore_snapshot', { snapshot_id: ids[0] }), /there is no snapshot/);
    ok(await call('restore_snapshot', { snapshot_id: ids[2] }));
    assert.equal(fs.readFileSync(path.join(ws, 's/busy.txt'), 'utf8'), 'version 3\n');
  });

  test('list_snapshots lists all files, newest first, with id, file, time, size and sha256', async () => {
    const result = await call('list_snapshots', {});
    ok(result);
    const lines = result.output.split('\n');
    assert.match(lines[0]!, /^\d+ snapshots, newest first \(at most 20 kept per file\):$/);
    assert.match(lines[1]!, /^ID\s+FILE\s+TAKEN \(UTC\)\s+SIZE\s+SHA-256$/);
    assert.match(result.output, /[0-9a-f]{12}-1\s+s\/doc\.txt\s+\d{4}-\d\d-\d\dT[\d:.]+Z\s+\d+ bytes\s+[0-9a-f]{16}/);
    assert.match(result.output, /s\/busy\.txt/);
    const none = await call('list_snapshots', { filepath: 's/never.txt' });
    ok(none);
    assert.equal(none.output, 'No snapshots of s/never.txt are kept; snapshot_file takes one.');
  });

  test('documented errors: a missing file, a folder, the store itself, malformed and unknown ids', async () => {
    failed(await call('snapshot_file', { filepath: 's/none.txt' }), /does not exist; there is nothing to snapshot/);
    failed(await call('snapshot_file', { filepath: 's' }), /is not a regular file/);
    // the store is under .toolgate, a protected path: a person's yes (not confirm: true alone) lets the call reach the tool's own refusal
    failed(await call('snapshot_file', { filepath: `${STORE}/${keyOf('s/doc.txt')}/1.bin` }, { confirm: true, confirmationHandler: () => 'allow_once' }), /inside the snapshot store/);
    failed(await call('restore_snapshot', { snapshot_id: 'latest' }), /is not a snapshot id/);
    failed(await call('restore_snapshot', { snapshot_id: '../../etc/passwd' }), /is not a snapshot id/);
    failed(await call('restore_snapshot', { snapshot_id: 'abcdefabcdef-1' }), /there is no snapshot abcdefabcdef-1/);
  });

  test('a snapshot whose bytes were changed is refused and the file is left as it is', async () => {
    put('s/tamper.txt', 'good\n');
    const id = idIn((await call('snapshot_file', { filepath: 's/tamper.txt' })).output);
    put('s/tamper.txt', 'current\n');
    fs.writeFileSync(path.join(ws, STORE, keyOf('s/tamper.txt'), '1.bin'), 'evil\n');
    failed(await call('restore_snapshot', { snapshot_id: id }), /does not match its recorded SHA-256/);
    assert.equal(fs.readFileSync(path.join(ws, 's/tamper.txt'), 'utf8'), 'current\n');
  });

  test('the store keeps itself out of git with .toolgate/.gitignore', () => {
    assert.equal(fs.readFileSync(path.join(ws, '.toolgate/.gitignore'), 'utf8'), '# snapshots of toolgate edit tools\n*\n');
  });
});

describe('snapshots and paths outside the workspace', () => {
  before(() => {
    fs.symlinkSync(tmp.sentinel, path.join(ws, 'snap-link.txt'));
    fs.symlinkSync(tmp.outside, path.join(ws, 'snap-dir-link'));
  });

  test('P1-P4: snapshot_file and list_snapshots refuse every outside path', async () => {
    const outside = ['../proj-evil/x', '../proj_backup/x', path.join(tmp.root, 'proj-evil', 'x'), 'snap-link.txt', 'snap-dir-link/sentinel.txt', 's/../../outside/sentinel.txt', tmp.sentinel, '/etc/passwd', '~/.ssh/id_rsa'];
    for (const filepath of outside) {
      await assertTraversal(call('snapshot_file', { filepath }), `snapshot_file ${filepath}`);
      await assertTraversal(call('list_snapshots', { filepath }), `list_snapshots ${filepath}`);
    }
    for (const filepath of ['', 'a\u0000b']) {
      failed(await call('snapshot_file', { filepath }), /path/i, 'INVALID_PATH');
      failed(await call('list_snapshots', { filepath }), /path/i, 'INVALID_PATH');
    }
    assertOutsideUnchanged(tmp);
  });

  test('restore_snapshot: metadata edited to name a path outside is refused; the sentinel is unchanged', async () => {
    const rel = path.relative(ws, tmp.sentinel); // ../outside/sentinel.txt
    const key = keyOf(rel);
    const bytes = Buffer.from('PWNED\n');
    const dir = path.join(ws, STORE, key);
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, '1.bin'), bytes);
    const sha = crypto.createHash('sha256').update(bytes).digest('hex');
    fs.writeFileSync(path.join(dir, '1.json'), JSON.stringify({ id: `${key}-1`, path: rel, created: new Date().toISOString(), size: bytes.length, sha256: sha }));
    await assertTraversal(call('restore_snapshot', { snapshot_id: `${key}-1` }), 'restore_snapshot to ../outside/sentinel.txt');
    assertOutsideUnchanged(tmp);
  });

  test('P3: a snapshot store replaced by a link that leads outside is refused; nothing is written outside', async () => {
    const store = path.join(ws, '.toolgate');
    fs.renameSync(store, path.join(ws, '.toolgate-real'));
    fs.symlinkSync(tmp.outside, store);
    try {
      put('s/victim.txt', 'victim\n');
      await assertTraversal(call('snapshot_file', { filepath: 's/victim.txt' }), 'snapshot_file into a linked store');
      await assertTraversal(call('list_snapshots', {}), 'list_snapshots of a linked store');
      await assertTraversal(call('restore_snapshot', { snapshot_id: `${keyOf('s/doc.txt')}-1` }), 'restore_snapshot from a linked store');
      assertOutsideUnchanged(tmp);
    } finally {
      fs.unlinkSync(store);
      fs.renameSync(path.join(ws, '.toolgate-real'), store);
    }
  });
});

describe('snapshots in read-only modes', () => {
  test('list_snapshots is allowed in explore mode; snapshot_file and restore_snapshot are MODE_DENIED, even with a scoped folder', async () => {
    put('out/plan.md', 'plan\n');
    const options = { mode: 'explore', scopedWriteDirs: ['out'] };
    ok(await call('list_snapshots', {}, options));
    const snap = await call('snapshot_file', { filepath: 'out/plan.md' }, options);
    failed(snap, /not allowed in explore mode/, 'MODE_DENIED');
    const restore = await call('restore_snapshot', { snapshot_id: `${keyOf('s/doc.txt')}-1` }, options);
    failed(restore, /not allowed in explore mode/, 'MODE_DENIED');
    assert.equal(fs.existsSync(path.join(ws, STORE, keyOf('out/plan.md'))), false);
  });

  test('restore_snapshot requires confirmation; snapshot_file does not', async () => {
    put('s/confirm.txt', 'c\n');
    const id = idIn((await executor.execute({ name: 'snapshot_file', arguments: { filepath: 's/confirm.txt' } })).output);
    const unconfirmed = await executor.execute({ name: 'restore_snapshot', arguments: { snapshot_id: id } });
    assert.equal(unconfirmed.errorCode, 'CONFIRMATION_REQUIRED', unconfirmed.output);
    assert.equal(unconfirmed.confirmed, false);
  });
});

describe('toolgate list --tag snapshot', () => {
  test('lists the three snapshot tools', async () => {
    const run = await runCli(['list', '--tag', 'snapshot', '--json']);
    assert.equal(run.code, 0, run.stderr);
    const rows = JSON.parse(run.stdout) as Array<{ name: string; version: string; readOnly: boolean; requiresConfirmation: boolean; tags: string[] }>;
    assert.deepEqual(rows.map((r) => [r.name, r.version, r.readOnly, r.requiresConfirmation]), [
      ['list_snapshots', '1.0.0', true, false],
      ['restore_snapshot', '1.0.0', false, true],
      ['snapshot_file', '1.0.0', false, false],
    ]);
    for (const row of rows) assert.deepEqual(row.tags, ['snapshot', 'ported']);
  });
});
