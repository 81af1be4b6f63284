// Regression (case P5's family, attack s19): a path argument holding a lone UTF-16 surrogate
// (`x\ud800.txt`, which no UTF-8 file name can hold) was accepted: the deciders judged
// `x\ud800.txt` while the file system wrote `x\ufffd.txt`, another name than the one judged
// and shown for approval. It is now a clear validation error, as a NUL byte is.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { InvalidPathError, ToolExecutor } from 'toolgate';
import { Workspace } from 'toolgate/tool';
import { portedRegistry, tempWorkspace, type TempWorkspace } from '../helpers.js';

describe('P5 family: a path with a lone surrogate', () => {
  let t: TempWorkspace;
  let executor: ToolExecutor;
  before(async () => {
    t = tempWorkspace();
    executor = new ToolExecutor(await portedRegistry(), { workspaceRoot: t.ws });
  });
  after(async () => {
    await executor.close();
    t.cleanup();
  });

  test('P5: the resolver refuses it with a clear error', () => {
    for (const input of ['x\ud800.txt', 'dir\udfff/y', '\ud83d']) {
      assert.throws(() => new Workspace(t.ws).resolve(input), (e: unknown) => e instanceof InvalidPathError && /cannot be a file name/.test((e as Error).message), JSON.stringify(input));
    }
    assert.match(new Workspace(t.ws).resolve('ok-\ud83d\ude00.txt'), /ok-😀\.txt$/, 'a whole surrogate pair (an emoji) is a plain name');
  });

  test('P5: write_file with it fails with INVALID_PATH and writes nothing', async () => {
    const r = await executor.execute({ name: 'write_file', arguments: { filepath: 'x\ud800.txt', content: 'a' } }, { confirm: true });
    assert.equal(r.success, false);
    assert.match(String(r.error), /cannot be a file name/);
    assert.deepEqual(fs.readdirSync(t.ws), []);
  });
});
