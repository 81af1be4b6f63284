/**
 * `toolgate call NAME ARGS --queue redis://...|postgres://... --store FILE|URL [--pool NAME]`: the call goes
 * to a worker of the pool; this process records it, waits for its end in the store and prints
 * it as `toolgate call` prints a local call's result.
 *
 * @module
 */
import type { ToolExecutionResult } from '../types/result.js';
import { openStore } from './store-url.js';
import { QueueCaller } from './queue-caller.js';
import { failedResult } from '../closeout/results.js';
import { ToolgateError } from '../errors/errors.js';
import { noticeQuestion, noticeUnclaimed } from './question-notice.js';
import { redactUrl } from '../ledger/postgres/database.js';

/** After this many ms of a queue not answering, `toolgate call --queue` and `toolgate worker` say so (it is retried for ever). */
const SLOW_QUEUE_MS = 5000;

/**
 * How long after Ctrl-C (SIGINT, SIGTERM) the command waits for the cancelled call's end, in
 * ms: a worker that does not stop it by then (stuck, or its tool ignores the abort) is left to
 * it, and the command returns `ABORTED` (the cancel request stays recorded in the store).
 */
const CANCEL_GRACE_MS = 5_000;

/** What {@link queuedCall} needs from the command line. */
export interface QueuedCallOptions {
  queue: string;
  store: string;
  pool: string | undefined;
  cwd: string;
  workspace: string;
  name: string;
  version: string | undefined;
  arguments: string;
  callId: string;
  session: string;
  timeoutMs: number | undefined;
  /** How long the queue's server is waited for, in ms (`--queue-wait-ms`; QueueCaller's `connectWaitMs` and `queueWaitMs`, default 30 s): to connect, and for each call's job. */
  queueWaitMs?: number | undefined;
  /** Where the notice of a question the call waits on goes (stderr); none when absent. */
  notice?: (text: string) => void;
  /** Called on the first SIGINT or SIGTERM (the call is being cancelled, its end awaited up to {@link CANCEL_GRACE_MS}); a second signal quits at once. */
  interrupted?: (signal: NodeJS.Signals) => void;
}

/** Run one call on a worker; SIGINT or SIGTERM cancels it wherever it runs (its end awaited up to {@link CANCEL_GRACE_MS}). */
export async function queuedCall(options: QueuedCallOptions): Promise<ToolExecutionResult> {
  const store = await openStore(options.store, options.cwd);
  let caller: QueueCaller | undefined;
  const controller = new AbortController();
  const onSignal = (signal: NodeJS.Signals) => {
    // Removed at once, so that a second Ctrl-C (or SIGTERM) quits at once.
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    options.interrupted?.(signal);
    controller.abort();
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  const ended = new AbortController();
  try {
    // A queue that does not answer is retried for ever: say so, not nothing.
    const slow = setTimeout(() => options.notice?.(`toolgate: the queue ${redactUrl(options.queue)} has not answered for ${SLOW_QUEUE_MS / 1000} s: is its server running, and reachable from here? Still trying (up to --queue-wait-ms); Ctrl-C twice quits.\n`), SLOW_QUEUE_MS);
    slow.unref();
    try {
      caller = await QueueCaller.open({ queue: options.queue, store, pool: options.pool, workspace: options.workspace, ...(options.queueWaitMs === undefined ? {} : { queueWaitMs: options.queueWaitMs, connectWaitMs: options.queueWaitMs }) });
    } catch (error) {
      // Not connected within the wait: the call was not sent (nor recorded), a structured end.
      if (error instanceof ToolgateError && error.code === 'QUEUE_UNAVAILABLE') return failedResult('QUEUE_UNAVAILABLE', error.message, { tool: options.name, callId: options.callId });
      throw error;
    } finally {
      clearTimeout(slow);
    }
    if (options.notice !== undefined) {
      void noticeQuestion(store, { callId: options.callId, session: options.session }, options.store, options.notice, ended.signal);
      void noticeUnclaimed(store, { callId: options.callId, session: options.session }, options.store, options.notice, ended.signal);
    }
    return await caller.call(
      { name: options.name, arguments: options.arguments, callId: options.callId, ...(options.version === undefined ? {} : { version: options.version }) },
      { session: options.session, signal: controller.signal, cancelGraceMs: CANCEL_GRACE_MS, ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }) },
    );
  } finally {
    ended.abort();
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    await caller?.close();
    await store.close();
  }
}
