/**
 * The names of toolgate's temporary files, and the journal of the folders each owner made
 * them in (what `leftovers.ts` sweeps).
 *
 * A temporary file is named `.NAME.tg-<pid>-<threadId>.<12 hex>.tmp`: the process and thread
 * that made it (threadId 0 on the main thread) are its owner, so a sweep removes only files of
 * an owner it knows to be gone, never a user's `.NAME.tmp` or a live writer's temporary.
 *
 * Before an owner makes its first temporary in a folder, it appends that folder (and its
 * workspace root) to its journal, `<tmpdir>/toolgate-<uid>/temps/<pid>-<threadId>.list`
 * (folders 0700, journal 0600, one JSON line per folder), so that cleaning up after a killed
 * thread or process reads a few lines instead of walking workspaces. Journaling is best effort:
 * when the journal folder cannot be made, or is not a private folder of this user, nothing is
 * journaled and only the writer's own cleanup (on error, abort and deadline) applies.
 *
 * @module
 */
import fs from 'node:fs/promises';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { makeFolders } from '../util/folders.js';

// node:crypto and node:worker_threads are required on first write: this module is loaded by
// every tool's process (through toolgate/tool), and loading those two costs a child process
// about 10 ms of its start (measured) whether it writes or not.
const require = createRequire(import.meta.url);
let ownerTag: string | undefined;
let randomBytes: typeof import('node:crypto').randomBytes | undefined;

/** This thread's id (0 on a process's main thread). */
function ownThreadId(): number {
  return (require('node:worker_threads') as typeof import('node:worker_threads')).threadId;
}

/**
 * A new temporary name for a file to be renamed to `name`, owned by this thread:
 * `.NAME.tg-<pid>-<threadId>.<12 hex>.tmp` (NAME cut at 100 characters).
 */
export function temporaryName(name: string): string {
  ownerTag ??= `tg-${process.pid}-${ownThreadId()}`;
  randomBytes ??= (require('node:crypto') as typeof import('node:crypto')).randomBytes;
  return `.${name.slice(0, 100)}.${ownerTag}.${randomBytes(6).toString('hex')}.tmp`;
}

/** What matches the temporaries of owner `pid`/`threadId` (and nothing a user or another owner names). */
export function temporaryPattern(pid: number, thread: number): RegExp {
  return new RegExp(`^\\.[^]*\\.tg-${pid}-${thread}\\.[0-9a-f]{12}\\.tmp$`);
}

/** `toolgate-<uid>` under `tmpdir`: toolgate's private folder of this user. */
function privateFolder(tmpdir: string = os.tmpdir()): string {
  const uid = typeof process.getuid === 'function' ? process.getuid() : 'user';
  return path.join(tmpdir, `toolgate-${uid}`);
}

/** The folder of the journals under `tmpdir`. */
export function journalFolder(tmpdir: string = os.tmpdir()): string {
  return path.join(privateFolder(tmpdir), 'temps');
}

/** The name of the journal of owner `pid`/`threadId`. */
export function journalName(pid: number, thread: number): string {
  return `${pid}-${thread}.list`;
}

/** What matches a journal's name: group 1 the pid, group 2 the thread id. */
export const JOURNAL_NAME = /^(\d+)-(\d+)\.list$/;

/** Folders journaled by this thread (key: root NUL folder), or being journaled. */
const journaled = new Map<string, Promise<void>>();
/** This thread's journal path, `null` when journaling is off, `undefined` before the first try. */
let journal: Promise<string | null> | undefined;

/**
 * Make (or check) the journal folder: every folder on the way from `toolgate-<uid>` must be a
 * real folder of this user that nobody else may write.
 * @returns the journal path of this thread, or `null` when the folder is not safe to use.
 */
async function openJournal(): Promise<string | null> {
  const folder = journalFolder();
  try {
    makeFolders(folder, 0o700);
    if (!(await journalFolderIsPrivate())) return null;
    return path.join(folder, journalName(process.pid, ownThreadId()));
  } catch {
    return null;
  }
}

/**
 * Whether `toolgate-<uid>` and its journal folder under `tmpdir` are real folders (not links)
 * of this user that nobody else may write. Journals are written, and swept, only then: a
 * folder another user planted (a link to somewhere else) must never lead a sweep.
 */
export async function journalFolderIsPrivate(tmpdir: string = os.tmpdir()): Promise<boolean> {
  const uid = typeof process.getuid === 'function' ? process.getuid() : undefined;
  try {
    for (const dir of [privateFolder(tmpdir), journalFolder(tmpdir)]) {
      const stat = await fs.lstat(dir);
      if (!stat.isDirectory() || (stat.mode & 0o022) !== 0 || (uid !== undefined && stat.uid !== uid)) return false;
    }
    return true;
  } catch {
    return false;
  }
}

/**
 * Note in this thread's journal that it is about to make a temporary file in folder `dir` of
 * the workspace `root` (both real paths). Appends once per folder; resolves once the line is
 * written. Never rejects: a failure leaves the folder unjournaled.
 */
export function noteTemporaryFolder(root: string, dir: string): Promise<void> {
  const key = `${root}\0${dir}`;
  let noted = journaled.get(key);
  if (noted === undefined) {
    if (journaled.size >= 4096) journaled.clear(); // a line written twice is harmless
    noted = (journal ??= openJournal()).then(async (file) => {
      if (file === null) return;
      await fs.appendFile(file, `${JSON.stringify([root, dir])}\n`, { mode: 0o600 });
    }).catch(() => {
      journaled.delete(key);
    });
    journaled.set(key, noted);
  }
  return noted;
}
