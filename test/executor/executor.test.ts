import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { PathTraversalError, ToolExecutor, type ToolExecutionResult, type ToolRegistry } from 'toolgate';
import { fixtureRegistry, tempWorkspace } from '../helpers.js';
import { waitFor } from '../wait.js';

const failedWith = (result: ToolExecutionResult, code: string) => {
  assert.equal(result.success, false, `expected ${code}, got success: ${result.output}`);
  assert.equal(result.errorCode, code, result.error);
  assert.ok(result.error && result.output.includes(result.error), 'the output carries the error for the model');
};

describe('ToolExecutor', () => {
  let registry: ToolRegistry;
  let executor: ToolExecutor;
  const t = tempWorkspace();
  before(async () => {
    registry = await fixtureRegistry();
    executor = new ToolExecutor(registry, { workspaceRoot: t.ws, poolSize: 2 });
  });
  after(async () => {
    await executor.close();
    t.cleanup();
  });

  describe('results', () => {
    it('runs a pool tool and threads the call id', async () => {
      const r = await executor.execute({ name: 'greet', arguments: '{"who":"ada"}', callId: 'call_123' });
      assert.equal(r.success, true);
      assert.equal(r.output, 'hello ada (2.0.0)');
      assert.equal(r.callId, 'call_123');
      assert.equal(r.tool, 'greet');
      assert.equal(r.version, '2.0.0');
      assert.equal(r.confirmed, true);
      assert.ok(r.durationMs >= 0);
    });

    it('selects a version by semver range and generates call ids', async () => {
      const r = await executor.execute({ name: 'greet', arguments: { who: 'ada' }, version: '^1' });
      assert.equal(r.output, 'hello ada (1.2.0)');
      assert.match(r.callId, /^tg_[0-9a-f]{8}_\d+$/);
      failedWith(await executor.execute({ name: 'greet', arguments: { who: 'x' }, version: '^5' }), 'VERSION_NOT_FOUND');
    });

    it('reports an unknown tool with suggestions', async () => {
      const r = await executor.execute({ name: 'gret', arguments: {} });
      failedWith(r, 'UNKNOWN_TOOL');
      assert.match(r.error!, /Did you mean greet/);
      assert.equal(r.version, undefined);
    });

    it('returns structured output as JSON text plus the value', async () => {
      const r = await executor.execute({ name: 'echo_arguments', arguments: { text: 'a', env: { K: 'v' } } });
      assert.equal(r.success, true);
      assert.deepEqual(r.structured, { received: { text: 'a', env: { K: 'v' } }, keys: 2 });
      assert.deepEqual(JSON.parse(r.output), r.structured);
    });

    it('T8: empty output becomes [no output], and the note stays', async () => {
      const r = await executor.execute({ name: 'return_nothing', arguments: {} });
      assert.equal(r.success, true);
      assert.equal(r.output, '[no output]\n[exit status 0]');
    });

    it('T6: long output is cut head-kept with the omitted count, and the note survives the cut', async () => {
      const r = await executor.execute({ name: 'print_long_output', arguments: { chars: 5000 } });
      assert.equal(r.success, true);
      assert.ok(r.output.startsWith('x'.repeat(1000)));
      assert.match(r.output, /\[output truncated: 4000 of 5000 characters \(2 lines\) omitted; limit 1000 characters\]/);
      assert.ok(r.output.endsWith('[exit status 1]'));
      assert.ok(!r.output.includes('error: the real failure'), 'head-kept truncation drops the tail');
    });

    it('T6: head-and-tail truncation keeps the last line', async () => {
      const r = await executor.execute({ name: 'print_long_output_tail', arguments: { chars: 5000 } });
      assert.match(r.output, /omitted from the middle of 5000; limit 1000 characters/);
      assert.match(r.output, /error: the real failure is on this last line\n\[exit status 1\]$/);
    });

    it('reports a tool error as a result the model can read', async () => {
      const r = await executor.execute({ name: 'fail_always', arguments: { message: 'disk full' } });
      failedWith(r, 'TOOL_ERROR');
      assert.match(r.error!, /fail_always failed: disk full/);
    });

    it('reports output that breaks the output schema', async () => {
      failedWith(await executor.execute({ name: 'return_bad_output', arguments: {} }), 'INVALID_OUTPUT');
    });

    it('survives a worker that exits, and the next call works', async () => {
      const r = await executor.execute({ name: 'crash_worker', arguments: {} });
      failedWith(r, 'WORKER_CRASHED');
      assert.equal((await executor.execute({ name: 'greet', arguments: { who: 'b' } })).success, true);
    });

    it('keeps state between calls of a main-runner tool', async () => {
      const first = await executor.execute({ name: 'count_calls', arguments: {} });
      const second = await executor.execute({ name: 'count_calls', arguments: {} });
      assert.equal(Number(second.output.split(' ')[1]), Number(first.output.split(' ')[1]) + 1);
    });
  });

  describe('arguments (A1, A2, A3, T4)', () => {
    it('A1: __proto__, constructor and prototype keys are rejected and nothing is polluted', async () => {
      for (const raw of ['{"who":"a","__proto__":{"allowed":true}}', '{"who":"a","constructor":{"prototype":{"allowed":true}}}', '{"who":"a","prototype":{}}']) {
        const r = await executor.execute({ name: 'greet', arguments: raw });
        failedWith(r, 'INVALID_ARGUMENTS');
        assert.match(r.error!, /unknown argument '(__proto__|constructor|prototype)'/);
      }
      assert.equal(({} as Record<string, unknown>).allowed, undefined);
      assert.equal((Object.prototype as Record<string, unknown>).allowed, undefined);
      const polluted = JSON.parse('{"who":"a"}') as object;
      Object.setPrototypeOf(polluted, { allowed: true });
      failedWith(await executor.execute({ name: 'greet', arguments: polluted }), 'INVALID_ARGUMENTS');
    });

    it('A2: null, arrays, numbers and truncated JSON get a clear error naming the problem', async () => {
      const cases: Array<[unknown, RegExp]> = [
        [null, /arguments must be a JSON object; got null/],
        ['null', /arguments must be a JSON object; got null/],
        [['a'], /arguments must be a JSON object; got array/],
        ['[1,2]', /arguments must be a JSON object; got array/],
        ['42', /arguments must be a JSON object; got number/],
        ['{"who":', /arguments are not valid JSON/],
        ['"just text"', /arguments must be a JSON object; got string/],
      ];
      for (const [raw, message] of cases) {
        const r = await executor.execute({ name: 'greet', arguments: raw });
        failedWith(r, 'INVALID_ARGUMENTS');
        assert.match(r.error!, message);
      }
    });

    it('A2: double-encoded arguments are decoded once and the repair is reported', async () => {
      const r = await executor.execute({ name: 'greet', arguments: JSON.stringify(JSON.stringify({ who: 'ada' })) });
      assert.equal(r.success, true);
      assert.equal(r.output, 'hello ada (2.0.0)');
      assert.deepEqual(r.repairs, ['arguments were a JSON string holding a JSON object (double-encoded); decoded once']);
    });

    it('empty arguments count as {} for tools without required arguments', async () => {
      assert.equal((await executor.execute({ name: 'return_nothing', arguments: '' })).success, true);
      assert.equal((await executor.execute({ name: 'return_nothing' })).success, true);
    });

    it('A3: extra properties are rejected with the property named', async () => {
      const r = await executor.execute({ name: 'greet', arguments: { who: 'a', shout: true } });
      failedWith(r, 'INVALID_ARGUMENTS');
      assert.match(r.error!, /unknown argument 'shout'; allowed: who, word/);
      const nested = await executor.execute({ name: 'echo_arguments', arguments: { text: 'a', origin: { x: 1, y: 2, z: 3 } } });
      assert.match(nested.error!, /argument 'origin' has an unknown argument 'z'/);
    });

    it('T4: an object field sent as a JSON string names the field and says an object was expected', async () => {
      const r = await executor.execute({ name: 'echo_arguments', arguments: { text: 'a', options: '{"verbose":true}' } });
      failedWith(r, 'INVALID_ARGUMENTS');
      assert.match(r.error!, /argument 'options' must be object; got string \(it holds JSON text: send the object itself, not a string\)/);
    });

    it('reports missing and mistyped arguments with the expected signature, without coercion', async () => {
      const missing = await executor.execute({ name: 'greet', arguments: {} });
      assert.match(missing.error!, /missing required argument 'who'.*Expected greet\(who: string, word\?: string\)/);
      const wrong = await executor.execute({ name: 'echo_arguments', arguments: { text: 'a', count: '5' } });
      assert.match(wrong.error!, /argument 'count' must be integer; got string/);
      const range = await executor.execute({ name: 'echo_arguments', arguments: { text: 'a', count: 500 } });
      assert.match(range.error!, /argument 'count' must be <= 100/);
      const items = await executor.execute({ name: 'echo_arguments', arguments: { text: 'a', points: [{ x: 1 }] } });
      assert.match(items.error!, /missing required argument 'points\[0\]\.y'/);
    });

    it('null for an optional argument counts as absent (OpenAI strict mode sends that)', async () => {
      const r = await executor.execute({ name: 'echo_arguments', arguments: { text: 'a', count: null, origin: { x: 1, y: 2, label: null } } });
      assert.equal(r.success, true, r.error);
      assert.deepEqual(r.structured, { received: { text: 'a', origin: { x: 1, y: 2 } }, keys: 2 });
      const required = await executor.execute({ name: 'echo_arguments', arguments: { text: null } });
      failedWith(required, 'INVALID_ARGUMENTS');
    });
  });

  describe('timeouts and memory (T9, T10)', () => {
    it('T9: a tool that ignores cancellation is stopped at its timeout, and the next call succeeds', async () => {
      const r = await executor.execute({ name: 'spin_forever', arguments: {} }, { timeoutMs: 300 });
      failedWith(r, 'TIMEOUT');
      assert.match(r.error!, /timed out after 0\.300 s \(limit 300 ms/);
      const next = await executor.execute({ name: 'greet', arguments: { who: 'after' } });
      assert.equal(next.success, true);
      const again = await executor.execute({ name: 'spin_forever', arguments: {} }, { timeoutMs: 1000 });
      assert.match(again.error!, /timed out after 1 s/);
    });

    it('T10: a per-call timeout shorter than the default is honoured, and <= 0 disables the timeout', async () => {
      const short = await executor.execute({ name: 'sleep_then_answer', arguments: { ms: 2000 } }, { timeoutMs: 200 });
      failedWith(short, 'TIMEOUT');
      const disabled = await executor.execute({ name: 'sleep_then_answer', arguments: { ms: 300 } });
      assert.equal(disabled.success, true, 'the tool declares timeoutMs: 0');
      const perCallDisabled = await executor.execute({ name: 'sleep_then_answer', arguments: { ms: 300 } }, { timeoutMs: -1 });
      assert.equal(perCallDisabled.success, true);
    });

    it('a main-runner timeout aborts the signal and returns a timeout result', async () => {
      failedWith(await executor.execute({ name: 'wait_for_abort', arguments: {} }, { timeoutMs: 100 }), 'TIMEOUT');
    });

    it('a caller abort stops pool and main calls', async () => {
      const controller = new AbortController();
      setTimeout(() => controller.abort(), 100);
      failedWith(await executor.execute({ name: 'spin_forever', arguments: {} }, { signal: controller.signal }), 'ABORTED');
      const c2 = new AbortController();
      setTimeout(() => c2.abort(), 50);
      failedWith(await executor.execute({ name: 'wait_for_abort', arguments: {} }, { signal: c2.signal }), 'ABORTED');
      failedWith(await executor.execute({ name: 'greet', arguments: { who: 'x' } }, { signal: AbortSignal.abort() }), 'ABORTED');
      assert.equal((await executor.execute({ name: 'greet', arguments: { who: 'y' } })).success, true);
    });

    it('a tool that allocates past its memory cap returns a memory-cap result and the next call succeeds', async () => {
      const r = await executor.execute({ name: 'allocate_memory', arguments: {} });
      failedWith(r, 'MEMORY_LIMIT');
      assert.match(r.error!, /memory cap of 32 MB/);
      const next = await executor.execute({ name: 'allocate_memory', arguments: { limit_mb: 2 } });
      assert.equal(next.success, true, next.error);
      assert.equal((await executor.execute({ name: 'greet', arguments: { who: 'z' } })).success, true);
    });

    it('a call queued behind a timed-out call on the same worker is moved, not lost', async () => {
      const small = new ToolExecutor(registry, { workspaceRoot: t.ws, poolSize: 1, callsPerWorker: 2 });
      try {
        const spin = small.execute({ name: 'spin_forever', arguments: {} }, { timeoutMs: 300 });
        const queued = small.execute({ name: 'greet', arguments: { who: 'queued' } });
        failedWith(await spin, 'TIMEOUT');
        const r = await queued;
        assert.equal(r.success, true, r.error);
        assert.equal(r.output, 'hello queued (2.0.0)');
      } finally {
        await small.close();
      }
    });
  });

  describe('gates', () => {
    it('mode gate: read-only modes refuse writing tools; unknown modes fail closed', async () => {
      const r = await executor.execute({ name: 'write_file', arguments: { filepath: 'a.txt', content: 'x' } }, { mode: 'explore', confirm: true });
      failedWith(r, 'MODE_DENIED');
      assert.equal(r.confirmed, true);
      assert.equal(fs.existsSync(path.join(t.ws, 'a.txt')), false);
      failedWith(await executor.execute({ name: 'greet', arguments: { who: 'a' } }, { mode: 'yolo' }), 'MODE_DENIED');
      assert.equal((await executor.execute({ name: 'greet', arguments: { who: 'a' } }, { mode: 'plan' })).success, true);
    });

    it('P8: scoped writes only inside the scoped folder, never in a prefix sibling', async () => {
      const opts = { mode: 'plan', scopedWriteDirs: ['plans'], confirm: true } as const;
      const ok = await executor.execute({ name: 'write_file', arguments: { filepath: 'plans/p.md', content: 'plan' } }, opts);
      assert.equal(ok.success, true, ok.error);
      assert.equal(fs.readFileSync(path.join(t.ws, 'plans/p.md'), 'utf8'), 'plan');
      for (const target of ['plans-evil/p.md', 'plans_backup/p.md', 'plans', 'other/p.md']) {
        failedWith(await executor.execute({ name: 'write_file', arguments: { filepath: target, content: 'x' } }, opts), 'MODE_DENIED');
        assert.equal(fs.existsSync(path.join(t.ws, target)) && fs.statSync(path.join(t.ws, target)).isFile(), false, target);
      }
      fs.symlinkSync(t.outside, path.join(t.ws, 'plans', 'escape'));
      await assert.rejects(executor.execute({ name: 'write_file', arguments: { filepath: 'plans/escape/x', content: 'x' } }, opts), PathTraversalError);
      const custom = { name: 'custom', readOnly: true, systemPromptAddendum: '', scopedWriteDirs: ['plans'] };
      assert.equal((await executor.execute({ name: 'write_file', arguments: { filepath: 'plans/q.md', content: 'q' } }, { mode: custom, confirm: true })).success, true);
      failedWith(await executor.execute({ name: 'confirm_action', arguments: {} }, { mode: custom, confirm: true }), 'MODE_DENIED');
      const unvetted = await executor.execute({ name: 'write_unvetted', arguments: { filepath: 'plans/u.md' } }, opts);
      failedWith(unvetted, 'MODE_DENIED');
      const narrowed = new ToolExecutor(registry, { workspaceRoot: t.ws, scopedWriteTools: ['append_to_file'] });
      try {
        failedWith(await narrowed.execute({ name: 'write_file', arguments: { filepath: 'plans/n.md', content: 'x' } }, opts), 'MODE_DENIED');
      } finally {
        await narrowed.close();
      }
    });

    it('policy hook: a veto stops the call; a throwing hook fails open', async () => {
      const seen: string[] = [];
      const vetoing = new ToolExecutor(registry, {
        workspaceRoot: t.ws,
        policyHook: (call) => {
          seen.push(`${call.tool}:${call.mode}`);
          if (call.tool === 'count_calls') throw new Error('hook bug');
          return call.arguments.who === 'mallory' ? 'mallory is blocked' : undefined;
        },
      });
      try {
        const r = await vetoing.execute({ name: 'greet', arguments: { who: 'mallory' } });
        failedWith(r, 'POLICY_DENIED');
        assert.match(r.error!, /Denied by policy: mallory is blocked/);
        assert.equal((await vetoing.execute({ name: 'greet', arguments: { who: 'bob' } })).success, true);
        assert.equal((await vetoing.execute({ name: 'count_calls', arguments: {} })).success, true, 'fail open');
        const async = new ToolExecutor(registry, { workspaceRoot: t.ws, policyHook: async () => 'async veto' });
        failedWith(await async.execute({ name: 'greet', arguments: { who: 'a' } }), 'POLICY_DENIED');
        await async.close();
        assert.deepEqual(seen, ['greet:default', 'greet:default', 'count_calls:default']);
      } finally {
        await vetoing.close();
      }
    });

    it('confirmation gate: required without confirm; a handler decides; confirmed is false only here', async () => {
      const r = await executor.execute({ name: 'confirm_action', arguments: { value: 'v' } });
      failedWith(r, 'CONFIRMATION_REQUIRED');
      assert.equal(r.confirmed, false);
      assert.match(r.error!, /^Confirmation required/);
      assert.equal((await executor.execute({ name: 'confirm_action', arguments: { value: 'v' } }, { confirm: true })).output, 'confirmed v');
      const asked: unknown[] = [];
      const yes = await executor.execute({ name: 'confirm_action', arguments: { value: 'y' } }, { confirmationHandler: (req) => (asked.push(req.arguments), true) });
      assert.equal(yes.success, true);
      assert.deepEqual(asked, [{ value: 'y' }]);
      const no = await executor.execute({ name: 'confirm_action', arguments: {} }, { confirmationHandler: async () => false });
      failedWith(no, 'CONFIRMATION_DENIED');
      assert.equal(no.confirmed, false);
      const throws = await executor.execute({ name: 'confirm_action', arguments: {} }, { confirmationHandler: () => { throw new Error('ui gone'); } });
      failedWith(throws, 'CONFIRMATION_DENIED');
    });

    it('rate limit: calls start one turn apart, and a call that would wait too long is refused at once', async () => {
      // 60 rpm: one start a second; a wait of at most 1.5 s. The starts are recorded by the tool
      // itself; what is asserted is their spacing and which calls were refused, not how long it took.
      const starts: number[] = [];
      registry.register({
        name: 'record_rate_limited_start', version: '1.0.0', kind: 'internal', readOnly: true, rateLimitRpm: 60,
        description: 'Records when it starts (60 calls per minute).', inputSchema: { type: 'object', properties: {}, additionalProperties: false },
        run: () => String(starts.push(Date.now())),
      });
      const limited = new ToolExecutor(registry, { workspaceRoot: t.ws, rateLimitMaxWaitMs: 1500 });
      try {
        const results = await Promise.all(Array.from({ length: 6 }, () => limited.execute({ name: 'record_rate_limited_start', arguments: {} })));
        const ok = results.filter((r) => r.success);
        const refused = results.filter((r) => !r.success);
        // Turns 0 and 1 s always fit in the 1.5 s wait; the sixth call's turn (5 s after the
        // first) fits only if it arrived 3.5 s after the first, which six calls given at once do not.
        assert.ok(ok.length >= 2, `${ok.length} calls ran: the turns of 0 and 1 s fit in the wait`);
        assert.ok(refused.length >= 1, 'six turns a second apart do not fit in a 1.5 s wait');
        for (const r of refused) {
          failedWith(r, 'RATE_LIMITED');
          assert.match(r.error!, /allows 60 calls per minute.*retry in about \d+ s/);
          assert.ok(r.retryAfterMs! > 1500, `refused with a turn ${r.retryAfterMs} ms away, within the 1.5 s wait`);
        }
        assert.equal(starts.length, ok.length, 'every call that succeeded ran once; no refused call ran');
        // Turns are 1000 ms apart; a start is a little later than its turn, by as much as the
        // steps between them took (the shared limiter's margin, 100 ms, allows for the same).
        for (let i = 1; i < starts.length; i++) assert.ok(starts[i]! - starts[i - 1]! >= 900, `starts ${i - 1} and ${i} are ${starts[i]! - starts[i - 1]!} ms apart`);
      } finally {
        await limited.close();
        registry.unregister('record_rate_limited_start');
      }
    });
  });

  describe('workspace escapes', () => {
    it('a path argument outside the workspace throws PathTraversalError before any gate', async () => {
      await assert.rejects(
        executor.execute({ name: 'read_file', arguments: { filepath: '../outside/sentinel.txt' } }, { mode: 'yolo' }),
        (e: unknown) => e instanceof PathTraversalError && e.code === 'PATH_TRAVERSAL',
      );
    });

    it('an escape found inside a worker is rebuilt as PathTraversalError on the main thread', async () => {
      await assert.rejects(executor.execute({ name: 'escape_from_worker', arguments: { raw: '../outside/sentinel.txt' } }), PathTraversalError);
    });

    it('executeMany reports the escape after the batch settles, with every call answered on the error', async () => {
      const error = await executor
        .executeMany([
          { name: 'greet', arguments: { who: 'a' }, callId: 'g' },
          { name: 'read_file', arguments: { filepath: '/etc/passwd' }, callId: 'r' },
        ])
        .then(() => undefined, (e: unknown) => e);
      assert.ok(error instanceof PathTraversalError);
      assert.deepEqual(error.results?.map((r) => [r.callId, r.errorCode ?? 'ok']), [['g', 'ok'], ['r', 'PATH_TRAVERSAL']]);
    });
  });

  describe('executeMany', () => {
    it('answers every call in order; writes run in the order given, after earlier calls', async () => {
      const calls = [
        { name: 'write_file', arguments: { filepath: 'seq.txt', content: 'one' }, callId: 'c1' },
        { name: 'read_file', arguments: { filepath: 'seq.txt' }, callId: 'c2' },
        { name: 'write_file', arguments: { filepath: 'seq.txt', content: 'two' }, callId: 'c3' },
        { name: 'read_file', arguments: { filepath: 'seq.txt' }, callId: 'c4' },
        { name: 'nope', arguments: '{', callId: 'c5' },
        { name: 'greet', arguments: '{"who":', callId: 'c6' },
      ];
      const results = await executor.executeMany(calls, { confirm: true });
      assert.deepEqual(results.map((r) => r.callId), ['c1', 'c2', 'c3', 'c4', 'c5', 'c6']);
      assert.equal(results[1]!.output, 'one');
      assert.equal(results[3]!.output, 'two');
      assert.equal(results[4]!.errorCode, 'UNKNOWN_TOOL');
      assert.equal(results[5]!.errorCode, 'INVALID_ARGUMENTS');
    });

    it('runs read-only calls concurrently within the bound', async () => {
      // Each call holds until the test opens the gate: run one after another, the first would
      // hold for good and four would never run at once; unbounded, all six would.
      let running = 0;
      let most = 0;
      let open!: () => void;
      const gate = new Promise<void>((resolve) => (open = resolve));
      registry.register({
        name: 'hold_until_opened', version: '1.0.0', kind: 'internal', readOnly: true,
        description: 'Holds until the test opens its gate.', inputSchema: { type: 'object', properties: {}, additionalProperties: false },
        run: async () => {
          most = Math.max(most, ++running);
          await gate;
          running--;
          return 'held';
        },
      });
      try {
        const batch = executor.executeMany(Array.from({ length: 6 }, () => ({ name: 'hold_until_opened', arguments: {} })), { concurrency: 4 });
        await waitFor(() => running >= 4, { what: 'four calls of the batch running at once', seen: () => `${running} running` });
        open();
        const results = await batch;
        assert.ok(results.every((r) => r.success && r.output === 'held'), JSON.stringify(results.map((r) => r.output)));
        assert.equal(most, 4, 'at most four at once (the bound), and four did run at once');
      } finally {
        open();
        registry.unregister('hold_until_opened');
      }
    });
  });
});

describe('call logging', () => {
  it('writes one structured event per call, with secrets redacted', async () => {
    const { pino } = await import('pino');
    const { Writable } = await import('node:stream');
    const lines: Record<string, unknown>[] = [];
    const sink = new Writable({ write(chunk, _enc, done) { for (const l of String(chunk).split('\n')) if (l) lines.push(JSON.parse(l)); done(); } });
    const registry = await fixtureRegistry();
    const executor = new ToolExecutor(registry, { logger: pino({ level: 'debug' }, sink) });
    try {
      await executor.execute({ name: 'greet', arguments: { who: 'ada' }, callId: 'log_1' });
      await executor.execute({ name: 'echo_arguments', arguments: { text: 'a', env: { API_KEY: 'sk-secret', token: 't', PATH: '/bin' } }, callId: 'log_2' });
      await executor.execute({ name: 'confirm_action', arguments: {}, callId: 'log_3' });
    } finally {
      await executor.close();
    }
    const events = lines.filter((l) => l.event === 'tool_call');
    assert.deepEqual(events.map((e) => e.callId), ['log_1', 'log_2', 'log_3']);
    const [first, second, third] = events;
    assert.equal(first!.tool, 'greet');
    assert.equal(first!.version, '2.0.0');
    assert.equal(first!.success, true);
    assert.equal(first!.gate, 'passed');
    assert.equal(typeof first!.durationMs, 'number');
    assert.deepEqual((second!.arguments as { env: unknown }).env, { API_KEY: '[redacted]', token: '[redacted]', PATH: '/bin' });
    assert.ok(!JSON.stringify(lines).includes('sk-secret'));
    assert.equal(third!.gate, 'confirmation');
    assert.equal(third!.errorCode, 'CONFIRMATION_REQUIRED');
  });
});
