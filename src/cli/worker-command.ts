/**
 * `toolgate worker --workspace DIR --store FILE|URL --queue redis://HOST:PORT [--pool NAME]
 * [--concurrency N] [--lease-ms MS]`: take the calls of a pool from the queue and run them in DIR with this
 * machine's runners and sandbox, deciding each one again (docs/distributed.md). Runs until
 * SIGINT or SIGTERM; calls parked on a question stay pending for another worker.
 *
 * @module
 */
import { EXIT, logLevel, parse, policyOption, SANDBOX_FLAGS, sandboxOptions, UsageError, workspaceOption, type CliContext } from './context.js';
import { configToolset, toolFoldersOption } from './tool-registry.js';

/** Run `toolgate worker`; `argv` are the arguments after `worker`. */
export async function workerCommand(argv: string[], ctx: CliContext): Promise<number> {
  const { values, positionals } = parse(argv, {
    workspace: { type: 'string' },
    store: { type: 'string' },
    queue: { type: 'string' },
    pool: { type: 'string' },
    concurrency: { type: 'string' },
    'lease-ms': { type: 'string' },
    ...SANDBOX_FLAGS,
  });
  if (positionals.length) throw new UsageError(`unexpected arguments: ${positionals.join(' ')}`);
  if (values.store === undefined || values.queue === undefined) throw new UsageError('worker needs --store FILE|URL and --queue redis://HOST:PORT');
  const concurrency = values.concurrency === undefined ? undefined : Number(values.concurrency);
  if (concurrency !== undefined && (!Number.isInteger(concurrency) || concurrency < 1)) throw new UsageError(`--concurrency must be a positive integer; got ${JSON.stringify(values.concurrency)}`);
  const leaseMs = values['lease-ms'] === undefined ? undefined : Number(values['lease-ms']);
  if (leaseMs !== undefined && (!Number.isInteger(leaseMs) || leaseMs < 1000 || leaseMs > 600_000)) throw new UsageError(`--lease-ms must be an integer from 1000 to 600000; got ${JSON.stringify(values['lease-ms'])}`);
  const workspace = workspaceOption(values, ctx);
  const { openStore } = await import('../distributed/store-url.js');
  const { serveQueue } = await import('../distributed/serve.js');
  // A store that restarts (PostgreSQL) is waited for, up to 30 s, before the worker gives up.
  let store;
  for (const started = Date.now(); ;) {
    try {
      store = await openStore(values.store as string, ctx.cwd);
      break;
    } catch (error) {
      if (Date.now() - started > 30_000) throw error;
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
  }
  let served;
  try {
    served = await serveQueue({
      queue: values.queue as string, store, workspace, pool: values.pool as string | undefined, concurrency, leaseMs,
      system: {
        logLevel: logLevel(values), toolFolders: toolFoldersOption(values, ctx), ...configToolset(values, ctx),
        executor: { ...sandboxOptions(values, ctx), policy: policyOption(values, ctx), outputStore: false },
      },
    });
  } catch (error) {
    await store.close();
    throw error;
  }
  ctx.stderr.write(`toolgate worker: pool ${served.worker.pool}, workspace ${workspace}, pid ${process.pid}: ready\n`);
  await new Promise<void>((resolve) => {
    const stop = () => resolve();
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
    ctx.signal?.addEventListener('abort', stop, { once: true });
  });
  await served.close();
  await store.close();
  return EXIT.ok;
}
