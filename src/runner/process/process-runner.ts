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
 * reported interrupted ("the tool may have run").
 *
 * @module
 */
import type { ChildProcess } from 'node:child_process';
import { sizingOf } from '../sizing.js';
import { StoppableCall } from '../call-watch.js';
import { deadlineOf, type RunnableTool, type Runner, type RunOutcome, type RunRequest } from '../runner.js';
import { sweepOwner } from '../../workspace/leftovers.js';
import { PidsCgroup } from '../../sandbox/pids-cgroup.js';
import { residentBytes } from '../../sandbox/proc.js';
import { adoptPrestarted, childArgv, holdOpen, spawnChild } from './spawn-child.js';
import type { ToolEntry, ToolReply } from '../tool-host.js';
import { CLIENT, READY, STARTED, UNSENDABLE, type ChildMessage, type ChildTask } from './protocol.js';
import { answerClientMessage, clientMethods, isClientMessage } from '../client-relay.js';
import type { ToolClient } from '../../types/tool.js';

/** Resident memory a child may use above its heap cap, in MiB, before it is killed. */
const RSS_MARGIN_MB = 256;
/** How often a busy child's resident memory is read, in ms. */
const RSS_CHECK_MS = 100;
/** How often a call whose child died while loading its tool is moved to another child. */
const MAX_ATTEMPTS = 3;
/** Children of a group that may fail to start in a row before queued calls are refused. */
const MAX_START_FAILURES = 3;
/** Processes (threads count too) a child and everything it starts may have, where a pids cgroup can be made. */
const MAX_CHILD_TASKS = 256;
/** Characters of a child's standard error kept to explain how it died. */
const STDERR_TAIL = 8192;
/** Milliseconds a dead child's standard error may take to drain before its call is answered. */
const STDERR_GRACE_MS = 200;
/** What V8 prints when a heap limit ends a process (looked for after {@link FATAL_REPORT} only). */
const HEAP_DEATH = /heap limit|heap out of memory|CALL_AND_RETRY_LAST|invalid size error|Allocation failed|invalid table size/i;
/** Where V8's report of a fatal error starts: not forwarded to the host's standard error. */
const FATAL_REPORT = /<--- Last few GCs --->|FATAL ERROR:|Fatal JavaScript|Fatal process out of memory/;

/** Options of {@link ProcessRunner}. */
export interface ProcessRunnerOptions {
  /** Child processes per memory cap. Default `max(2, available parallelism)`; at least 2 keeps a spare. */
  poolSize?: number;
  /** Heap cap in MiB for tools that declare none. Default 1024. */
  defaultMemoryMb?: number;
}

/** Every runner's live children, killed when the host exits without closing its runners. */
const liveChildren = new Set<Child>();
let exitHook = false;

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
class ChildGroup {
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

/** One child process. */
class Child {
  readonly process: ChildProcess;
  ready = false;
  dead = false;
  /** The call it runs, if any. */
  call: ProcessCall | undefined;
  /** Module URLs it has loaded (answered a call of, or was told to preload). */
  readonly loaded = new Set<string>();
  /** The current call's standard error (for the last line a crash report quotes). */
  private stderrTail = '';
  /** What V8 printed from its fatal-error report on, if it printed one during the current call. */
  private fatalReport = '';
  /** Set once toolgate has killed it: it takes no call and its messages are ignored. */
  killed = false;
  private everTookCall = false;
  private readonly exited: Promise<void>;
  /** Settles once it is in its pids cgroup (or that failed, or there is none). */
  private readonly joined: Promise<void>;
  /** Its pids cgroup, where one can be made: caps its processes and reaches those that left its process group. */
  private readonly cgroup: PidsCgroup | undefined;

  constructor(private readonly group: ChildGroup) {
    const argv = childArgv(group.cap, group.preloads);
    for (const url of group.preloads) this.loaded.add(url);
    // The child `toolgate call` started before its modules loaded, when it is one of these.
    const adopted = adoptPrestarted(argv);
    this.process = adopted?.child ?? spawnChild(argv);
    this.cgroup = PidsCgroup.create(MAX_CHILD_TASKS);
    // In its cgroup before any tool code runs. A child that starts by importing modules (the
    // group's proven ones) joins now, before it has loaded Node; one that starts bare joins
    // off this thread while it loads Node (the kernel's move can take tens of ms), and is
    // neither ready nor sent a module to import until the join has settled.
    const cgroup = this.cgroup;
    const pid = this.process.pid;
    if (cgroup === undefined) this.joined = Promise.resolve();
    else if (pid === undefined) {
      cgroup.remove();
      this.joined = Promise.resolve();
    } else if (group.preloads.length > 0) {
      if (!cgroup.join(pid)) cgroup.remove();
      this.joined = Promise.resolve();
    } else {
      this.joined = cgroup.joinLater(pid).then((ok) => {
        if (!ok) cgroup.remove();
      });
    }
    liveChildren.add(this);
    if (!exitHook) {
      exitHook = true;
      process.on('exit', () => {
        for (const child of liveChildren) child.signalGroup('SIGKILL');
      });
    }
    this.process.stdout!.on('data', (chunk: Buffer) => this.forward(chunk, false));
    this.process.stderr!.on('data', (chunk: Buffer) => this.forward(chunk, true));
    this.process.on('message', (message: ChildMessage) => this.onMessage(message));
    this.process.on('error', () => undefined); // spawn failures end in 'exit' / 'close'
    // Death is 'exit', not 'close': a process the tool started may hold the pipes open for good.
    // Its stderr gets a moment to drain (V8's report of a heap breach), then the pipes go.
    this.exited = new Promise((resolve) => this.process.once('exit', (code, signal) => {
      this.signalGroup('SIGKILL', true); // what it started in its group goes with it
      // Its stderr may have closed already (then no 'close' is coming: do not wait the grace),
      // and the grace's timer goes once the pipe closed (it would hold the host open 200 ms).
      const stderr = this.process.stderr!;
      let grace: NodeJS.Timeout | undefined;
      const drained = stderr.closed ? Promise.resolve() : Promise.race([
        new Promise((done) => stderr.once('close', done)),
        new Promise((done) => (grace = setTimeout(done, STDERR_GRACE_MS))),
      ]);
      void drained.then(() => {
        clearTimeout(grace);
        this.process.stdout?.destroy();
        this.process.stderr?.destroy();
        this.onExit(code, signal);
        resolve();
      });
    }));
    // Referenced until ready: a call may be waiting for it. Idle children are unreferenced.
    // What an adopted child said before it was adopted (its `ready`), now that it is heard.
    for (const message of adopted?.messages ?? []) this.onMessage(message as ChildMessage);
  }

  /** Let an idle child not keep the host alive; a busy one does. */
  private idle(): void {
    holdOpen(this.process, false);
  }

  private busy(): void {
    holdOpen(this.process, true);
  }

  /** Pass the child's output on to the host's standard error, but not V8's report of a fatal error. */
  private forward(chunk: Buffer, isStderr: boolean): void {
    const text = chunk.toString('utf8');
    if (isStderr) this.stderrTail = (this.stderrTail + text).slice(-STDERR_TAIL);
    if (this.fatalReport === '') {
      const at = text.search(FATAL_REPORT);
      if (at < 0) {
        process.stderr.write(chunk);
        return;
      }
      if (at > 0) process.stderr.write(text.slice(0, at));
      this.fatalReport = text.slice(at);
    } else this.fatalReport = (this.fatalReport + text).slice(0, STDERR_TAIL);
  }

  preload(url: string): void {
    if (this.dead || this.loaded.has(url)) return;
    this.loaded.add(url);
    // Sent before it is ready (the child reads messages from its first moment), but not
    // before it is in its cgroup: a module's top-level code is tool code.
    void this.joined.then(() => {
      if (!this.dead) this.send({ preload: [url] });
    });
  }

  /** @returns the error when the message cannot be sent (it cannot be serialized, or the channel closed: then 'exit' follows). */
  private send(message: unknown): Error | undefined {
    try {
      this.process.send(message as never);
      return undefined;
    } catch (error) {
      return error instanceof Error ? error : new Error(String(error));
    }
  }

  take(call: ProcessCall): void {
    this.call = call;
    this.everTookCall = true;
    this.stderrTail = '';
    this.fatalReport = '';
    call.child = this;
    call.phase = this.loaded.has(call.entryUrl) ? 'running' : 'loading';
    this.busy();
    const failed = this.send(call.task);
    if (failed !== undefined && this.process.connected) {
      // Its arguments cannot be serialized (nested too deep for V8's serializer, say): the
      // call never reached the child, which stays free.
      this.call = undefined;
      this.idle();
      call.settle({ kind: 'error', error: { name: 'Error', code: 'INVALID_ARGUMENTS', message: `not run: its arguments cannot be sent to a child process (${failed.message})` }, notes: [] });
      this.group.pump();
    }
  }

  private onMessage(message: ChildMessage): void {
    if (message === READY) {
      void this.joined.then(() => {
        if (this.dead || this.killed) return;
        this.ready = true;
        this.group.pump();
        if (this.call === undefined) this.idle();
      });
      return;
    }
    if (!Array.isArray(message) || this.killed) return;
    const call = this.call;
    if (call === undefined || message[0] !== call.task[0]) return;
    if (message[1] === STARTED) {
      call.phase = 'running';
      return;
    }
    if (message[1] === CLIENT) {
      const client = call.client;
      if (client === undefined || !isClientMessage(message[2])) return;
      void answerClientMessage(client, message[2], call.toolName, call.clientSignal).then((reply) => {
        if (reply !== undefined && this.call === call) this.send({ clientReply: reply });
      });
      return;
    }
    this.call = undefined;
    this.group.started(true);
    if (message[1] === UNSENDABLE) {
      this.loaded.add(call.entryUrl);
      call.settle({ kind: 'invalid-output', message: message[2] });
    } else {
      const reply = message[2] as ToolReply;
      if (typeof reply === 'string' || reply.ok || reply.loadFailed !== true) {
        this.loaded.add(call.entryUrl);
        this.group.notePreload(call.entryUrl, this);
      }
      call.settle(outcomeOf(reply));
    }
    // A queued call may go to this child at once: unreference it only if it stays idle.
    this.group.pump();
    if (this.call === undefined) this.idle();
  }

  /** Resident memory of the child and, where it has a cgroup, of every process there, in bytes. */
  residentBytes(): number {
    const pids = this.cgroup?.pids() ?? [];
    if (pids.length === 0 && this.process.pid !== undefined) pids.push(this.process.pid);
    let total = 0;
    for (const pid of pids) total += residentBytes(pid);
    return total;
  }

  /**
   * Send `signal` to the child's process group (and, for SIGKILL, to everything in its cgroup).
   * @param exited - the child itself has exited; its group may live on.
   */
  signalGroup(signal: NodeJS.Signals, exited = false): void {
    const pid = this.process.pid;
    if (signal === 'SIGKILL') this.cgroup?.killAll();
    if (pid === undefined || (this.dead && !exited)) return;
    try {
      process.kill(-pid, signal);
    } catch {
      try {
        this.process.kill(signal);
      } catch {
        // gone
      }
    }
  }

  /** Kill the child (its whole process group); its call ends with `outcome` now. */
  kill(outcome: RunOutcome): void {
    this.killed = true;
    this.signalGroup('SIGKILL');
    const call = this.call;
    if (call !== undefined && !call.settled) call.settle(outcome);
  }

  /** Kill it and wait until it is gone. */
  end(why: string): Promise<void> {
    if (this.dead) return Promise.resolve();
    this.busy(); // keep the host alive until it is gone
    this.kill({ kind: 'crashed', message: `${why}; the call was interrupted and may have had partial effects` });
    return this.exited;
  }

  private onExit(code: number | null, signal: NodeJS.Signals | null): void {
    this.dead = true;
    liveChildren.delete(this);
    // What it started and left behind (a daemon that called setsid) goes with it.
    this.cgroup?.killAll();
    this.cgroup?.remove();
    // What a killed child was writing (atomic writes' temporaries) goes now, not at the next start.
    if (this.process.pid !== undefined && (signal !== null || code !== 0)) void sweepOwner(this.process.pid);
    const call = this.call;
    this.call = undefined;
    if (!this.everTookCall && !this.killed) this.group.started(false);
    if (call !== undefined && !call.settled) {
      const how = signal !== null ? `was killed by ${signal}` : `exited with status ${code}`;
      if (call.phase === 'loading') call.attempts++;
      // V8 aborts at a full heap: SIGABRT (or SIGTRAP for some fatal errors), with its report.
      const aborted = signal === 'SIGABRT' || signal === 'SIGTRAP' || code === 134 || code === 133;
      if (aborted && HEAP_DEATH.test(this.fatalReport)) {
        call.settle({ kind: 'memory', memoryMb: this.group.cap, message: `it passed its memory cap of ${this.group.cap} MiB (the JavaScript heap is full); its process ${how}` });
      } else if (call.phase === 'loading' && call.attempts < MAX_ATTEMPTS) {
        // The child died loading the tool's module: nothing of the tool ran, so another child may run it.
        call.retry();
      } else if (call.phase === 'loading') {
        call.settle({ kind: 'crashed', message: `not run: it never started; ${call.attempts} child processes died loading its module (the last ${how})${this.lastError()}` });
      } else {
        call.settle({ kind: 'crashed', message: `interrupted: its process ${how} while the tool ran; the tool may have run and had partial effects, so check before repeating it${this.lastError()}` });
      }
    }
    this.group.removed(this);
  }

  /** The last line of the child's standard error, as `: line`, if any. */
  private lastError(): string {
    const line = this.stderrTail.trim().split('\n').pop()?.trim();
    return line ? ` (${line.slice(0, 300)})` : '';
  }
}

/** One call in the process runner: its task, phase and attempts, its deadline and abort listener. */
class ProcessCall extends StoppableCall {
  child: Child | undefined;
  phase: 'queued' | 'loading' | 'running' = 'queued';
  attempts = 0;
  readonly entryUrl: string;

  /** The caller's client, when the call has one. */
  readonly client: ToolClient | undefined;
  readonly toolName: string;
  private clientDone: AbortController | undefined;

  constructor(
    private readonly group: ChildGroup,
    call: RunRequest,
    readonly task: ChildTask,
    signal: AbortSignal | undefined,
    resolve: (outcome: RunOutcome) => void,
  ) {
    super(signal, call.timeoutMs, (outcome) => {
      this.clientDone?.abort(new Error('the call ended'));
      resolve(outcome);
    });
    this.entryUrl = task[1].m;
    this.client = call.client;
    this.toolName = call.tool.name;
  }

  /** Aborted when the call ends: what an elicitation or sampling for it waits on. */
  get clientSignal(): AbortSignal {
    return (this.clientDone ??= new AbortController()).signal;
  }

  get started(): boolean {
    return this.phase === 'running';
  }

  /** Queue it again after its child died before it started. */
  retry(): void {
    this.phase = 'queued';
    this.child = undefined;
    this.group.enqueue(this);
  }

  /** A queued call just ends; a running one ends with its child. */
  protected stop(outcome: RunOutcome): void {
    const child = this.child;
    if (child !== undefined && child.call === this) child.kill(outcome);
    else this.settle(outcome);
  }
}

const NO_NOTES: readonly string[] = Object.freeze([]);

function outcomeOf(reply: ToolReply): RunOutcome {
  if (typeof reply === 'string') return { kind: 'ok', value: reply, notes: NO_NOTES, cut: false };
  if (!reply.ok) return { kind: 'error', error: reply.error, notes: reply.notes ?? NO_NOTES };
  const outcome: RunOutcome = { kind: 'ok', value: reply.value, notes: reply.notes ?? NO_NOTES, cut: reply.cut === true };
  if (reply.images !== undefined) outcome.images = reply.images;
  if (reply.attachments !== undefined) outcome.attachments = reply.attachments;
  if (reply.reported !== undefined) outcome.reported = reply.reported;
  if (reply.full !== undefined) outcome.full = reply.full;
  return outcome;
}
