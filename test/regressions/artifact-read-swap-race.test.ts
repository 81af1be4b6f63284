// Regression: readArtifact (the cockpit's /api/artifacts/<id>, an application's reader) checked
// the stored file's path, then read it by path. `.toolgate/artifacts/<id>` is writable by a
// command in the sandbox, which can swap that folder for a link to the outside between the
// check and the read: the reader then returned a planted record and an outside file's bytes
// (case P2 under a race), against its contract ("undefined for a stored file that is no longer
// a regular file inside the workspace").
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { ARTIFACT_DIR, listArtifacts, readArtifact } from '../../src/workspace/artifact-store.js';
import { Workspace } from '../../src/workspace/workspace.js';
import { tempWorkspace } from '../helpers.js';

const ID = 'art_0123456789abcdef';

/** A workspace whose artifact folder `ID` is a real folder at each check and a link to `outside` right after. */
class SwappingWorkspace extends Workspace {
  constructor(root: string, private readonly outside: string) {
    super(root);
  }
  override resolve(input: unknown): string {
    const folder = path.join(this.root, ARTIFACT_DIR, ID);
    fs.rmSync(folder, { recursive: true, force: true });
    fs.mkdirSync(folder, { recursive: true });
    const real = super.resolve(input);
    fs.rmSync(folder, { recursive: true, force: true });
    fs.symlinkSync(this.outside, folder);
    return real;
  }
}

describe('reading an artifact reads what it checked (Linux)', { skip: process.platform !== 'linux' }, () => {
  const t = tempWorkspace();
  after(t.cleanup);

  it('P2 race: a stored folder swapped for a link to the outside yields nothing', async () => {
    const secret = Buffer.from('OUTSIDE SECRET\n');
    const evil = path.join(t.root, 'evil');
    fs.mkdirSync(evil);
    fs.writeFileSync(path.join(evil, 'secret.txt'), secret);
    const record = { id: ID, name: 'secret.txt', turn: 'default', size: secret.length, sha256: crypto.createHash('sha256').update(secret).digest('hex'), created: new Date().toISOString(), source: 'x' };
    fs.writeFileSync(path.join(evil, 'artifact.json'), JSON.stringify(record));
    fs.mkdirSync(path.join(t.ws, ARTIFACT_DIR, ID), { recursive: true });
    const ws = new SwappingWorkspace(t.ws, evil);
    assert.equal(await readArtifact(ws, ID), undefined, 'no bytes from outside the workspace');
    assert.deepEqual(await listArtifacts(ws), [], 'no record from outside the workspace');
  });
});
