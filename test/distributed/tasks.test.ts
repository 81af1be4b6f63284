/**
 * Tasks of the `task` domain with the shared store (PostgreSQL) and the queue (Redis; then both
 * on one PostgreSQL database, `--queue postgres://`): a task
 * is a delayed job of its pool, started through the store's conditional write and run as a
 * queued call on a worker.
 * - a task scheduled 2 s ahead by a caller process that is then killed (SIGKILL), and whose
 *   worker is killed too, runs once on one of two workers started after, and is waited for
 *   from another process (`task_wait` on yet another worker);
 * - a task cancelled from another process (another session: the task is detached) never runs,
 *   even when it comes due and a job for it is delivered;
 * - a task moved (`task_reschedule`) from an hour ahead to now runs once; a subagent task is
 *   refused (no agent is on a worker).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { ToolSystem } from '../../src/index.js';
import type { CallStore } from '../../src/ledger/call-store.js';
import { openCallStore } from '../../src/ledger/open-store.js';
import { postgresForTests, type PgTestServer } from '../ledger/postgres-server.js';
import { Cluster, freshDatabase, rawQueue, until } from './cluster.js';
import { redisMissing } from './redis-server.js';

const missing = redisMissing();
const pg = missing === undefined ? await postgresForTests(import.meta.url) : { skip: missing };
const skip = 'skip' in pg ? pg.skip : undefined;
const INDEX = fileURLToPath(new URL('../../src/index.js', import.meta.url));
const idOf = (text: string | undefined): string => /"id": "(task_[0-9a-f]{16})"/.exec(text ?? '')?.[1] ?? 'none';

for (const kind of ['Redis', 'PostgreSQL'] as const) {
describe(`tasks on the queue (on ${kind})`, { skip, concurrency: false }, () => {
  let cluster: Cluster;
  let database: Awaited<ReturnType<typeof freshDatabase>> | undefined;
  let store: CallStore;
  let tools: ToolSystem;
  const children: ChildProcess[] = [];

  before(async () => {
    // On PostgreSQL the store and the queue share a database of their own (the Redis suite's store has these call ids).
    if (kind === 'PostgreSQL') database = await freshDatabase((pg as PgTestServer).url, 'one_server');
    cluster = await Cluster.start(database?.url ?? (pg as PgTestServer).url, database?.url);
    store = await openCallStore(cluster.store);
    tools = new ToolSystem({ workspace: cluster.workspace, store, queue: { url: cluster.queue } });
    await tools.start();
  });
  after(async () => {
    for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await tools?.close();
    await store?.close();
    await cluster?.stop();
    await database?.drop();
  });

  /** A caller in a process of its own: `task_*` calls as `session`; prints each result as a line of JSON, then stays (to be killed). */
  function callerProcess(session: string, calls: Array<{ name: string; arguments: Record<string, unknown> }>): { child: ChildProcess; lines: () => string[] } {
    const script = `import { ToolSystem } from ${JSON.stringify(INDEX)};
      const [workspace, store, queue, session, calls] = process.argv.slice(1);
      const tools = new ToolSystem({ workspace, store, queue: { url: queue } });
      await tools.start();
      for (const [i, call] of JSON.parse(calls).entries()) {
        const result = await tools.execute({ ...call, callId: session + '-' + i }, { session });
        process.stdout.write(JSON.stringify(result) + '\\n');
      }
      setInterval(() => undefined, 1000);`;
    const child = spawn(process.execPath, ['--input-type=module', '-e', script, cluster.workspace, cluster.store, cluster.queue, session, JSON.stringify(calls)], { stdio: ['ignore', 'pipe', 'inherit'] });
    children.push(child);
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString()));
    return { child, lines: () => out.split('\n').filter((l) => l !== '') };
  }

  async function kill(child: ChildProcess): Promise<void> {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const gone = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await gone;
  }

  it('runs a task scheduled 2 s ahead once, on a worker, after its caller and its worker were killed', { timeout: 120_000 }, async () => {
    const first = await cluster.worker();
    const caller = callerProcess('killed', [{ name: 'task_create', arguments: { tool: 'append_call_id', arguments: { file: 'killed.txt' }, delaySeconds: 2, detach: true } }]);
    await until(() => caller.lines().length === 1, 60_000, 'the task to be created');
    await Promise.all([kill(caller.child), cluster.kill(first)]);
    const created = JSON.parse(caller.lines()[0]!) as { success: boolean; output: string };
    assert.equal(created.success, true, created.output);
    const id = idOf(created.output);
    assert.equal(cluster.marker('killed.txt').length, 0, 'not run before its time');
    // Two new workers race for it (its delayed job, their looks at the store).
    const fresh = [await cluster.worker(), await cluster.worker()];
    // Waited for from this process, on a worker (task_wait reads the shared store).
    const waited = await tools.execute({ name: 'task_wait', arguments: { id, timeoutSeconds: 60 }, callId: 'wait-killed' }, { session: 'waiter' });
    assert.equal(waited.success, true, waited.output);
    const view = JSON.parse(waited.output) as { status: string; waitEnded: string; result: { output: string } };
    assert.equal(view.status, 'done', waited.output);
    assert.equal(view.waitEnded, 'finished');
    const lines = cluster.marker('killed.txt');
    assert.equal(lines.length, 1, lines.join(' | '));
    assert.match(lines[0]!, new RegExp(`^${id} `));
    assert.ok(fresh.some((w) => lines[0]!.endsWith(` ${w.pid}`)), `run by a new worker: ${lines[0]}`);
    const call = await store.get(id, 'killed');
    assert.equal(call?.state, 'done');
    assert.equal(call?.pool, 'default', 'its call was queued for the pool, and taken by a worker as any call');
    assert.equal((await store.task(id))?.state, 'started');
  });

  it('never runs a task cancelled from another process, even when its job comes', { timeout: 120_000 }, async () => {
    if (!cluster.workers.some((w) => w.child.exitCode === null && w.child.signalCode === null)) await cluster.worker();
    const made = await tools.execute({ name: 'task_create', arguments: { tool: 'append_call_id', arguments: { file: 'cancelled.txt' }, delaySeconds: 3600, detach: true }, callId: 'make-cancelled' }, { session: 'maker' });
    assert.equal(made.success, true, made.output);
    const id = idOf(made.output);
    const canceller = callerProcess('canceller', [{ name: 'task_cancel', arguments: { id } }]);
    await until(() => canceller.lines().length === 1, 60_000, 'the cancel');
    await kill(canceller.child);
    const cancelled = JSON.parse(canceller.lines()[0]!) as { success: boolean; output: string };
    assert.equal(cancelled.success, true, cancelled.output);
    assert.match(cancelled.output, /"status": "cancelled"/);
    // Its time comes (moved in the store) and a job for it is delivered now: the store says cancelled.
    assert.ok(await store.updateTask(id, ['cancelled'], { runAt: Date.now() }));
    const queue = await rawQueue(cluster.queue, 'default');
    try {
      await queue.add('task', { task: id }, { jobId: `task-${id}-now`, removeOnComplete: true, removeOnFail: true });
      await until(async () => (await queue.getJob(`task-${id}-now`)) === undefined, 60_000, 'the job to be handled');
    } finally {
      await queue.close();
    }
    assert.equal(cluster.marker('cancelled.txt').length, 0, 'the cancelled task never ran');
    assert.equal((await store.task(id))?.state, 'cancelled');
    assert.equal(await store.get(id, 'maker'), undefined, 'no call was ever recorded for it');
  });

  it('runs a task moved from an hour ahead to now, once', { timeout: 120_000 }, async () => {
    const made = await tools.execute({ name: 'task_create', arguments: { tool: 'append_call_id', arguments: { file: 'moved.txt' }, delaySeconds: 3600 }, callId: 'make-moved' }, { session: 'mover' });
    const id = idOf(made.output);
    const moved = await tools.execute({ name: 'task_reschedule', arguments: { id, delaySeconds: 1 }, callId: 'move-moved' }, { session: 'mover' });
    assert.equal(moved.success, true, moved.output);
    const waited = await tools.execute({ name: 'task_wait', arguments: { id, timeoutSeconds: 60 }, callId: 'wait-moved' }, { session: 'mover' });
    assert.match(waited.output, /"status": "done"/, waited.output);
    assert.equal(cluster.marker('moved.txt').length, 1);
    // A subagent run needs the agent that makes it: never a task on a pool of workers.
    const sub = await tools.execute({ name: 'task_create', arguments: { subagent: { prompt: 'do it' } }, callId: 'sub-queued' }, { session: 'mover' });
    assert.equal(sub.success, false, sub.output);
    assert.match(sub.output, /pool of workers/);
  });
});
}

after(async () => {
  if (!('skip' in pg)) await pg.stop();
});
