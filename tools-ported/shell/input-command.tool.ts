import { tool, ToolExecutionError, type ShellInputTarget, type ShellInputTool, type Tool, type ToolContext } from '../../src/tool.js';
import { sessionOutput } from './command-output.js';
import { CommandSessions, commandSessions } from './command-sessions.js';

/** Arguments of input_command. */
export interface InputCommandInput {
  /** The process_id that exec_command returned. */
  process_id: string;
  /**
   * Characters to write to the command's standard input (end a line with "\n"). Exactly
   * "\u0003" sends Ctrl-C (SIGINT to the command and its children). Empty: only poll.
   * Input to a shell is checked like a command line; input to another program (python3)
   * needs the user's approval.
   * @format shell-input
   * @default ""
   */
  chars?: string;
  /**
   * Milliseconds to wait for output (or for the command to exit), 0 to 110000. Default 250
   * after a write, 5000 for a poll.
   * @TJS-type integer
   * @minimum 0
   * @maximum 110000
   */
  yield_time_ms?: number;
}

/** Ctrl-C, as a terminal sends it. */
export const CTRL_C = '\u0003';

/**
 * Drive a command that exec_command left running: write to its standard input, send Ctrl-C
 * ("\u0003" alone), or poll (no chars). Returns the output since the last call and, once the
 * command has exited, its exit status (the process_id is then gone).
 */
@tool({ name: 'input_command', version: '1.0.0', kind: 'shell_command', tags: ['shell', 'ported'], runner: 'main', timeoutMs: 120_000, truncation: 'head-tail' })
export class InputCommandTool implements Tool<InputCommandInput, string> {
  /**
   * What `chars` would be typed into (see `ShellInputTool`): the command line the session was
   * started with and what was written to it before; `undefined` when there is no running
   * session with that process_id in this workspace (the call then fails without writing).
   */
  static shellInputTarget(args: InputCommandInput, workspaceRoot: string): ShellInputTarget | undefined {
    const session = commandSessions.peek(args.process_id, workspaceRoot);
    if (session === undefined) return undefined;
    return session.truncated ? { command: session.command, written: session.written, truncated: true } : { command: session.command, written: session.written };
  }

  async run(args: InputCommandInput, ctx: ToolContext): Promise<string> {
    const session = commandSessions.get(args.process_id, ctx.workspace.realRoot);
    if (session === undefined) {
      const known = commandSessions.list(ctx.workspace.realRoot).map((s) => `${s.id} (${s.running ? 'running' : 'exited'}: ${s.command.slice(0, 60)})`);
      throw new ToolExecutionError(
        `no command session has process_id ${JSON.stringify(args.process_id)}${known.length ? `; known: ${known.join(', ')}` : '; none is running'}. A session is gone once its exit status was reported, once it was stopped, or once the toolgate process that started it exited (each \`toolgate call\` is a process of its own, and ends its sessions as it exits); process_ids are known only to that process.`,
        'INVALID_ARGUMENTS',
      );
    }
    if (session.busy) throw new ToolExecutionError(`process_id ${args.process_id} is in use by another call; wait for it to return`);
    session.busy = true;
    try {
      const chars = args.chars ?? '';
      if (chars === CTRL_C) session.process.interrupt();
      else if (chars !== '') {
        if (session.process.write(chars)) CommandSessions.noteWritten(session, chars);
        else ctx.note('[the command no longer reads input: it has exited or closed standard input]');
      }
      const wanted = args.yield_time_ms ?? (chars === '' ? 5000 : 250);
      const exited = await session.process.wait(Math.max(0, Math.min(wanted, ctx.deadline === undefined ? wanted : ctx.deadline - Date.now() - 500)), ctx.signal);
      return await sessionOutput(session, exited, ctx, `[still running as process_id ${session.id}]`);
    } finally {
      session.busy = false;
    }
  }
}

// The decision asks the class what its input is typed into.
InputCommandTool satisfies ShellInputTool;
