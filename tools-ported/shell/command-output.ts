/**
 * What the shell tools share: checking the working folder, and turning a command's state
 * into the text, notes and reported failure the model sees.
 *
 * @module
 */
import fs from 'node:fs';
import { sandboxLauncher, ToolExecutionError, type ToolContext, type Workspace } from '../../src/tool.js';
import { exitNote, exitSignal, type CommandProcess } from './command-process.js';
import { commandSessions, type CommandSession } from './command-sessions.js';

/**
 * The absolute working folder of a command: the workspace root, or `workdir` inside it.
 * @throws PathTraversalError outside the workspace; ToolExecutionError when it is not a folder.
 */
export function workingFolder(workspace: Workspace, workdir: string | undefined): string {
  const dir = workdir === undefined || workdir === '' ? workspace.realRoot : workspace.resolve(workdir);
  let stat: fs.Stats;
  try {
    stat = fs.statSync(dir);
  } catch {
    throw new ToolExecutionError(`workdir ${workdir} does not exist; create it first or leave workdir out to use the workspace root`, 'INVALID_ARGUMENTS');
  }
  if (!stat.isDirectory()) throw new ToolExecutionError(`workdir ${workdir} is not a folder`, 'INVALID_ARGUMENTS');
  return dir;
}

/**
 * The sandbox launcher of a command run by a call: the call's sandbox policy, with the
 * workspace (or only its scoped write folders) writable as the profile allows.
 * @throws SandboxUnavailableError when the policy needs bubblewrap and it does not work here.
 */
export function commandSandbox(ctx: ToolContext, cwd: string): string[] {
  const { workspace } = ctx;
  return sandboxLauncher(ctx.sandbox, { workspace: workspace.realRoot, writable: workspace.writeRoots, cwd }, ctx.toolName);
}

/**
 * Close out a command that has exited: its exit status as a note (outside the truncation
 * window), and a reported failure when it did not exit with status 0.
 */
export function reportExit(proc: CommandProcess, ctx: ToolContext): void {
  const exit = proc.exit!;
  ctx.note(exitNote(exit, proc.stoppedBecause));
  if (!proc.limited) ctx.note('[note: no pids cgroup on this machine: the process limit is the user-wide one]');
  const signal = exitSignal(exit);
  if (exit.code !== 0) ctx.reportError(signal ? `the command was killed by ${signal}` : `the command exited with status ${exit.code}`);
}

/** Milliseconds in a message, as seconds. */
export function seconds(ms: number): string {
  return `${Math.round(ms / 100) / 10} s`;
}

/**
 * What a call on a session returns: the output since the last call, and either a note that it
 * is still running or, once it exited, its exit status (the session is then forgotten).
 */
export async function sessionOutput(session: CommandSession, exited: boolean, ctx: ToolContext, runningNote: string): Promise<string> {
  if (!exited) {
    ctx.note(runningNote);
    return session.process.readNew();
  }
  await session.process.exited;
  commandSessions.remove(session.id);
  const text = session.process.readNew();
  reportExit(session.process, ctx);
  return text;
}
