/**
 * A call a worker runs (`src/distributed/running-call.ts`): its store cancel watch starts one
 * poll interval after the start and stops when the call ends; a controller is given to a later
 * call only while its signal is fresh (never aborted, no listener left).
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { CallKey, CallStore } from '../../src/ledger/call-store.js';
import { AbortControllers, RunningCall } from '../../src/distributed/running-call.js';
import { waitFor } from '../wait.js';

/** A store with only what the watch uses: `pollMs`, and `waitForCancel` that records its calls and answers when told. */
function watchedStore(pollMs: number) {
  const watches: Array<{ key: CallKey; signal: AbortSignal | undefined; answer: (asked: boolean) => void }> = [];
  const store = {
    pollMs,
    waitForCancel: (key: CallKey, signal?: AbortSignal) => new Promise<boolean>((answer) => watches.push({ key, signal, answer })),
  } as unknown as CallStore;
  return { store, watches };
}

describe('running calls', () => {
  it('watch the store for a cancel after one poll interval; a cancel asked there aborts the call', async () => {
    const { store, watches } = watchedStore(5);
    const key = { callId: 'c1', session: 's' };
    const call = new RunningCall(store, key, new AbortController());
    const watch = await waitFor(() => watches[0], { what: 'the cancel watch to start' });
    assert.deepEqual(watch.key, key);
    assert.equal(call.controller.signal.aborted, false);
    watch.answer(true);
    await waitFor(() => call.controller.signal.aborted, { what: 'the call to be aborted' });
    call.ended();
    assert.equal(watch.signal?.aborted, true, 'the watch is stopped when the call ends');
  });

  it('stop their watch when they end', async () => {
    const { store, watches } = watchedStore(5);
    const call = new RunningCall(store, { callId: 'c2', session: 's' }, new AbortController());
    const watch = await waitFor(() => watches[0], { what: 'the cancel watch to start' });
    call.ended();
    assert.equal(watch.signal?.aborted, true);
    watch.answer(false);
    assert.equal(call.controller.signal.aborted, false);
  });

  it('never abort their controller once ended, though the watch found a cancel just before (it may be a later call\'s by then)', async () => {
    const { store, watches } = watchedStore(5);
    const controllers = new AbortControllers();
    const call = new RunningCall(store, { callId: 'c3', session: 's' }, controllers.take());
    const watch = await waitFor(() => watches[0], { what: 'the cancel watch to start' });
    // The watch's look found the flag and settled; in the same turn the call ended and its controller went back.
    watch.answer(true);
    call.ended();
    controllers.giveBack(call.controller);
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(call.controller.signal.aborted, false, 'the ended call\'s controller is left as it was');
    assert.equal(controllers.take().signal.aborted, false, 'the next call gets a fresh signal');
  });

  it('take a cancel (the cancel channel\'s, after its store read) only while running', () => {
    const { store } = watchedStore(60_000);
    const controllers = new AbortControllers();
    const call = new RunningCall(store, { callId: 'c4', session: 's' }, controllers.take());
    call.ended();
    controllers.giveBack(call.controller);
    const next = new RunningCall(store, { callId: 'c5', session: 's' }, controllers.take());
    assert.equal(next.controller, call.controller, 'the fresh controller went to the next call');
    call.abort();
    assert.equal(next.controller.signal.aborted, false, 'the ended call\'s late cancel does not stop the next call');
    next.abort();
    assert.equal(next.controller.signal.aborted, true, 'the running call\'s own cancel does');
    next.ended();
  });

  it('that end within the interval never start a watch', async () => {
    const { store, watches } = watchedStore(5);
    const early = new RunningCall(store, { callId: 'early', session: 's' }, new AbortController());
    early.ended();
    // A later call's watch starts after the first call's would have: by then the first one's would be there too.
    new RunningCall(store, { callId: 'late', session: 's' }, new AbortController());
    await waitFor(() => watches.length !== 0, { what: 'the later call\'s watch' });
    assert.deepEqual(watches.map((w) => w.key.callId), ['late']);
    for (const w of watches) w.answer(false);
  });
});

describe('abort controllers of a worker', () => {
  it('give a controller again only while its signal is fresh', () => {
    const controllers = new AbortControllers();
    const fresh = controllers.take();
    controllers.giveBack(fresh);
    assert.equal(controllers.take(), fresh, 'never aborted, no listener: given again');

    const listened = controllers.take();
    listened.signal.addEventListener('abort', () => undefined);
    controllers.giveBack(listened);
    const next = controllers.take();
    assert.notEqual(next, listened, 'a listener left on it: dropped');
    assert.equal(next.signal.aborted, false);

    const aborted = controllers.take();
    aborted.abort();
    controllers.giveBack(aborted);
    const after = controllers.take();
    assert.notEqual(after, aborted, 'aborted: dropped');
    assert.equal(after.signal.aborted, false);

    // Aborted after it came back (by whoever still held it): never given.
    controllers.giveBack(after);
    after.abort();
    assert.equal(controllers.take().signal.aborted, false);
  });

  it('give it again once the listeners of the call are gone', () => {
    const controllers = new AbortControllers();
    const controller = controllers.take();
    const listener = () => undefined;
    controller.signal.addEventListener('abort', listener);
    controller.signal.removeEventListener('abort', listener);
    controllers.giveBack(controller);
    assert.equal(controllers.take(), controller);
  });
});
