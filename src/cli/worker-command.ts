/**
 * `toolgate worker --workspace DIR --store FILE|URL --queue URL [--pool NAME] [--concurrency N]
 * [--lease-ms MS] [--rate-limit-wait-ms MS]` (the queue's URL forms: `queue-backends.ts`): take
 * the calls of a pool from the queue and run them in DIR with this machine's runners and
 * sandbox, deciding each one again (docs/distributed.md). Runs until SIGINT or SIGTERM: it says
 * on stderr that it stops and how many calls it was running (they end `ABORTED`; calls parked
 * on a question stay pending for another worker), and exits 130 (SIGINT) or 143 (SIGTERM).
 *
 * @module
 */
import { redactUrl } from '../ledger/postgres/database.js';
import { EXIT, logLevel, parse, policyOption, SANDBOX_FLAGS, sandboxOptions, UsageError, workspaceOption, type CliContext } from './context.js';
import { configToolset, toolFoldersOption } from './tool-registry.js';
import { QUEUE_URL_FORMS } from '../distributed/queue-backends.js';

/** After this many ms of the queue not answering at start, the worker says so (it is retried for ever). */
const SLOW_QUEUE_MS = 5000;

/** How long a starting worker waits for a store it cannot reach, in ms. */
const STORE_WAIT_MS = 120_000;

/** Run `toolgate worker`; `argv` are the arguments after `worker`. */
export async function workerCommand(argv: string[], ctx: CliContext): Promise<number> {
  const { values, positionals } = parse(argv, {
    workspace: { type: 'string' },
    store: { type: 'string' },
    queue: { type: 'string' },
    pool: { type: 'string' },
    concurrency: { type: 'string' },
    'lease-ms': { type: 'string' },
    'rate-limit-wait-ms': { type: 'string' },
    'memory-workspace': { type: 'string' },
    ...SANDBOX_FLAGS,
  });
  if (positionals.length) throw new UsageError(`unexpected arguments: ${positionals.join(' ')}`);
  if (values.store === undefined || values.queue === undefined) throw new UsageError(`worker needs --store FILE|URL and --queue ${QUEUE_URL_FORMS}`);
  const concurrency = values.concurrency === undefined ? undefined : Number(values.concurrency);
  if (concurrency !== undefined && (!Number.isInteger(concurrency) || concurrency < 1)) throw new UsageError(`--concurrency must be a positive integer; got ${JSON.stringify(values.concurrency)}`);
  const leaseMs = values['lease-ms'] === undefined ? undefined : Number(values['lease-ms']);
  if (leaseMs !== undefined && (!Number.isInteger(leaseMs) || leaseMs < 1000 || leaseMs > 600_000)) throw new UsageError(`--lease-ms must be an integer from 1000 to 600000; got ${JSON.stringify(values['lease-ms'])}`);
  const rateWait = values['rate-limit-wait-ms'] === undefined ? undefined : Number(values['rate-limit-wait-ms']);
  if (rateWait !== undefined && (!Number.isInteger(rateWait) || rateWait < 0 || rateWait > 600_000)) throw new UsageError(`--rate-limit-wait-ms must be an integer from 0 to 600000; got ${JSON.stringify(values['rate-limit-wait-ms'])}`);
  const workspace = workspaceOption(values, ctx);
  const { openStore } = await import('../distributed/store-url.js');
  const { serveQueue } = await import('../distributed/serve.js');
  const { connectionError } = await import('../ledger/postgres/database.js');
  // A store that cannot be reached (PostgreSQL restarting, stopped) is waited for, up to
  // STORE_WAIT_MS, before the worker gives up; a wrong URL, password or schema fails at once.
  let store;
  let told = false;
  const stopped = new AbortController();
  const stopWaiting = () => stopped.abort();
  process.once('SIGINT', stopWaiting);
  process.once('SIGTERM', stopWaiting);
  try {
    for (const first = Date.now(); ;) {
      try {
        store = await openStore(values.store as string, ctx.cwd);
        break;
      } catch (error) {
        if (!connectionError((error as { cause?: unknown }).cause) || Date.now() - first > STORE_WAIT_MS || stopped.signal.aborted) throw error;
        if (!told) ctx.stderr.write(`toolgate worker: the store cannot be reached yet (${(error as Error).message.slice(0, 200)}); waiting up to ${STORE_WAIT_MS / 1000} s\n`);
        told = true;
        await new Promise((resolve) => setTimeout(resolve, 1000));
      }
    }
  } finally {
    process.off('SIGINT', stopWaiting);
    process.off('SIGTERM', stopWaiting);
  }
  let served;
  // A queue that does not answer is retried for ever (a Redis restarting): say so, not nothing.
  const slow = setTimeout(() => ctx.stderr.write(`toolgate worker: the queue ${redactUrl(values.queue as string)} has not answered for ${SLOW_QUEUE_MS / 1000} s: is its server running, and reachable from here? Still trying; Ctrl-C stops.\n`), SLOW_QUEUE_MS);
  slow.unref();
  try {
    served = await serveQueue({
      queue: values.queue as string, store, workspace, pool: values.pool as string | undefined, concurrency, leaseMs,
      system: {
        ...(values['memory-workspace'] === undefined ? {} : { memoryWorkspace: values['memory-workspace'] as string }),
        configEnv: ctx.env, logLevel: logLevel(values), toolFolders: toolFoldersOption(values, ctx), ...configToolset(values, ctx),
        executor: { ...sandboxOptions(values, ctx), policy: policyOption(values, ctx), outputStore: false, ...(rateWait === undefined ? {} : { rateLimitMaxWaitMs: rateWait }) },
      },
    });
  } catch (error) {
    await store.close();
    throw error;
  } finally {
    clearTimeout(slow);
  }
  // Listened for before `ready` is said: a signal sent on reading it finds the listener.
  const signalled = new Promise<NodeJS.Signals | undefined>((resolve) => {
    const stop = (received?: NodeJS.Signals) => {
      // A second signal ends the process at once (their default).
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      resolve(received);
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
    if (ctx.signal?.aborted === true) stop();
    else ctx.signal?.addEventListener('abort', () => stop(), { once: true });
  });
  ctx.stderr.write(`toolgate worker: pool ${served.worker.pool}, workspace ${workspace}, pid ${process.pid}: ready\n`);
  const signal = await signalled;
  const running = served.worker.runningCalls;
  const parked = served.worker.parkedCalls;
  ctx.stderr.write(`toolgate worker: ${signal ?? 'stopped'}: stopping; ${running} ${running === 1 ? 'call was' : 'calls were'} running here (stopped: they end ABORTED)`
    + `${parked === 0 ? '' : `, ${parked} parked on a question ${parked === 1 ? 'stays' : 'stay'} pending for any worker of the pool`}\n`);
  // Closing waits for the queue (a Redis that went away is retried for ever): say so, not nothing.
  const slowClose = setTimeout(() => ctx.stderr.write(`toolgate worker: the queue ${redactUrl(values.queue as string)} has not answered for ${SLOW_QUEUE_MS / 1000} s while stopping: is its server running? Still waiting for it; a second Ctrl-C (or SIGTERM) ends the worker now.\n`), SLOW_QUEUE_MS);
  slowClose.unref();
  try {
    await served.close();
  } finally {
    clearTimeout(slowClose);
  }
  await store.close();
  return signal === undefined ? EXIT.ok : 128 + (signal === 'SIGINT' ? 2 : 15);
}
