// Regression (session 20's notes, "withheld-inodes"): restore_snapshot asked
// `workspace.withholds` about its file without the call's signal. For a file with more than one
// link that question walks the whole workspace (up to 1,000,000 entries), and an aborted or
// timed-out call went on walking, and then wrote the file after its result had said it ended.
// The restore now hands the walk the call's signal: an abort or a timeout during the walk ends
// it, the result is the structured ABORTED or TIMEOUT, and the file, the snapshot store and the
// folder are left as they were.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { ToolExecutor } from 'toolgate';
import { Workspace } from '../../src/tool.js';
import { MainRunner } from '../../src/runner/main/main-runner.js';
import { keyOf } from '../../tools-ported/common/snapshot-store.js';
import { restoreSnapshot } from '../../tools-ported/snapshot/restore-snapshot.tool.js';
import { snapshotFile } from '../../tools-ported/snapshot/snapshot-file.tool.js';
import { portedRegistry, tempWorkspace, type TempWorkspace } from '../helpers.js';
import { waitFor } from '../wait.js';

const FOLDERS = 40;

/** A workspace with `notes.txt` (two names: the restore's question walks the workspace), `.env`, and {@link FOLDERS} folders; a snapshot of `notes.txt` taken, then the file edited. */
async function restorable(t: TempWorkspace): Promise<string> {
  fs.writeFileSync(path.join(t.ws, '.env'), 'SECRET=1\n');
  fs.writeFileSync(path.join(t.ws, 'notes.txt'), 'as snapshotted\n');
  fs.linkSync(path.join(t.ws, 'notes.txt'), path.join(t.ws, 'notes-too.txt'));
  for (let i = 0; i < FOLDERS; i++) {
    fs.mkdirSync(path.join(t.ws, `f${i}`));
    fs.writeFileSync(path.join(t.ws, `f${i}`, 'x.txt'), 'x\n');
  }
  const taken = await snapshotFile(new Workspace(t.ws), { filepath: 'notes.txt' });
  const id = /\b([0-9a-f]{12}-\d+)\b/.exec(taken)?.[1];
  assert.ok(id, taken);
  fs.writeFileSync(path.join(t.ws, 'notes.txt'), 'edited since\n');
  return id;
}

/** Everything below `folder`, with each file's content: what "left as it was" compares. */
function contents(folder: string): Record<string, string> {
  const found: Record<string, string> = {};
  for (const entry of fs.readdirSync(folder, { recursive: true, withFileTypes: true })) {
    const full = path.join(entry.parentPath, entry.name);
    found[path.relative(folder, full)] = entry.isFile() ? fs.readFileSync(full, 'utf8') : '<folder>';
  }
  return found;
}

describe('restore_snapshot: an abort during the walk for its file\'s other names', () => {
  let t: TempWorkspace;
  before(() => {
    t = tempWorkspace();
  });
  after(() => t.cleanup());

  test('restoreSnapshot stops, rejects with the signal\'s reason, and writes nothing', async () => {
    const id = await restorable(t);
    const before = contents(t.ws);
    const controller = new AbortController();
    const reason = new Error('the call was aborted');
    let judged = 0;
    // The path rules as a function: the restore asks them about its own file, then the walk
    // about each file it meets; the walk's first question schedules the abort, delivered on
    // the next turn of the event loop.
    const ws = new Workspace(t.ws, undefined, (p) => {
      if (p !== 'notes.txt' && ++judged === 1) setImmediate(() => controller.abort(reason));
      return p === '.env';
    });
    await assert.rejects(restoreSnapshot(ws, { snapshot_id: id }, controller.signal), (e) => e === reason);
    assert.ok(judged >= 1, 'the walk ran');
    assert.ok(judged < FOLDERS, `the walk stopped (${judged} other files judged of ${FOLDERS + 4})`);
    assert.deepEqual(contents(t.ws), before, 'the file, the snapshot store and the folder are as they were');
    assert.equal(fs.readFileSync(path.join(t.ws, 'notes.txt'), 'utf8'), 'edited since\n');
    assert.equal(fs.existsSync(path.join(t.ws, '.toolgate', 'snapshots', keyOf('notes.txt'), '2.json')), false, 'no snapshot of the current content');
  });

  for (const how of ['abort', 'timeout'] as const) {
    test(`through the executor (on the main thread): ${how === 'abort' ? 'an abort' : 'a timeout'} during the walk ends the call ${how === 'abort' ? 'ABORTED' : 'TIMEOUT'}, and the walk stops without writing`, async () => {
      const u = tempWorkspace();
      const policy = path.join(u.root, 'policy.toml');
      fs.writeFileSync(policy, '[[rules]]\naction = "deny"\npaths = [".env"]\n');
      // The process runner would kill the child at the abort; the main runner can only abort
      // the tool's signal, so it is the one that shows whether the tool listens.
      const executor = new ToolExecutor(await portedRegistry(), { workspaceRoot: u.ws, policy: { user: policy, workspace: false }, runners: { process: new MainRunner() } });
      // The walk's folder reads, as the test sees them (restored in `finally`).
      const promises = fs.promises as { opendir: typeof fs.promises.opendir };
      const opendir = promises.opendir;
      try {
        const id = await restorable(u);
        const before = contents(u.ws);
        // The walk is held at the first of the f* folders until the call has ended; the
        // iteration of that folder then either stops at once (the walk listened) or goes on.
        let held = false;
        let release!: () => void;
        const released = new Promise<void>((resolve) => (release = resolve));
        let stoppedEarly = false;
        const walked = new RegExp(`^${u.ws.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}/f\\d+$`);
        promises.opendir = async (where, options) => {
          const dir = await opendir(where, options);
          if (held || !walked.test(String(where))) return dir;
          held = true;
          await released;
          const iterate = dir[Symbol.asyncIterator].bind(dir);
          dir[Symbol.asyncIterator] = () => {
            const it = iterate();
            return Object.assign(it, {
              return: (value?: unknown) => {
                stoppedEarly = true;
                return it.return!(value as never);
              },
            });
          };
          return dir;
        };
        const controller = new AbortController();
        // The timeout only has to come after the walk reached the folder it is held at (which
        // takes milliseconds); the call waits there until it comes.
        const running = executor.execute({ name: 'restore_snapshot', arguments: { snapshot_id: id } }, { confirm: true, ...(how === 'abort' ? { signal: controller.signal } : { timeoutMs: 3000 }) });
        await waitFor(() => held, { what: 'the walk to reach the f* folders' });
        if (how === 'abort') controller.abort();
        const result = await running;
        assert.equal(result.success, false, result.output);
        assert.equal(result.errorCode, how === 'abort' ? 'ABORTED' : 'TIMEOUT', result.output);
        release();
        const restored = (): boolean => fs.readFileSync(path.join(u.ws, 'notes.txt'), 'utf8') !== 'edited since\n';
        await waitFor(() => stoppedEarly || restored(), { what: 'the walk to stop, or the file to be written' });
        assert.equal(stoppedEarly, true, 'the walk stopped in the folder it was held at');
        assert.equal(restored(), false, 'the file was not written after the call ended');
        assert.deepEqual(contents(u.ws), before, 'the file, the snapshot store and the folder are as they were');
      } finally {
        promises.opendir = opendir;
        await executor.close();
        u.cleanup();
      }
    });
  }
});
