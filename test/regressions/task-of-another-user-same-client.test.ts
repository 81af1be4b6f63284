/**
 * Security regression (binding): a 2026-07-28 request's requestor, when an OAuth-checking front
 * passed an `authInfo` without a subject (`extra.sub`, `extra.subject`), was the OAuth client id
 * alone: every user of one client application (one public client id, each with their own
 * access token) read, answered and cancelled the others' tasks. Without a subject the requestor
 * is now the client id and the access token (a user's tasks are theirs for that token); with a
 * subject it stays the client id and subject.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { AuthInfo } from '@modelcontextprotocol/server';
import { ledgerHandler, type LedgerHandler } from '../mcp/ledger-handler.js';
import { modern, type Target } from '../mcp/task-extension-helpers.js';

// Two users of one client application; the front knows no subject.
const ann: AuthInfo = { token: 'ann-access-token', clientId: 'shared-app', scopes: [] };
const ben: AuthInfo = { token: 'ben-access-token', clientId: 'shared-app', scopes: [] };
// Two tokens of one user (a refresh), the front naming the subject.
const carol1: AuthInfo = { token: 'carol-token-1', clientId: 'shared-app', scopes: [], extra: { sub: 'carol' } };
const carol2: AuthInfo = { token: 'carol-token-2', clientId: 'shared-app', scopes: [], extra: { sub: 'carol' } };

describe('tasks of two users of one OAuth client (security regression)', () => {
  let served: LedgerHandler;
  before(async () => {
    served = await ledgerHandler();
  });
  after(() => served.close());
  const as = (authInfo: AuthInfo): Target => served.as(authInfo);

  it('without a subject, another user\'s token finds none of a user\'s tasks', async () => {
    const created = await modern(as(ann), 'tools/call', { name: 'wait_for_abort', arguments: {} });
    const taskId = created.result!.taskId!;
    for (const method of ['tasks/get', 'tasks/cancel']) {
      const refused = await modern(as(ben), method, { taskId });
      assert.equal(refused.error?.code, -32602, `${method}: ${JSON.stringify(refused)}`);
    }
    assert.equal((await modern(as(ann), 'tasks/get', { taskId })).result?.status, 'working');
    await modern(as(ann), 'tasks/cancel', { taskId });
  });

  it('with a subject, the same user\'s next token finds them', async () => {
    const created = await modern(as(carol1), 'tools/call', { name: 'wait_for_abort', arguments: {} });
    const taskId = created.result!.taskId!;
    assert.equal((await modern(as(carol2), 'tasks/get', { taskId })).result?.status, 'working');
    assert.equal((await modern(as(ben), 'tasks/get', { taskId })).error?.code, -32602);
    await modern(as(carol2), 'tasks/cancel', { taskId });
  });
});
