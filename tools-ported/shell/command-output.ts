/**
 * What the shell tools share: checking the working folder, and turning a command's state
 * into the text, notes and reported failure the model sees.
 *
 * @module
 */
import fs from 'node:fs';
import path from 'node:path';
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
 * workspace (or only its scoped write folders) writable as the profile allows.
 * @throws SandboxUnavailableError when the policy needs bubblewrap and it does not work here.
 */
export function commandSandbox(ctx: ToolContext, cwd: string): string[] {
  const { workspace } = ctx;
  const hidden = ctx.sandbox.profile === 'none' ? [] : withheldPaths(workspace);
  return sandboxLauncher(ctx.sandbox, { workspace: workspace.realRoot, writable: workspace.writeRoots, cwd, ...(hidden.length > 0 && { hidden }) }, ctx.toolName);
}

/** Most workspace entries {@link withheldPaths} looks at. */
const MAX_HIDDEN_WALK = 5000;

/**
 * The real paths in the workspace that the call's path rules withhold (`workspace.withholdsByName`),
 * for the sandbox to cover: a command cannot be filtered the way a folder tool is, so what a
 * deny rule covers is out of its sight (`grep -r KEY` with no folder named, `cd secrets; cat
 * *`). Other names of a withheld file (hard links elsewhere in the workspace: `ln .env
 * notes.txt` made earlier) are covered too: the file is the same, whatever its name. A
 * withheld folder is walked only for files with more than one name; links are not followed
 * (their targets are entries of their own). At most {@link MAX_HIDDEN_WALK} entries are
 * looked at (the deciders judged the command's words already, their hard links included).
 */
function withheldPaths(workspace: Workspace): string[] {
  if (!workspace.hasPathFilter) return [];
  const hidden: string[] = [];
  /** dev:ino of withheld files with more than one name, and the names not withheld of files with more than one. */
  const withheldFiles = new Set<string>();
  const linked = new Map<string, string[]>();
  const folders: { folder: string; withheld: boolean }[] = [{ folder: workspace.realRoot, withheld: false }];
  let left = MAX_HIDDEN_WALK;
  while (folders.length > 0 && left > 0) {
    const { folder, withheld: inWithheld } = folders.pop()!;
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(folder, { withFileTypes: true });
    } catch {
      continue;
    }
    for (const entry of entries) {
      if (--left < 0) break;
      const full = path.join(folder, entry.name);
      if (entry.isSymbolicLink()) continue;
      const withheld = inWithheld || workspace.withholdsByName(full);
      if (withheld && !inWithheld) hidden.push(full);
      if (entry.isDirectory()) {
        folders.push({ folder: full, withheld });
        continue;
      }
      if (!entry.isFile()) continue;
      const stat = lstatOf(full);
      if (stat === undefined || stat.nlink < 2) continue;
      const key = `${stat.dev}:${stat.ino}`;
      if (withheld) withheldFiles.add(key);
      else linked.set(key, [...(linked.get(key) ?? []), full]);
    }
  }
  for (const key of withheldFiles) hidden.push(...(linked.get(key) ?? []));
  return hidden;
}

function lstatOf(full: string): fs.Stats | undefined {
  try {
    return fs.lstatSync(full);
  } catch {
    return undefined;
  }
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
