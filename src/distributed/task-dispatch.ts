/**
 * Tasks of the `task` domain on the queue (docs/tasks.md, docs/distributed.md): a worker's
 * scheduler (`src/system/task-scheduler.ts`) hands its tasks to a {@link QueueTaskDispatch}.
 *
 * - **Scheduled**: a task created, resumed or moved becomes a delayed BullMQ job on its pool's
 *   queue (`{ task: id }`, job id `task-<id>-<due time>`: adding it again is a no-op, a moved
 *   task gets a new job and the old one finds it not due). The queue's server (Redis with AOF,
 *   or PostgreSQL) keeps it through restarts of any machine; a job lost anyway is found by every worker's scheduler, which
 *   also looks at the store at most 30 s apart.
 * - **Due**: whichever worker of the pool takes the job starts the task through the store's
 *   conditional write (`scheduled -> started`: one starter of any number wins, however often
 *   the job is delivered), then records the task's call as any caller's call queued for the
 *   pool (call id = task id, in the creator's session and turn) and adds its job. A worker of
 *   the pool then decides it (its own policy, protected paths and approval mode: a task cannot
 *   do what its creator's calls could not), claims it under a lease and runs it once; it asks,
 *   parks and resumes as any queued call does.
 * - **Cancelled** while its call runs: the store's cancel flag and a message on the cancel
 *   channel, as for any queued call.
 *
 * A job is untrusted: it names a task, and the worker reads the task from the store.
 *
 * @module
 */
import type { CallStore, NewCall } from '../ledger/call-store.js';
import type { TaskRecord } from '../ledger/scheduled-tasks.js';
import type { Logger } from '../logging/logger.js';
import type { TaskDispatch, TaskStarter } from '../system/task-dispatch.js';
import { jobIdOf, poolOption } from './job.js';
import type { JobQueue, QueueBackend } from './queue-backend.js';

/** The name of a task's job (a call's job is named `call`). */
export const TASK_JOB = 'task';

const TASK_ID = /^task_[0-9a-f]{16}$/;

/** The task a job names, or `undefined` when its data is not one (the job is dropped). */
export function parseTaskJob(data: unknown): string | undefined {
  const id = data !== null && typeof data === 'object' ? (data as Record<string, unknown>).task : undefined;
  return typeof id === 'string' && TASK_ID.test(id) ? id : undefined;
}

/** Sends a worker's tasks to the queue. */
export class QueueTaskDispatch implements TaskDispatch {
  private starter: TaskStarter | undefined;
  /** Queues of the pools tasks were sent to (the worker's own, and the pools its tasks name). */
  private readonly queues = new Map<string, JobQueue>();
  private closed = false;

  /**
   * @param backend - the queue's backend (the queues made here are its; the caller closes it).
   * @param store - the shared store (not a worker's view of it): the task's call is recorded there as a caller records one.
   */
  constructor(readonly pool: string, private readonly backend: QueueBackend, private readonly store: CallStore, private readonly logger: Logger) {}

  attach(starter: TaskStarter): void {
    this.starter = starter;
  }

  /** The pool a task runs in: the one stored with it (a valid name), else this worker's. */
  private poolOf(task: TaskRecord): string {
    const stored = task.options.pool;
    try {
      return typeof stored === 'string' ? poolOption(stored) : this.pool;
    } catch {
      return this.pool;
    }
  }

  private async queue(pool: string): Promise<JobQueue> {
    let queue = this.queues.get(pool);
    if (queue === undefined) {
      queue = this.backend.queue(pool);
      this.queues.set(pool, queue);
    }
    return queue;
  }

  async scheduled(task: TaskRecord): Promise<void> {
    if (this.closed) return;
    const queue = await this.queue(this.poolOf(task));
    await queue.add(TASK_JOB, { task: task.id }, {
      jobId: `task-${task.id}-${task.runAt}`, delay: Math.max(0, task.runAt - Date.now()), removeOnComplete: true, removeOnFail: true, attempts: 1,
    });
  }

  async launch(task: TaskRecord): Promise<void> {
    const pool = this.poolOf(task);
    const turn = typeof task.options.turn === 'string' ? task.options.turn : '';
    const call: NewCall = {
      callId: task.callId, session: task.session, tool: task.tool, version: task.version, arguments: task.arguments,
      workspace: task.workspace, turn, pool, options: {},
    };
    // The outbox, as a caller: the row first (a second record of the key changes nothing), then the job.
    const outcome = await this.store.record(call);
    if (outcome.kind === 'ended' || (outcome.kind === 'in_progress' && outcome.record.state !== 'pending')) return;
    const key = { callId: task.callId, session: task.session };
    await (await this.queue(pool)).add('call', key, { jobId: jobIdOf(key), removeOnComplete: true, removeOnFail: true, attempts: 1 });
  }

  async cancelled(task: TaskRecord): Promise<void> {
    await this.backend.publishCancel(JSON.stringify({ callId: task.callId, session: task.session }));
  }

  /** A task's job came: start the task if it is due (the store decides who starts it). */
  async due(id: string): Promise<void> {
    if (this.starter === undefined || this.closed) return;
    const started = await this.starter.startDue(id);
    if (started) this.logger.info({ event: 'task_job_started', task: id, pool: this.pool }, 'a task\'s job started it');
  }

  async close(): Promise<void> {
    this.closed = true;
    await Promise.all([...this.queues.values()].map((q) => q.close().catch(() => undefined)));
    this.queues.clear();
  }
}
