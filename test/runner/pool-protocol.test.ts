/**
 * The pool runner's wire format: tasks name their tool by index in a shared tool table (or
 * carry it whole when the table is full), a plain string result comes back bare, anything
 * else as an object. Driven through PoolRunner directly, so both task forms are exercised.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { ToolExecutor, type ToolRegistry } from 'toolgate';
import { PoolRunner } from '../../src/runner/pool/pool-runner.js';
import type { RunOutcome, RunRequest } from '../../src/runner/runner.js';
import { appendLines, createSharedLines, readLines } from '../../src/runner/pool/shared-lines.js';
import { fixtureRegistry, REPO_ROOT, tempWorkspace } from '../helpers.js';
import { waitFor } from '../wait.js';

describe('shared lines', () => {
  it('appends while lines fit and reads on from an offset', () => {
    const list = createSharedLines(13);
    assert.equal(appendLines(list, ['abc', 'de']), 2); // 7 of 13 bytes, newlines included
    const first = readLines(list);
    assert.deepEqual(first.lines, ['abc', 'de']);
    assert.equal(appendLines(list, ['fg', 'this does not fit']), 1);
    assert.deepEqual(readLines(list, first.end).lines, ['fg']);
    assert.deepEqual(readLines(list, readLines(list).end).lines, []);
    assert.equal(appendLines(list, ['é']), 1, 'UTF-8: two bytes and a newline fit the last three');
    assert.deepEqual(readLines(list).lines, ['abc', 'de', 'fg', 'é']);
  });

  it('refuses a line with a newline in it, which would read back as two', () => {
    const list = createSharedLines(100);
    assert.equal(appendLines(list, ['one', 'two\nthree', 'four']), 1);
    assert.deepEqual(readLines(list).lines, ['one']);
  });
});

/** A one-worker pool runner and the fixture tool greet@2.0.0, closed and cleaned up after `fn`. */
async function withGreet(fn: (runner: PoolRunner, greet: RunRequest['tool'], ws: string, registry: ToolRegistry) => Promise<void>): Promise<void> {
  const registry = await fixtureRegistry();
  const t = tempWorkspace();
  const runner = new PoolRunner({ poolSize: 1 });
  try {
    const greet = registry.get('greet', '2.0.0');
    assert.ok(greet);
    await fn(runner, greet, t.ws, registry);
  } finally {
    await runner.close();
    t.cleanup();
  }
}

describe('pool runner tool table', () => {
  it('gives registered tools with the same entry one index, so re-registering does not grow it', () =>
    withGreet(async (runner, greet, ws) => {
      for (let i = 0; i < 20; i++) {
        const copy: RunRequest['tool'] = { ...greet };
        const r = await runner.run({ tool: copy, args: { who: `n${i}` }, workspaceRoot: ws, callId: `call_${i}`, timeoutMs: 10_000, writeRoots: undefined }, undefined);
        assert.deepEqual(r, { kind: 'ok', value: `hello n${i} (2.0.0)`, notes: [], cut: false });
      }
      assert.equal((runner as unknown as { toolIndexes: Map<string, number> }).toolIndexes.size, 1, 'one table line for twenty registrations');
    }));
});

for (const [label, toolTableBytes] of [['tools named by index', undefined], ['tool table full: entries sent whole', 0]] as const) {
  describe(`pool runner, ${label}`, () => {
    let registry: ToolRegistry;
    let runner: PoolRunner;
    const t = tempWorkspace();
    const call = (name: string, args: unknown, version?: string): Promise<RunOutcome> => {
      const tool = registry.get(name, version);
      assert.ok(tool, name);
      const c: RunRequest = { tool, args: args as Record<string, unknown>, workspaceRoot: t.ws, callId: `call_${name}`, timeoutMs: 10_000, writeRoots: undefined };
      return runner.run(c, undefined);
    };
    before(async () => {
      registry = await fixtureRegistry();
      runner = new PoolRunner({ poolSize: 2, toolTableBytes });
    });
    after(async () => {
      await runner.close();
      t.cleanup();
    });

    it('answers a ping without loading a tool', async () => {
      await runner.ping();
    });

    it('runs different tools in turn, each answered by the tool meant', async () => {
      for (let round = 0; round < 3; round++) {
        const [greet, long, images, failed] = await Promise.all([
          call('greet', { who: `ada${round}` }, '2.0.0'),
          call('print_long_output', { chars: 5000 }),
          call('attach_images', { count: 1 }),
          call('fail_always', {}),
        ]);
        assert.deepEqual(greet, { kind: 'ok', value: `hello ada${round} (2.0.0)`, notes: [], cut: false });
        assert.equal(long.kind, 'ok');
        if (long.kind === 'ok') {
          assert.equal(long.cut, true, 'cut in the worker at the tool cap');
          assert.ok(typeof long.value === 'string' && long.value.length < 1200, 'at most the cap and the cut note');
          assert.deepEqual(long.notes, ['[exit status 1]']);
        }
        assert.equal(images.kind, 'ok');
        if (images.kind === 'ok') {
          assert.equal(images.value, 'a caption');
          assert.equal(images.images?.length, 1);
        }
        assert.equal(failed.kind, 'error');
      }
    });

    it('a tool registered again with other output settings is cut by the new ones (review finding)', async () => {
      const first = registry.get('print_long_output');
      assert.ok(first);
      const again: RunRequest['tool'] = { ...first, target: first.target, load: () => first.load(), maxOutputLength: 100, truncation: 'head-tail' };
      const run = (tool: RunRequest['tool']) => runner.run({ tool, args: { chars: 5000 }, workspaceRoot: t.ws, callId: 'call_cut', timeoutMs: 10_000, writeRoots: undefined }, undefined);
      const before = await run(first);
      const after = await run(again);
      assert.ok(before.kind === 'ok' && typeof before.value === 'string' && before.value.length > 1000);
      assert.ok(after.kind === 'ok' && typeof after.value === 'string', JSON.stringify(after).slice(0, 200));
      assert.ok(after.value.length < 300, `cut at the new cap of 100, got ${after.value.length} characters`);
      assert.match(after.value, /error: the real failure is on this last line$/, 'head-tail keeps the end');
    });

    it('refuses a ping once closed', async () => {
      const closing = new PoolRunner({ poolSize: 1, toolTableBytes });
      await closing.ping();
      await closing.close();
      await assert.rejects(closing.ping(), /closed/);
    });
  });
}

describe('pool runner call bookkeeping', () => {
  it('keeps the Runner contract: an outcome for every request, aborted before a worker sees it, unavailable once closed', () =>
    withGreet(async (runner, greet, ws, registry) => {
      const call: RunRequest = { tool: greet, args: { who: 'runner' }, workspaceRoot: ws, callId: 'call_runner', timeoutMs: 10_000, writeRoots: undefined };
      const ok = await runner.run(call, undefined);
      assert.deepEqual(ok.kind === 'ok' ? ok.value : ok, 'hello runner (2.0.0)');
      const aborted = await runner.run(call, AbortSignal.abort());
      assert.deepEqual(aborted, { kind: 'aborted' });
      const controller = new AbortController();
      const pending = runner.run({ ...call, tool: registry.get('sleep_briefly')!, args: { ms: 5000 } }, controller.signal);
      setTimeout(() => controller.abort(), 50);
      assert.deepEqual(await pending, { kind: 'aborted' });
      await runner.close();
      const after = await runner.run(call, undefined);
      assert.equal(after.kind, 'unavailable');
    }));

  it('runThen hands the outcome and the request to then in the same promise, and rejects when then throws', () =>
    withGreet(async (runner, greet, ws) => {
      const call: RunRequest = { tool: greet, args: { who: 'then' }, workspaceRoot: ws, callId: 'call_then', timeoutMs: 10_000, writeRoots: undefined };
      const mapped = await runner.runThen(call, undefined, (outcome, given) => `${given.callId}: ${outcome.kind === 'ok' ? String(outcome.value) : outcome.kind}`);
      assert.equal(mapped, 'call_then: hello then (2.0.0)');
      await assert.rejects(runner.runThen(call, undefined, () => { throw new Error('then failed'); }), /then failed/);
      const aborted = await runner.runThen(call, AbortSignal.abort(), (outcome) => outcome.kind);
      assert.equal(aborted, 'aborted', 'calls that end before a worker sees them go through then too');
    }));

  it('a module that answered in one worker is loaded by the other workers too, so the spare is ready', async () => {
    // Sequential calls all go to the first idle worker; without spreading the module, the
    // spare would load it on its first call (such as the one after a timeout). Each worker
    // that loads module_age adds a line to a file (the fixture, TOOLGATE_TEST_MODULE_AGE_LOADS):
    // the test waits for the spare's load, with no call sent to it, instead of a time (3 s were
    // once too few on a loaded 2-core CI machine, and otherwise wasted).
    const t = tempWorkspace();
    const file = path.join(t.root, 'module-age-loads.txt');
    // Whole lines only: a line being appended is not a load yet.
    const loads = (): string[] => (fs.existsSync(file) ? fs.readFileSync(file, 'utf8').split('\n').slice(0, -1) : []);
    process.env.TOOLGATE_TEST_MODULE_AGE_LOADS = file;
    const executor = new ToolExecutor(await fixtureRegistry(), { poolSize: 2 });
    try {
      const first = await executor.call('module_age', { ms: 0 });
      assert.equal(first.success, true, first.output);
      const answered = (JSON.parse(first.output) as { thread: string }).thread;
      await waitFor(() => loads().includes(answered) && loads().some((thread) => thread !== answered), { what: 'the spare worker to load module_age with no call of its own', seen: () => `loads by ${loads().join(', ')}` });
      const loadedBefore = loads();
      const both = await Promise.all([executor.call('module_age', { ms: 300 }), executor.call('module_age', { ms: 300 })]);
      const seen = both.map((r) => JSON.parse(r.output) as { thread: string; loadedMsAgo: number });
      assert.notEqual(seen[0]!.thread, seen[1]!.thread, 'both workers answered');
      for (const s of seen) assert.ok(loadedBefore.includes(s.thread), `worker ${s.thread} had not loaded the module before its call (loads by ${loadedBefore.join(', ')})`);
      assert.deepEqual(loads(), loadedBefore, 'no worker loaded the module again for its call');
    } finally {
      delete process.env.TOOLGATE_TEST_MODULE_AGE_LOADS;
      await executor.close();
      t.cleanup();
    }
  });

  it('a pending pool call keeps the process alive until it settles', async () => {
    // A process whose only work is pool calls must wait for them, including a call queued
    // behind one that times out and has its worker replaced.
    const t = tempWorkspace();
    try {
      const script = path.join(t.ws, 'keep-alive.mjs');
      const url = (rel: string) => pathToFileURL(path.join(REPO_ROOT, rel)).href;
      fs.writeFileSync(script, [
        `const { ToolExecutor } = await import(${JSON.stringify(url('dist/src/index.js'))});`,
        `const { fixtureRegistry } = await import(${JSON.stringify(url('dist/test/helpers.js'))});`,
        'const executor = new ToolExecutor(await fixtureRegistry(), { poolSize: 1, callsPerWorker: 1 });',
        'const results = await Promise.all([',
        "  executor.call('spin_forever', {}, { timeoutMs: 300 }),",
        "  executor.call('sleep_then_answer', { ms: 200 }, { timeoutMs: 10000 }),",
        ']);',
        'console.log(JSON.stringify(results.map((r) => r.errorCode ?? r.output)));',
        '// no close(): idle workers must not hold the process either',
      ].join('\n'));
      const { code, stdout, stderr } = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
        const child = execFile(process.execPath, [script], { timeout: 30_000 }, (error, out, err) => {
          resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout: out, stderr: err });
        });
        child.stdin?.end();
      });
      assert.equal(code, 0, stderr);
      assert.deepEqual(JSON.parse(stdout.trim()), ['TIMEOUT', 'slept 200 ms']);
    } finally {
      t.cleanup();
    }
  });
});
