/**
 * memory_remember prints a note's id as `#12`; memory_get and memory_forget 1.0.0 take a number
 * only, so a model that copies `#12` got INVALID_ARGUMENTS. Their 1.1.0 versions (the latest)
 * take `12`, `"12"` and `"#12"`; 1.0.0 is still resolvable with its schema as it was.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ToolSystem } from 'toolgate';

describe('memory note ids as memory_remember prints them', () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'toolgate-note-id-'));
  const ws = path.join(root, 'ws');
  let tools: ToolSystem;
  let n = 0;
  const call = (name: string, args: Record<string, unknown>, extra: { version?: string; confirm?: boolean } = {}) =>
    tools.execute({ name, arguments: args, callId: `c${++n}`, ...(extra.version === undefined ? {} : { version: extra.version }) }, extra.confirm === true ? { confirm: true } : {});
  const remember = async (text: string): Promise<string> => {
    const kept = await call('memory_remember', { text });
    assert.equal(kept.success, true, kept.output);
    return /#(\d+)/.exec(kept.output)![1]!;
  };
  before(async () => {
    fs.mkdirSync(ws);
    tools = new ToolSystem({ workspace: ws, ledger: { dir: path.join(root, 'state') } });
    await tools.start();
  });
  after(async () => {
    await tools?.close();
    fs.rmSync(root, { recursive: true, force: true });
  });

  it('the latest memory_get and memory_forget are 1.1.0 and say the id may be "#12" in their schemas', () => {
    for (const name of ['memory_get', 'memory_forget']) {
      const latest = tools.registry.get(name)!;
      assert.equal(latest.version, '1.1.0');
      const id = (latest.inputSchema as { properties: { id: Record<string, unknown> } }).properties.id;
      assert.deepEqual(id.type, ['integer', 'string']);
      assert.equal(id.pattern, '^#?[1-9][0-9]*$');
      const old = (tools.registry.get(name, '1.0.0')!.inputSchema as { properties: { id: Record<string, unknown> } }).properties.id;
      assert.equal(old.type, 'number', '1.0.0 keeps its schema');
    }
  });

  it('memory_get reads a note by "#12", "12" and 12', async () => {
    const id = await remember('The deploy key rotates monthly.');
    for (const given of [`#${id}`, id, Number(id)]) {
      const got = await call('memory_get', { id: given });
      assert.equal(got.success, true, `${JSON.stringify(given)}: ${got.output}`);
      assert.match(got.output, new RegExp(`^#${id} `));
    }
  });

  it('memory_forget forgets the note "#12" names (once approved)', async () => {
    const id = await remember('Forget me.');
    const asked = await call('memory_forget', { id: `#${id}` });
    assert.equal(asked.errorCode, 'CONFIRMATION_REQUIRED', asked.output);
    const forgot = await call('memory_forget', { id: `#${id}` }, { confirm: true });
    assert.equal(forgot.success, true, forgot.output);
    assert.match(forgot.output, new RegExp(`^Forgot note #${id} `));
    assert.match((await call('memory_get', { id: `#${id}` })).output, new RegExp(`no note #${id} `));
  });

  it('refuses ids that are not one, as invalid arguments', async () => {
    for (const given of ['#0', '0', 'abc', '#1x', '##1', ' 1', '', 0, -3, 1.5, '99999999999999999999']) {
      const got = await call('memory_get', { id: given });
      assert.equal(got.success, false, JSON.stringify(given));
      assert.equal(got.errorCode, 'INVALID_ARGUMENTS', `${JSON.stringify(given)}: ${got.output}`);
    }
  });

  it('version 1.0.0 still resolves and still takes a number only', async () => {
    const id = await remember('Old clients send numbers.');
    const byNumber = await call('memory_get', { id: Number(id) }, { version: '1.0.0' });
    assert.equal(byNumber.success, true, byNumber.output);
    const byText = await call('memory_get', { id: `#${id}` }, { version: '1.0.0' });
    assert.equal(byText.errorCode, 'INVALID_ARGUMENTS', byText.output);
    const forgot = await call('memory_forget', { id: Number(id) }, { version: '1.0.0', confirm: true });
    assert.equal(forgot.success, true, forgot.output);
  });
});
