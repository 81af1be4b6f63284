/**
 * `toolgate cockpit`: serve the cockpit page for the workspace's ledger (see
 * `src/cockpit/server.ts`), and the `--cockpit` option of `toolgate mcp` and `toolgate agent`
 * that starts it alongside. Questions are answered through the ledger's workflow
 * ({@link settleQuestion}), as `toolgate approvals` does: the first answer counts, and a call
 * whose asker is gone runs here.
 *
 * ```
 * toolgate cockpit [--port N] [--host ADDR] [--workspace DIR] [--state-dir DIR] [--no-policy]
 * ```
 * A token (`TOOLGATE_COCKPIT_TOKEN`, 16+ characters) is required for any non-loopback host.
 *
 * @module
 */
import { ToolgateOptionError } from '../errors/errors.js';
import { startCockpit, type CockpitAnswerer, type CockpitHandle } from '../cockpit/server.js';
import type { CallStore } from '../ledger/call-store.js';
import { Ledger, type LedgerOptions } from '../ledger/store.js';
import type { ApprovalAnswer } from '../decisions/approval.js';
import { settleQuestion } from '../ledger/resume.js';
import type { Logger } from '../logging/logger.js';
import { cliReport, runStoredCall } from './approvals-command.js';
import { APPROVE_FLAGS, EXIT, parse, UsageError, workspaceOption, type CliContext } from './context.js';
import { LEDGER_COMMAND_FLAGS, openCliLedger } from './ledger-cli.js';

/** The port `toolgate cockpit` listens on unless `--port` names another. */
import { DEFAULT_COCKPIT_PORT } from './usage.js';

/** Run `toolgate cockpit`; `argv` are the arguments after `cockpit`. Runs until SIGINT, SIGTERM or the context's signal. */
export async function cockpitCommand(argv: string[], ctx: CliContext): Promise<number> {
  const { values, positionals } = parse(argv, { ...LEDGER_COMMAND_FLAGS, ...APPROVE_FLAGS, port: { type: 'string' }, host: { type: 'string' } });
  if (positionals.length) throw new UsageError(`cockpit takes no positional arguments; got ${positionals.join(' ')}`);
  const port = portOption(values.port, '--port');
  const ledger = await openCliLedger(values, ctx);
  let handle: CockpitHandle | undefined;
  const stop = stopSignal(ctx);
  try {
    handle = await serve(ledger, values, ctx, values.host as string | undefined, port, '--host');
    ctx.stderr.write(`toolgate cockpit: ${handle.openUrl} (ledger ${ledger.file})\n`);
    await stop.stopped;
    return EXIT.ok;
  } finally {
    stop.dispose();
    await handle?.close();
    await ledger.close();
  }
}

/**
 * Start a cockpit beside `toolgate mcp` or `toolgate agent` when `--cockpit` is given: on its
 * own handle of the same ledger file. Messages go to stderr.
 * @returns a function that stops it (and closes its ledger handle), or `undefined` without `--cockpit`.
 * @throws UsageError for cockpit flags without `--cockpit`, a bad port, or a non-loopback host without a token.
 */
export async function cockpitAlongside(values: Record<string, unknown>, ctx: CliContext, ledgerOptions: LedgerOptions | string | false, logger?: Logger, started?: (url: string) => void): Promise<(() => Promise<void>) | undefined> {
  if (values.cockpit !== true) {
    if (values['cockpit-port'] !== undefined || values['cockpit-host'] !== undefined) throw new UsageError('--cockpit-port and --cockpit-host need --cockpit');
    return undefined;
  }
  if (ledgerOptions === false) throw new UsageError('--cockpit reads the ledger: --no-ledger does not apply');
  const port = portOption(values['cockpit-port'], '--cockpit-port');
  // A PostgreSQL store's URL: its own connection to the shared store.
  const ledger: CallStore = typeof ledgerOptions === 'string' ? await (await import('../distributed/store-url.js')).openStore(ledgerOptions, ctx.cwd) : Ledger.open(ledgerOptions);
  try {
    const handle = await serve(ledger, values, { ...ctx, stdout: ctx.stderr }, values['cockpit-host'] as string | undefined, port, '--cockpit-host', logger);
    ctx.stderr.write(`toolgate cockpit: ${handle.openUrl}\n`);
    started?.(handle.url);
    return async () => {
      await handle.close();
      await ledger.close();
    };
  } catch (error) {
    await ledger.close();
    throw error;
  }
}

/** Start the server on `ledger`, answering through the ledger's workflow with `toolgate approvals`' way of running a call. */
async function serve(ledger: CallStore, values: Record<string, unknown>, ctx: CliContext, host: string | undefined, port: number, hostFlag: string, logger?: Logger): Promise<CockpitHandle> {
  const answer: CockpitAnswerer = async (id, given, by) => {
    const outcome = await settleQuestion(ledger, id, given as ApprovalAnswer, by, cliReport(ctx), (call) => runStoredCall(ledger, call, values, ctx));
    // A call whose asker is gone runs here, after the page has its answer.
    outcome.run?.catch((error: unknown) => ctx.stderr.write(`toolgate cockpit: the call of question ${id} could not run here: ${(error as Error)?.message ?? String(error)}\n`));
    return { found: outcome.found, first: outcome.first, counted: outcome.counted, next: outcome.next };
  };
  try {
    return await startCockpit({ ledger, host, port, token: ctx.env.TOOLGATE_COCKPIT_TOKEN || undefined, answer, pollMs: Math.min(ledger.pollMs, 250), logger, workspace: workspaceOption(values, ctx) });
  } catch (error) {
    if (error instanceof ToolgateOptionError) {
      if (/options\.host/.test(error.message)) throw new UsageError(`${hostFlag} ${host}: not a loopback address; set TOOLGATE_COCKPIT_TOKEN to a secret of 16+ characters, which every API request must carry (open /#code=<token> in the browser)`);
      throw new UsageError(error.message.replace(/^options\./, ''));
    }
    if ((error as NodeJS.ErrnoException)?.code === 'EADDRINUSE') throw new UsageError(`port ${port} is in use: give another with ${hostFlag === '--host' ? '--port' : '--cockpit-port'} N (0 picks a free one)`);
    throw error;
  }
}

function portOption(value: unknown, flag: string): number {
  if (value === undefined) return DEFAULT_COCKPIT_PORT;
  const port = Number(value);
  if (!/^\d+$/.test(String(value)) || port > 65535) throw new UsageError(`${flag} must be a TCP port number (0 picks a free one); got ${JSON.stringify(value)}`);
  return port;
}

/** A promise that resolves on SIGINT, SIGTERM or the context's abort. */
function stopSignal(ctx: CliContext): { stopped: Promise<void>; dispose(): void } {
  let stop!: () => void;
  const stopped = new Promise<void>((resolve) => (stop = resolve));
  const onSignal = () => stop();
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  ctx.signal?.addEventListener('abort', onSignal, { once: true });
  if (ctx.signal?.aborted) stop();
  return {
    stopped,
    dispose() {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
      ctx.signal?.removeEventListener('abort', onSignal);
    },
  };
}
