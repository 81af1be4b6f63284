import { tool, ToolExecutionError, type Tool, type ToolContext } from '../../src/tool.js';
import { CommandProcess, commandEnv, stopOwnedBy } from './command-process.js';
import { commandSandbox, reportExit, seconds, withDroppedNote, workingFolder } from './command-output.js';
import { streamOutput } from './command-progress.js';

/** Arguments of run_command. */
export interface RunCommandInput {
  /**
   * The command line, run by `bash -lc` (pipes, redirects and `&&` work).
   * @format shell-command
   */
  command: string;
  /**
   * Folder to run in, relative to the workspace root. Default: the workspace root.
   * @format workspace-path
   */
  workdir?: string;
  /**
   * Milliseconds the command may run before it is stopped (TERM, then KILL to every process
   * it started), 1000 to 600000.
   * @TJS-type integer
   * @minimum 1000
   * @maximum 600000
   * @default 120000
   */
  timeout_ms?: number;
  /** Extra environment variables for the command. Names that look like secrets are refused. */
  env?: Record<string, string>;
}

/** The default of `timeout_ms`. */
export const DEFAULT_RUN_TIMEOUT_MS = 120_000;

/**
 * Run a shell command in the workspace and wait for it to finish; returns its output
 * (standard output and error together) and exit status. Use it for builds, tests, git and
 * other commands that end by themselves. For a command that keeps running or asks for input
 * (a server, a REPL), use exec_command. The command gets a clean environment: no API keys or
 * tokens of the host. It runs in a sandbox unless the user turned it off: it can write only
 * inside the workspace and a private /tmp (emptied after each command), and has no network
 * unless the user allowed it (downloads and package installs fail).
 */
@tool({ name: 'run_command', version: '1.0.0', kind: 'shell_command', requiresConfirmation: true, tags: ['shell', 'ported'], runner: 'main', timeoutMs: 610_000, truncation: 'head-tail' })
export class RunCommandTool implements Tool<RunCommandInput, string> {
  async run(args: RunCommandInput, ctx: ToolContext): Promise<string> {
    return runCommand(args, ctx, process.env, this);
  }

  /** Stop the commands this instance is still running (the executor is closing). */
  async close(): Promise<void> {
    await stopOwnedBy(this, 'the executor closed');
  }
}

/**
 * Run `args.command` to its end or its timeout.
 * @param hostEnv - the host's environment, filtered by {@link commandEnv}.
 * @throws ToolExecutionError `TIMEOUT` when the command outran `timeout_ms`, `ABORTED` when the
 *   call was aborted, `INVALID_ARGUMENTS` for a bad workdir or env; SandboxUnavailableError
 *   when the call's sandbox cannot be made here.
 */
export async function runCommand(args: RunCommandInput, ctx: ToolContext, hostEnv: NodeJS.ProcessEnv, owner?: object): Promise<string> {
  const cwd = workingFolder(ctx.workspace, args.workdir);
  let env: Record<string, string>;
  try {
    env = commandEnv(hostEnv, args.env);
  } catch (error) {
    throw new ToolExecutionError((error as Error).message, 'INVALID_ARGUMENTS');
  }
  const sandbox = await commandSandbox(ctx, cwd);
  const timeoutMs = args.timeout_ms ?? DEFAULT_RUN_TIMEOUT_MS;
  const proc = CommandProcess.start({ command: args.command, cwd, env, sandbox, stdin: false, owner });
  // Its output reaches the caller while it runs (progress and log messages).
  const streaming = streamOutput(proc, ctx);
  try {
    const exited = await proc.wait(timeoutMs, ctx.signal);
    if (!exited) {
      const why = ctx.signal.aborted ? 'the call was stopped' : `timed out after ${seconds(timeoutMs)}`;
      await proc.stop(why);
      const output = withDroppedNote(proc.output.all(), proc.output, ctx);
      ctx.note(`[stopped: ${why}; TERM, then KILL, went to ${proc.sandboxed || proc.limited ? 'every process of the command' : "the command's process group"}]`);
      throw new ToolExecutionError(
        `the command ${ctx.signal.aborted ? 'was stopped before it finished' : `ran longer than timeout_ms=${timeoutMs} and was stopped`}; output so far:\n${output === '' ? '[no output]' : output}`,
        ctx.signal.aborted ? 'ABORTED' : 'TIMEOUT',
      );
    }
    await proc.exited;
  } finally {
    streaming();
  }
  const output = withDroppedNote(proc.output.all(), proc.output, ctx);
  reportExit(proc, ctx);
  return output;
}
