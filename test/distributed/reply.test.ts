/**
 * The worker's signed reply (`src/distributed/reply.ts`): taken only when signed with the
 * call's reply key; anything else found in the queue is ignored (the caller reads the store).
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { newReplyKey, openReply, signReply } from '../../src/distributed/reply.js';
import { completedResult } from '../../src/closeout/results.js';

describe('signed replies', () => {
  const result = completedResult('ok', { tool: 'do_nothing_main', callId: 'c1' });

  it('opens a reply signed with the key', () => {
    const key = newReplyKey();
    assert.deepEqual(openReply(key, signReply(key, result)), JSON.parse(JSON.stringify(result)));
  });

  it('refuses a reply signed with another key, a changed result, or no signature', () => {
    const key = newReplyKey();
    const other = signReply(newReplyKey(), result);
    assert.equal(openReply(key, other), undefined);
    const signed = signReply(key, result);
    assert.equal(openReply(key, { r: signed.r.replace('ok', 'no'), m: signed.m }), undefined);
    assert.equal(openReply(key, { r: signed.r }), undefined);
    assert.equal(openReply(key, 'ok'), undefined);
    assert.equal(openReply(key, null), undefined);
    assert.notEqual(newReplyKey(), key);
  });
});
