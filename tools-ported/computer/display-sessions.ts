/**
 * The displays of computer_use, one per session: a session is a tool instance (one per
 * executor) and a workspace. A display starts on the session's first call and stops when its
 * executor closes ({@link stopDisplaysOf}) or the host exits; a display whose Xvfb died is
 * replaced by a new one on the next call.
 *
 * @module
 */
import type { SandboxPolicy } from '../../src/tool.js';
import { findXPrograms, VirtualDisplay } from './virtual-display.js';

interface Session {
  readonly owner: object;
  readonly workspaceRoot: string;
  display: Promise<VirtualDisplay>;
}

const sessions: Session[] = [];

/**
 * The display of `owner` for `workspaceRoot`, started when there is none (or it died).
 * @throws ToolExecutionError `PACKAGE_UNAVAILABLE` when Xvfb, xdotool or scrot is missing;
 *   SandboxUnavailableError when the sandbox cannot be made; ToolExecutionError when Xvfb
 *   does not start.
 */
export async function displayFor(owner: object, workspaceRoot: string, sandbox: SandboxPolicy): Promise<VirtualDisplay> {
  const programs = findXPrograms();
  let session = sessions.find((s) => s.owner === owner && s.workspaceRoot === workspaceRoot);
  if (session !== undefined) {
    const display = await session.display.catch(() => undefined);
    if (display?.running) return display;
    sessions.splice(sessions.indexOf(session), 1);
    await display?.stop();
  }
  session = { owner, workspaceRoot, display: VirtualDisplay.start({ workspaceRoot, sandbox, programs }) };
  sessions.push(session);
  const mine = session;
  return session.display.catch((error: unknown) => {
    const at = sessions.indexOf(mine);
    if (at >= 0) sessions.splice(at, 1);
    throw error;
  });
}

/** Stop the displays `owner` started (its executor is closing). */
export async function stopDisplaysOf(owner: object): Promise<void> {
  const owned = sessions.filter((s) => s.owner === owner);
  for (const session of owned) sessions.splice(sessions.indexOf(session), 1);
  await Promise.all(owned.map(async (s) => (await s.display.catch(() => undefined))?.stop()));
}

/**
 * The running displays of `workspaceRoot` (every session's), newest last: for an application
 * (or a test) that opens a program on the display an agent works on ({@link VirtualDisplay.open}).
 */
export async function displaysOfWorkspace(workspaceRoot: string): Promise<VirtualDisplay[]> {
  const found: VirtualDisplay[] = [];
  for (const session of sessions.filter((s) => s.workspaceRoot === workspaceRoot)) {
    const display = await session.display.catch(() => undefined);
    if (display?.running) found.push(display);
  }
  return found;
}
