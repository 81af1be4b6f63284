// Deadline lists (src/runner/deadlines.ts) when a timeout counts from an earlier moment (the
// call's arrival): a deadline scheduled later but due sooner fires first, and one already
// past fires on the next timer turn. Asserted by the order they fire in and by none firing
// before it is due, never by what has fired after a sleep: a loaded machine can stall the
// event loop past the next deadline (a stall of 80 ms anywhere before its first look failed the
// first test as it was).
import assert from 'node:assert/strict';
import { performance } from 'node:perf_hooks';
import { describe, it } from 'node:test';
import { DeadlineTimers } from '../../src/runner/deadlines.js';
import { waitFor } from '../wait.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('deadlines counted from an earlier moment', () => {
  it('fire in due order, not in the order they were scheduled', async () => {
    const timers = new DeadlineTimers();
    const fired: Array<{ name: string; late: number }> = [];
    const now = performance.now();
    const at = (name: string, due: number) => () => fired.push({ name, late: performance.now() - due });
    timers.add(400, at('scheduled first, due last', now + 400), now);
    timers.add(400, at('due in the middle', now + 200), now - 200);
    timers.add(400, at('scheduled last, due first', now + 50), now - 350);
    await waitFor(() => fired.length === 3, { what: 'the three deadlines to fire', seen: () => JSON.stringify(fired) });
    assert.deepEqual(fired.map((f) => f.name), ['scheduled last, due first', 'due in the middle', 'scheduled first, due last'], 'the earliest fired without waiting for the head scheduled before it');
    // Timers may fire a millisecond early by performance.now().
    for (const f of fired) assert.ok(f.late >= -2, `${f.name} fired ${-f.late} ms before it was due`);
  });

  it('fire on the next timer turn when already past, and a cancelled one never', async () => {
    const timers = new DeadlineTimers();
    const fired: string[] = [];
    // The head is 60 s away: a past deadline that waited for it would not fire within the wait.
    const head = timers.add(60_000, () => fired.push('head'));
    const cancelled = timers.add(1000, () => fired.push('cancelled'), performance.now() - 5000);
    timers.add(1000, () => fired.push('past'), performance.now() - 2000);
    cancelled.cancel();
    await waitFor(() => fired.includes('past'), { what: 'the past deadline to fire', timeoutMs: 20_000, seen: () => fired.join(', ') });
    await sleep(50); // a cancelled one that fired anyway would have by now (it was due long ago)
    assert.deepEqual(fired, ['past']);
    head.cancel();
  });
});
