import { tool, ToolExecutionError, type Tool, type ToolContext } from '../../src/tool.js';
import { reportExit, withDroppedNote } from './command-output.js';
import { commandSessions } from './command-sessions.js';

/** Arguments of stop_command. */
export interface StopCommandInput {
  /** The process_id that exec_command returned. */
  process_id: string;
}

/**
 * Stop a command that exec_command left running: TERM to it and every process it started,
 * then KILL after 2 s. Returns its last unread output and how it ended. Use input_command
 * with "\u0003" instead for a gentle Ctrl-C.
 */
@tool({ name: 'stop_command', version: '1.0.0', kind: 'shell_command', tags: ['shell', 'ported'], runner: 'main', timeoutMs: 30_000, truncation: 'head-tail' })
export class StopCommandTool implements Tool<StopCommandInput, string> {
  async run(args: StopCommandInput, ctx: ToolContext): Promise<string> {
    const session = commandSessions.get(args.process_id, ctx.workspace.realRoot);
    if (session === undefined) {
      throw new ToolExecutionError(`no command session has process_id ${JSON.stringify(args.process_id)}; list_commands shows the sessions there are`, 'INVALID_ARGUMENTS');
    }
    commandSessions.remove(session.id);
    await session.process.stop('stopped by stop_command');
    const text = withDroppedNote(session.process.readNew(), session.process.output, ctx);
    reportExit(session.process, ctx);
    return text;
  }
}
