/**
 * The dispatcher seam (issue 31 item 2): the local dispatcher hands claimed calls to this
 * process's runners, tells their end exactly once, cancels a running call by its id, and a
 * call's description is plain JSON data a remote dispatcher can send.
 */
import assert from 'node:assert/strict';
import { performance } from 'node:perf_hooks';
import { after, before, describe, it } from 'node:test';
import { ToolExecutor } from 'toolgate';
import { describeCall, type CallEnd, type DispatchRequest } from '../../src/executor/dispatcher.js';
import { LocalDispatcher } from '../../src/executor/local-dispatcher.js';
import type { RegisteredTool } from '../../src/registry/registered-tool.js';
import type { ToolRegistry } from '../../src/registry/registry.js';
import type { RunOutcome, Runner, RunRequest } from '../../src/runner/runner.js';
import { DEFAULT_SANDBOX } from '../../src/sandbox/bubblewrap.js';
import { waitFor } from '../wait.js';
import { fixtureRegistry, tempWorkspace } from '../helpers.js';

/** What a call's end handler saw. */
type Seen = { ended: RunOutcome } | { failed: unknown };

/** An end handler that records what it is told and returns it. */
function recordingEnd(): CallEnd<Seen> & { seen: Seen[] } {
  const seen: Seen[] = [];
  return {
    seen,
    ended: (outcome) => {
      seen.push({ ended: outcome });
      return { ended: outcome };
    },
    failed: (error) => {
      seen.push({ failed: error });
      return { failed: error };
    },
  };
}

describe('LocalDispatcher', () => {
  const t = tempWorkspace();
  let registry: ToolRegistry;
  let dispatcher: LocalDispatcher;
  let n = 0;
  before(async () => {
    registry = await fixtureRegistry();
    dispatcher = new LocalDispatcher({ poolSize: 1 });
  });
  after(async () => {
    await dispatcher.close();
    t.cleanup();
  });

  function request(name: string, args: Record<string, unknown> = {}, timeoutMs = 0): DispatchRequest {
    const tool = registry.get(name) as RegisteredTool;
    assert.ok(tool, name);
    return { tool, args, callId: `c${++n}`, session: 's1', workspaceRoot: t.ws, timeoutMs, timeoutFrom: performance.now(), writeRoots: undefined, signal: undefined, sandbox: DEFAULT_SANDBOX };
  }

  it('answers a call that ended at once directly, once, and has nothing to cancel', () => {
    const end = recordingEnd();
    const call = request('ping_rate_limited');
    const answer = dispatcher.dispatch(call, end);
    assert.ok(!(answer instanceof Promise), 'a synchronous tool ends before dispatch returns');
    assert.deepEqual(answer, { ended: { kind: 'ok', value: 'ok', notes: [] } });
    assert.equal(end.seen.length, 1);
    assert.equal(dispatcher.cancel(call.callId, call.session), false);
  });

  it('cancels a running main-thread call by its id: it ends aborted, once, and is no longer in flight', async () => {
    const end = recordingEnd();
    const call = request('wait_for_abort');
    const answer = dispatcher.dispatch(call, end);
    assert.ok(answer instanceof Promise);
    assert.equal(dispatcher.cancel(call.callId, 'another-session'), false, 'the session is part of the id');
    assert.equal(dispatcher.cancel('c-none', call.session), false);
    assert.equal(dispatcher.cancel(call.callId, call.session), true);
    assert.deepEqual(await answer, { ended: { kind: 'aborted' } });
    assert.equal(end.seen.length, 1);
    assert.equal(call.running, undefined, 'the runner let go of the call');
    assert.equal(dispatcher.cancel(call.callId, call.session), false, 'an ended call cannot be cancelled');
  });

  it('cancels a call running in a child process (the process runner) by its id', async () => {
    const end = recordingEnd();
    const call = request('sleep_then_answer', { ms: 30_000 });
    const answer = dispatcher.dispatch(call, end);
    // The child starts and takes the call; cancel once the runner watches it.
    await waitFor(() => call.running !== undefined, { what: 'the runner to watch the call' });
    assert.equal(dispatcher.cancel(call.callId, call.session), true);
    // Aborted, not answered: the tool (30 s of sleep) was stopped, not waited for.
    const seen = await answer;
    assert.deepEqual(seen, { ended: { kind: 'aborted' } });
    assert.equal(end.seen.length, 1);
  });

  it('runs a call in a child process to its end and tells it', async () => {
    const end = recordingEnd();
    const seen = await dispatcher.dispatch(request('sleep_then_answer', { ms: 1 }), end);
    assert.ok('ended' in seen && seen.ended.kind === 'ok', JSON.stringify(seen));
    assert.equal(seen.ended.value, 'slept 1 ms');
    assert.equal(end.seen.length, 1);
  });

  it('tells a runner that breaks its contract (rejects) through `failed`, not as an outcome', async () => {
    const broken: Runner = { kind: 'main', run: () => Promise.reject(new TypeError('runner bug')), close: async () => [] };
    const local = new LocalDispatcher({}, { main: broken });
    const end = recordingEnd();
    const seen = await local.dispatch(request('ping_rate_limited'), end);
    assert.ok('failed' in seen && seen.failed instanceof TypeError);
    assert.equal(end.seen.length, 1);
    await local.close();
  });

  it('hands a runner with runThen one `then` for every call of an end (no closure per call), and cancels by session and id', async () => {
    // A runner that holds its calls until told, as the pool runner does, and keeps the `then` it was given.
    const held: Array<{ request: RunRequest; then: (outcome: RunOutcome, request: RunRequest) => unknown; resolve: (value: unknown) => void }> = [];
    const holding: Runner = {
      kind: 'main',
      run: () => ({ kind: 'aborted' }),
      runThen: <T>(request: RunRequest, _signal: AbortSignal | undefined, then: (outcome: RunOutcome, request: RunRequest) => T) =>
        new Promise<T>((resolve) => {
          request.running = { handleEvent: () => resolve(then({ kind: 'aborted' }, request)) };
          held.push({ request, then, resolve: resolve as (value: unknown) => void });
        }),
      close: async () => [],
    };
    const local = new LocalDispatcher({}, { main: holding });
    const end = recordingEnd();
    const a = { ...request('ping_rate_limited'), callId: 'same-id', session: 'session-a' };
    const b = { ...request('ping_rate_limited'), callId: 'same-id', session: 'session-b' };
    const answers = [local.dispatch(a, end), local.dispatch(b, end)];
    assert.equal(held.length, 2);
    assert.equal(held[0]!.then, held[1]!.then, 'one function for every call of the same end');
    assert.equal(local.cancel('same-id', 'session-a'), true, 'the call of session a, though session b reused its id');
    assert.deepEqual(await answers[0], { ended: { kind: 'aborted' } });
    assert.equal(local.cancel('same-id', 'session-a'), false, 'an ended call cannot be cancelled');
    held[1]!.resolve(held[1]!.then({ kind: 'ok', value: 'b', notes: [], cut: false }, held[1]!.request));
    assert.deepEqual(await answers[1], { ended: { kind: 'ok', value: 'b', notes: [], cut: false } });
    assert.equal(local.cancel('same-id', 'session-b'), false, 'forgotten once it ended');
    assert.equal(end.seen.length, 2);
    await local.close();
  });

  it('still cancels a call in flight after hundreds of other calls of its session ended (their rows are swept, its row is not)', async () => {
    const waiting: Array<() => void> = [];
    const holding: Runner = {
      kind: 'main',
      run: () => ({ kind: 'aborted' }),
      runThen: <T>(request: RunRequest, _signal: AbortSignal | undefined, then: (outcome: RunOutcome, request: RunRequest) => T) =>
        new Promise<T>((resolve) => {
          const finish = (outcome: RunOutcome) => {
            request.running = undefined;
            resolve(then(outcome, request));
          };
          request.running = { handleEvent: () => finish({ kind: 'aborted' }) };
          waiting.push(() => finish({ kind: 'ok', value: 'done', notes: [], cut: false }));
        }),
      close: async () => [],
    };
    const local = new LocalDispatcher({}, { main: holding });
    const end = recordingEnd();
    const long = { ...request('ping_rate_limited'), callId: 'long', session: 's' };
    const longAnswer = local.dispatch(long, end);
    for (let i = 0; i < 600; i++) {
      const answer = local.dispatch({ ...request('ping_rate_limited'), callId: `short-${i % 300}`, session: 's' }, end);
      waiting.pop()!();
      await answer;
    }
    assert.equal(local.cancel('short-5', 's'), false, 'an ended call is not in flight');
    assert.equal(local.cancel('long', 's'), true);
    assert.deepEqual(await longAnswer, { ended: { kind: 'aborted' } });
    assert.equal(end.seen.length, 601);
    await local.close();
  });

  it('describes a call as plain JSON data: JSON gives it back unchanged', () => {
    const madeFrom = Date.now();
    const call = { ...request('sleep_then_answer', { ms: 5, note: ['a', { b: 1 }] }, 5_000), writeRoots: ['/tmp/x'], traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01' };
    const description = describeCall(call);
    const describedBy = Date.now();
    assert.deepEqual(JSON.parse(JSON.stringify(description)), description);
    const tool = registry.get('sleep_then_answer')!;
    assert.deepEqual(description.tool, { name: tool.name, version: tool.version, revision: tool.revision, runner: tool.runner });
    assert.equal(description.session, 's1');
    assert.equal(description.hasClient, false);
    // 5 s from when the call was made (timeoutFrom), on the wall clock: within the moments around it (1 ms of rounding each side).
    assert.ok(description.deadline! >= madeFrom + 5_000 - 1 && description.deadline! <= describedBy + 5_000 + 1, `deadline ${description.deadline} is not 5 s after the call (made between ${madeFrom} and ${describedBy})`);
    assert.deepEqual(description.sandbox, { profile: DEFAULT_SANDBOX.profile, network: DEFAULT_SANDBOX.network });
    assert.equal(describeCall(request('ping_rate_limited')).deadline, undefined, 'no timeout, no deadline');
  });
});

describe('the executor dispatches through the dispatcher', () => {
  const t = tempWorkspace();
  after(() => t.cleanup());

  it('hands its runner a claimed call that names its session and approved revision', async () => {
    const got: RunRequest[] = [];
    const recording: Runner = { kind: 'main', run: (request) => (got.push(request), { kind: 'ok', value: 'seen', notes: [] }), close: async () => [] };
    const registry = await fixtureRegistry();
    const executor = new ToolExecutor(registry, { workspaceRoot: t.ws, runners: { main: recording }, session: 'sess-1' });
    try {
      const result = await executor.call('ping_rate_limited', {}, { callId: 'call-1' });
      assert.equal(result.success, true, result.output);
      assert.equal(result.output, 'seen');
      assert.equal(got.length, 1);
      const description = describeCall(got[0] as DispatchRequest);
      assert.equal(description.callId, 'call-1');
      assert.equal(description.session, 'sess-1');
      assert.equal(description.tool.revision, registry.get('ping_rate_limited')!.revision);
    } finally {
      await executor.close();
    }
  });
});
