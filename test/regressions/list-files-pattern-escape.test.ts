// Regression: list_files listed folders outside the workspace through a pattern that named a
// symbolic link ("etc-link/*") or spelled ".." with braces ("..{,}/*").
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ToolExecutor } from 'toolgate';
import { fixtureRegistry, tempWorkspace } from '../helpers.js';

describe('list_files patterns stay inside the workspace (P2 family)', () => {
  const t = tempWorkspace();
  let executor: ToolExecutor;
  before(async () => {
    fs.symlinkSync(t.outside, path.join(t.ws, 'out-link'));
    fs.symlinkSync('/', path.join(t.ws, 'root-link'));
    fs.mkdirSync(path.join(t.ws, 'inner'));
    fs.writeFileSync(path.join(t.ws, 'inner', 'ok.txt'), 'ok');
    fs.symlinkSync(path.join(t.ws, 'inner'), path.join(t.ws, 'in-link'));
    executor = new ToolExecutor(await fixtureRegistry(), { workspaceRoot: t.ws });
  });
  after(async () => {
    await executor.close();
    t.cleanup();
  });
  const list = (args: Record<string, unknown>) => executor.execute({ name: 'list_files', arguments: args });

  it('a pattern through a link to an outside folder shows nothing of it', async () => {
    for (const pattern of ['out-link/*', 'out-lin{k,}/*', 'root-link/etc/pass*', 'root-link/*']) {
      const r = await list({ pattern });
      assert.equal(r.success, true, r.error);
      assert.ok(!r.output.includes('sentinel'), `${pattern}: ${r.output}`);
      assert.ok(!r.output.includes('passwd'), `${pattern}: ${r.output}`);
      assert.match(r.output, /No entries match|not shown/);
    }
    const recursive = await list({ pattern: 'out-link/**', recursive: true });
    assert.ok(!recursive.output.includes('sentinel'));
  });

  it('braces that expand to ".." are refused before anything is read', async () => {
    for (const pattern of ['..{,}/*', '.{.,.}/*', '..{,}/outside/*', 'inner/..{,}/../*']) {
      const r = await list({ pattern });
      assert.equal(r.success, false, pattern);
      assert.equal(r.errorCode, 'TOOL_ERROR');
      assert.match(r.error!, /stays inside the folder/);
    }
  });

  it('links inside the workspace still work, and links are listed without being followed', async () => {
    const r = await list({ pattern: 'in-link/*' });
    assert.match(r.output, /\[file\] in-link\/ok\.txt \(2 bytes\)/);
    const top = await list({});
    assert.match(top.output, new RegExp(`\\[link\\] out-link -> ${t.outside.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));
  });
});
