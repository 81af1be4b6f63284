/**
 * The main runner: runs tools on the main thread, for tools that keep state between calls
 * (command sessions, subagents, questions). The timeout is cooperative: at the deadline the
 * call's signal is aborted and the result is a timeout, but code that ignores the signal keeps
 * running in the background. Memory caps do not apply on the main thread.
 *
 * @module
 */
import type { Tool } from '../../types/tool.js';
import { isSuspension } from '../../util/suspension.js';
import { isThenable } from '../../util/values.js';
import { CallContext } from '../call-context.js';
import { CallWatch } from '../call-watch.js';
import { deadlineOf, serializeError, type Runner, type RunOutcome, type RunRequest } from '../runner.js';

/** Runs calls on the main thread; one tool instance per `name@version`, kept between calls. */
export class MainRunner implements Runner {
  readonly kind = 'main';
  private readonly instances = new Map<string, Tool>();
  /** The class each instance was made of: a `name@version` registered again gets a new instance. */
  private readonly classes = new Map<string, unknown>();
  /** Instances of definitions replaced since whose calls still run, by instance: `name@version`. Each is closed once its last call ends. */
  private readonly retired = new Map<Tool, string>();
  /** Calls running on each instance (instances with none are absent). */
  private readonly running = new Map<Tool, number>();
  /** `close()` of retired instances, under way. */
  private readonly closing = new Set<Promise<void>>();
  /** What retired instances' `close()` threw, reported by {@link close}. */
  private readonly closeFailures: Array<{ key: string; error: unknown }> = [];
  /** Calls in flight, so that close() can stop them. */
  private readonly active = new Set<MainCallWatch>();

  /** Abort every call in flight (their results say ABORTED). */
  closeAll(): void {
    for (const watch of [...this.active]) watch.stop(new Error('the executor was closed'));
  }

  /**
   * Abort every call in flight, then call each tool instance's `close()` (once per instance:
   * an instance retired earlier, when its definition was replaced, was closed when its last
   * call ended) and forget the instances.
   * @returns the errors the instances' `close()` threw or rejected with, by `name@version`
   *   (retired instances' included).
   */
  async close(): Promise<Array<{ key: string; error: unknown }>> {
    this.closeAll();
    const instances = [...this.retired].map(([instance, key]): [string, Tool] => [key, instance]).concat([...this.instances]);
    this.instances.clear();
    this.classes.clear();
    this.retired.clear();
    this.running.clear();
    for (const [key, instance] of instances) this.closeInstance(key, instance);
    while (this.closing.size !== 0) await Promise.all([...this.closing]);
    return this.closeFailures.splice(0);
  }

  /** Call `instance.close()` (its failure kept for {@link close}). */
  private closeInstance(key: string, instance: Tool): void {
    const closing: Promise<void> = (async () => {
      try {
        await instance.close?.();
      } catch (error) {
        this.closeFailures.push({ key, error });
      }
    })().finally(() => this.closing.delete(closing));
    this.closing.add(closing);
  }

  /** A call starts on `instance`. */
  private enter(instance: Tool): void {
    this.running.set(instance, (this.running.get(instance) ?? 0) + 1);
  }

  /** A call on `instance` ended: a retired instance with no call left is closed. */
  private leave(instance: Tool): void {
    const left = (this.running.get(instance) ?? 1) - 1;
    if (left > 0) {
      this.running.set(instance, left);
      return;
    }
    this.running.delete(instance);
    const key = this.retired.get(instance);
    if (key === undefined) return;
    this.retired.delete(instance);
    this.closeInstance(key, instance);
  }

  /** The tool's instance; a promise of it when the tool's class is not loaded yet (its first call). */
  private instanceFor(call: RunRequest): Tool | Promise<Tool> {
    const instance = this.instances.get(call.tool.key);
    const target = call.tool.target;
    if (instance !== undefined && this.classes.get(call.tool.key) === target) return instance;
    if (target === undefined) return call.tool.load().then(() => this.instanceFor(call));
    const created = new target();
    this.instances.set(call.tool.key, created);
    this.classes.set(call.tool.key, target);
    // The registry replaced the definition (same name@version): its calls get their own
    // instance (made first: a definition registered again shares its `close` with it); the
    // old one is closed once the calls still running on it have ended.
    if (instance !== undefined) {
      if (this.running.has(instance)) this.retired.set(instance, call.tool.key);
      else this.closeInstance(call.tool.key, instance);
    }
    return created;
  }

  /**
   * Run one call.
   * @returns how it ended: the outcome itself when the tool returned synchronously, else a
   *   promise of it; never rejects.
   */
  run(call: RunRequest, signal: AbortSignal | undefined): RunOutcome | Promise<RunOutcome> {
    const deadline = deadlineOf(call);
    const ctx = new CallContext(call.callId, call.tool.name, call.tool.version, call.workspaceRoot, true, call.tool.maxOutputLength, call.writeRoots, deadline, call.sandbox);
    if (call.pathFilter !== undefined) ctx.pathFilter = call.pathFilter;
    if (call.traceparent !== undefined) ctx.traceparent = call.traceparent;
    if (call.client !== undefined) ctx.client = call.client;
    if (signal?.aborted) return { kind: 'aborted' };
    let returned: unknown;
    // The instance the call runs on, counted as running until the call's outcome is known.
    let entered: Tool | undefined;
    const enter = (instance: Tool): Tool => {
      this.enter(instance);
      return (entered = instance);
    };
    const leave = (): void => {
      if (entered !== undefined) this.leave(entered);
      entered = undefined;
    };
    try {
      const instance = this.instanceFor(call);
      // The first call of a tool registered from a manifest imports its module first.
      returned = instance instanceof Promise ? instance.then((loaded) => enter(loaded).run(call.args as never, ctx)) : enter(instance).run(call.args as never, ctx);
    } catch (error) {
      leave();
      return thrownOutcome(error, ctx);
    }
    if (!isThenable(returned)) {
      // Returned synchronously: done before any timer or abort could fire.
      leave();
      return okOutcome(returned, ctx);
    }
    const pending = returned as PromiseLike<unknown>;
    return new Promise<RunOutcome>((resolve) => {
      const watch = new MainCallWatch(call, signal, ctx, this.active, (outcome) => {
        leave();
        resolve(outcome);
      });
      this.active.add(watch);
      // Watch the tool's promise even when the signal had already aborted (settled at once),
      // so that a later rejection is not left unhandled.
      watch.watch(call.timeoutMs, call.timeoutFrom, call);
      pending.then(
        (value) => watch.settle(okOutcome(value, ctx)),
        (error: unknown) => watch.settle(thrownOutcome(error, ctx)),
      );
    });
  }
}

/** One asynchronous main-thread call: stopping it aborts the tool's signal. */
class MainCallWatch extends CallWatch {
  constructor(
    private readonly call: RunRequest,
    signal: AbortSignal | undefined,
    private readonly ctx: CallContext,
    private readonly active: Set<MainCallWatch>,
    private readonly resolve: (outcome: RunOutcome) => void,
  ) {
    super(signal);
  }

  /** Abort the tool's signal with `reason` and settle as aborted. */
  stop(reason: unknown): void {
    this.ctx.abort(reason);
    this.settle({ kind: 'aborted' });
  }

  protected onTimeout(): void {
    this.ctx.abort(new Error(`timed out after ${this.call.timeoutMs} ms`));
    this.settle({ kind: 'timeout', timeoutMs: this.call.timeoutMs });
  }

  protected onAbort(): void {
    this.stop(this.signal?.reason);
  }

  protected deliver(outcome: RunOutcome): void {
    this.active.delete(this);
    this.resolve(outcome);
  }
}

/** What a tool's throw makes: a suspension passed on as it is (the call waits), any other error as data. */
function thrownOutcome(error: unknown, ctx: CallContext): RunOutcome {
  if (isSuspension(error)) return { kind: 'suspended', suspension: error };
  return { kind: 'error', error: serializeError(error), notes: ctx.notes };
}

function okOutcome(value: unknown, ctx: CallContext): RunOutcome {
  const outcome: RunOutcome & { kind: 'ok' } = { kind: 'ok', value, notes: ctx.notes };
  if (ctx.images !== undefined) outcome.images = ctx.images;
  if (ctx.attachments !== undefined) outcome.attachments = ctx.attachments;
  if (ctx.reportedError !== undefined) outcome.reported = ctx.reportedError;
  return outcome;
}
