// Regression (issue 14, item 4): a call's timeout started when its runner got it, after the
// arguments were parsed and checked and the gates passed, so a 200 MB argument with a 50 ms
// timeout answered only after 2.8 s, and then ran anyway. The timeout now counts from when the
// call arrived (the time a person takes to confirm it excepted), and a call whose time is up
// before it starts is answered TIMEOUT without running. The slow step here is a policy hook
// (deterministic on a loaded machine); the assertions are on behaviour: the tool never ran.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ToolExecutor, type ToolRegistry } from 'toolgate';
import { fixtureRegistry } from '../helpers.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('the timeout counts from when the call arrived', () => {
  let ws: string;
  let registry: ToolRegistry;
  const executors: ToolExecutor[] = [];
  const executor = (options: ConstructorParameters<typeof ToolExecutor>[1]) => {
    const made = new ToolExecutor(registry, { workspaceRoot: ws, ...options });
    executors.push(made);
    return made;
  };
  before(async () => {
    ws = fs.mkdtempSync(path.join(os.tmpdir(), 'toolgate-arrival-'));
    registry = await fixtureRegistry();
  });
  after(async () => {
    await Promise.all(executors.map((e) => e.close()));
    fs.rmSync(ws, { recursive: true, force: true });
  });

  it('a pool call whose time ran out at a slow gate answers TIMEOUT and never runs', async () => {
    const slowGate = executor({ policyHook: async () => void (await sleep(300)) });
    const r = await slowGate.call('write_file', { filepath: 'never.txt', content: 'x' }, { confirm: true, timeoutMs: 50 });
    assert.equal(r.errorCode, 'TIMEOUT', r.error);
    assert.equal(r.stopReason, 'timeout');
    assert.match(r.error!, /did not run.*50 ms counts from when the call arrived/);
    await sleep(200);
    assert.equal(fs.existsSync(path.join(ws, 'never.txt')), false, 'write_file never ran');
  });

  it('a main-thread call too: the tool is not run', async () => {
    const slowGate = executor({ policyHook: async () => void (await sleep(300)) });
    const r = await slowGate.call('count_calls', {}, { timeoutMs: 50 });
    assert.equal(r.errorCode, 'TIMEOUT', r.error);
    const next = await slowGate.call('count_calls', {}, { timeoutMs: 10_000 });
    assert.equal(next.output, 'call 1', 'the timed-out call never ran');
  });

  it('a call that arrived with time left keeps only what is left', async () => {
    // 300 ms at the gate, then a tool that needs 400 ms: within 500 ms from its start, not from its arrival.
    const slowGate = executor({ policyHook: async () => void (await sleep(300)) });
    const r = await slowGate.call('sleep_then_answer', { ms: 400 }, { timeoutMs: 500 });
    assert.equal(r.errorCode, 'TIMEOUT', r.error);
    assert.match(r.error!, /limit 500 ms, counted from when the call arrived/);
  });

  it('does not count the time a person took to confirm the call', async () => {
    const slowPerson = executor({ confirmationHandler: async () => (await sleep(300), true) });
    const r = await slowPerson.call('confirm_action', { value: 'go' }, { timeoutMs: 200 });
    assert.equal(r.success, true, r.error);
    assert.equal(r.output, 'confirmed go');
  });
});
