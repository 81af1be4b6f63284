/**
 * Scheduled tasks, the call store's record of background work an agent started with
 * `task_create` (the `task` domain, `tools-ported/task/`): one call to run now or at a time,
 * kept until it runs so that a restarted process finds it (`src/system/task-scheduler.ts`
 * runs what is due). A task is not a call: when it starts, it becomes one call of the store
 * (its {@link TaskRecord.callId} in its {@link TaskRecord.session}), which is decided, claimed,
 * run and ended like every other, and whose result is the task's.
 *
 * States: `scheduled -> started`, `scheduled <-> paused`, `scheduled | paused -> cancelled`.
 * Every change is a conditional write ({@link ScheduledTasks.updateTask}: only from the states
 * given), so that of two schedulers (two processes) exactly one starts a task.
 *
 * Tables: `scheduled_tasks` (SQLite migration 7, PostgreSQL migration 2).
 *
 * @module
 */

/** The states of a task ({@link TaskRecord.state}). */
export type TaskState = 'scheduled' | 'paused' | 'cancelled' | 'started';

/** A task as {@link ScheduledTasks.createTask} takes it. */
export interface NewTask {
  /** `task_` and 16 hex digits, unique in the store. */
  id: string;
  /** The workspace root of the call (absolute). */
  workspace: string;
  /** The session the call runs in (the creating call's). */
  session: string;
  /** Who sees the task while attached: the creating turn (else its session). */
  scope: string;
  /** Whether it belongs to the workspace rather than to its scope (`task_detach`). */
  detached: boolean;
  tool: string;
  /** The version (or semver range) the call resolves. */
  version: string;
  /** The call's arguments (checked against the tool's schema when created). */
  arguments: Readonly<Record<string, unknown>>;
  /** How to run the call: mode, approval mode, scoped write folders, agent, turn. */
  options: Readonly<Record<string, unknown>>;
  /** A title for people and the model (at most 200 characters; may be empty). */
  title: string;
  /** `scheduled` or `paused`. */
  state: TaskState;
  /** When it is due, in ms since the epoch. */
  runAt: number;
  /** The call id it runs as (in `session`). */
  callId: string;
}

/** A stored task. */
export interface TaskRecord extends NewTask {
  arguments: Record<string, unknown>;
  options: Record<string, unknown>;
  createdAt: number;
  updatedAt: number;
  /** The owner id (`host:pid:start`) of the scheduler that started it, once started. */
  startedBy: string | undefined;
}

/** What {@link ScheduledTasks.updateTask} may change. */
export interface TaskChange {
  state?: TaskState;
  runAt?: number;
  title?: string;
  arguments?: Readonly<Record<string, unknown>>;
  detached?: boolean;
  startedBy?: string;
}

/** Filters of {@link ScheduledTasks.tasks}. */
export interface TaskFilter {
  /** Tasks of this workspace root. */
  workspace?: string;
  /** Tasks of this scope, or detached ones (with `workspace`). */
  scopeOrDetached?: string;
  /** Tasks in one of these states. */
  states?: readonly TaskState[];
  /** Tasks due at or before this time (ms since the epoch). */
  dueBy?: number;
  /** At most this many, earliest `runAt` first. Default 100. */
  limit?: number;
}

/**
 * Scheduled tasks in the call store. Writes are atomic, and rejected with the store's error
 * when it cannot be written (nothing is changed then); a read-only store rejects every write.
 */
export interface ScheduledTasks {
  /** Store a new task. Rejects when its id is taken. @returns the task as stored. */
  createTask(task: NewTask): Promise<TaskRecord>;
  /** A task, or `undefined`. */
  task(id: string): Promise<TaskRecord | undefined>;
  /** Tasks, earliest `runAt` first (ties by creation), filtered. */
  tasks(filter?: TaskFilter): Promise<TaskRecord[]>;
  /**
   * Change a task only while its state is one of `from` (atomic and conditional: of two
   * updates racing from the same state, one wins). `updatedAt` becomes now.
   * @returns the task as changed; `undefined` when it is unknown or in another state.
   */
  updateTask(id: string, from: readonly TaskState[], change: TaskChange): Promise<TaskRecord | undefined>;
}

/** Columns of a stored task row (SQLite and PostgreSQL alike, flags as 0/1 or booleans). */
export interface TaskRow {
  id: string;
  workspace: string;
  session: string;
  scope: string;
  detached: number | boolean;
  tool: string;
  version: string;
  arguments: string;
  options: string;
  title: string;
  state: string;
  run_at: number | string;
  call_id: string;
  created_at: number | string;
  updated_at: number | string;
  started_by: string | null;
}

/** The record of a row. */
export function taskOfRow(row: TaskRow): TaskRecord {
  return {
    id: row.id, workspace: row.workspace, session: row.session, scope: row.scope, detached: row.detached === true || row.detached === 1,
    tool: row.tool, version: row.version, arguments: JSON.parse(row.arguments) as Record<string, unknown>,
    options: JSON.parse(row.options) as Record<string, unknown>, title: row.title, state: row.state as TaskState, runAt: Number(row.run_at),
    callId: row.call_id, createdAt: Number(row.created_at), updatedAt: Number(row.updated_at), startedBy: row.started_by ?? undefined,
  };
}

/**
 * The SET list and its values for a change (column names are fixed here, never from input).
 * @param placeholder - the driver's parameter marker for the i-th value (`?` or `$i`).
 */
export function taskChangeSql(change: TaskChange, now: number, placeholder: (i: number) => string, flag: (b: boolean) => unknown): { set: string; values: unknown[] } {
  const values: unknown[] = [];
  const parts: string[] = [];
  const put = (column: string, value: unknown) => {
    values.push(value);
    parts.push(`${column} = ${placeholder(values.length)}`);
  };
  if (change.state !== undefined) put('state', change.state);
  if (change.runAt !== undefined) put('run_at', change.runAt);
  if (change.title !== undefined) put('title', change.title);
  if (change.arguments !== undefined) put('arguments', JSON.stringify(change.arguments));
  if (change.detached !== undefined) put('detached', flag(change.detached));
  if (change.startedBy !== undefined) put('started_by', change.startedBy);
  put('updated_at', now);
  return { set: parts.join(', '), values };
}
