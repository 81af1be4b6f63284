// Regression guard: tree, grep_files and find_files walk folders by path (fast-glob, readdir);
// a folder swapped for a link to the outside after it was listed must show nothing of the
// outside (case P2 under a race). Each entry is looked up again through its open parent
// folder, checked inside the workspace, and files are read with readFileInside.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { Workspace } from '../../src/workspace/workspace.js';
import { findFiles } from '../../tools-ported/inspect/find-files.tool.js';
import { grepFiles } from '../../tools-ported/inspect/grep-files.tool.js';
import { showTree } from '../../tools-ported/inspect/tree.tool.js';
import { tempWorkspace } from '../helpers.js';

/** A workspace whose folder `race/sub` becomes a link to the outside right after it is first resolved. */
class SwapOnceWorkspace extends Workspace {
  swapped = false;
  constructor(root: string, private readonly outside: string) {
    super(root);
  }
  override resolve(input: unknown): string {
    const real = super.resolve(input);
    const sub = path.join(this.realRoot, 'race', 'sub');
    if (!this.swapped && real === sub) {
      this.swapped = true;
      fs.rmSync(sub, { recursive: true, force: true });
      fs.symlinkSync(this.outside, sub);
    }
    return real;
  }
}

describe('inspect walks check every folder they show (Linux)', { skip: process.platform !== 'linux' }, () => {
  const t = tempWorkspace();
  after(t.cleanup);
  const reset = () => {
    const sub = path.join(t.ws, 'race', 'sub');
    fs.rmSync(path.join(t.ws, 'race'), { recursive: true, force: true });
    fs.mkdirSync(sub, { recursive: true });
    // The same name as the file outside, so that a path followed through the link reaches it.
    fs.writeFileSync(path.join(sub, 'sentinel.txt'), 'inside CONTENT\n');
    return new SwapOnceWorkspace(t.ws, t.outside);
  };

  it('grep_files: a folder swapped after the walk is skipped, and the sentinel is not read', async () => {
    const ws = reset();
    const output = await grepFiles(ws, {
      pattern: 'CONTENT', directory: 'race', include: [], exclude: [], caseInsensitive: false, contextLines: 0,
      maxMatches: 100, includeIgnored: false, maxOutputLength: 16_000, note: () => undefined,
    });
    assert.ok(ws.swapped, 'the folder was swapped during the call');
    assert.ok(!output.includes('SENTINEL'), output);
    assert.match(output, /^No matches/);
  });

  it('find_files: an entry in a folder swapped after the walk is not listed', async () => {
    const ws = reset();
    const output = await findFiles(ws, '*.txt', { directory: 'race', exclude: [], type: 'file', maxResults: 100, includeIgnored: false });
    assert.ok(ws.swapped, 'the folder was swapped during the call');
    assert.match(output, /^No files match/);
  });

  it('tree: a folder swapped before it is opened is not opened', async () => {
    const ws = reset();
    const output = await showTree(ws, 'race', { maxDepth: 5, maxEntries: 100, includeIgnored: false });
    assert.ok(ws.swapped, 'the folder was swapped during the call');
    assert.ok(!output.includes('sentinel.txt'), output);
    assert.match(output, /^└── sub\/\n {4}└── \.\.\. \(could not be opened\)$/m);
  });
});
