// Folder pinning (src/workspace/pinned-folder.ts): for every operation of the module and for
// every tool that used one of the former copies, a folder on the path is swapped for a
// symbolic link to the outside DURING the call, and nothing outside may be read, listed or
// written: the call fails with PATH_TRAVERSAL (or works on the folder it pinned, inside).
//
// The swap is driven by a test seam that needs no hook in the code under test: a method of
// `node:fs/promises` (the object every module reaches through `fs.open(...)`) is wrapped so
// that the first call whose path matches runs the swap just before the real call. The same
// seam therefore drives the old copies and the new module alike.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { PathTraversalError } from 'toolgate';
import { checkDescriptorInside, pinFolder } from '../../src/workspace/pinned-folder.js';
import { Workspace } from '../../src/workspace/workspace.js';
import { listFiles } from '../../tools/list-files.tool.js';
import { readTextFile } from '../../tools/read-file.tool.js';
import { writeTextFile } from '../../tools/write-file.tool.js';
import { fileInfo } from '../../tools-ported/inspect/file-info.tool.js';
import { showTree } from '../../tools-ported/inspect/tree.tool.js';
import { findFiles } from '../../tools-ported/inspect/find-files.tool.js';
import { deleteFile } from '../../tools-ported/edit/delete-file.tool.js';
import { moveFile } from '../../tools-ported/edit/move-file.tool.js';
import { makeDirectoryInside } from '../../tools-ported/common/fs-inside.js';
import { streamToFileInside } from '../../tools-ported/common/stream-inside.js';
import { createArchive } from '../../tools-ported/archive/create-archive.tool.js';
import { extractArchive } from '../../tools-ported/archive/extract-archive.tool.js';
import { pinFolderByPath } from '../../src/workspace/pinned-folder.js';
import { tempWorkspace, type TempWorkspace } from '../helpers.js';

type FsMethod = 'open' | 'lstat' | 'opendir' | 'mkdir' | 'readdir' | 'stat' | 'realpath';
const HOOKED: readonly FsMethod[] = ['open', 'lstat', 'opendir', 'mkdir', 'readdir', 'stat'];

/**
 * Run `action` once, just before the first call of one of `methods` of node:fs/promises whose
 * path argument matches `when`. Restored by {@link restoreFs}.
 */
const originals = new Map<FsMethod, unknown>();
function onFirstCall(when: (target: string, method: FsMethod, args: unknown[]) => boolean, action: () => void, methods: readonly FsMethod[] = HOOKED): { fired: () => boolean } {
  let fired = false;
  const table = fsp as unknown as Record<FsMethod, (...args: unknown[]) => unknown>;
  for (const method of methods) {
    const original = table[method];
    if (!originals.has(method)) originals.set(method, original);
    table[method] = function (this: unknown, ...args: unknown[]) {
      if (!fired && typeof args[0] === 'string' && when(args[0], method, args)) {
        fired = true;
        action();
      }
      return original.apply(this, args);
    };
  }
  return { fired: () => fired };
}
function restoreFs(): void {
  for (const [method, original] of originals) (fsp as unknown as Record<string, unknown>)[method] = original;
  originals.clear();
}

/** Does a call's path reach the folder `race/sub` (by real path, or by name through a pinned folder)? */
const reachesSub = (target: string) => /[\\/]sub$/.test(target) || /[\\/]race[\\/]sub[\\/]/.test(target);
/** Is an `open` call one that opens a folder? */
const opensFolder = (_target: string, method: FsMethod, args: unknown[]) => method === 'open' && typeof args[1] === 'number' && (args[1] & fs.constants.O_DIRECTORY) !== 0;

/** Everything under a folder: relative path -> content (files) or marker, for before/after comparison. */
function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const entry of fs.readdirSync(dir, { withFileTypes: true, recursive: true })) {
    const full = path.join(entry.parentPath, entry.name);
    const rel = path.relative(dir, full);
    if (entry.isSymbolicLink()) out[rel] = `link:${fs.readlinkSync(full)}`;
    else if (entry.isDirectory()) out[rel] = 'dir';
    else if (entry.isFile()) out[rel] = fs.readFileSync(full, 'utf8');
    else out[rel] = 'other';
  }
  return out;
}

const isTraversal = (e: unknown) => e instanceof PathTraversalError && e.code === 'PATH_TRAVERSAL';

describe('pinned folders: a folder swapped for a link during the call reaches nothing outside (Linux)', { skip: process.platform !== 'linux' }, () => {
  let t: TempWorkspace;
  let ws: Workspace;
  let sub: string;
  let outsideBefore: Record<string, string>;

  /** Swap `race/sub` for a link to the outside folder; the real folder stays inside as `race/sub.moved`. */
  const swapSub = () => {
    fs.renameSync(sub, `${sub}.moved`);
    fs.symlinkSync(t.outside, sub);
  };

  beforeEach(() => {
    t = tempWorkspace();
    ws = new Workspace(t.ws);
    sub = path.join(t.ws, 'race', 'sub');
    fs.mkdirSync(path.join(sub, 'inner'), { recursive: true });
    // The same names as outside, so that a path followed through the link would reach them.
    fs.writeFileSync(path.join(sub, 'sentinel.txt'), 'inside\n');
    fs.writeFileSync(path.join(sub, 'inner', 'note.txt'), 'inside note\n');
    fs.symlinkSync('inside-target', path.join(sub, 'ln'));
    fs.mkdirSync(path.join(t.outside, 'inner'));
    fs.writeFileSync(path.join(t.outside, 'inner', 'note.txt'), 'SENTINEL NOTE\n');
    fs.writeFileSync(path.join(t.outside, 'outside-only.txt'), 'SENTINEL ONLY\n');
    fs.symlinkSync('OUTSIDE-TARGET', path.join(t.outside, 'ln'));
    outsideBefore = snapshot(t.outside);
  });
  afterEach(() => {
    restoreFs();
    assert.deepEqual(snapshot(t.outside), outsideBefore, 'nothing outside the workspace was written, created or removed');
    t.cleanup();
  });

  // ---- The module's operations ----

  it('pinFolder: a folder on the path swapped during the walk is PATH_TRAVERSAL', async () => {
    const hook = onFirstCall((p, m, a) => opensFolder(p, m, a) && reachesSub(p), swapSub);
    await assert.rejects(pinFolder(ws, sub, 'race/sub'), isTraversal);
    assert.ok(hook.fired(), 'the folder was swapped during the call');
  });

  it('pinFolder with create: no folder is made through a link swapped in during the walk', async () => {
    const hook = onFirstCall((p, m, a) => opensFolder(p, m, a) && reachesSub(p), swapSub);
    await assert.rejects(pinFolder(ws, path.join(sub, 'new', 'deeper'), 'race/sub/new/deeper', { create: true }), isTraversal);
    assert.ok(hook.fired());
    assert.ok(!fs.existsSync(path.join(t.outside, 'new')));
  });

  it('pinFolder: the folder held is checked by its descriptor (one moved outside after it was opened is PATH_TRAVERSAL)', async () => {
    // Not a link but a rename: the walk has opened the folder, which then leaves the workspace.
    const elsewhere = path.join(t.root, 'elsewhere');
    const hook = onFirstCall((p, m) => m === 'realpath' && p.startsWith('/proc/self/fd/'), () => fs.renameSync(sub, elsewhere), ['realpath']);
    await assert.rejects(pinFolder(ws, sub, 'race/sub'), isTraversal);
    assert.ok(hook.fired());
    fs.renameSync(elsewhere, sub);
    const outside = await fsp.open(t.outside, fs.constants.O_RDONLY);
    try {
      await assert.rejects(checkDescriptorInside(ws, outside.fd, 'x'), isTraversal);
    } finally {
      await outside.close();
    }
    const inside = await fsp.open(sub, fs.constants.O_RDONLY);
    try {
      await checkDescriptorInside(ws, inside.fd, 'race/sub');
    } finally {
      await inside.close();
    }
  });

  it('lstat, readlink, openDir, stat: after a swap they still see the pinned folder, not the outside', async () => {
    const { folder } = await pinFolder(ws, sub, 'race/sub');
    try {
      const ino = fs.statSync(sub).ino;
      swapSub();
      assert.equal((await folder.lstat('sentinel.txt'))?.size, 'inside\n'.length);
      assert.equal(await folder.lstat('outside-only.txt'), undefined);
      assert.equal(await folder.readlink('ln'), 'inside-target');
      const names: string[] = [];
      for await (const d of await folder.openDir()) names.push(d.name);
      assert.deepEqual(names.sort(), ['inner', 'ln', 'sentinel.txt']);
      assert.equal((await folder.stat()).ino, ino);
    } finally {
      await folder.close();
    }
  });

  it('openFile: reads the pinned folder\'s file after a swap; a file swapped for a link is PATH_TRAVERSAL', async () => {
    const { folder } = await pinFolder(ws, sub, 'race/sub', { doing: 'read' });
    try {
      swapSub();
      const handle = await folder.openFile('sentinel.txt');
      try {
        assert.equal(await handle.readFile('utf8'), 'inside\n');
      } finally {
        await handle.close();
      }
      const moved = `${sub}.moved`;
      fs.rmSync(path.join(moved, 'sentinel.txt'));
      fs.symlinkSync(t.sentinel, path.join(moved, 'sentinel.txt'));
      await assert.rejects(folder.openFile('sentinel.txt'), isTraversal);
    } finally {
      await folder.close();
    }
  });

  it('createFile: a new file lands in the pinned folder, never through a swapped link', async () => {
    const { folder } = await pinFolder(ws, sub, 'race/sub');
    try {
      swapSub();
      const handle = await folder.createFile('new.txt');
      await handle.writeFile('made');
      await handle.close();
      assert.equal(fs.readFileSync(path.join(`${sub}.moved`, 'new.txt'), 'utf8'), 'made');
      await assert.rejects(folder.createFile('ln'), { code: 'EEXIST' }); // never through a link
    } finally {
      await folder.close();
    }
  });

  it('replaceFile: a swap in the middle of the write still renames inside the pinned folder', async () => {
    const { folder } = await pinFolder(ws, sub, 'race/sub', { doing: 'written' });
    try {
      await folder.replaceFile('sentinel.txt', 'race/sub/sentinel.txt', async (file) => {
        await file.write(Buffer.from('RACED '));
        swapSub(); // between the temporary file and the rename
        await file.write(Buffer.from('WRITE\n'));
      });
      assert.equal(fs.readFileSync(path.join(`${sub}.moved`, 'sentinel.txt'), 'utf8'), 'RACED WRITE\n');
      assert.deepEqual(fs.readdirSync(`${sub}.moved`).filter((n) => n.endsWith('.tmp')), []);
    } finally {
      await folder.close();
    }
  });

  it('openFolder: a subfolder swapped for a link is PATH_TRAVERSAL; before the swap it is pinned too', async () => {
    const { folder } = await pinFolder(ws, sub, 'race/sub');
    try {
      const inner = await folder.openFolder('inner');
      fs.renameSync(path.join(sub, 'inner'), path.join(sub, 'inner.moved'));
      fs.symlinkSync(path.join(t.outside, 'inner'), path.join(sub, 'inner'));
      try {
        const handle = await inner.openFile('note.txt');
        assert.equal(await handle.readFile('utf8'), 'inside note\n');
        await handle.close();
      } finally {
        await inner.close();
      }
      await assert.rejects(folder.openFolder('inner'), isTraversal);
    } finally {
      await folder.close();
    }
  });

  it('names are single components: ".." and separators are refused', async () => {
    const { folder } = await pinFolder(ws, sub, 'race/sub');
    try {
      assert.throws(() => folder.at('..'), { code: 'INVALID_PATH' });
      assert.throws(() => folder.at('../../outside/sentinel.txt'), { code: 'INVALID_PATH' });
      await assert.rejects(folder.openFolder('..'), { code: 'INVALID_PATH' });
      assert.equal(folder.at('a\\b'), `${folder.path}/a\\b`, 'a backslash is part of a Linux name');
    } finally {
      await folder.close();
    }
  });

  // ---- The fallback without /proc (pinFolderByPath is what pinFolder runs there) ----

  it('fallback: a folder on the path that is a link when the folder is opened is PATH_TRAVERSAL; nothing is created through it', async () => {
    swapSub();
    await assert.rejects(pinFolderByPath(ws, sub, 'race/sub'), isTraversal);
    await assert.rejects(pinFolderByPath(ws, path.join(sub, 'new'), 'race/sub/new', { create: true }), isTraversal);
    assert.ok(!fs.existsSync(path.join(t.outside, 'new')));
  });

  it('fallback: missing folders are created one by one; a file in the way is reported', async () => {
    const { folder, created } = await pinFolderByPath(ws, path.join(sub, 'a', 'b'), 'race/sub/a/b', { create: true });
    await folder.close();
    assert.equal(created, 2);
    assert.ok(fs.statSync(path.join(sub, 'a', 'b')).isDirectory());
    await assert.rejects(pinFolderByPath(ws, path.join(sub, 'sentinel.txt', 'x'), 'race/sub/sentinel.txt/x'), /a part of race\/sub\/sentinel.txt\/x is a file, not a folder/);
    await assert.rejects(pinFolderByPath(ws, path.join(sub, 'missing'), 'race/sub/missing'), { code: 'TOOL_ERROR' });
  });

  it('fallback: openFile and replaceFile still check the descriptor where /proc answers (here; not on systems without /proc, see the module notes)', async () => {
    const { folder } = await pinFolderByPath(ws, sub, 'race/sub', { doing: 'written' });
    try {
      assert.equal(folder.pinned, false);
      swapSub(); // after the walk: the fallback's operations go by path from here
      await assert.rejects(folder.openFile('sentinel.txt'), isTraversal);
      await assert.rejects(folder.replaceFile('sentinel.txt', 'race/sub/sentinel.txt', (f) => f.writeFile('RACED\n')), isTraversal);
      await assert.rejects(folder.openFolder('inner'), isTraversal);
    } finally {
      await folder.close();
    }
  });

  // ---- The tools that had their own copy ----

  it('list_files: the listed folder swapped for a link while it is opened is PATH_TRAVERSAL, not an empty listing', async () => {
    const hook = onFirstCall((p, m, a) => opensFolder(p, m, a) && reachesSub(p), swapSub);
    await assert.rejects(listFiles(ws, 'race/sub', '*', false), isTraversal);
    assert.ok(hook.fired());
  });

  it('list_files (recursive): a subfolder swapped during the listing shows nothing of the outside', async () => {
    const hook = onFirstCall((p, m, a) => opensFolder(p, m, a) && reachesSub(p), swapSub);
    const out = await listFiles(ws, 'race', '*', true).catch((e: unknown) => (isTraversal(e) ? '' : Promise.reject(e)));
    assert.ok(hook.fired());
    assert.doesNotMatch(out, /outside-only|OUTSIDE-TARGET|\(14 bytes\)|\(17 bytes\)/, out);
  });

  it('file_info: a folder swapped while it is opened is PATH_TRAVERSAL', async () => {
    const hook = onFirstCall((p, m, a) => opensFolder(p, m, a) && reachesSub(p), swapSub);
    await assert.rejects(fileInfo(ws, 'race/sub'), isTraversal);
    assert.ok(hook.fired());
  });

  it('file_info: a FIFO is described through its pinned folder, never an outside one behind a swapped folder', async () => {
    execFileSync('mkfifo', ['-m', '0644', path.join(sub, 'pipe')]);
    execFileSync('mkfifo', ['-m', '0600', path.join(t.outside, 'pipe')]);
    outsideBefore = snapshot(t.outside);
    // Swap at the first look at the FIFO's folder or at the FIFO itself, whichever comes first.
    const hook = onFirstCall((p) => reachesSub(p) && !p.endsWith('.moved'), swapSub);
    const result = await fileInfo(ws, 'race/sub/pipe').catch((e: unknown) => (isTraversal(e) ? undefined : Promise.reject(e)));
    assert.ok(hook.fired());
    assert.notEqual(result?.permissions, '0600', 'the outside FIFO was described');
  });

  it('tree and find_files: a folder swapped while the walk opens it shows nothing of the outside', async () => {
    let hook = onFirstCall((p, m, a) => opensFolder(p, m, a) && reachesSub(p), swapSub);
    const tree = await showTree(ws, 'race', { maxDepth: 5, maxEntries: 100, includeIgnored: false });
    assert.ok(hook.fired());
    assert.doesNotMatch(tree, /outside-only|SENTINEL|OUTSIDE-TARGET/, tree);
    restoreFs();
    fs.rmSync(sub);
    fs.renameSync(`${sub}.moved`, sub);
    hook = onFirstCall((p, m, a) => opensFolder(p, m, a) && reachesSub(p), swapSub);
    const found = await findFiles(ws, '*.txt', { directory: 'race', exclude: [], type: 'file', maxResults: 100, includeIgnored: false });
    assert.ok(hook.fired());
    assert.doesNotMatch(found, /outside-only/, found);
  });

  it('read_file: a folder swapped during the open is PATH_TRAVERSAL and returns nothing', async () => {
    // The first open that reaches race/sub (its folder on a pinned walk, or the file by path).
    const hook = onFirstCall((p, m) => m === 'open' && reachesSub(p), swapSub, ['open']);
    await assert.rejects(readTextFile(ws, 'race/sub/sentinel.txt', undefined, 10_000, () => undefined), isTraversal);
    assert.ok(hook.fired());
  });

  it('write_file: a folder swapped during the write is PATH_TRAVERSAL and the outside file is unchanged', async () => {
    const hook = onFirstCall((p, m, a) => opensFolder(p, m, a) && reachesSub(p), swapSub);
    await assert.rejects(writeTextFile(ws, 'race/sub/sentinel.txt', 'RACED\n'), isTraversal);
    assert.ok(hook.fired());
  });

  it('delete_file and move_file (fs-inside): a folder swapped during the call is PATH_TRAVERSAL, nothing outside removed', async () => {
    let hook = onFirstCall((p, m, a) => opensFolder(p, m, a) && reachesSub(p), swapSub);
    await assert.rejects(deleteFile(ws, { filepath: 'race/sub/sentinel.txt' }), isTraversal);
    assert.ok(hook.fired());
    restoreFs();
    fs.rmSync(sub);
    fs.renameSync(`${sub}.moved`, sub);
    hook = onFirstCall((p, m, a) => opensFolder(p, m, a) && reachesSub(p), swapSub);
    await assert.rejects(moveFile(ws, { source: 'race/sub/sentinel.txt', destination: 'race/moved.txt' }), isTraversal);
    assert.ok(hook.fired());
    assert.ok(!fs.existsSync(path.join(t.ws, 'race', 'moved.txt')));
  });

  it('make_directory (fs-inside): no folder is created through a link swapped in during the call', async () => {
    const hook = onFirstCall((p, m, a) => opensFolder(p, m, a) && reachesSub(p), swapSub);
    await assert.rejects(makeDirectoryInside(ws, 'race/sub/made/here'), isTraversal);
    assert.ok(hook.fired());
  });

  it('download_url\'s writer (stream-inside): a swap in the middle of the body never writes outside', async () => {
    async function* body(): AsyncGenerator<Uint8Array> {
      yield Buffer.from('first ');
      swapSub();
      yield Buffer.from('second\n');
    }
    const result = await streamToFileInside(ws, 'race/sub/sentinel.txt', body(), { maxBytes: 1000, overwrite: true })
      .catch((e: unknown) => (isTraversal(e) ? undefined : Promise.reject(e)));
    if (result !== undefined) assert.equal(fs.readFileSync(path.join(`${sub}.moved`, 'sentinel.txt'), 'utf8'), 'first second\n');
    // And a swap while its folder is opened is PATH_TRAVERSAL.
    fs.rmSync(sub);
    fs.renameSync(`${sub}.moved`, sub);
    const hook = onFirstCall((p, m, a) => opensFolder(p, m, a) && reachesSub(p), swapSub);
    await assert.rejects(streamToFileInside(ws, 'race/sub/other.txt', body(), { maxBytes: 1000, overwrite: true }), isTraversal);
    assert.ok(hook.fired());
  });

  it('extract_archive: the folder holding the stage swapped while entries are written puts nothing outside', async () => {
    fs.mkdirSync(path.join(t.ws, 'src', 'deep'), { recursive: true });
    fs.writeFileSync(path.join(t.ws, 'src', 'a.txt'), 'archived a\n');
    fs.writeFileSync(path.join(t.ws, 'src', 'deep', 'b.txt'), 'archived b\n');
    await createArchive(ws, { paths: ['src'], destination: 'pack.zip' });
    // The first file created in the stage folder (race/sub/.toolgate-extract.tg-*.tmp/src/...) swaps race/sub.
    const hook = onFirstCall(
      (p, m, a) => m === 'open' && typeof a[1] === 'number' && (a[1] & fs.constants.O_CREAT) !== 0 && /[\\/]src[\\/](a|deep[\\/]b)\.txt$/.test(p),
      swapSub,
      ['open'],
    );
    const result = await extractArchive(ws, { filepath: 'pack.zip', destination: 'race/sub/out' }).catch((e: unknown) => (isTraversal(e) ? undefined : Promise.reject(e)));
    assert.ok(hook.fired());
    if (result !== undefined) {
      // Extracted into the folder it pinned, which is still inside the workspace.
      assert.equal(fs.readFileSync(path.join(`${sub}.moved`, 'out', 'src', 'deep', 'b.txt'), 'utf8'), 'archived b\n');
    }
    assert.deepEqual(fs.readdirSync(`${sub}.moved`).filter((n) => n.startsWith('.toolgate-extract')), [], 'no stage folder left');
  });

  it('create_archive: a folder swapped while the paths are walked adds nothing of the outside to the archive', async () => {
    // Folders only outside: their names alone would have gone into the archive.
    fs.mkdirSync(path.join(t.outside, 'deep-secret', 'project-x'), { recursive: true });
    outsideBefore = snapshot(t.outside);
    const inner = path.join(sub, 'inner');
    const hook = onFirstCall(
      (p, m, a) => /[\\/]inner$/.test(p) && (m === 'stat' || opensFolder(p, m, a)),
      () => {
        fs.renameSync(inner, `${inner}.moved`);
        fs.symlinkSync(path.join(t.outside, 'deep-secret'), inner);
      },
      ['stat', 'open'],
    );
    const result = await createArchive(ws, { paths: ['race'], destination: 'race.zip' }).catch((e: unknown) => (isTraversal(e) ? undefined : Promise.reject(e)));
    assert.ok(hook.fired());
    if (result !== undefined) assert.ok(!fs.readFileSync(path.join(t.ws, 'race.zip')).includes('project-x'), 'an outside folder name is in the archive');
    else assert.ok(!fs.existsSync(path.join(t.ws, 'race.zip')));
  });

  it('a bounded race of swaps never shows or changes anything outside (read_file, list_files, file_info)', async () => {
    // A real race rather than a hook: swap race/sub back and forth on every turn of the event
    // loop while the tools run, for a bounded number of calls.
    let running = true;
    let state = false;
    const flip = () => {
      if (!running) return;
      try {
        if (!state) swapSub();
        else {
          fs.rmSync(sub);
          fs.renameSync(`${sub}.moved`, sub);
        }
        state = !state;
      } catch {
        /* a half-done flip is retried next turn */
      }
      setImmediate(flip);
    };
    setImmediate(flip);
    try {
      for (let i = 0; i < 60; i++) {
        const outputs = await Promise.allSettled([
          readTextFile(ws, 'race/sub/sentinel.txt', undefined, 10_000, () => undefined),
          listFiles(ws, 'race/sub', '*', false),
          fileInfo(ws, 'race/sub/inner'),
          writeTextFile(ws, 'race/sub/inner/new.txt', 'raced\n'),
        ]);
        for (const o of outputs) {
          if (o.status === 'fulfilled') assert.doesNotMatch(JSON.stringify(o.value), /SENTINEL|outside-only|OUTSIDE-TARGET/);
          else assert.ok(o.reason instanceof Error && 'code' in o.reason, String(o.reason));
        }
      }
    } finally {
      running = false;
      await new Promise((r) => setImmediate(r));
      await new Promise((r) => setImmediate(r));
    }
  });
});
