// Regression: artifact_register resolved the file's folder once, then lstat'ed and renamed the
// file by path. A folder swapped for a link to the outside between that check and the move
// (a command running in the sandbox can do it) made the host move an outside file into the
// workspace's artifact store: the outside file was gone, and its bytes readable by id (cases
// P2/P3 under a race; the same kind as symlink-swap-race.test.ts). Staging had the same gap
// for the folder it makes.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { PathTraversalError } from 'toolgate';
import { listArtifacts, prepareStaging, registerArtifact } from '../../src/workspace/artifact-store.js';
import { Workspace } from '../../src/workspace/workspace.js';
import { tempWorkspace } from '../helpers.js';

/** A workspace whose folder `race` becomes a link to the outside right after each check. */
class SwappingWorkspace extends Workspace {
  constructor(root: string, private readonly outside: string, private readonly folder = 'race') {
    super(root);
  }
  override resolve(input: unknown): string {
    const real = super.resolve(input);
    const race = path.join(this.root, this.folder);
    fs.rmSync(race, { recursive: true, force: true });
    fs.symlinkSync(this.outside, race);
    return real;
  }
}

describe('artifact registration moves what it checked, not what a path leads to later (Linux)', { skip: process.platform !== 'linux' }, () => {
  const t = tempWorkspace();
  after(t.cleanup);

  it('P2/P3 race: a folder swapped for a link after the check does not move an outside file into the store', async () => {
    fs.mkdirSync(path.join(t.ws, 'race'));
    fs.writeFileSync(path.join(t.ws, 'race', 'sentinel.txt'), 'inside\n');
    const ws = new SwappingWorkspace(t.ws, t.outside);
    await assert.rejects(registerArtifact(ws, 'race/sentinel.txt', { turn: 't1' }), (e: unknown) => e instanceof PathTraversalError);
    assert.equal(fs.readFileSync(t.sentinel, 'utf8'), 'SENTINEL CONTENT\n', 'the outside file is where it was');
    assert.deepEqual(await listArtifacts(t.ws), [], 'nothing was registered');
  });

  it('staging: a staging folder swapped for a link makes no folder outside', async () => {
    fs.rmSync(path.join(t.ws, '.artifacts'), { recursive: true, force: true });
    fs.mkdirSync(path.join(t.ws, '.artifacts'));
    const ws = new SwappingWorkspace(t.ws, t.outside, '.artifacts/staging');
    await assert.rejects(prepareStaging(ws, 't1', 'report.csv'), (e: unknown) => e instanceof PathTraversalError);
    assert.deepEqual(fs.readdirSync(t.outside), ['sentinel.txt'], 'nothing was made outside');
  });
});
