/**
 * The process runner: tools run in child processes whose limits the operating system
 * enforces, so no tool can abort the host. Built on Node's `child_process` directly: the pool
 * libraries on npm (Piscina, Tinypool) run threads, or processes without per-process heap flags,
 * parent-death signals or a say in how a dead process's call is reported, which is the whole
 * point of this runner.
 *
 * Per memory cap, a group of child processes, each started with
 * `--max-old-space-size=<cap>` (a heap breach ends that process, never the host) and, where
 * util-linux's `setpriv` is installed (Debian: always), a parent-death signal (SIGKILL), so a
 * host killed with SIGKILL takes its children along. Each child runs one call at a time. While a
 * call runs, the child's resident memory is read every {@link RSS_CHECK_MS} ms and the child is
 * killed past the cap plus {@link RSS_MARGIN_MB} (memory outside the heap: buffers, typed
 * arrays). Where this process may create pids cgroups, each child gets one, which caps its
 * processes (threads included) at 256 and reaches those that left its process group. A
 * timeout, an abort or a breach kills the child's whole process group (and cgroup) with
 * SIGKILL; groups keep `size` children alive, so a spare that has already loaded the tool's module
 * takes the next call while a replacement starts.
 *
 * What a report says is what the runner knows: a call whose child died while loading the
 * tool's module never started, and moves to another child; a call that had started is
 * reported interrupted ("the tool may have run"). One child and its call: `process-child.ts`;
 * this module: the runner and its groups (which child takes which call, memory watching).
 *
 * @module
 */
import { sizingOf } from '../sizing.js';
import { deadlineOf, type RunnableTool, type Runner, type RunOutcome, type RunRequest } from '../runner.js';
import type { ToolEntry } from '../tool-host.js';
import type { ChildTask } from './protocol.js';
import { clientMethods } from '../client-relay.js';
import { Child, ProcessCall, type ChildOwner } from './process-child.js';

/** Resident memory a child may use above its heap cap, in MiB, before it is killed. */
const RSS_MARGIN_MB = 256;
/** How often a busy child's resident memory is read, in ms. */
const RSS_CHECK_MS = 100;
/** Children of a group that may fail to start in a row before queued calls are refused. */
const MAX_START_FAILURES = 3;

/** Options of {@link ProcessRunner}. */
export interface ProcessRunnerOptions {
  /** Child processes per memory cap. Default `max(2, available parallelism)`; at least 2 keeps a spare. */
  poolSize?: number;
  /** Heap cap in MiB for tools that declare none. Default 1024. */
  defaultMemoryMb?: number;
}

/** Runs calls in child processes. Call {@link ProcessRunner.close} to end them. */
export class ProcessRunner implements Runner {
  readonly kind = 'process';
  private readonly groups = new Map<number, ChildGroup>();
  private readonly poolSize: number;
  private readonly defaultMemoryMb: number;
  private closed = false;
  private seq = 0;

  constructor(options: ProcessRunnerOptions = {}) {
    const { size, memoryMb } = sizingOf(options);
    this.poolSize = size;
    this.defaultMemoryMb = memoryMb;
  }

  /** The heap cap a tool's calls run under, in MiB. */
  capOf(tool: RunnableTool): number {
    return tool.memoryMb ?? this.defaultMemoryMb;
  }

  private groupFor(cap: number): ChildGroup {
    let group = this.groups.get(cap);
    if (group === undefined) {
      group = new ChildGroup(cap, this.poolSize);
      this.groups.set(cap, group);
    }
    return group;
  }

  /**
   * Start a group's children now instead of on the first call: the group of `tool`'s memory
   * cap, else the default group. With `preload`, its children also begin importing the tool's
   * module before any call of it is decided (what `toolgate call` does for the modules toolgate
   * ships, whose top-level code has no effects: the import overlaps the host's own start). That
   * import is not counted as proven: a module that kills its child on import still fails as
   * its call does, and later children do not preload it until it has answered a call.
   */
  warmUp(tool?: RunnableTool, options: { preload?: boolean } = {}): void {
    if (this.closed) return;
    const group = this.groupFor(tool === undefined ? this.defaultMemoryMb : this.capOf(tool));
    group.fill();
    if (options.preload === true && tool?.moduleUrl !== undefined) for (const child of group.children) child.preload(tool.moduleUrl);
  }

  /**
   * Run one call in a child process.
   * @returns how the call ended; never rejects.
   */
  run(call: RunRequest, signal: AbortSignal | undefined): Promise<RunOutcome> {
    if (this.closed) return Promise.resolve({ kind: 'unavailable', code: 'ABORTED', message: 'the executor is closed; no more calls run' });
    if (signal?.aborted) return Promise.resolve({ kind: 'aborted' });
    const { tool } = call;
    if (tool.moduleUrl === undefined) {
      return Promise.resolve({ kind: 'error', error: { name: 'Error', message: `${tool.key} has no module URL; only tools loaded from a module run in a child process` }, notes: [] });
    }
    const entry: ToolEntry = { m: tool.moduleUrl, e: tool.exportName, k: tool.key, o: tool.maxOutputLength, x: tool.cutInWorker, t: tool.truncation };
    const group = this.groupFor(this.capOf(tool));
    return new Promise<RunOutcome>((resolve) => {
      const task: ChildTask = [++this.seq, entry, call.args, call.callId, call.workspaceRoot, deadlineOf(call) ?? 0, call.writeRoots, call.fullOutputDir, call.sandbox];
      const methods = clientMethods(call.client);
      const filtered = call.pathFilter !== undefined;
      if (call.traceparent !== undefined || methods !== 0 || filtered) task.push(call.traceparent);
      if (methods !== 0 || filtered) task.push(methods === 0 ? undefined : methods);
      if (filtered) task.push(call.pathFilter);
      const pending = new ProcessCall(group, call, task, signal, resolve);
      if (!pending.watch(call.timeoutMs, call.timeoutFrom, call)) return;
      group.enqueue(pending);
    });
  }

  /** Kill every child. Calls in flight end as interrupted; queued calls as not run. */
  async close(): Promise<Array<{ key: string; error: unknown }>> {
    this.closed = true;
    const groups = [...this.groups.values()];
    this.groups.clear();
    await Promise.all(groups.map((group) => group.close()));
    return [];
  }
}

/** The children of one memory cap, and the calls waiting for one of them. */
class ChildGroup implements ChildOwner {
  readonly children = new Set<Child>();
  private readonly queue: ProcessCall[] = [];
  /** Modules that have answered a call here: new children import them before taking calls. */
  readonly preloads: string[] = [];
  private readonly known = new Set<string>();
  private startFailures = 0;
  private closed = false;
  private rssTimer: NodeJS.Timeout | undefined;

  constructor(
    readonly cap: number,
    private readonly size: number,
  ) {}

  /**
   * Start children until there is one for every running and waiting call plus a spare (at
   * least two, at most `size`). A child that cannot be spawned counts as a start failure.
   */
  fill(): void {
    this.watchMemory();
    let busy = 0;
    for (const child of this.children) if (child.call !== undefined) busy++;
    const wanted = Math.min(this.size, Math.max(2, busy + this.queue.length + 1));
    while (!this.closed && this.children.size < wanted && this.startFailures < MAX_START_FAILURES) {
      try {
        this.children.add(new Child(this));
      } catch {
        // spawn() throws for some errors (ENOMEM, say) instead of emitting 'error'.
        this.started(false);
      }
    }
  }

  enqueue(call: ProcessCall): void {
    this.queue.push(call);
    this.pump();
  }

  /** Give queued calls to idle children; start children the group lacks. */
  pump(): void {
    if (this.closed) return;
    this.fill();
    while (this.queue.length > 0) {
      const call = this.queue[0]!;
      if (call.settled) {
        this.queue.shift();
        continue;
      }
      const child = this.idleChild(call.entryUrl);
      if (child === undefined) return;
      this.queue.shift();
      child.take(call);
      this.watchMemory();
    }
  }

  /** An idle, ready child, preferring one that has the module loaded. */
  private idleChild(url: string): Child | undefined {
    let fallback: Child | undefined;
    for (const child of this.children) {
      if (!child.ready || child.call !== undefined || child.dead || child.killed) continue;
      if (child.loaded.has(url)) return child;
      fallback ??= child;
    }
    return fallback;
  }

  /** A module answered in a child: every other child, and every later one, imports it. */
  notePreload(url: string, from: Child): void {
    if (this.known.has(url)) return;
    this.known.add(url);
    this.preloads.push(url);
    for (const child of this.children) if (child !== from) child.preload(url);
  }

  /** A child took its first call or failed before it could. */
  started(ok: boolean): void {
    if (ok) this.startFailures = 0;
    else if (++this.startFailures >= MAX_START_FAILURES) {
      // Children die as they start (a bad Node flag, no memory): refuse what waits rather than loop.
      const waiting = this.queue.splice(0);
      for (const call of waiting) call.settle({ kind: 'crashed', message: 'not run: it never started; child processes could not be started' });
    }
  }

  /** A child is gone: forget it, start a replacement, and go on with the queue. */
  removed(child: Child): void {
    this.children.delete(child);
    // After children failed to start, a new call tries again; a replacement does not.
    if (this.startFailures >= MAX_START_FAILURES && this.queue.length === 0) return;
    if (this.startFailures >= MAX_START_FAILURES) this.startFailures = 0;
    this.pump();
  }

  /**
   * Read the children's resident memory (with what they started, where they have a cgroup):
   * busy ones every {@link RSS_CHECK_MS} ms, idle ones (a timer a tool left running) every
   * tenth time. A child past the cap plus {@link RSS_MARGIN_MB} is killed; its call, if any,
   * answers MEMORY_LIMIT.
   */
  private watchMemory(): void {
    if (this.rssTimer !== undefined) return;
    const limit = (this.cap + RSS_MARGIN_MB) * 1024 * 1024;
    let tick = 0;
    this.rssTimer = setInterval(() => {
      tick++;
      if (this.children.size === 0) {
        clearInterval(this.rssTimer);
        this.rssTimer = undefined;
        return;
      }
      for (const child of this.children) {
        if (child.dead || child.killed || (child.call === undefined && tick % 10 !== 0)) continue;
        if (child.residentBytes() > limit) child.kill({ kind: 'memory', memoryMb: this.cap, message: `its process's resident memory (with the processes it started) passed ${this.cap + RSS_MARGIN_MB} MiB (memory cap ${this.cap} MiB plus ${RSS_MARGIN_MB} MiB outside the heap)` });
      }
    }, RSS_CHECK_MS);
    this.rssTimer.unref();
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.rssTimer !== undefined) clearInterval(this.rssTimer);
    for (const call of this.queue.splice(0)) call.settle({ kind: 'unavailable', code: 'ABORTED', message: 'the executor was closed before it started' });
    await Promise.all([...this.children].map((child) => child.end('the executor was closed while it ran')));
  }
}
