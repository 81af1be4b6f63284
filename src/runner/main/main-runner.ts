/**
 * The main runner: runs tools on the main thread, for tools that keep state between calls
 * (command sessions, subagents, questions). The timeout is cooperative: at the deadline the
 * call's signal is aborted and the result is a timeout, but code that ignores the signal keeps
 * running in the background. Memory caps do not apply on the main thread.
 *
 * @module
 */
import type { Tool } from '../../types/tool.js';
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
  /** Instances of definitions replaced since (calls may still run on them); closed with the runner. */
  private readonly retired: Array<[string, Tool]> = [];
  /** Calls in flight, so that close() can stop them. */
  private readonly active = new Set<MainCallWatch>();

  /** Abort every call in flight (their results say ABORTED). */
  closeAll(): void {
    for (const watch of [...this.active]) watch.stop(new Error('the executor was closed'));
  }

  /**
   * Abort every call in flight, then call each tool instance's `close()` and forget the
   * instances.
   * @returns the errors the instances' `close()` threw or rejected with, by `name@version`.
   */
  async close(): Promise<Array<{ key: string; error: unknown }>> {
    this.closeAll();
    const instances = [...this.retired, ...this.instances];
    this.instances.clear();
    this.classes.clear();
    this.retired.length = 0;
    const failures: Array<{ key: string; error: unknown }> = [];
    await Promise.all(
      instances.map(async ([key, instance]) => {
        try {
          await instance.close?.();
        } catch (error) {
          failures.push({ key, error });
        }
      }),
    );
    return failures;
  }

  /** The tool's instance; a promise of it when the tool's class is not loaded yet (its first call). */
  private instanceFor(call: RunRequest): Tool | Promise<Tool> {
    const instance = this.instances.get(call.tool.key);
    const target = call.tool.target;
    if (instance !== undefined && this.classes.get(call.tool.key) === target) return instance;
    if (target === undefined) return call.tool.load().then(() => this.instanceFor(call));
    // The registry replaced the definition (same name@version): its calls get its own instance.
    if (instance !== undefined) this.retired.push([call.tool.key, instance]);
    const created = new target();
    this.instances.set(call.tool.key, created);
    this.classes.set(call.tool.key, target);
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
    if (call.traceparent !== undefined) ctx.traceparent = call.traceparent;
    if (call.client !== undefined) ctx.client = call.client;
    if (signal?.aborted) return { kind: 'aborted' };
    let returned: unknown;
    try {
      const instance = this.instanceFor(call);
      // The first call of a tool registered from a manifest imports its module first.
      returned = instance instanceof Promise ? instance.then((loaded) => loaded.run(call.args as never, ctx)) : instance.run(call.args as never, ctx);
    } catch (error) {
      return { kind: 'error', error: serializeError(error), notes: ctx.notes };
    }
    if (!isThenable(returned)) {
      // Returned synchronously: done before any timer or abort could fire.
      return okOutcome(returned, ctx);
    }
    const pending = returned as PromiseLike<unknown>;
    return new Promise<RunOutcome>((resolve) => {
      const watch = new MainCallWatch(call, signal, ctx, this.active, resolve);
      this.active.add(watch);
      // Watch the tool's promise even when the signal had already aborted (settled at once),
      // so that a later rejection is not left unhandled.
      watch.watch(call.timeoutMs, call.timeoutFrom);
      pending.then(
        (value) => watch.settle(okOutcome(value, ctx)),
        (error: unknown) => watch.settle({ kind: 'error', error: serializeError(error), notes: ctx.notes }),
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

function okOutcome(value: unknown, ctx: CallContext): RunOutcome {
  const outcome: RunOutcome & { kind: 'ok' } = { kind: 'ok', value, notes: ctx.notes };
  if (ctx.images !== undefined) outcome.images = ctx.images;
  if (ctx.attachments !== undefined) outcome.attachments = ctx.attachments;
  if (ctx.reportedError !== undefined) outcome.reported = ctx.reportedError;
  return outcome;
}
