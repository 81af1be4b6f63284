// Regression: files created by write_file were world-writable (0666): the mode was set with
// fchmod, which ignores the umask.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { Workspace } from '../../src/workspace/workspace.js';
import { writeFileInside } from '../../src/workspace/safe-io.js';
import { tempWorkspace } from '../helpers.js';

describe('file modes', () => {
  const t = tempWorkspace();
  after(t.cleanup);

  it('a new file gets 0666 less the umask; a replaced file keeps its mode', async () => {
    const ws = new Workspace(t.ws);
    const old = process.umask(0o022);
    try {
      await writeFileInside(ws, 'new.txt', 'x');
      assert.equal(fs.statSync(path.join(t.ws, 'new.txt')).mode & 0o777, 0o644);
      fs.writeFileSync(path.join(t.ws, 'script.sh'), '#!/bin/sh\n');
      fs.chmodSync(path.join(t.ws, 'script.sh'), 0o750);
      const written = await writeFileInside(ws, 'script.sh', '#!/bin/sh\necho hi\n');
      assert.equal(written.overwrote, true);
      assert.equal(fs.statSync(path.join(t.ws, 'script.sh')).mode & 0o777, 0o750);
      assert.deepEqual(fs.readdirSync(t.ws).filter((f) => f.endsWith('.tmp')), [], 'no temporary files left');
    } finally {
      process.umask(old);
    }
  });
});
