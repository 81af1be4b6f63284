/**
 * The main runner: runs tools on the main thread, for tools that keep state between calls
 * (command sessions, subagents, questions). The timeout is cooperative: at the deadline the
 * call's signal is aborted and the result is a timeout, but code that ignores the signal keeps
 * running in the background. Memory caps do not apply on the main thread.
 *
 * @module
 */
import type { Tool, ToolClass } from '../types.js';
import { CallContext } from './call-context.js';
import { DeadlineTimers, type Deadline } from './deadlines.js';
import { serializeError, type RunOutcome } from './protocol.js';

const DEADLINES = new DeadlineTimers();

/** What the main runner needs to know of a call. */
export interface MainCall {
  target: ToolClass;
  key: string;
  name: string;
  version: string;
  args: unknown;
  workspaceRoot: string;
  callId: string;
  /** Timeout in ms; `<= 0` for none. */
  timeoutMs: number;
  signal: AbortSignal | undefined;
}

/** Runs calls on the main thread; one tool instance per `name@version`, kept between calls. */
export class MainRunner {
  private readonly instances = new Map<string, Tool>();

  private instanceFor(call: MainCall): Tool {
    let instance = this.instances.get(call.key);
    if (instance === undefined) {
      instance = new call.target();
      this.instances.set(call.key, instance);
    }
    return instance;
  }

  /**
   * Run one call.
   * @returns how it ended: the outcome itself when the tool returned synchronously, else a
   *   promise of it; never rejects.
   */
  run(call: MainCall): RunOutcome | Promise<RunOutcome> {
    const ctx = new CallContext(call.callId, call.name, call.version, call.workspaceRoot, true);
    if (call.signal?.aborted) return { kind: 'aborted' };
    let returned: unknown;
    try {
      returned = this.instanceFor(call).run(call.args as never, ctx);
    } catch (error) {
      return { kind: 'error', error: serializeError(error), notes: ctx.notes };
    }
    if (returned === null || typeof returned !== 'object' || typeof (returned as PromiseLike<unknown>).then !== 'function') {
      // Returned synchronously: done before any timer or abort could fire.
      return { kind: 'ok', value: returned, notes: ctx.notes };
    }
    const pending = returned as PromiseLike<unknown>;
    return new Promise<RunOutcome>((resolve) => {
      let settled = false;
      let deadline: Deadline | undefined;
      const settle = (outcome: RunOutcome) => {
        if (settled) return;
        settled = true;
        deadline?.cancel();
        if (call.signal !== undefined) call.signal.removeEventListener('abort', onAbort);
        resolve(outcome);
      };
      const onAbort = () => {
        ctx.abort(call.signal?.reason);
        settle({ kind: 'aborted' });
      };
      if (call.timeoutMs > 0) {
        deadline = DEADLINES.add(call.timeoutMs, () => {
          ctx.abort(new Error(`timed out after ${call.timeoutMs} ms`));
          settle({ kind: 'timeout', timeoutMs: call.timeoutMs });
        });
      }
      call.signal?.addEventListener('abort', onAbort, { once: true });
      pending.then(
        (value) => settle({ kind: 'ok', value, notes: ctx.notes }),
        (error: unknown) => settle({ kind: 'error', error: serializeError(error), notes: ctx.notes }),
      );
    });
  }
}
