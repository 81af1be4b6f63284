/**
 * Security regression (binding): a 2026-07-28 `requestState` was a bearer capability: another
 * client (another authenticated principal, or another bearer token of `toolgate mcp --http` on
 * the same store) holding a state given to someone else (a log, a proxy, a shared transcript)
 * answered that question and ran the call, or answered the person's `ask_user` question. The
 * first round now binds its call to the requestor of its request (as an MCP task is), and a
 * retry of another requestor is refused: nothing runs, nothing is recorded, the question stays
 * open for its own client.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import type { AuthInfo } from '@modelcontextprotocol/server';
import { ledgerHandler, type LedgerHandler } from '../mcp/ledger-handler.js';
import { modern, type Target } from '../mcp/task-extension-helpers.js';

const alice: AuthInfo = { token: 'alice-token-1', clientId: 'alice', scopes: [] };
const mallory: AuthInfo = { token: 'mallory-token', clientId: 'mallory', scopes: [] };
const FORMS = { elicitation: { form: {} } };

describe('a requestState given to another client (security regression)', () => {
  let served: LedgerHandler;
  before(async () => {
    served = await ledgerHandler({ tasks: false });
  });
  after(() => served.close());
  const as = (authInfo: AuthInfo): Target => served.as(authInfo);

  it('a confirmation: another principal\'s retry with the state runs nothing; its own client\'s retry runs the call', async () => {
    const args = { filepath: 'alice.txt', content: 'alice\n' };
    const first = await modern(as(alice), 'tools/call', { name: 'write_file', arguments: args }, FORMS);
    assert.equal(first.result?.resultType, 'input_required', JSON.stringify(first));
    const requestState = (first.result as { requestState?: string }).requestState!;
    const accept = { toolgate_confirmation: { action: 'accept', content: { approve: true } } };
    const stolen = await modern(as(mallory), 'tools/call', { name: 'write_file', arguments: args, requestState, inputResponses: accept }, FORMS);
    assert.equal(stolen.error?.code, -32602, JSON.stringify(stolen));
    assert.match(stolen.error!.message, /another client/);
    assert.equal(fs.existsSync(path.join(served.tmp.ws, 'alice.txt')), false, 'nothing ran for the other principal');
    const own = await modern(as(alice), 'tools/call', { name: 'write_file', arguments: args, requestState, inputResponses: accept }, FORMS);
    assert.equal((own.result as { isError?: boolean } | undefined)?.isError, undefined, JSON.stringify(own));
    assert.equal(fs.readFileSync(path.join(served.tmp.ws, 'alice.txt'), 'utf8'), 'alice\n');
  });

  it('an ask_user question: another principal\'s answer is not recorded; its own client\'s is', async () => {
    const args = { question: 'Deploy to production?', choices: ['yes', 'no'] };
    const first = await modern(as(alice), 'tools/call', { name: 'ask_user', arguments: args }, FORMS);
    assert.equal(first.result?.resultType, 'input_required', JSON.stringify(first));
    const requestState = (first.result as { requestState?: string }).requestState!;
    const stolen = await modern(as(mallory), 'tools/call', { name: 'ask_user', arguments: args, requestState, inputResponses: { toolgate_question: { action: 'accept', content: { answer: 'yes' } } } }, FORMS);
    assert.equal(stolen.error?.code, -32602, JSON.stringify(stolen));
    const own = await modern(as(alice), 'tools/call', { name: 'ask_user', arguments: args, requestState, inputResponses: { toolgate_question: { action: 'accept', content: { answer: 'no' } } } }, FORMS);
    const text = JSON.stringify(own.result);
    assert.match(text, /no/, text);
    assert.doesNotMatch(text, /"yes"|\byes\b/, text);
  });
});
