/**
 * What the shell tools share: checking the working folder, and turning a command's state
 * into the text, notes and reported failure the model sees.
 *
 * @module
 */
import fs from 'node:fs';
import { sandboxLauncher, ToolExecutionError, type ToolContext, type Workspace } from '../../src/tool.js';
import { exitNote, exitSignal, type CommandProcess, type HeadTailBuffer } from './command-process.js';
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
 * workspace (or only its scoped write folders) writable as the profile allows, and what the
 * call's path rules withhold covered ({@link Workspace.sandboxCovers}): a command cannot be
 * filtered the way a folder tool is, so what a deny rule covers is out of its sight (`grep -r
 * KEY` with no folder named, `cd secrets; cat *`), other names (hard links) of a withheld file
 * included. The workspace is walked for them before a sandboxed command of a call with path
 * rules (links not followed, at most 1,000,000 entries, the call's signal looked at before
 * every entry), unless the answer of an earlier walk is kept and no folder has changed since
 * (`src/workspace/cover-snapshots.ts`).
 * @throws SandboxUnavailableError when the policy needs bubblewrap and it does not work here;
 *   ToolExecutionError when part of the workspace could not be walked (past the bound, or a
 *   folder that cannot be read): a withheld path could be left in sight, so nothing runs.
 */
export async function commandSandbox(ctx: ToolContext, cwd: string): Promise<string[]> {
  const { workspace } = ctx;
  let hidden: string[] = [];
  if (ctx.sandbox.profile !== 'none') {
    const covers = await workspace.sandboxCovers(ctx.signal);
    if (!covers.complete) {
      throw new ToolExecutionError(
        `${ctx.toolName}: nothing was run: the call's path rules withhold files, and the sandbox could not find all of them to hide them from the command (the workspace holds more than 1,000,000 entries, or a folder in it cannot be read). ` +
          'Narrow the workspace to the project (--workspace), make the folder readable, or remove what cannot be read; folder tools (read_file, grep_files, find_files, tree) still work and judge each path they meet.',
      );
    }
    hidden = covers.paths;
  }
  return sandboxLauncher(ctx.sandbox, { workspace: workspace.realRoot, writable: workspace.writeRoots, cwd, ...(hidden.length > 0 && { hidden }) }, ctx.toolName);
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

/**
 * `text` (just read from `buffer`) as the result's text, with a note (outside the result's
 * own truncation, which could cut the buffer's marker away) when the buffer dropped part of
 * it: the model is told how much of the output it never sees (case T7).
 */
export function withDroppedNote(text: string, buffer: HeadTailBuffer, ctx: ToolContext): string {
  if (buffer.lastDropped > 0) ctx.note(`[output: ${buffer.lastDropped} characters the command wrote were dropped from the middle before the text above was cut to size (${buffer.total} written in all)]`);
  return text;
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
    return withDroppedNote(session.process.readNew(), session.process.output, ctx);
  }
  await session.process.exited;
  commandSessions.remove(session.id);
  const text = withDroppedNote(session.process.readNew(), session.process.output, ctx);
  reportExit(session.process, ctx);
  return text;
}
