/**
 * One child process of the process runner (`process-runner.ts`) and the call it runs: how the
 * child is started (heap cap, parent-death signal, pids cgroup), what it says (`protocol.ts`),
 * how its output reaches the host, and how its death is reported: a call whose child died while
 * loading the tool's module never started and moves to another child; a call that had started
 * is reported interrupted ("the tool may have run"). Which child takes which call, and memory
 * watching, are the runner's groups' ({@link ChildOwner}).
 *
 * @module
 */
import type { ChildProcess } from 'node:child_process';
import { StoppableCall } from '../call-watch.js';
import type { RunOutcome, RunRequest } from '../runner.js';
import { sweepOwner } from '../../workspace/leftovers.js';
import { PidsCgroup } from '../../sandbox/pids-cgroup.js';
import { residentBytes } from '../../sandbox/proc.js';
import { adoptPrestarted, childArgv, holdOpen, spawnChild } from './spawn-child.js';
import type { ToolReply } from '../tool-host.js';
import { CLIENT, READY, STARTED, UNSENDABLE, type ChildMessage, type ChildTask } from './protocol.js';
import { answerClientMessage, isClientMessage } from '../client-relay.js';
import type { ToolClient } from '../../types/tool.js';

/** How often a call whose child died while loading its tool is moved to another child. */
const MAX_ATTEMPTS = 3;
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

/** What a child and its calls need of the group of one memory cap that owns them (`ChildGroup` in process-runner.ts). */
export interface ChildOwner {
  /** The heap cap of the group's children, in MiB. */
  readonly cap: number;
  /** Modules that have answered a call in the group: a new child imports them before taking calls. */
  readonly preloads: readonly string[];
  /** Give queued calls to idle children. */
  pump(): void;
  /** Queue a call (again). */
  enqueue(call: ProcessCall): void;
  /** A child took its first call (`true`) or failed before it could. */
  started(ok: boolean): void;
  /** A module answered in `from`: every other child, and every later one, imports it. */
  notePreload(url: string, from: Child): void;
  /** A child is gone. */
  removed(child: Child): void;
}

/** Every runner's live children, killed when the host exits without closing its runners. */
const liveChildren = new Set<Child>();
let exitHook = false;

/** One child process. */
export class Child {
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

  constructor(private readonly group: ChildOwner) {
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
export class ProcessCall extends StoppableCall {
  child: Child | undefined;
  phase: 'queued' | 'loading' | 'running' = 'queued';
  attempts = 0;
  readonly entryUrl: string;

  /** The caller's client, when the call has one. */
  readonly client: ToolClient | undefined;
  readonly toolName: string;
  private clientDone: AbortController | undefined;

  constructor(
    private readonly group: ChildOwner,
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
