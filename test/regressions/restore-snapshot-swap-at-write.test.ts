// Regression (review s19, item 3 of s20-sandbox): restore_snapshot judged the snapshot's
// recorded path (protected names, the home folder's dotfiles, the path rules) before its
// awaits, and the write then resolved the path again, checking only toolgate's own files and
// the write roots. A folder swapped for a link between the two (here while the file's current
// content was being saved as a snapshot) carried the write into `.git/config`. The read and
// the write now land on the real path that was judged, or nothing is written.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Workspace } from '../../src/tool.js';
import { keyOf } from '../../tools-ported/common/snapshot-store.js';
import { restoreSnapshot } from '../../tools-ported/snapshot/restore-snapshot.tool.js';
import { snapshotFile } from '../../tools-ported/snapshot/snapshot-file.tool.js';
import { tempWorkspace, type TempWorkspace } from '../helpers.js';

/** A workspace whose `sub` folder becomes a link to `.git` once the restore saved the current content. */
class SwappingWorkspace extends Workspace {
  swapped = false;
  constructor(root: string, private readonly savedMarker: string) {
    super(root);
  }
  override resolve(input: unknown): string {
    if (!this.swapped && input === 'sub/config' && fs.existsSync(this.savedMarker)) {
      this.swapped = true;
      fs.renameSync(path.join(this.root, 'sub'), path.join(this.root, 'sub-before'));
      fs.symlinkSync('.git', path.join(this.root, 'sub'));
    }
    return super.resolve(input);
  }
}

describe('restore_snapshot: a link swapped in after the path was judged is not written through', () => {
  let t: TempWorkspace;
  before(() => {
    t = tempWorkspace();
    fs.mkdirSync(path.join(t.ws, '.git'));
    fs.writeFileSync(path.join(t.ws, '.git', 'config'), '[core]\n\tbare = false\n');
    fs.mkdirSync(path.join(t.ws, 'sub'));
    fs.writeFileSync(path.join(t.ws, 'sub', 'config'), '[core]\n\tfsmonitor = touch /tmp/pwned\n');
  });
  after(() => t.cleanup());

  test('the restore refuses, and .git/config keeps its content', async () => {
    const plain = new Workspace(t.ws);
    const taken = await snapshotFile(plain, { filepath: 'sub/config' });
    const id = /\b([0-9a-f]{12}-\d+)\b/.exec(taken)?.[1];
    assert.ok(id, taken);
    fs.writeFileSync(path.join(t.ws, 'sub', 'config'), 'edited since\n');
    // The restore saves the current content as snapshot 2 first: the swap comes right after.
    const ws = new SwappingWorkspace(t.ws, path.join(t.ws, '.toolgate', 'snapshots', keyOf('sub/config'), '2.json'));
    await assert.rejects(restoreSnapshot(ws, { snapshot_id: id }), /now leads to \.git\/config, not to the path that was checked/);
    assert.equal(ws.swapped, true, 'the link was swapped in during the restore');
    assert.equal(fs.readFileSync(path.join(t.ws, '.git', 'config'), 'utf8'), '[core]\n\tbare = false\n');
    assert.equal(fs.readFileSync(path.join(t.ws, 'sub-before', 'config'), 'utf8'), 'edited since\n');
  });
});
