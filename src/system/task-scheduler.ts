/**
 * The local task scheduler: runs the tasks of the `task` domain (`tools-ported/task/`) when
 * they are due, and answers the task tools' calls ({@link TaskScheduler.forCaller}).
 *
 * - **Where tasks live**: in the call store (`ScheduledTasks`, `src/ledger/scheduled-tasks.ts`),
 *   so a task outlives the process that scheduled it: a tool system started later on the same
 *   store and workspace runs what is due, off the call path (a timer, never inside a call).
 * - **Once**: a due task is started by a conditional write (`scheduled -> started`) that one
 *   scheduler wins, whatever the number of processes; it then runs as one call of the store
 *   (call id = task id), which the store's call key makes exactly-once as well.
 * - **Decided when it runs**: the call goes through `ToolSystem.execute` with the creating
 *   call's session, turn, mode, scoped write folders, approval mode and agent pins: every
 *   decider decides it then (a policy changed since denies it), and an `ask` becomes a
 *   question in the ledger (`toolgate approvals allow ID`, the cockpit), waited for as long
 *   as this process runs; after a restart, `toolgate approvals allow` runs it. When it is
 *   created, the call is also previewed with the caller's own options (lazy visibility
 *   included), and a call that would be refused then is not stored at all.
 * - **Timer**: one look at start, then at the next due time (at most {@link IDLE_MS} apart,
 *   so tasks another process stored are found too); unref'd, so it never keeps a process alive.
 *
 * @module
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { ToolExecutionError } from '../errors/errors.js';
import type { CallStore } from '../ledger/call-store.js';
import { ownerAlive } from '../ledger/owner.js';
import type { TaskRecord, TaskState } from '../ledger/scheduled-tasks.js';
import type { Logger } from '../logging/logger.js';
import { RegisteredTool } from '../registry/registered-tool.js';
import { isCallerTool } from '../registry/visibility.js';
import { TASK_DOMAIN, type TaskService, type TaskToolName } from '../types/task-service.js';
import type { ToolCallRequest, ToolExecutionResult } from '../types/result.js';
import type { AgentCallOptions } from './tool-call-handler.js';
import type { ToolRegistry } from '../registry/registry.js';
import type { CallPreview } from '../executor/executor-options.js';
import { waitForAnswerElsewhere } from './asking.js';
import { resolveMode, type AgentMode } from '../modes/modes.js';
import { badInput, dueTime, FINAL_STATUSES, refused, TASK_LIMITS, viewOf } from './task-views.js';
import type { TaskDispatch, TaskStarter } from './task-dispatch.js';
import { RUN_SUBAGENT, SUBAGENT_GONE, SubagentClients, subagentTaskCall } from './task-subagents.js';
import { failedResult } from '../closeout/results.js';

/** Longest time between two looks for due tasks, in ms. */
const IDLE_MS = 30_000;
/** After a failed look, the next one in ms. */
const RETRY_MS = 5_000;
/** With a dispatch: a task started this long ago whose call is not recorded is scheduled again (its call id keeps it to one run), in ms. */
const LOST_MS = 60_000;
/** Due tasks started per look at most (the rest at once after). */
const BATCH = 20;
const ID_PATTERN = /^task_[0-9a-f]{16}$/;

/** What the scheduler needs of the tool system. */
export interface TaskHost {
  readonly workspace: string;
  readonly registry: ToolRegistry;
  readonly defaultMode: unknown;
  readonly logger: Logger;
  readonly executor: { readonly session: string };
  execute(call: ToolCallRequest, options: AgentCallOptions): Promise<ToolExecutionResult>;
  preview(call: ToolCallRequest, options: AgentCallOptions): Promise<CallPreview>;
  readonly versions: { rangeFor(agent: string | undefined, name: string): string | undefined };
}

/** The runner of one tool system's tasks. */
export class TaskScheduler implements TaskStarter {
  private timer: NodeJS.Timeout | undefined;
  private closed = false;
  private looking = false;
  /** When tasks lost between their start and their call were last looked for (ms since the epoch; 0: never). */
  private lostChecked = 0;
  /** Whether this tool system runs tasks ({@link start}); without it, tasks are stored and answered only. */
  private running = false;
  /** The agents (caller services) of subagent tasks created here, until they start. */
  private readonly subagents = new SubagentClients();

  /**
   * @param dispatch - where a worker of a pool sends its tasks (`task-dispatch.ts`): a due
   *   task's call goes to the pool instead of running here. Default: run here.
   */
  constructor(private readonly host: TaskHost, private readonly store: CallStore, private readonly dispatch?: TaskDispatch) {
    dispatch?.attach(this);
  }

  /** Look for due tasks now (off the caller's path) and from then on. */
  start(): void {
    this.running = true;
    this.arm(0);
  }

  /**
   * Tasks a scheduler started but whose call it never recorded (its process died in between):
   * scheduled again, so they run (their call id keeps them to one run). Only those changed in
   * the last day are looked at, of owners gone (on one machine), or started over
   * {@link LOST_MS} ago (with a dispatch: their starter may be on another machine).
   */
  private async restartLost(): Promise<void> {
    const now = Date.now();
    const since = now - 24 * 3600_000;
    const started = await this.store.tasks({ workspace: this.host.workspace, states: ['started'], dueBy: now, limit: 1000 });
    for (const task of started) {
      if (task.updatedAt < since || task.startedBy === undefined) continue;
      if (this.dispatch === undefined ? ownerIsAlive(task.startedBy) : task.updatedAt > now - LOST_MS) continue;
      if ((await this.store.get(task.callId, task.session)) !== undefined) continue;
      if ((await this.store.updateTask(task.id, ['started'], { state: 'scheduled' })) !== undefined) {
        this.host.logger.warn({ event: 'task_restarted', task: task.id }, 'a task whose scheduler died before its call was recorded is scheduled again');
      }
    }
  }

  /** Stop looking. Calls already started go on as the tool system's calls. */
  close(): void {
    this.closed = true;
    this.subagents.close();
    clearTimeout(this.timer);
  }

  private arm(delayMs: number): void {
    clearTimeout(this.timer);
    if (this.closed || !this.running) return;
    this.timer = setTimeout(() => void this.look(), Math.max(0, Math.min(delayMs, IDLE_MS)));
    this.timer.unref();
  }

  /** Start what is due; arm the timer for what comes next. */
  private async look(): Promise<void> {
    if (this.looking || this.closed) return;
    this.looking = true;
    let next = IDLE_MS;
    try {
      // Once at start; with a dispatch, at every look at most IDLE_MS apart (a worker of another machine may have died).
      if (this.lostChecked === 0 || (this.dispatch !== undefined && Date.now() - this.lostChecked >= IDLE_MS)) {
        this.lostChecked = Date.now();
        await this.restartLost();
      }
      const workspace = this.host.workspace;
      const due = await this.store.tasks({ workspace, states: ['scheduled'], dueBy: Date.now(), limit: BATCH });
      let left = 0;
      for (const task of due) {
        if (this.closed) return;
        // Another live process's agent starts its own subagent task.
        if (task.tool === RUN_SUBAGENT && !this.subagents.has(task.id) && heldElsewhere(task, this.store.owner)) {
          left++;
          continue;
        }
        const started = await this.store.updateTask(task.id, ['scheduled'], { state: 'started', startedBy: this.store.owner });
        if (started !== undefined) this.launch(started);
      }
      const [first] = due.length === BATCH ? [undefined] : await this.store.tasks({ workspace, states: ['scheduled'], limit: 1 });
      next = due.length === BATCH && left < BATCH ? 0 : first === undefined ? IDLE_MS : first.runAt - Date.now();
      // Due tasks left to their agents' processes: looked at again a while later (whoever started them, or their agent's process died).
      if (left > 0) next = Math.max(Math.min(next, IDLE_MS), RETRY_MS);
    } catch (error) {
      next = RETRY_MS;
      this.host.logger.warn({ event: 'task_look_failed', err: (error as Error)?.message }, 'looking for due tasks failed');
    } finally {
      this.looking = false;
    }
    this.arm(next);
  }

  async startDue(id: string): Promise<boolean> {
    const task = ID_PATTERN.test(id) ? await this.store.task(id) : undefined;
    if (task === undefined || task.workspace !== this.host.workspace || task.state !== 'scheduled' || this.closed) return false;
    if (task.runAt > Date.now()) {
      // Woken early (moved later since, or another clock): woken again at its time.
      await this.dispatch?.scheduled(task).catch((error: unknown) => this.dispatchFailed(task, error));
      return false;
    }
    const started = await this.store.updateTask(task.id, ['scheduled'], { state: 'started', startedBy: this.store.owner });
    if (started === undefined) return false;
    this.launch(started);
    return true;
  }

  private dispatchFailed(task: TaskRecord, error: unknown): void {
    this.host.logger.warn({ event: 'task_dispatch_failed', task: task.id, err: (error as Error)?.message }, 'could not reach the queue for a task; the schedulers\' looks at the store find it');
  }

  /** Tell the dispatch a task is scheduled (its delayed job); a failure is logged (the looks find the task anyway). */
  private async scheduledNow(task: TaskRecord): Promise<void> {
    await this.dispatch?.scheduled(task).catch((error: unknown) => this.dispatchFailed(task, error));
  }

  /** Run a started task's call, as its creator's call would run now (with a dispatch: sent to its pool). */
  private launch(task: TaskRecord): void {
    if (this.dispatch !== undefined) {
      this.host.logger.info({ event: 'task_started', task: task.id, tool: task.tool, pool: this.dispatch.pool }, 'a scheduled task started: its call is sent to its pool');
      void this.dispatch.launch(task).catch((error: unknown) => this.dispatchFailed(task, error));
      return;
    }
    const o = task.options as { mode?: string; approvalMode?: AgentCallOptions['approvalMode']; scopedWriteDirs?: string[]; agent?: string; turn?: string };
    // A subagent run needs its agent (its driver), kept in this process: without it, its call ends unrun.
    const client = task.tool === RUN_SUBAGENT ? this.subagents.take(task.id) : undefined;
    if (task.tool === RUN_SUBAGENT && client === undefined) {
      const call = { callId: task.callId, session: task.session, tool: task.tool, version: task.version, arguments: task.arguments, workspace: task.workspace, turn: o.turn ?? '' };
      void this.store.finish(call, { state: 'failed', decisions: undefined, result: failedResult('CLIENT_UNAVAILABLE', SUBAGENT_GONE, { tool: task.tool, callId: task.callId }) })
        .catch((error: unknown) => this.host.logger.warn({ event: 'task_failed', task: task.id, err: (error as Error)?.message }, 'could not end a subagent task whose agent is gone'));
      return;
    }
    this.host.logger.info({ event: 'task_started', task: task.id, tool: task.tool }, 'a scheduled task started');
    void this.host.execute({ name: task.tool, version: task.version, arguments: task.arguments, callId: task.callId }, {
      session: task.session, ...(o.turn ? { turnId: o.turn } : {}), ...(o.mode ? { mode: o.mode } : {}), ...(o.approvalMode ? { approvalMode: o.approvalMode } : {}),
      ...(o.scopedWriteDirs ? { scopedWriteDirs: o.scopedWriteDirs } : {}), ...(o.agent ? { agent: o.agent } : {}), ...(client ? { client } : {}),
      // An ask waits in the ledger for a person (toolgate approvals, the cockpit) while this process runs.
      confirmationHandler: waitForAnswerElsewhere(() => 0),
    }).then(
      (result) => this.host.logger.info({ event: 'task_ended', task: task.id, success: result.success, errorCode: result.errorCode }, 'a scheduled task ended'),
      (error: unknown) => this.host.logger.warn({ event: 'task_failed', task: task.id, err: (error as Error)?.message }, 'a scheduled task failed to run'),
    );
  }

  /** The task service for one call of a task tool, bound to its caller's options. */
  forCaller(options: AgentCallOptions): TaskService {
    return { answer: async (tool, args, signal, deadline) => noteIfNotRun(tool, await this.answer(options, tool, args, signal, deadline), this.running) };
  }

  private async answer(caller: AgentCallOptions, tool: TaskToolName, args: Readonly<Record<string, unknown>>, signal: AbortSignal, deadline: number | undefined): Promise<string> {
    const json = (value: unknown) => JSON.stringify(value, null, 1);
    if (tool === 'task_create') return json(await this.create(caller, args));
    if (tool === 'task_list') {
      const states = typeof args.state === 'string' ? [args.state as TaskState] : undefined;
      const listed = await this.store.tasks({ workspace: this.host.workspace, scopeOrDetached: scopeOf(caller, this.host), ...(states ? { states } : {}), limit: TASK_LIMITS.listed });
      return json({ tasks: await Promise.all(listed.map((t) => viewOf(this.store, t, false))) });
    }
    const task = await this.find(caller, args.id);
    switch (tool) {
      case 'task_get':
        return json(await viewOf(this.store, task));
      case 'task_wait':
        return json(await this.wait(task, args.timeoutSeconds, signal, deadline));
      case 'task_cancel':
        return json(await this.cancel(task));
      case 'task_pause':
        return json(await this.change(task, ['scheduled'], { state: 'paused' }, 'paused'));
      case 'task_resume':
        this.ownScope(caller, task, 'resume');
        return json(await this.change(task, ['paused'], { state: 'scheduled' }, 'resumed'));
      case 'task_detach':
        if (task.detached) return json({ ...(await viewOf(this.store, task)), note: 'already detached' });
        return json(await this.change(task, ['scheduled', 'paused', 'started', 'cancelled'], { detached: true }, 'detached'));
      case 'task_reschedule':
        if (args.at === undefined && args.delaySeconds === undefined) throw badInput('Give the new time: at or delaySeconds.');
        this.ownScope(caller, task, 'reschedule');
        return json(await this.change(task, ['scheduled', 'paused'], { runAt: dueTime(args) }, 'rescheduled'));
      case 'task_update':
        return json(await this.update(caller, task, args));
    }
    throw new ToolExecutionError(`${String(tool)} is not a task tool.`);
  }

  /** A task the caller may see: of its scope (turn, else session), or detached; in this workspace. */
  private async find(caller: AgentCallOptions, id: unknown): Promise<TaskRecord> {
    const task = typeof id === 'string' && ID_PATTERN.test(id) ? await this.store.task(id) : undefined;
    if (task === undefined || task.workspace !== this.host.workspace || !(task.detached || task.scope === scopeOf(caller, this.host))) {
      throw badInput(`There is no task ${JSON.stringify(String(id).slice(0, 40))} of yours (task_list shows them).`);
    }
    return task;
  }

  private async create(caller: AgentCallOptions, args: Readonly<Record<string, unknown>>) {
    if ((args.tool === undefined) === (args.subagent === undefined)) throw badInput('Give the tool to run (with its arguments) or a subagent run, one of them. Nothing was stored.');
    if (args.subagent !== undefined && args.arguments !== undefined) throw badInput('arguments go with tool; a subagent run takes subagent.prompt. Nothing was stored.');
    const subagent = args.subagent === undefined ? undefined : subagentTaskCall(caller, args.subagent, this.dispatch !== undefined);
    const name = subagent?.tool ?? String(args.tool);
    const found = this.host.registry.resolve(name, caller.agent === undefined ? undefined : this.host.versions.rangeFor(caller.agent, name));
    if (!(found instanceof RegisteredTool)) throw badInput(`There is no tool ${JSON.stringify(name.slice(0, 100))} to run as a task (${found.code}). Nothing was stored.`);
    if (subagent === undefined && (found.domain === TASK_DOMAIN || isCallerTool(found))) throw badInput(`${name} cannot run as a task (a task runs one ordinary tool, or a subagent run). Nothing was stored.`);
    const callArgs = subagent?.arguments ?? (args.arguments ?? {}) as Record<string, unknown>;
    if (JSON.stringify(callArgs).length > TASK_LIMITS.argumentChars) throw badInput(`The arguments are over ${TASK_LIMITS.argumentChars} characters of JSON. Nothing was stored.`);
    const title = typeof args.title === 'string' ? args.title : '';
    if (title.length > TASK_LIMITS.titleChars) throw badInput(`The title is over ${TASK_LIMITS.titleChars} characters. Nothing was stored.`);
    const runAt = dueTime(args);
    if (caller.workspaceRoot !== undefined && realOf(caller.workspaceRoot) !== realOf(this.host.workspace)) {
      // Its call would run in the tool system's workspace, not in the root this caller is confined to.
      throw refused(`Tasks run in the workspace ${this.host.workspace}; this caller's calls run in another root. Nothing was stored.`);
    }
    // A subagent task's agent lives in this process: other processes leave it to this one while it runs.
    const options = { ...this.optionsOf(caller), ...(subagent ? { holder: this.store.owner } : {}) };
    // Refused now what would be refused when it runs (unknown, invalid, denied, hidden from this caller).
    const { confirm: _c, approvedRevision: _r, confirmationHandler: _h, signal: _s, ...asCaller } = caller;
    const preview = await this.host.preview({ name, version: found.version, arguments: callArgs, callId: 'task-preview' }, asCaller);
    if (preview.verdict === 'deny') {
      const message = `The call ${name} would be refused (${preview.code}): ${preview.reason ?? ''} Nothing was stored.`;
      throw preview.code === 'INVALID_ARGUMENTS' || preview.code === 'INVALID_PATH' ? badInput(message) : refused(message);
    }
    const open = await this.store.tasks({ workspace: this.host.workspace, states: ['scheduled', 'paused'], limit: TASK_LIMITS.openTasks + 1 });
    if (open.length >= TASK_LIMITS.openTasks) throw refused(`This workspace has ${TASK_LIMITS.openTasks} tasks waiting to run already; cancel some first. Nothing was stored.`);
    const id = `task_${crypto.randomBytes(8).toString('hex')}`;
    const task = await this.store.createTask({
      id, workspace: this.host.workspace, session: caller.session ?? this.host.executor.session, scope: scopeOf(caller, this.host), detached: args.detach === true,
      tool: name, version: found.version, arguments: callArgs, title, state: 'scheduled', runAt, callId: id,
      options,
    });
    if (subagent !== undefined) this.subagents.hold(task.id, caller.client);
    this.arm(runAt - Date.now());
    await this.scheduledNow(task);
    return { ...(await viewOf(this.store, task)), ...(preview.verdict === 'ask' ? { note: 'its call will ask a person when it runs (toolgate approvals, the cockpit)' } : {}) };
  }

  /** The options a task's call runs with, stored when it is created (what {@link launch} reads). */
  private optionsOf(caller: AgentCallOptions): Record<string, unknown> {
    const { mode, scopedWriteDirs } = storedMode(caller.mode ?? this.host.defaultMode, caller.scopedWriteDirs);
    return {
      mode, ...(caller.approvalMode ? { approvalMode: caller.approvalMode } : {}), ...(scopedWriteDirs.length ? { scopedWriteDirs } : {}),
      ...(caller.agent ? { agent: caller.agent } : {}), ...(caller.turnId ? { turn: caller.turnId } : {}),
      ...(this.dispatch ? { pool: this.dispatch.pool } : {}),
    };
  }

  /**
   * Whether `caller` would store the same call options as `task`'s creator did (same scope:
   * turn, else session; mode, approval mode, scoped write folders, agent): only then may it give the task new
   * arguments, which run with those options. Any other caller (one that sees a detached task)
   * would have its arguments run with rights that are not its own.
   */
  private sameRights(caller: AgentCallOptions, task: TaskRecord): boolean {
    if (scopeOf(caller, this.host) !== task.scope) return false;
    let own: Record<string, unknown>;
    try {
      own = this.optionsOf(caller);
    } catch {
      return false;
    }
    return canonical(own) === canonical(task.options);
  }

  /**
   * Refuse another caller's change of when a task runs: its call runs with its creator's
   * rights, at a time the creator chose (another caller sees a detached task, and may cancel
   * it). The creator is the task's scope: its turn (every model round of an agent's turn, each
   * a session of its own), else its session.
   * @throws ToolExecutionError when `caller` is not of the task's scope.
   */
  private ownScope(caller: AgentCallOptions, task: TaskRecord, what: string): void {
    if (scopeOf(caller, this.host) !== task.scope) {
      throw refused(`Task ${task.id} is another turn's or session's, and runs with its rights: only its creator may ${what} it (you may cancel it, or create a task of your own).`);
    }
  }

  private async wait(task: TaskRecord, seconds: unknown, signal: AbortSignal, deadline: number | undefined) {
    const wanted = seconds === undefined ? 30 : Number(seconds);
    if (!Number.isFinite(wanted) || wanted < 0 || wanted > TASK_LIMITS.waitSeconds) throw badInput(`timeoutSeconds must be 0 to ${TASK_LIMITS.waitSeconds}.`);
    let until = Date.now() + wanted * 1000;
    if (deadline !== undefined) until = Math.min(until, deadline - 1000);
    for (;;) {
      const current = (await this.store.task(task.id)) ?? task;
      const view = await viewOf(this.store, current);
      const left = until - Date.now();
      if (FINAL_STATUSES.has(view.status) || view.status === 'paused' || left <= 0 || signal.aborted) return { ...view, waitEnded: FINAL_STATUSES.has(view.status) ? 'finished' : view.status === 'paused' ? 'paused' : 'timeout' };
      const stop = AbortSignal.any([signal, AbortSignal.timeout(left)]);
      if (view.status === 'scheduled' || view.status === 'starting') await sleep(Math.min(250, left), undefined, { signal: stop }).catch(() => undefined);
      else await this.store.waitForEnd({ callId: current.callId, session: current.session }, stop).catch(() => undefined);
    }
  }

  private async cancel(task: TaskRecord) {
    const changed = await this.store.updateTask(task.id, ['scheduled', 'paused'], { state: 'cancelled' });
    if (changed !== undefined) this.subagents.drop(task.id);
    if (changed !== undefined) return { ...(await viewOf(this.store, changed)), note: 'cancelled before it ran' };
    const view = await viewOf(this.store, (await this.store.task(task.id)) ?? task);
    if (FINAL_STATUSES.has(view.status)) throw refused(`Task ${task.id} has finished (${view.status}); there is nothing to cancel.`);
    if (!(await this.store.requestCancel(task.callId, task.session))) throw refused(`Task ${task.id} is ${view.status}; it could not be cancelled.`);
    await this.dispatch?.cancelled(task).catch((error: unknown) => this.dispatchFailed(task, error));
    return { ...view, note: 'cancel requested: its call stops as soon as its tool allows (task_wait shows how it ended)' };
  }

  private async change(task: TaskRecord, from: readonly TaskState[], change: Parameters<CallStore['updateTask']>[2], what: string) {
    const changed = await this.store.updateTask(task.id, from, change);
    if (changed === undefined) {
      const view = await viewOf(this.store, (await this.store.task(task.id)) ?? task, false);
      throw refused(`Task ${task.id} is ${view.status}, so it cannot be ${what} (only a task that is ${from.join(' or ')} can).`);
    }
    if (changed.state === 'scheduled') {
      this.arm(changed.runAt - Date.now());
      // Resumed or moved: its (new) delayed job; a job of an older time finds it not due and does nothing.
      if (change.state === 'scheduled' || change.runAt !== undefined) await this.scheduledNow(changed);
    }
    return { ...(await viewOf(this.store, changed)), note: what };
  }

  private async update(caller: AgentCallOptions, task: TaskRecord, args: Readonly<Record<string, unknown>>) {
    if (args.title === undefined && args.arguments === undefined) throw badInput('Give a new title or new arguments.');
    if (typeof args.title === 'string' && args.title.length > TASK_LIMITS.titleChars) throw badInput(`The title is over ${TASK_LIMITS.titleChars} characters.`);
    const callArgs = args.arguments as Record<string, unknown> | undefined;
    if (callArgs !== undefined) {
      if (!this.sameRights(caller, task)) throw refused(`Task ${task.id} runs with its creator's session, mode and approval mode, not this caller's: only its creator may change its arguments (create a task of your own instead).`);
      if (JSON.stringify(callArgs).length > TASK_LIMITS.argumentChars) throw badInput(`The arguments are over ${TASK_LIMITS.argumentChars} characters of JSON.`);
      const { confirm: _c, approvedRevision: _r, confirmationHandler: _h, signal: _s, ...asCaller } = caller;
      const preview = await this.host.preview({ name: task.tool, version: task.version, arguments: callArgs, callId: 'task-preview' }, asCaller);
      if (preview.verdict === 'deny') throw (preview.code === 'INVALID_ARGUMENTS' ? badInput : refused)(`The call ${task.tool} would be refused (${preview.code}): ${preview.reason ?? ''}`);
    }
    return this.change(task, ['scheduled', 'paused'], { ...(typeof args.title === 'string' ? { title: args.title } : {}), ...(callArgs ? { arguments: callArgs } : {}) }, 'updated');
  }
}

/**
 * The mode a task's call runs in, by name, and its scoped write folders (the caller's and its
 * mode object's): a later process rebuilds the mode from its name, so a mode object is kept
 * only when it is a built-in mode's (same name, same `readOnly`).
 * @throws ToolExecutionError for any other mode object (nothing is stored).
 */
function storedMode(mode: unknown, dirs: readonly string[] | undefined): { mode: string; scopedWriteDirs: string[] } {
  const name = typeof mode === 'string' ? mode : (mode as AgentMode | null)?.name;
  const builtin = typeof name === 'string' ? resolveMode(name) : undefined;
  if (builtin === undefined || (typeof mode !== 'string' && (mode as AgentMode).readOnly !== builtin.readOnly)) {
    throw refused(`Tasks run in a built-in mode (default, explore, plan) that a later process can rebuild; this caller's mode ${JSON.stringify(String(name).slice(0, 50))} is its own. Nothing was stored.`);
  }
  const own = typeof mode === 'string' ? [] : (mode as AgentMode).scopedWriteDirs ?? [];
  return { mode: name!, scopedWriteDirs: [...new Set([...own, ...(dirs ?? [])])] };
}

/** The real path of a folder (its resolved path when it cannot be read). */
function realOf(folder: string): string {
  try {
    return fs.realpathSync(folder);
  } catch {
    return path.resolve(folder);
  }
}

/** JSON of `value` with its object keys sorted (to compare stored options). */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => (v !== null && typeof v === 'object' && !Array.isArray(v) ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => a.localeCompare(b))) : v));
}

/** Whether the scheduler that started a task (`host:pid:start`, `processOwner()`) still runs. */
function ownerIsAlive(owner: string): boolean {
  const parts = /^(.*):(\d+):([^:]*)$/.exec(owner);
  if (parts === null) return true; // not understood: left alone (fail closed)
  return ownerAlive({ ownerHost: parts[1], ownerPid: Number(parts[2]), ownerStart: parts[3] === '0' ? undefined : parts[3] });
}

/** Whether a subagent task's agent is in another process that still runs (`holder`, stored when it was created). */
function heldElsewhere(task: TaskRecord, own: string): boolean {
  const holder = task.options.holder;
  return typeof holder === 'string' && holder !== own && ownerIsAlive(holder);
}

/** Who owns a caller's attached tasks: its turn, else its session. */
function scopeOf(caller: AgentCallOptions, host: TaskHost): string {
  return caller.turnId || caller.session || host.executor.session;
}

/** What a task tool adds when its process runs no tasks (`toolgate call`, `runTasks: false`), so a task waited for from there does not seem stuck. */
const NOT_RUN_HERE = 'this process runs no tasks (toolgate call and toolgate approvals are one-shot): the task runs while toolgate mcp, toolgate agent, toolgate worker or a ToolSystem of this workspace is running';

/** `answer` (a task tool's JSON) with {@link NOT_RUN_HERE} added to `task_create`'s task and to a `task_wait` that timed out on a scheduled task, when this process runs no tasks. */
function noteIfNotRun(tool: TaskToolName, answer: string, running: boolean): string {
  if (running || (tool !== 'task_create' && tool !== 'task_wait')) return answer;
  let view: { status?: unknown; waitEnded?: unknown; note?: unknown };
  try {
    view = JSON.parse(answer) as typeof view;
  } catch {
    return answer;
  }
  if (view.status !== 'scheduled' || (tool === 'task_wait' && view.waitEnded !== 'timeout')) return answer;
  return JSON.stringify({ ...view, note: typeof view.note === 'string' ? `${view.note}; ${NOT_RUN_HERE}` : NOT_RUN_HERE }, null, 1);
}
