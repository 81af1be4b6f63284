// Regression: the scope and the target of a write were checked once, then the write went by
// path: a link put in place while the user was asked (or any time before the rename) moved
// the write elsewhere; a replaced setuid file kept its setuid bit with new content.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { ToolExecutor } from 'toolgate';
import { Workspace } from '../../src/workspace/workspace.js';
import { writeFileInside } from '../../src/workspace/safe-io.js';
import { fixtureRegistry, tempWorkspace } from '../helpers.js';

describe('writes stay where they were checked', () => {
  const t = tempWorkspace();
  after(t.cleanup);
  fs.mkdirSync(path.join(t.ws, 'out'));
  fs.mkdirSync(path.join(t.ws, 'src'));
  fs.writeFileSync(path.join(t.ws, 'src', 'main.ts'), 'original\n');

  it('P8: a link put in place while confirmation is pending is refused, and its target unchanged', async () => {
    const executor = new ToolExecutor(await fixtureRegistry(), {
      workspaceRoot: t.ws,
      confirmationHandler: () => {
        fs.symlinkSync(path.join(t.ws, 'src', 'main.ts'), path.join(t.ws, 'out', 'plan.md'));
        return true;
      },
    });
    try {
      const r = await executor.execute({ name: 'write_file', arguments: { filepath: 'out/plan.md', content: 'model text' } }, { mode: 'explore', scopedWriteDirs: ['out'] });
      assert.equal(r.success, false, r.output);
      assert.equal(r.errorCode, 'MODE_DENIED');
      assert.match(r.error!, /leads outside the folders this mode may write to \(out\); nothing was written/);
      assert.equal(fs.readFileSync(path.join(t.ws, 'src', 'main.ts'), 'utf8'), 'original\n');
    } finally {
      await executor.close();
    }
  });

  it('a replaced setuid or setgid file loses those bits', { skip: process.platform === 'win32' }, async () => {
    const file = path.join(t.ws, 'tool.sh');
    fs.writeFileSync(file, '#!/bin/sh\n');
    fs.chmodSync(file, 0o6755);
    await writeFileInside(new Workspace(t.ws), 'tool.sh', '#!/bin/sh\nid\n');
    assert.equal(fs.statSync(file).mode & 0o7777, 0o755);
  });
});
