/**
 * Issue 33, item 4 on the PostgreSQL store: two `toolgate mcp` servers (in-process, behind the
 * SDK's `createMcpHandler`) over one PostgreSQL call store stand for two instances behind a
 * load balancer: a 2026-07-28 call asked through one is answered by a retry sent to the
 * other; the call runs once, and the same state again runs nothing (it gets the recorded end). Skipped without
 * PostgreSQL (postgres-server.ts says how to get one).
 */
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { createMcpHandler, type McpHttpHandler } from '@modelcontextprotocol/server';
import { createMcpServer, ToolSystem } from 'toolgate';
import { fixtureRegistry, tempWorkspace } from '../helpers.js';
import { postgresForTests } from '../ledger/postgres-server.js';
import { callModern, CONFIRM_KEY } from './input-required-helpers.js';

const server = await postgresForTests(import.meta.url);

describe('MCP 2026-07-28 input required across two instances on one PostgreSQL store', { skip: 'skip' in server ? server.skip : false }, () => {
  const tmp = tempWorkspace();
  const systems: ToolSystem[] = [];
  after(async () => {
    for (const system of systems) await system.close();
    if (!('skip' in server)) await server.stop();
    tmp.cleanup();
  });

  async function instance(): Promise<McpHttpHandler> {
    const system = new ToolSystem({ registry: await fixtureRegistry(), workspace: tmp.ws, store: (server as { url: string }).url, runTasks: false, executor: { outputStore: false, sweepLeftovers: false } });
    systems.push(system);
    return createMcpHandler((ctx) => createMcpServer({ system, workspaceRoot: tmp.ws, tasks: false }, { era: ctx.era }));
  }

  it('asked through one, answered by a retry to the other, run once; the same state again runs nothing', async () => {
    const a = await instance();
    const b = await instance();
    const args = { filepath: 'pg.txt', content: 'through postgres\n' };
    const first = await callModern(a, { name: 'write_file', arguments: args });
    assert.equal(first.result?.resultType, 'input_required', JSON.stringify(first));
    assert.equal(fs.existsSync(path.join(tmp.ws, 'pg.txt')), false);
    const accept = { [CONFIRM_KEY]: { action: 'accept', content: { approve: true } } };
    const retried = await callModern(b, { name: 'write_file', arguments: args, inputResponses: accept, requestState: first.result!.requestState });
    assert.equal(retried.result?.isError, undefined, JSON.stringify(retried));
    assert.equal(fs.readFileSync(path.join(tmp.ws, 'pg.txt'), 'utf8'), 'through postgres\n');
    fs.rmSync(path.join(tmp.ws, 'pg.txt'));
    // The retry's end is written just after its answer went back: once it is in the store, the
    // same state again gets the call's recorded end (idempotent by call id) and runs nothing.
    await systems.at(-1)!.executor.ledger!.flush();
    const replayed = await callModern(a, { name: 'write_file', arguments: args, inputResponses: accept, requestState: first.result!.requestState });
    assert.equal(replayed.error, undefined, JSON.stringify(replayed));
    assert.deepEqual(replayed.result?.content, retried.result?.content);
    assert.equal(fs.existsSync(path.join(tmp.ws, 'pg.txt')), false);
  });

  it('ask_user: asked through one, answered by a retry to the other, ended once with the answer; the same state again records nothing', async () => {
    const a = await instance();
    const b = await instance();
    const args = { question: 'Which store?', choices: ['sqlite', 'postgres'] };
    const first = await callModern(a, { name: 'ask_user', arguments: args });
    assert.equal(first.result?.resultType, 'input_required', JSON.stringify(first));
    const answer = (value: string) => ({ toolgate_question: { action: 'accept', content: { answer: value } } });
    const retried = await callModern(b, { name: 'ask_user', arguments: args, inputResponses: answer('postgres'), requestState: first.result!.requestState });
    assert.equal(retried.result?.isError, undefined, JSON.stringify(retried));
    assert.equal(retried.result?.content?.[0]?.text, 'postgres');
    await systems.at(-1)!.executor.ledger!.flush();
    // Another answer in the same state: the recorded end (the first answer), nothing recorded again.
    const replayed = await callModern(a, { name: 'ask_user', arguments: args, inputResponses: answer('sqlite'), requestState: first.result!.requestState });
    assert.equal(replayed.result?.content?.[0]?.text, 'postgres', JSON.stringify(replayed));
    const decoded = JSON.parse(Buffer.from(first.result!.requestState!.slice(5), 'base64url').toString('utf8')) as { c: string; s: string };
    const ledger = systems[0]!.executor.ledger!;
    assert.equal((await ledger.get(decoded.c, decoded.s))?.state, 'done');
    assert.equal((await ledger.result(decoded.c, decoded.s))?.result.output, 'postgres');
  });
});
