/**
 * What every `toolgate` command shares: the streams, environment and folder it runs with
 * (the process's from `bin/toolgate.js`, a test's own when run in process), the exit codes,
 * the usage error, and argument parsing with the common options.
 *
 * @module
 */
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { ToolgateError } from '../errors/errors.js';
import type { LevelWithSilent } from '../logging/logger.js';
import type { SandboxProfile } from '../sandbox/bubblewrap.js';
import { APPROVAL_MODES, type ApprovalMode } from '../decisions/decision.js';
import { defaultPolicyPaths } from '../policy/policy-paths.js';
import { defaultStateDir } from '../ledger/paths.js';
import type { LedgerOptions } from '../ledger/store.js';
import { nearName } from './near-name.js';

/** Exit codes of the CLI. */
export const EXIT = { ok: 0, failed: 1, usage: 2, escape: 3 } as const;

/** The streams a command reads and writes. */
export interface CliIo {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  stdin: NodeJS.ReadableStream & { isTTY?: boolean };
}

/** Options of `runCli`: every field defaults to the process's own. */
export interface CliOptions extends Partial<CliIo> {
  /** Environment the command reads its variables from (endpoints, tokens). Default `process.env`. */
  env?: NodeJS.ProcessEnv;
  /** Folder relative paths on the command line are resolved against. Default `process.cwd()`. */
  cwd?: string;
  /** Aborting it stops a long-running command (`toolgate mcp`) as SIGINT does. Default none. */
  signal?: AbortSignal;
}

/** A command's run: {@link CliOptions} with the defaults filled in. */
export interface CliContext extends CliIo {
  env: NodeJS.ProcessEnv;
  cwd: string;
  signal?: AbortSignal;
}

/** {@link CliOptions} with the process's streams, environment and folder where none are given. */
export function cliContext(options: CliOptions = {}): CliContext {
  return {
    stdout: options.stdout ?? process.stdout,
    stderr: options.stderr ?? process.stderr,
    stdin: options.stdin ?? process.stdin,
    env: options.env ?? process.env,
    cwd: path.resolve(options.cwd ?? process.cwd()),
    signal: options.signal,
  };
}

/** A command line that cannot be run as written (exit 2). */
export class UsageError extends ToolgateError {
  constructor(message: string) {
    super('INVALID_OPTIONS', message);
  }
}

/** Options every command takes. */
const COMMON: ParseArgsConfig['options'] = {
  tools: { type: 'string', multiple: true },
  schemas: { type: 'string' },
  'log-level': { type: 'string' },
  config: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
};

/**
 * The command's arguments parsed with the common options and `options`.
 * @throws UsageError naming the flag and, for an unknown one, the flags the command takes.
 */
export function parse(argv: string[], options: ParseArgsConfig['options']) {
  const all = { ...COMMON, ...options };
  try {
    return parseArgs({ args: argv, options: all, allowPositionals: true, strict: true });
  } catch (error) {
    throw new UsageError(parseErrorMessage(error as Error & { code?: string }, all));
  }
}

/** Node's parseArgs error said plainly: the flag, what is wrong with it, and the flags there are. */
function parseErrorMessage(error: Error & { code?: string }, options: NonNullable<ParseArgsConfig['options']>): string {
  const flag = /'(-[^' ]*)/.exec(error.message)?.[1];
  if (flag === undefined) return error.message;
  if (error.code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') {
    const known = Object.entries(options).map(([name, o]) => (o.short === undefined ? `--${name}` : `--${name} (-${o.short})`)).sort();
    const near = flag.startsWith('--') ? nearName(flag.slice(2), Object.keys(options)) : undefined;
    return `unknown flag ${flag}${near === undefined ? '' : ` (did you mean --${near}?)`}; this command takes ${known.join(', ')} (a value that starts with - goes after --)`;
  }
  if (error.code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE') {
    return /argument missing/.test(error.message) ? `${flag} needs a value (${flag} VALUE)` : `${flag} takes no value`;
  }
  return error.message;
}

/** pino levels `--log-level` accepts. */
export const LOG_LEVELS: ReadonlySet<string> = new Set(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']);

/** The `--log-level` option (default `error`). */
export function logLevel(values: Record<string, unknown>): LevelWithSilent {
  const level = (values['log-level'] as string | undefined) ?? 'error';
  if (!LOG_LEVELS.has(level)) throw new UsageError(`--log-level must be one of ${[...LOG_LEVELS].join(', ')}; got ${level}`);
  return level as LevelWithSilent;
}

/** The `--workspace` option, resolved against the context's folder (default: that folder). */
export function workspaceOption(values: Record<string, unknown>, ctx: CliContext): string {
  const workspace = path.resolve(ctx.cwd, (values.workspace as string | undefined) ?? '.');
  if (!fs.existsSync(workspace) || !fs.statSync(workspace).isDirectory()) throw new UsageError(`--workspace ${workspace} is not a folder`);
  return workspace;
}

/** The `--mode` option (default `default`). */
export function modeOption(values: Record<string, unknown>): string {
  const mode = (values.mode as string | undefined) ?? 'default';
  if (!['default', 'explore', 'plan'].includes(mode)) throw new UsageError(`--mode must be default, explore or plan; got ${mode}`);
  return mode;
}

/**
 * The sandbox flags of the commands that run tools (`call`, `mcp`, `agent`): `--sandbox
 * workspace-write|read-only`, `--sandbox-network`, and `--dangerously-disable-sandbox`, the
 * only way to choose the profile `none` from the command line.
 */
export const SANDBOX_FLAGS = {
  sandbox: { type: 'string' },
  'sandbox-network': { type: 'boolean' },
  'dangerously-disable-sandbox': { type: 'boolean' },
} as const satisfies ParseArgsConfig['options'];

/**
 * The executor options the sandbox flags ask for (none when no flag is given); warns on the
 * context's stderr when the sandbox is disabled.
 * @throws UsageError for `--sandbox none` (the flag that says so is required), an unknown
 *   profile, or `--sandbox` together with `--dangerously-disable-sandbox`.
 */
export function sandboxOptions(values: Record<string, unknown>, ctx: CliContext): { sandbox?: SandboxProfile; sandboxNetwork?: boolean } {
  const named = values.sandbox as string | undefined;
  if (named === 'none') throw new UsageError('--sandbox none is not accepted: to run tools with no sandbox at all, say so with --dangerously-disable-sandbox');
  if (named !== undefined && named !== 'workspace-write' && named !== 'read-only') throw new UsageError(`--sandbox must be workspace-write or read-only; got ${named}`);
  const options: { sandbox?: SandboxProfile; sandboxNetwork?: boolean } = {};
  if (values['dangerously-disable-sandbox'] === true) {
    if (named !== undefined) throw new UsageError('--sandbox and --dangerously-disable-sandbox exclude each other');
    options.sandbox = 'none';
    ctx.stderr.write('toolgate: warning: --dangerously-disable-sandbox: run_command, exec_command and execute_python run with no sandbox (the whole file system, the network and the host\'s processes in reach).\n');
  } else if (named !== undefined) {
    options.sandbox = named;
  }
  if (values['sandbox-network'] === true) options.sandboxNetwork = true;
  return options;
}

/** The approval flag of `call`, `mcp` and `agent`. */
export const APPROVE_FLAGS = {
  approve: { type: 'string' },
  'no-policy': { type: 'boolean' },
} as const satisfies ParseArgsConfig['options'];

/**
 * The executor's `policy` option: the user's file where the context's environment puts it
 * (`XDG_CONFIG_HOME`, `HOME`) and each workspace's, unless `--no-policy`.
 */
export function policyOption(values: Record<string, unknown>, ctx: CliContext): { user: string; workspace: true } | undefined {
  if (values['no-policy'] === true) return undefined;
  return { user: defaultPolicyPaths({ env: ctx.env, home: ctx.env.HOME || undefined }).user!, workspace: true };
}

/**
 * The approval mode `--approve` names, if any.
 * @throws UsageError for a name that is not an approval mode.
 */
export function approvalOption(values: Record<string, unknown>): ApprovalMode | undefined {
  const named = values.approve as string | undefined;
  if (named === undefined) return undefined;
  if (!(APPROVAL_MODES as readonly string[]).includes(named)) throw new UsageError(`--approve must be one of ${APPROVAL_MODES.join(', ')}; got ${JSON.stringify(named)}`);
  return named as ApprovalMode;
}

/** The ledger flags of `call`, `mcp`, `agent` and the ledger commands (`approvals`, `result`, `trace`). */
/**
 * The flags of `toolgate mcp` and `toolgate agent` that start a cockpit alongside (the cockpit's
 * module loads only when `--cockpit` is given).
 */
export const COCKPIT_FLAGS = {
  cockpit: { type: 'boolean' },
  'cockpit-port': { type: 'string' },
  'cockpit-host': { type: 'string' },
} as const satisfies ParseArgsConfig['options'];

export const LEDGER_FLAGS = {
  'state-dir': { type: 'string' },
  'no-ledger': { type: 'boolean' },
  // The memory tools' workspace identity (ToolSystemOptions.memoryWorkspace).
  'memory-workspace': { type: 'string' },
  // On several machines (docs/distributed.md): the shared store, the queue and the pool.
  store: { type: 'string' },
  queue: { type: 'string' },
  pool: { type: 'string' },
  'queue-wait-ms': { type: 'string' },
} as const satisfies ParseArgsConfig['options'];

/**
 * The flags that decide or show a call run in this process, which a call sent to a worker of a
 * pool (`--queue`) never carries: the worker decides and runs it with its own options.
 */
const LOCAL_ONLY_FLAGS = ['yes', 'mode', 'scoped-write', 'approve', 'no-policy', 'sandbox', 'sandbox-network', 'dangerously-disable-sandbox', 'stream', 'explain', 'output-dir', 'memory-workspace'] as const;

/**
 * With `--queue`, calls are decided and run on a worker, with the worker's own policy, sandbox
 * and approvals: a flag that would decide or show them here is refused, not ignored (`--yes`
 * ignored left a call waiting for an answer the user thought given), and so is `agent`'s
 * `--agent explore|plan` (a mode). One check for `call`, `mcp` and `agent`, also of
 * `--queue-wait-ms` (it needs `--queue`, and is a positive integer).
 * @param command - the command, named in the message.
 * @throws UsageError naming the flags and what to do instead.
 */
export function refuseLocalFlags(values: Record<string, unknown>, command: string): void {
  if (values.queue === undefined) {
    if (values['queue-wait-ms'] !== undefined) throw new UsageError('--queue-wait-ms needs --queue: it bounds the wait for the queue\'s server');
    return;
  }
  queueWaitOption(values);
  // `agent --agent explore|plan` is a mode (read-only; plan writes only in --plan-dir) that the
  // calls it makes would carry here; a worker decides them with its own workspace's policy.
  if (values.agent === 'explore' || values.agent === 'plan') {
    throw new UsageError(`--agent ${values.agent} cannot go with --queue: its read-only mode${values.agent === 'plan' ? ' (writes only in --plan-dir)' : ''} is not seen by the workers of the pool, which decide every call with their own workspace's policy files and approval options (those of toolgate worker): its calls could write. Run it without --queue, or --agent general on a pool whose policy allows only what you want.`);
  }
  const given = LOCAL_ONLY_FLAGS.filter((flag) => values[flag] !== undefined);
  if (given.length === 0) return;
  const yes = given.includes('yes') ? ' A worker has no terminal and takes no --yes from a caller: a call that asks waits for a person\'s answer, given with toolgate approvals allow ID --store STORE (toolgate approvals list shows the ids) or in the cockpit.' : '';
  throw new UsageError(`${given.map((flag) => `--${flag}`).join(', ')} cannot go with --queue: a worker of the pool decides and runs the call with its own policy files, sandbox and approval options (those of toolgate worker), and its progress does not reach toolgate ${command}.${yes}`);
}

/**
 * `--queue-wait-ms MS`: how long a command sending calls to a pool (`--queue`) waits for the
 * queue's server, to connect and for each call's job, before it ends `QUEUE_UNAVAILABLE`.
 * @returns the milliseconds, `undefined` when not given (QueueCaller's default, 30 s).
 * @throws UsageError when it is not a positive integer (its need of `--queue`: {@link refuseLocalFlags}).
 */
export function queueWaitOption(values: Record<string, unknown>): number | undefined {
  const raw = values['queue-wait-ms'];
  if (raw === undefined) return undefined;
  const ms = Number(raw);
  if (!/^\d+$/.test(String(raw)) || !Number.isSafeInteger(ms) || ms < 1) throw new UsageError(`--queue-wait-ms must be a positive integer (milliseconds); got ${JSON.stringify(raw)}`);
  return ms;
}

/**
 * {@link ledgerOption}, or the URL of a PostgreSQL `--store postgres://...` (what `toolgate mcp`
 * and `agent` record in, through the tool system's `store` option).
 */
export function storeOrLedgerOption(values: Record<string, unknown>, ctx: CliContext, workspace: string): LedgerOptions | string | false {
  const store = values.store;
  if (typeof store !== 'string' || !/^postgres(ql)?:\/\//i.test(store)) return ledgerOption(values, ctx, workspace);
  if (values['no-ledger'] === true || values['state-dir'] !== undefined) throw new UsageError('--store excludes --state-dir and --no-ledger');
  return store;
}

/**
 * The ledger the flags ask for: the shared store of `--store FILE` (a SQLite file), the
 * workspace's file in `--state-dir` (default: the state folder of the context's environment),
 * or `false` with `--no-ledger`.
 */
export function ledgerOption(values: Record<string, unknown>, ctx: CliContext, workspace: string): LedgerOptions | false {
  if ((values.queue !== undefined || values.pool !== undefined) && values.store === undefined) throw new UsageError('--queue and --pool need --store FILE|URL: the store the workers share');
  if (values.store !== undefined) {
    if (values['no-ledger'] === true || values['state-dir'] !== undefined) throw new UsageError('--store excludes --state-dir and --no-ledger');
    const store = values.store as string;
    if (/^postgres(ql)?:\/\//.test(store)) throw new UsageError('--store postgres:// works with toolgate worker, call --queue, mcp, agent, approvals, trace, result and cockpit; toolgate call takes it with --queue');
    return { file: path.resolve(ctx.cwd, store.startsWith('sqlite:') ? store.slice('sqlite:'.length) : store) };
  }
  if (values['no-ledger'] === true) {
    if (values['state-dir'] !== undefined) throw new UsageError('--state-dir and --no-ledger exclude each other');
    return false;
  }
  const dir = values['state-dir'] === undefined ? defaultStateDir(ctx.env) : path.resolve(ctx.cwd, values['state-dir'] as string);
  return { dir, workspace };
}
