// Regression: a policy hook or confirmation handler that never answered hung the call for
// good, close() did not end such waits, and non-string verdicts let calls through.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ToolExecutor, type ToolRegistry } from 'toolgate';
import { fixtureRegistry, tempWorkspace } from '../helpers.js';

describe('waits at gates are bounded', () => {
  const t = tempWorkspace();
  let registry: ToolRegistry;
  before(async () => {
    registry = await fixtureRegistry();
  });
  after(t.cleanup);

  it('a policy hook that never answers fails open after policyTimeoutMs', async () => {
    const executor = new ToolExecutor(registry, { workspaceRoot: t.ws, policyHook: () => new Promise(() => {}), policyTimeoutMs: 100 });
    try {
      const r = await executor.execute({ name: 'greet', arguments: { who: 'a' } });
      assert.equal(r.success, true, r.error);
    } finally {
      await executor.close();
    }
  });

  it('a confirmation handler that never answers ends with the caller abort, or with close()', async () => {
    const executor = new ToolExecutor(registry, { workspaceRoot: t.ws, confirmationHandler: () => new Promise<boolean>(() => {}) });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50);
    const aborted = await executor.execute({ name: 'confirm_action', arguments: {} }, { signal: controller.signal });
    assert.equal(aborted.errorCode, 'ABORTED');
    let approve: (yes: boolean) => void = () => {};
    const late = new ToolExecutor(registry, { workspaceRoot: t.ws, confirmationHandler: () => new Promise<boolean>((resolve) => (approve = resolve)) });
    const pending = late.execute({ name: 'write_file', arguments: { filepath: 'after-close.txt', content: 'x' } });
    await new Promise((resolve) => setTimeout(resolve, 20));
    await late.close();
    approve(true);
    const r = await pending;
    assert.equal(r.errorCode, 'ABORTED');
    assert.equal(fs.existsSync(path.join(t.ws, 'after-close.txt')), false);
    await executor.close();
  });

  it('policy verdicts other than a reason, nothing, or false count as a veto', async () => {
    for (const verdict of [true, new Error('deny it'), { reason: 'object veto' }, 1]) {
      const executor = new ToolExecutor(registry, { workspaceRoot: t.ws, policyHook: () => verdict });
      try {
        const r = await executor.execute({ name: 'greet', arguments: { who: 'a' } });
        assert.equal(r.errorCode, 'POLICY_DENIED', `verdict ${String(verdict)}`);
      } finally {
        await executor.close();
      }
    }
    for (const verdict of [undefined, null, '', false]) {
      const executor = new ToolExecutor(registry, { workspaceRoot: t.ws, policyHook: () => verdict });
      try {
        assert.equal((await executor.execute({ name: 'greet', arguments: { who: 'a' } })).success, true, `verdict ${String(verdict)}`);
      } finally {
        await executor.close();
      }
    }
  });
});
