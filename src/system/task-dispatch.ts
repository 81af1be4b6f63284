/**
 * The seam between the task scheduler (`task-scheduler.ts`) and a distributed queue
 * (`src/distributed/task-dispatch.ts`): where a tool system is a worker of a pool, its
 * scheduler does not run a due task's call itself; it hands the task to a {@link TaskDispatch},
 * which wakes a worker of the pool at the task's due time (a delayed job) and sends the task's
 * call to the pool as any caller's call, so that a worker decides it, claims it under a lease
 * and runs it once. The store stays the truth: a task is started by the store's conditional
 * write whatever woke the scheduler (a delayed job, delivered twice or late, or the
 * scheduler's own look).
 *
 * Bound to a tool system before it starts ({@link setTaskDispatch}), so that the tool system's
 * public options carry nothing of it.
 *
 * @module
 */
import type { TaskRecord } from '../ledger/scheduled-tasks.js';

/** What a dispatch may ask of the scheduler it is attached to. */
export interface TaskStarter {
  /**
   * Start the task `id` when it is due and still scheduled (the store's conditional write: of
   * any number of starters, one wins); a task not due yet is handed back to
   * {@link TaskDispatch.scheduled}. Never throws for a task that is gone or not startable.
   * @returns whether this call started it.
   */
  startDue(id: string): Promise<boolean>;
}

/** Where a worker's scheduler sends its tasks. */
export interface TaskDispatch {
  /** The pool the tasks created here run in (stored with each task). */
  readonly pool: string;
  /** Called once by the scheduler that uses this dispatch. */
  attach(starter: TaskStarter): void;
  /** A task is scheduled (created, resumed, rescheduled): wake a starter at its due time. Rejects when that could not be arranged (the scheduler's own look still finds it). */
  scheduled(task: TaskRecord): Promise<void>;
  /** A task was started here: send its call to run. Rejects when it could not be sent (the reconciler or a later look sends it). */
  launch(task: TaskRecord): Promise<void>;
  /** A started task's call was asked to stop: tell whichever worker runs it. */
  cancelled(task: TaskRecord): Promise<void>;
}

const dispatches = new WeakMap<object, TaskDispatch>();

/** Make `system`'s scheduler hand its tasks to `dispatch` (before `system.start()`). */
export function setTaskDispatch(system: object, dispatch: TaskDispatch): void {
  dispatches.set(system, dispatch);
}

/** The dispatch bound to `system`, if any. */
export function taskDispatchOf(system: object): TaskDispatch | undefined {
  return dispatches.get(system);
}
