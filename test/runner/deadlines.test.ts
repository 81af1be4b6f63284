// Deadline lists (src/runner/deadlines.ts) when a timeout counts from an earlier moment (the
// call's arrival): a deadline scheduled later but due sooner fires first, and one already
// past fires on the next timer turn.
import assert from 'node:assert/strict';
import { performance } from 'node:perf_hooks';
import { describe, it } from 'node:test';
import { DeadlineTimers } from '../../src/runner/deadlines.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('deadlines counted from an earlier moment', () => {
  it('fire in due order, not in the order they were scheduled', async () => {
    const timers = new DeadlineTimers();
    const fired: string[] = [];
    const now = performance.now();
    timers.add(400, () => fired.push('scheduled first, due last'), now);
    timers.add(400, () => fired.push('due in the middle'), now - 200);
    timers.add(400, () => fired.push('scheduled last, due first'), now - 350);
    await sleep(120);
    assert.deepEqual(fired, ['scheduled last, due first'], 'the earliest fired without waiting for the head scheduled before it');
    await sleep(500);
    assert.deepEqual(fired, ['scheduled last, due first', 'due in the middle', 'scheduled first, due last']);
  });

  it('fire on the next timer turn when already past, and a cancelled one never', async () => {
    const timers = new DeadlineTimers();
    const fired: string[] = [];
    timers.add(1000, () => fired.push('head'));
    const cancelled = timers.add(1000, () => fired.push('cancelled'), performance.now() - 5000);
    timers.add(1000, () => fired.push('past'), performance.now() - 2000);
    cancelled.cancel();
    await sleep(50);
    assert.deepEqual(fired, ['past']);
    await sleep(1100);
    assert.deepEqual(fired, ['past', 'head']);
  });
});
