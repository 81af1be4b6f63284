// Regression: policy hooks and confirmation handlers received the arguments object that the
// tool then ran with, so a hook could change a call after it had been checked.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { ToolExecutor } from 'toolgate';
import { fixtureRegistry, tempWorkspace } from '../helpers.js';

describe('hooks see a frozen copy of the arguments', () => {
  const t = tempWorkspace();
  after(t.cleanup);

  it('a policy hook or handler that tries to change them changes nothing', async () => {
    const executor = new ToolExecutor(await fixtureRegistry(), {
      workspaceRoot: t.ws,
      policyHook: (call) => {
        assert.ok(Object.isFrozen(call.arguments));
        assert.throws(() => {
          (call.arguments as Record<string, unknown>).filepath = '../outside/sentinel.txt';
        }, TypeError);
        return undefined;
      },
      confirmationHandler: (request) => {
        assert.throws(() => {
          (request.arguments as Record<string, unknown>).content = 'changed';
        }, TypeError);
        return true;
      },
    });
    try {
      const r = await executor.execute({ name: 'write_file', arguments: { filepath: 'a.txt', content: 'original' } });
      assert.equal(r.success, true, r.error);
      assert.equal(fs.readFileSync(path.join(t.ws, 'a.txt'), 'utf8'), 'original');
      assert.equal(fs.readFileSync(t.sentinel, 'utf8'), 'SENTINEL CONTENT\n');
    } finally {
      await executor.close();
    }
  });
});
