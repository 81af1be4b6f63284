// Regression (issue 14, item 4): arguments of any size were parsed or copied (a 200 MB
// argument blocked the main thread for seconds). Arguments larger than `maxArgumentBytes`
// (default 64 MiB) are now refused with INVALID_ARGUMENTS before anything reads them, and the
// message says how to send large data.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ToolExecutor, ToolgateOptionError, type ToolRegistry } from 'toolgate';
import { fixtureRegistry } from '../helpers.js';

describe('the argument bound', () => {
  let registry: ToolRegistry;
  let small: ToolExecutor;
  before(async () => {
    registry = await fixtureRegistry();
    small = new ToolExecutor(registry, { maxArgumentBytes: 1000 });
  });
  after(() => small.close());

  const refused = (r: { errorCode?: string; error?: string }, shown: string) => {
    assert.equal(r.errorCode, 'INVALID_ARGUMENTS', r.error);
    assert.match(r.error!, new RegExp(`larger than ${shown} \\(the executor's maxArgumentBytes\\) and were not read`));
    assert.match(r.error!, /as a file/);
  };

  it('refuses JSON text over the bound, counted in UTF-8 bytes', async () => {
    refused(await small.call('count_calls', `{"x":"${'a'.repeat(1000)}"}`), '1000 bytes');
    refused(await small.call('count_calls', `{"x":"${'€'.repeat(400)}"}`), '1000 bytes'); // 406 characters, 1207 bytes
    const fits = await small.call('count_calls', '{}');
    assert.equal(fits.success, true, fits.error);
  });

  it('refuses an object over the bound, stopping its walk there, before any copy', async () => {
    refused(await small.call('count_calls', { x: 'a'.repeat(2000) }), '1000 bytes');
    refused(await small.call('count_calls', { list: Array.from({ length: 500 }, (_, i) => ({ i })) }), '1000 bytes');
    let readLater = false;
    const args = {
      big: 'a'.repeat(2000),
      get later(): string {
        readLater = true;
        return 'b';
      },
    };
    refused(await small.call('count_calls', args), '1000 bytes');
    assert.equal(readLater, false, 'nothing after the bound was read (the copy reads every value)');
  });

  it('refuses 64 MiB and more by default', async () => {
    const executor = new ToolExecutor(registry);
    try {
      const text = `{"text":"${'a'.repeat(64 * 1024 * 1024)}"}`;
      refused(await executor.call('echo_arguments', text), '64 MiB');
    } finally {
      await executor.close();
    }
  });

  it('checks the option', () => {
    for (const bad of [0, -1, 1.5, Number.NaN, '10' as unknown as number]) {
      assert.throws(() => new ToolExecutor(registry, { maxArgumentBytes: bad }), (e: unknown) => e instanceof ToolgateOptionError && /options\.maxArgumentBytes/.test((e as Error).message));
    }
    void new ToolExecutor(registry, { maxArgumentBytes: Number.POSITIVE_INFINITY }).close();
  });
});

// From the attack run: bytes alone did not bound the cost. 63 MiB of `{},` (21 million empty
// objects) took 1.4 GB of the host's heap per call, and three at once aborted the host; JSON
// text nested 6,000 levels deep could not be sent to a child process, and the call hung.
describe('the bound on values and nesting', () => {
  let executor: ToolExecutor;
  before(async () => {
    executor = new ToolExecutor(await fixtureRegistry(), { poolSize: 2 });
  });
  after(() => executor.close());

  it('refuses JSON text with more than a million values before parsing it, and an object with as many', async () => {
    const text = `{"items":[${'{},'.repeat(1_200_000)}{}]}`;
    const r = await executor.call('answer_at_once', text);
    assert.equal(r.errorCode, 'INVALID_ARGUMENTS', r.error);
    assert.match(r.error!, /more than 1000000 values/);
    const object = { text: 'x', items: Array.from({ length: 1_100_000 }, () => 0) };
    const o = await executor.call('answer_at_once', object);
    assert.equal(o.errorCode, 'INVALID_ARGUMENTS', o.error);
    assert.match(o.error!, /more than 1000000 values/);
    const commas = await executor.call('answer_at_once', { text: ','.repeat(2_000_000) });
    assert.equal(commas.success, true, 'commas inside a string are not values');
    const commasText = await executor.call('answer_at_once', JSON.stringify({ text: ',:{['.repeat(500_000) }));
    assert.equal(commasText.success, true, `commas inside a JSON string are not values: ${commasText.error}`);
  });

  it('refuses JSON text nested deeper than 64 levels, as it does an object, and answers at once', async () => {
    const deep = `{"text":"x","extra":${'['.repeat(6000)}${']'.repeat(6000)}}`;
    const r = await executor.execute({ name: 'answer_at_once', arguments: deep }, { timeoutMs: 0 });
    assert.equal(r.errorCode, 'INVALID_ARGUMENTS', r.error);
    assert.match(r.error!, /deeper than 64 levels/);
  });
});

describe('checking parsed text costs no copy', () => {
  it('checkJsonData hands back the value it walked, and refuses what copyJsonData refuses', async () => {
    const { checkJsonData, copyJsonData, TOO_MANY_VALUES } = await import('../../src/executor/arguments.js');
    const parsed = JSON.parse('{"a":[1,{"b":"c"}],"d":null}') as Record<string, unknown>;
    assert.equal(checkJsonData(parsed), parsed, 'the same object, not a copy');
    assert.deepEqual(copyJsonData(parsed), parsed);
    assert.notEqual(copyJsonData(parsed), parsed);
    const deep = JSON.parse(`{"x":${'['.repeat(70)}${']'.repeat(70)}}`) as Record<string, unknown>;
    assert.match(String(checkJsonData(deep)), /deeper than 64 levels/);
    assert.equal(checkJsonData({ list: Array.from({ length: 1_000_001 }, () => 0) }), TOO_MANY_VALUES);
  });
});
