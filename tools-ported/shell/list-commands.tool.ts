import { tool, type Tool, type ToolContext } from '../../src/tool.js';
import { commandSessions } from './command-sessions.js';

/**
 * List the command sessions that exec_command left running in this workspace (or that
 * exited and have not been read yet): process_id, state, age and the command. Use it to find
 * a process_id you lost track of.
 */
@tool({ name: 'list_commands', version: '1.0.0', kind: 'internal', readOnly: true, tags: ['shell', 'ported'], runner: 'main', timeoutMs: 10_000 })
export class ListCommandsTool implements Tool<Record<string, never>, string> {
  run(_args: Record<string, never>, ctx: ToolContext): string {
    const now = Date.now();
    const rows = commandSessions.list(ctx.workspace.realRoot).map((s) => `${s.id}  ${s.running ? 'running' : 'exited '}  ${Math.round((now - s.startedAt) / 1000)} s  ${s.command.length > 120 ? `${s.command.slice(0, 117)}...` : s.command}`);
    return rows.length ? rows.join('\n') : 'no command sessions';
  }
}
