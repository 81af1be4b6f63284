import { tool, ToolExecutionError, type Tool, type ToolContext } from '../../src/tool.js';
import { commandEnv } from './command-process.js';
import { commandSandbox, sessionOutput, workingFolder } from './command-output.js';
import { commandSessions } from './command-sessions.js';
import { streamOutput } from './command-progress.js';

/** Arguments of exec_command. */
export interface ExecCommandInput {
  /**
   * The command line, run by `bash -lc`; it may keep running and read standard input.
   * @format shell-command
   */
  cmd: string;
  /**
   * Folder to run in, relative to the workspace root. Default: the workspace root.
   * @format workspace-path
   */
  workdir?: string;
  /**
   * Milliseconds to wait in the foreground, 250 to 110000. When the command is still running
   * then, the call returns its output so far and a process_id for input_command.
   * @TJS-type integer
   * @minimum 250
   * @maximum 110000
   * @default 60000
   */
  yield_time_ms?: number;
  /** Extra environment variables for the command. Names that look like secrets are refused. */
  env?: Record<string, string>;
}

/** The default of `yield_time_ms`. */
export const DEFAULT_YIELD_TIME_MS = 60_000;
/** Milliseconds kept in hand before the call's deadline when waiting. */
const DEADLINE_MARGIN_MS = 500;

/**
 * Start a shell command that may keep running or need input (a server, a REPL, a watcher,
 * an interactive program). Waits up to yield_time_ms: a command that ends by then returns its
 * output and exit status; one still running returns its output so far and a process_id, to
 * drive with input_command (write input, send Ctrl-C, or poll). For commands that simply run
 * to the end, run_command is simpler. The command gets a clean environment: no API keys or
 * tokens of the host. It runs in a sandbox unless the user turned it off: it can write only
 * inside the workspace and a private /tmp, and has no network unless the user allowed it.
 */
@tool({ name: 'exec_command', version: '1.0.0', kind: 'shell_command', requiresConfirmation: true, tags: ['shell', 'ported'], runner: 'main', timeoutMs: 120_000, truncation: 'head-tail' })
export class ExecCommandTool implements Tool<ExecCommandInput, string> {
  async run(args: ExecCommandInput, ctx: ToolContext): Promise<string> {
    const cwd = workingFolder(ctx.workspace, args.workdir);
    let env: Record<string, string>;
    try {
      env = commandEnv(process.env, args.env);
    } catch (error) {
      throw new ToolExecutionError((error as Error).message, 'INVALID_ARGUMENTS');
    }
    const sandbox = await commandSandbox(ctx, cwd);
    let session;
    try {
      session = commandSessions.start({ command: args.cmd, cwd, env, sandbox, stdin: true }, this, ctx.workspace.realRoot);
    } catch (error) {
      throw new ToolExecutionError((error as Error).message);
    }
    session.busy = true;
    try {
      // Return before the call's own time limit, with the command still running, rather
      // than be stopped with nothing.
      const yieldMs = Math.min(args.yield_time_ms ?? DEFAULT_YIELD_TIME_MS, ctx.deadline === undefined ? Number.POSITIVE_INFINITY : ctx.deadline - Date.now() - DEADLINE_MARGIN_MS);
      // Its output reaches the caller while the call waits (progress and log messages).
      const streaming = streamOutput(session.process, ctx);
      const exited = await session.process.wait(Math.max(0, yieldMs), ctx.signal).finally(streaming);
      if (ctx.signal.aborted && !exited) {
        commandSessions.remove(session.id);
        await session.process.stop('the call was stopped');
        throw new ToolExecutionError(`the command was stopped before it finished; output so far:\n${session.process.readNew()}`, 'ABORTED');
      }
      return await sessionOutput(session, exited, ctx, `[still running as process_id ${session.id}: call input_command with it to send input, "\\u0003" for Ctrl-C, or nothing to poll]`);
    } finally {
      session.busy = false;
    }
  }

  /** Stop the sessions this instance started (the executor is closing). */
  async close(): Promise<void> {
    await commandSessions.stopOwnedBy(this, 'the executor closed');
  }
}
