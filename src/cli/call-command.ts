/**
 * `toolgate call NAME [ARGS_JSON|-]`: run one tool call through the tool system and print
 * its output (or the whole result with `--json`).
 *
 * Exit codes: 0 success; 1 the tool failed or a gate stopped the call; 2 an unknown tool or
 * version; 3 a path left the workspace; 130 interrupted (Ctrl-C: the call is stopped, recorded `ABORTED`).
 *
 * @module
 */
import path from 'node:path';
import { MAX_TIMEOUT_MS } from '../decorators/tool.decorator.js';
import { PathTraversalError } from '../errors/errors.js';
import { codesWhere } from '../errors/error-codes.js';
import { protectedNameIn } from '../workspace/protected-names.js';
import { failedResult } from '../closeout/results.js';
import { confirmationHint } from './confirmation-hint.js';
import { defaultPolicyPaths } from '../policy/policy-paths.js';
import { APPROVE_FLAGS, approvalOption, LEDGER_FLAGS, ledgerOption, policyOption, EXIT, logLevel, modeOption, parse, queueWaitOption, refuseLocalFlags, SANDBOX_FLAGS, sandboxOptions, UsageError, workspaceOption, type CliContext } from './context.js';
import type { ToolExecutionResult } from '../types/result.js';
import { askOnTty, readStdin, terminalSafe, type AnswerElsewhere } from './terminal.js';
import { createLogger, type Logger } from '../logging/logger.js';
import { ToolRegistry } from '../registry/registry.js';
import type { Runner } from '../runner/runner.js';
import type { RegisteredTool } from '../registry/registered-tool.js';
import { loadToolFolders } from '../system/tool-folders.js';
import { isShippedModule } from '../registry/loader.js';
import { configToolset, toolFoldersOption } from './tool-registry.js';
import { callProgress } from './call-progress.js';
import type { ToolSystem } from '../system/tool-system.js';


/** The exit code of a call stopped by Ctrl-C (128 + SIGINT, as shells report it; SIGTERM: 143). */
const EXIT_INTERRUPTED = 130;

/** The `--timeout-ms` option, if given. */
function timeoutOption(values: Record<string, unknown>): number | undefined {
  if (values['timeout-ms'] === undefined) return undefined;
  const text = String(values['timeout-ms']).trim();
  const timeoutMs = Number(text);
  if (text === '' || !Number.isFinite(timeoutMs) || timeoutMs > MAX_TIMEOUT_MS) {
    throw new UsageError(`--timeout-ms must be a number of milliseconds up to ${MAX_TIMEOUT_MS} (0 disables the timeout); got ${JSON.stringify(values['timeout-ms'])}`);
  }
  return timeoutMs;
}

/** A word as a POSIX shell reads it back (quoted unless plain). */
function shellWord(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/** The `toolgate approvals allow ID` that reaches this call's ledger from another terminal. */
function answerElsewhere(values: Record<string, unknown>, ctx: CliContext, workspace: string): AnswerElsewhere {
  const where: string[] = [];
  if (workspace !== ctx.cwd) where.push('--workspace', shellWord(workspace));
  if (values['state-dir'] !== undefined) where.push('--state-dir', shellWord(path.resolve(ctx.cwd, values['state-dir'] as string)));
  return { command: (id) => ['toolgate approvals allow', String(id), ...where].join(' ') };
}

/** A process runner for the call: made by the command, or started early by `runCli` (with a child of the default memory cap already booting). */
type ProcessRunnerPromise = Promise<Runner & { warmUp(tool?: RegisteredTool, options?: { preload?: boolean }): void }>;

/**
 * Run `toolgate call`; `argv` are the arguments after `call`.
 * @param prestarted - a process runner started before this command's modules loaded (what
 *   `runCli` passes): used when the tool runs in a child process, else closed.
 */
export async function callCommand(argv: string[], ctx: CliContext, prestarted?: ProcessRunnerPromise): Promise<number> {
  const processRunner: ProcessRunnerPromise = prestarted ?? import('../runner/process/process-runner.js').then(({ ProcessRunner }) => new ProcessRunner({ poolSize: 1 }));
  let handedOver = false;
  try {
    return await runCall(argv, ctx, processRunner, () => (handedOver = true));
  } finally {
    // Unused (a tool of another runner, a usage error): its child goes now.
    if (!handedOver) await (await processRunner.catch(() => undefined))?.close();
  }
}

async function runCall(argv: string[], ctx: CliContext, processRunner: ProcessRunnerPromise, handOver: () => void): Promise<number> {
  const { values, positionals } = parse(argv, {
    version: { type: 'string' },
    workspace: { type: 'string' },
    mode: { type: 'string' },
    'scoped-write': { type: 'string', multiple: true },
    yes: { type: 'boolean', short: 'y' },
    'timeout-ms': { type: 'string' },
    'output-dir': { type: 'string' },
    json: { type: 'boolean' },
    stream: { type: 'boolean' },
    explain: { type: 'boolean' },
    'call-id': { type: 'string' },
    session: { type: 'string' },
    ...LEDGER_FLAGS,
    ...SANDBOX_FLAGS,
    ...APPROVE_FLAGS,
  });
  const [name, rawArgs, ...rest] = positionals;
  if (!name) throw new UsageError('call needs a tool NAME');
  if (rest.length) throw new UsageError(`unexpected arguments: ${rest.join(' ')} (quote the JSON arguments as one word)`);
  const timeoutMs = timeoutOption(values);
  const workspace = workspaceOption(values, ctx);
  const mode = modeOption(values);
  refuseLocalFlags(values, 'call');
  const approvalMode = approvalOption(values);
  for (const dir of (values['scoped-write'] as string[] | undefined) ?? []) {
    const hit = protectedNameIn(dir);
    if (hit !== undefined) throw new UsageError(`--scoped-write ${dir} is refused: ${hit} is protected (git runs programs that its files name); no mode may write there`);
  }
  const args = rawArgs === '-' ? await readStdin(ctx.stdin) : rawArgs ?? '{}';
  const level = logLevel(values);
  const sandbox = sandboxOptions(values, ctx);
  // With --yes the terminal is still asked what only a person answers (a protected path's question).
  const interactive = ctx.stdin.isTTY === true;
  if (values.queue !== undefined) {
    // On a worker of a pool (docs/distributed.md): decided and run there.
    if (values.store === undefined) throw new UsageError('--queue needs --store FILE|URL: the store the workers share');
    const { queuedCall } = await import('../distributed/cli-call.js');
    let interrupted: NodeJS.Signals | undefined;
    const callId = (values['call-id'] as string | undefined) ?? `cli_${process.pid}_${Date.now().toString(36)}`;
    const result = await queuedCall({
      queue: values.queue as string, store: values.store as string, pool: values.pool as string | undefined, cwd: ctx.cwd, workspace, name,
      version: values.version as string | undefined, arguments: args, callId, session: (values.session as string | undefined) ?? 'cli', timeoutMs,
      queueWaitMs: queueWaitOption(values),
      notice: (text) => ctx.stderr.write(text),
      interrupted: (signal) => {
        interrupted = signal;
        ctx.stderr.write(`\ntoolgate: interrupted: cancelling call ${terminalSafe(callId, false)} (Ctrl-C again quits at once)\n`);
      },
    });
    if (values.json) ctx.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
    else if (result.success) ctx.stdout.write(result.output.endsWith('\n') ? result.output : `${result.output}\n`);
    else ctx.stderr.write(`${terminalSafe(result.output)}\n`);
    if (interrupted !== undefined && !result.success) return interrupted === 'SIGTERM' ? 128 + 15 : EXIT_INTERRUPTED;
    return result.success ? EXIT.ok : EXIT.failed;
  }
  const ledger = ledgerOption(values, ctx, workspace);
  for (const flag of ['call-id', 'session'] as const) {
    if (values[flag] !== undefined && (values[flag] as string).trim() === '') throw new UsageError(`--${flag} must not be empty`);
  }
  const session = (values.session as string | undefined) ?? 'cli';
  // Start fast: the tools from their manifests first, then the tool's child process, and only
  // then the executor's modules, which load while that process boots. The tool's module still
  // loads only when the call is dispatched.
  const registry = new ToolRegistry();
  let logger: Logger | undefined;
  await loadToolFolders(registry, { toolFolders: toolFoldersOption(values, ctx), ...configToolset(values, ctx), workspace, configEnv: ctx.env }, () => (logger ??= createLogger(level)));
  const early = registry.get(name, values.version as string | undefined);
  let processes: Runner | undefined;
  if (early?.runner === 'process') {
    const runner = await processRunner;
    handOver();
    // A module toolgate ships is imported while the call is checked and decided; a user's
    // module (its top-level code may do anything) only once the call is allowed.
    runner.warmUp(early, { preload: isShippedModule(early.moduleUrl) });
    processes = runner;
  }
  const { cliToolSystem } = await import('./tool-system.js');
  // The tool's progress and log messages: streamed with --stream, a live line on a terminal.
  const callId = (values['call-id'] as string | undefined) ?? `cli_${process.pid}_${Date.now().toString(36)}`;
  let system: ToolSystem | undefined;
  // (The executor records the latest progress in the ledger, for the cockpit.)
  const progress = callProgress(ctx, { tool: name, stream: values.stream === true, debug: level === 'debug' || level === 'trace' });
  try {
    system = cliToolSystem(values, ctx, {
      workspace,
      logLevel: level,
      registry,
      executor: {
        ...sandbox,
        approvalMode,
        policy: policyOption(values, ctx),
        confirmationHandler: interactive ? async (request, context) => {
          progress.pause();
          try {
            return await askOnTty(ctx, request, context, answerElsewhere(values, ctx, workspace));
          } finally {
            progress.resume();
          }
        } : undefined,
        // A temporary folder would be gone when this process exits: keep whole outputs only where
        // asked, or in the ledger (the temporary folder then only carries them there).
        outputStore: values['output-dir'] === undefined ? (ledger === false ? false : {}) : { dir: path.resolve(ctx.cwd, values['output-dir'] as string) },
        ledger,
        session,
        // One call: one child process (or worker) runs it; a spare would only cost the start.
        poolSize: 1,
        runners: processes === undefined ? {} : { process: processes },
      },
    });
  } catch (error) {
    await processes?.close();
    throw error;
  }
  try {
    await system.start();
    // A tool of another runner starts its threads while the call is checked and decided.
    if (early !== undefined && processes === undefined) system.executor.warmUp(early);
    // A call id given again: the ledger answers with the stored result (said so below).
    const earlier = values['call-id'] === undefined ? undefined : await system.executor.ledger?.get(callId, session).catch(() => undefined);
    // Like every result's durationMs: the call alone, not loading the registry.
    const started = Date.now();
    // Ctrl-C stops the call (its process group killed, the ledger says ABORTED, not a call
    // left "running" by a vanished owner) and exits 130; a second Ctrl-C quits at once.
    const interrupt = new AbortController();
    let exitOnSignal: number = EXIT_INTERRUPTED;
    const onSigint = (signal?: NodeJS.Signals) => {
      if (signal === 'SIGTERM') exitOnSignal = 128 + 15;
      ctx.stderr.write(`\ntoolgate: interrupted: stopping call ${terminalSafe(callId, false)} (Ctrl-C again quits at once)\n`);
      interrupt.abort();
      process.off('SIGTERM', onSigint);
      process.off('SIGINT', onSigint);
    };
    // (SIGTERM, as `timeout` and service managers send it, likewise.)
    process.once('SIGINT', onSigint);
    process.once('SIGTERM', onSigint);
    progress.start();
    try {
      const result = await system.execute({ name, arguments: args, callId, version: values.version as string | undefined }, {
        signal: interrupt.signal,
        mode,
        scopedWriteDirs: (values['scoped-write'] as string[] | undefined) ?? [],
        confirm: values.yes === true,
        timeoutMs,
        client: progress.client,
        // In the cockpit each call is a session of its own (a person supervises a call by its
        // turn); in the ledger the calls stay in session `cli`, so that --call-id alone replays.
        ...(values.session === undefined ? { turnId: callId.startsWith('cli_') ? callId : `cli:${callId}` } : {}),
      }).finally(() => {
        process.off('SIGINT', onSigint);
        process.off('SIGTERM', onSigint);
        progress.stop();
      });
      // A command session the call left running ends with this process (system.close below):
      // the printed result says so instead of offering a process_id nobody can use.
      stoppedOnExit(result);
      // (The same id for another request is refused with another code than the stored one.)
      if (earlier?.endedAt !== undefined && result.errorCode === earlier.errorCode) {
        ctx.stderr.write(`toolgate: replay: call ${terminalSafe(callId, false)} of session ${terminalSafe(session, false)} already ran (${earlier.state}, ${new Date(earlier.endedAt).toISOString()}); this is its stored result, it did not run again (a new call needs a new --call-id)\n`);
      }
      if (values.json) ctx.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
      if (values.explain) ctx.stderr.write(explanation(result));
      if (result.errorCode === 'UNKNOWN_TOOL' || result.errorCode === 'VERSION_NOT_FOUND') {
        if (!values.json) {
          ctx.stderr.write(`toolgate: ${result.error}\n`);
          if (result.errorCode === 'UNKNOWN_TOOL') ctx.stderr.write('toolgate: `toolgate list` shows the tools; load your own with --tools DIR --schemas FILE.\n');
        }
        return EXIT.usage;
      }
      if (!values.json) {
        if (result.fullOutput) ctx.stderr.write(`toolgate: the whole output (${result.fullOutput.characters} characters) is in ${result.fullOutput.path}\n`);
        else if (ledger !== false) {
          const stored = await system.executor.ledger?.result(callId, session);
          if (stored !== undefined && stored.fullOutput !== stored.result.output) ctx.stderr.write(`toolgate: the whole output (${stored.fullOutput.length} characters) is kept in the ledger: toolgate result ${callId}\n`);
        }
        if (result.success) {
          // On a terminal, escape sequences in tool output are shown, not obeyed.
          const text = (ctx.stdout as { isTTY?: boolean }).isTTY ? terminalSafe(result.output) : result.output;
          ctx.stdout.write(text.endsWith('\n') ? text : `${text}\n`);
        } else {
          ctx.stderr.write(`${(ctx.stderr as { isTTY?: boolean }).isTTY ? terminalSafe(result.output) : result.output}\n`);
          if (result.errorCode === 'CONFIRMATION_REQUIRED') {
            ctx.stderr.write(confirmationHint(result, { yes: values.yes === true, userPolicyFile: policyOption(values, ctx)?.user ?? defaultPolicyPaths({ env: ctx.env, home: ctx.env.HOME || undefined }).user! }));
          }
          // The hint only where it can help: tools that may write inside scoped folders.
          const scoped = result.tool !== undefined && registry.get(result.tool, result.version)?.scopedWrite === true;
          if (result.errorCode === 'MODE_DENIED' && mode !== 'default' && scoped && !((values['scoped-write'] as string[] | undefined)?.length)) ctx.stderr.write('toolgate: --scoped-write DIR lets file-writing tools write inside DIR in this mode.\n');
        }
      }
      if (interrupt.signal.aborted && !result.success) return exitOnSignal;
      return result.success ? EXIT.ok : EXIT.failed;
    } catch (error) {
      process.off('SIGINT', onSigint);
      process.off('SIGTERM', onSigint);
      if (!(error instanceof PathTraversalError)) throw error;
      if (values.json) {
        const version = registry.get(name, values.version as string | undefined)?.version;
        const result = failedResult('PATH_TRAVERSAL', error.message, version === undefined ? { tool: name, callId } : { tool: name, callId, version });
        result.durationMs = Date.now() - started;
        ctx.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
      } else {
        ctx.stderr.write(`toolgate: refused: ${terminalSafe(error.message, false)}\n`);
      }
      return EXIT.escape;
    }
  } finally {
    await system.close();
  }
}

/**
 * exec_command's and input_command's marker for a session left running
 * (tools-ported/shell/exec-command.tool.ts, input-command.tool.ts): `[still running as process_id ID...]`.
 */
const STILL_RUNNING = /\[still running as process_id (\S+?)(?::[^\n]*)?\]$/m;

/**
 * In a one-shot `toolgate call`, a command session the call left running is stopped when the
 * tool system closes (the executor's close stops every session its tools started), before the
 * process exits: its result's marker says that instead of inviting input_command.
 */
function stoppedOnExit(result: { output: string }): void {
  result.output = result.output.replace(STILL_RUNNING, (_all, id: string) =>
    `[stopped when toolgate call exited (process_id ${id}): command sessions live as long as the toolgate process that started them (toolgate mcp, toolgate agent, or your program)]`);
}

/** Result codes of calls that end before the deciders are asked (what `--explain` must not call allowed). */
const STOPPED_BEFORE_DECISIONS: ReadonlySet<string> = codesWhere((e) => e.stage === 'request' || e.stage === 'ledger');

/**
 * The decision path of a call, as `--explain` prints it: each decider that had an opinion, in
 * order, with its rule (and the policy file and line) and reason, then what came of it.
 */
function explanation(result: ToolExecutionResult): string {
  const lines = ['decision path:'];
  const steps = result.decisions ?? [];
  const before = steps.length === 0 && result.errorCode !== undefined && STOPPED_BEFORE_DECISIONS.has(result.errorCode);
  if (before) lines.push(`  no decider was asked: the call stopped before the decisions (${result.errorCode})`);
  else if (steps.length === 0) lines.push('  no rule, mode or tool setting asked about this call: allowed');
  steps.forEach((d, i) => {
    // A policy rule is named by its file and line already; other rules say where they are.
    const where = d.file === undefined || d.rule === `${d.file}:${d.line}` ? '' : ` (${d.file}:${d.line})`;
    const rule = d.rule === undefined ? '' : ` [${d.rule}]${where}`;
    lines.push(`  ${i + 1}. ${d.decider}: ${d.verdict}${rule}: ${terminalSafe(d.reason, false)}`);
  });
  const ran = result.stopReason !== 'not_run' || result.errorCode === undefined;
  lines.push(`  => ${ran ? 'allowed' : `not run (${result.errorCode})`}`);
  return `${lines.join('\n')}\n`;
}
