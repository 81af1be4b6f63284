// Regression: a folder swapped for a link to the outside between the path check and the open
// let read_file and write_file reach outside files (cases P2, P3 under a race).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { PathTraversalError } from 'toolgate';
import { openFileInside, readFileInside, writeFileInside } from '../../src/workspace/safe-io.js';
import { Workspace } from '../../src/workspace/workspace.js';
import { tempWorkspace } from '../helpers.js';

/** A workspace whose folder `race` becomes a link to the outside right after each check. */
class SwappingWorkspace extends Workspace {
  constructor(root: string, private readonly outside: string) {
    super(root);
  }
  override resolve(input: unknown): string {
    const real = super.resolve(input);
    const race = path.join(this.root, 'race');
    fs.rmSync(race, { recursive: true, force: true });
    fs.symlinkSync(this.outside, race);
    return real;
  }
}

describe('file I/O checks what it opened, not only the path (Linux)', { skip: process.platform !== 'linux' }, () => {
  const t = tempWorkspace();
  after(t.cleanup);
  const reset = () => {
    fs.rmSync(path.join(t.ws, 'race'), { recursive: true, force: true });
    fs.mkdirSync(path.join(t.ws, 'race'));
    fs.writeFileSync(path.join(t.ws, 'race', 'sentinel.txt'), 'inside\n');
  };

  it('P2 race: a read through a swapped folder is refused and returns nothing', async () => {
    reset();
    const ws = new SwappingWorkspace(t.ws, t.outside);
    await assert.rejects(readFileInside(ws, 'race/sentinel.txt'), (e: unknown) => e instanceof PathTraversalError && /while it was being opened/.test(e.message));
  });

  it('P2 race: openFileInside (streaming reads) is refused the same way, leaving no descriptor open', async () => {
    reset();
    const ws = new SwappingWorkspace(t.ws, t.outside);
    const before = fs.readdirSync('/proc/self/fd').length;
    await assert.rejects(openFileInside(ws, 'race/sentinel.txt'), (e: unknown) => e instanceof PathTraversalError && /while it was being opened/.test(e.message));
    assert.equal(fs.readdirSync('/proc/self/fd').length, before, 'the refused descriptor is closed');
  });

  it('P3 race: a write through a swapped folder is refused and the sentinel is unchanged', async () => {
    reset();
    const ws = new SwappingWorkspace(t.ws, t.outside);
    await assert.rejects(writeFileInside(ws, 'race/sentinel.txt', 'RACED\n'), PathTraversalError);
    assert.equal(fs.readFileSync(t.sentinel, 'utf8'), 'SENTINEL CONTENT\n');
    assert.deepEqual(fs.readdirSync(t.outside).filter((f) => f.endsWith('.tmp')), [], 'no temporary file left outside');
  });

  it('a final component that became a link is not followed', async () => {
    reset();
    const ws = new Workspace(t.ws);
    const real = ws.resolve('race/late.txt');
    fs.symlinkSync(t.sentinel, real);
    await assert.rejects(readFileInside(ws, 'race/late.txt'), PathTraversalError);
  });
});
