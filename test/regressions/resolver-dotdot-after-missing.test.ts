// Regression: after a folder that does not exist, ".." climbed back by text and the links of
// the folders it climbed into were not followed ("nothere/../evil/x" with evil -> outside was
// accepted, and so was a scoped write through "out/nothere/../link/x").
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { InvalidPathError, ToolExecutor } from 'toolgate';
import { Workspace } from '../../src/workspace/workspace.js';
import { fixtureRegistry, tempWorkspace } from '../helpers.js';

describe('".." after a missing folder', () => {
  const t = tempWorkspace();
  after(t.cleanup);
  fs.symlinkSync(t.outside, path.join(t.ws, 'evil'));
  fs.mkdirSync(path.join(t.ws, 'out'));
  fs.mkdirSync(path.join(t.ws, 'src'));
  fs.symlinkSync(path.join(t.ws, 'src'), path.join(t.ws, 'out', 'link'));
  fs.writeFileSync(path.join(t.ws, 'file.txt'), 'x');

  it('is refused by the resolver, as the kernel refuses it', () => {
    const ws = new Workspace(t.ws);
    for (const p of ['nothere/../evil/sentinel.txt', 'out/nothere/../link/x', 'file.txt/x/../../evil/y', 'a/b/../../evil']) {
      assert.throws(() => ws.resolve(p), (e: unknown) => e instanceof InvalidPathError && e.code === 'INVALID_PATH' && /after a folder that does not exist/.test(e.message), p);
    }
    assert.equal(ws.resolve('out/../out/new.txt'), path.join(fs.realpathSync(t.ws), 'out', 'new.txt'), '".." through existing folders still works');
  });

  it('cannot carry a scoped write out of its folder, and writes nothing', async () => {
    const executor = new ToolExecutor(await fixtureRegistry(), { workspaceRoot: t.ws });
    try {
      const r = await executor.execute(
        { name: 'write_file', arguments: { filepath: 'out/nothere/../link/pwned.txt', content: 'x' } },
        { mode: 'explore', scopedWriteDirs: ['out'], confirm: true },
      );
      assert.equal(r.errorCode, 'INVALID_PATH', r.error);
      assert.equal(fs.existsSync(path.join(t.ws, 'src', 'pwned.txt')), false);
      const deep = await executor.execute({ name: 'write_file', arguments: { filepath: 'nothere/../evil/newdir/deeper/x.txt', content: 'x' } }, { confirm: true });
      assert.equal(deep.errorCode, 'INVALID_PATH');
      assert.deepEqual(fs.readdirSync(t.outside), ['sentinel.txt'], 'no folder created outside');
    } finally {
      await executor.close();
    }
  });
});
