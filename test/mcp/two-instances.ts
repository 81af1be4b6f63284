/**
 * Issue 33, acceptance: two `toolgate mcp --http` PROCESSES (the built CLI, loopback, free
 * ports, one token) on ONE call store (PostgreSQL, or one SQLite state folder: the files
 * two-instances-postgres.test.ts and two-instances-sqlite.test.ts) stand for two instances behind a load
 * balancer. Requests are aimed at one instance or the other with raw fetch (the SDK v2 client
 * cannot choose an instance, and refuses a `resultType: "task"` answer):
 * (a) a task started through instance 1 is read (`tasks/get`) and cancelled (`tasks/cancel`)
 *     through instance 2, and a task's question is answered (`tasks/update`) through instance 2;
 * (b) an approval asked through instance 1 (a 2026-07-28 client gets input_required) is
 *     answered by a retry sent to instance 2; the tool runs exactly once (its marker file has
 *     one line), and the same retry again runs nothing.
 * Both processes, the store and the folders are removed on every path.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { FIXTURE_SCHEMAS, FIXTURES_DIR } from '../helpers.js';
import { cleanUpMcp, mcpFolders, startHttpCommand, type HttpCommand } from './http-command.js';
import { modern, pollTask, questionKey, type Target } from './task-extension-helpers.js';

/** A 2026-07-28 client that fills forms but does not declare the tasks extension. */
const FORMS_ONLY = { elicitation: { form: {} } };
const CONFIRM_KEY = 'toolgate_confirmation';

/**
 * The tests of two `toolgate mcp --http` processes on one store: `storeArgs(state folder)` are the
 * flags naming the store; `stop` ends it (after both processes).
 */
export function twoInstanceTests(title: string, skip: string | false, storeArgs: (state: string) => string[], stop: () => Promise<void>): void {
  describe(title, { skip }, () => {
    const folders = mcpFolders('toolgate-two-instances-');
    const children: ChildProcess[] = [];
    const token = randomBytes(24).toString('base64url');
    let one: Target;
    let two: Target;

    async function instance(): Promise<HttpCommand> {
      const started = await startHttpCommand(
        [...storeArgs(folders.state), '--workspace', folders.ws, '--tools', FIXTURES_DIR, '--schemas', FIXTURE_SCHEMAS, '--no-policy'],
        { ...process.env, TOOLGATE_MCP_TOKEN: token },
      );
      children.push(started.child);
      return started;
    }

    before(async () => {
      const [a, b] = [await instance(), await instance()];
      assert.notEqual(a.url, b.url, 'two instances on two ports');
      one = { url: a.url, token };
      two = { url: b.url, token };
    });
    after(async () => {
      await cleanUpMcp([], children, folders.root);
      await stop();
    });

    const marker = (name: string): string[] => {
      const file = path.join(folders.ws, name);
      return fs.existsSync(file) ? fs.readFileSync(file, 'utf8').split('\n').filter((l) => l !== '') : [];
    };

    it('(a) a task started through instance 1 is read and cancelled through instance 2', async () => {
      const created = await modern(one, 'tools/call', { name: 'wait_for_abort', arguments: {} });
      assert.equal(created.result?.resultType, 'task', JSON.stringify(created));
      const taskId = created.result!.taskId!;
      const read = await modern(two, 'tasks/get', { taskId });
      assert.equal(read.result?.status, 'working', JSON.stringify(read));
      const ack = await modern(two, 'tasks/cancel', { taskId });
      assert.equal(ack.result?.resultType, 'complete', JSON.stringify(ack));
      await pollTask(two, taskId, (t) => t.status === 'cancelled');
      await pollTask(one, taskId, (t) => t.status === 'cancelled');
    });

    it('(a) a task\'s question asked through instance 1 is answered through instance 2; the tool runs once', async () => {
      const created = await modern(one, 'tools/call', { name: 'append_to_file', arguments: { filepath: 'task-marker.txt', content: 'ran' } });
      assert.equal(created.result?.resultType, 'task', JSON.stringify(created));
      const taskId = created.result!.taskId!;
      const waiting = await pollTask(two, taskId, (t) => t.status === 'input_required');
      assert.deepEqual(marker('task-marker.txt'), []);
      const ack = await modern(two, 'tasks/update', { taskId, inputResponses: { [questionKey(waiting)]: { action: 'accept', content: { approve: true } } } });
      assert.equal(ack.result?.resultType, 'complete', JSON.stringify(ack));
      const done = await pollTask(two, taskId, (t) => t.status === 'completed' || t.status === 'failed');
      assert.equal(done.status, 'completed', JSON.stringify(done));
      assert.equal((done.result as { isError?: boolean }).isError, undefined, JSON.stringify(done));
      assert.deepEqual(marker('task-marker.txt'), ['ran']);
    });

    it('(b) an approval asked through instance 1 is answered by a retry to instance 2; the tool runs exactly once', async () => {
      const args = { filepath: 'retry-marker.txt', content: 'ran' };
      const first = await modern(one, 'tools/call', { name: 'append_to_file', arguments: args }, FORMS_ONLY);
      assert.equal(first.result?.resultType, 'input_required', JSON.stringify(first));
      const requestState = first.result!.requestState as string;
      assert.equal(typeof requestState, 'string');
      assert.deepEqual(marker('retry-marker.txt'), [], 'nothing ran before the answer');
      const accept = { [CONFIRM_KEY]: { action: 'accept', content: { approve: true } } };
      const retried = await modern(two, 'tools/call', { name: 'append_to_file', arguments: args, inputResponses: accept, requestState }, FORMS_ONLY);
      assert.equal(retried.result?.resultType, 'complete', JSON.stringify(retried));
      assert.equal(retried.result?.isError, undefined, JSON.stringify(retried));
      assert.deepEqual(marker('retry-marker.txt'), ['ran']);
      // The same answer again, to either instance, runs nothing: it gets the recorded end (or,
      // while the end is not yet committed, is refused as answered already).
      for (const target of [one, two]) {
        const replayed = await modern(target, 'tools/call', { name: 'append_to_file', arguments: args, inputResponses: accept, requestState }, FORMS_ONLY);
        if (replayed.error !== undefined) assert.match(replayed.error.message, /answered already/, JSON.stringify(replayed));
        else assert.deepEqual(replayed.result?.content, retried.result?.content, JSON.stringify(replayed));
      }
      assert.deepEqual(marker('retry-marker.txt'), ['ran']);
    });
  });
}
