/**
 * Nothing left behind: removing what a killed thread or process of toolgate left.
 *
 * A writer removes its own temporary file on error, abort and deadline (`pinned-folder.ts`,
 * `safe-io.ts`); a worker thread terminated at a timeout, or a process killed with SIGKILL,
 * runs no more code, so what it made is removed from outside:
 *
 * - {@link sweepOwner}: after a runner has ended a worker thread or a child process, remove the
 *   temporaries of that owner, found through its journal (`temp-names.ts`), then the journal.
 * - {@link sweepStale}: at the start of an executor (once per process, off the call path:
 *   {@link sweepStaleOnce}), for every owner whose process is gone, the same; and the output
 *   store folders (`<tmpdir>/toolgate-output-<pid>-<12 hex>`) and the empty pids cgroups
 *   (`toolgate-<pid>-<n>`, `toolgate-probe-<pid>`) of processes that are gone.
 *
 * A process is gone when `process.kill(pid, 0)` says `ESRCH`, or when it is this process's own
 * pid on something older than this process (a pid reused after a restart in a container).
 * Only names of toolgate's own making are touched, each checked exactly; temporaries are
 * reached through the workspace folder pinned with `pinFolder`, never by a path that a link
 * could redirect. Sweeps never throw or reject.
 *
 * @module
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { ownCgroups, isZombie, signalReaches } from '../sandbox/proc.js';
import { pinFolder } from './pinned-folder.js';
import { journalFolder, journalFolderIsPrivate, journalName, JOURNAL_NAME, temporaryPattern } from './temp-names.js';
import { workspaceFor } from './workspace.js';

/** Where a sweep looks (the defaults are the real places; tests point them at temporary folders). */
export interface SweepOptions {
  /** The temporary folder holding journals and output store folders. Default `os.tmpdir()` at the time of the sweep. */
  tmpdir?: string;
  /** Folders that may hold toolgate's pids cgroups. Default: this process's pids cgroup (v1 and v2), as `command-process.ts` finds it. */
  cgroupRoots?: readonly string[];
}

/** What a sweep removed. */
export interface SweepReport {
  /** Temporary files (and temporary folders) of gone owners. */
  temporaries: number;
  /** Journals of gone owners. */
  journals: number;
  /** Output store folders of gone processes. */
  outputFolders: number;
  /** Empty pids cgroups of gone processes. */
  cgroups: number;
}

/** An output store's temporary folder: `toolgate-output-<pid>-<12 hex>` (see `output-store.ts`). */
const OUTPUT_FOLDER = /^toolgate-output-(\d+)-[0-9a-f]{12}$/;
/** A pids cgroup of a command (`toolgate-<pid>-<n>`) or its probe (`toolgate-probe-<pid>`). */
const CGROUP = /^toolgate-(?:(\d+)-\d+|probe-(\d+))$/;

/** When this process started (epoch ms), less a margin for clock granularity. */
const PROCESS_START_MS = Date.now() - process.uptime() * 1000 - 100;

function emptyReport(): SweepReport {
  return { temporaries: 0, journals: 0, outputFolders: 0, cgroups: 0 };
}

/**
 * Whether the process `pid` that made something last changed at `mtimeMs` is gone: no such
 * process, a zombie (dead, waiting for a parent to reap it: an orphan under an init that
 * does not reap, as in many containers, stays one for good), or this process's own pid on
 * something older than this process.
 */
export function processGone(pid: number, mtimeMs: number): boolean {
  if (!Number.isSafeInteger(pid) || pid <= 0) return false;
  if (pid === process.pid) return mtimeMs < PROCESS_START_MS;
  return !signalReaches(pid) || isZombie(pid);
}

/**
 * Remove the temporaries of owner `pid`/`threadId` listed in its journal, then the journal.
 * Call it once the owner can make no more (the worker thread terminated, the child process
 * exited or was killed); on a live owner it would remove files it is still writing.
 * @param threadId - the worker thread's id; omit it for every thread of process `pid` (a
 *   child process: its tools run on its main thread, id 0).
 * @returns what was removed; never rejects.
 */
export async function sweepOwner(pid: number, threadId?: number, options: SweepOptions = {}): Promise<SweepReport> {
  const report = emptyReport();
  try {
    const folder = journalFolder(options.tmpdir);
    if (!(await journalFolderIsPrivate(options.tmpdir))) return report;
    let names: string[];
    if (threadId === undefined) {
      names = (await fs.readdir(folder).catch(() => [] as string[])).filter((n) => JOURNAL_NAME.exec(n)?.[1] === String(pid));
    } else {
      names = [journalName(pid, threadId)];
    }
    for (const name of names) {
      const owner = JOURNAL_NAME.exec(name);
      if (owner === null) continue;
      await sweepJournal(path.join(folder, name), Number(owner[1]), Number(owner[2]), report);
    }
  } catch {
    // best effort: whatever is left goes at the next start
  }
  return report;
}

/** Remove the temporaries one journal lists, then the journal. */
async function sweepJournal(file: string, pid: number, thread: number, report: SweepReport): Promise<void> {
  let text: string;
  try {
    text = await fs.readFile(file, 'utf8');
  } catch {
    return; // no journal: the owner never made a temporary
  }
  const pattern = temporaryPattern(pid, thread);
  const seen = new Set<string>();
  for (const line of text.split('\n')) {
    if (line === '' || seen.has(line)) continue;
    seen.add(line);
    let entry: unknown;
    try {
      entry = JSON.parse(line);
    } catch {
      continue; // a line cut by a kill mid-append
    }
    if (!Array.isArray(entry) || typeof entry[0] !== 'string' || typeof entry[1] !== 'string') continue;
    report.temporaries += await sweepFolder(entry[0], entry[1], pattern);
  }
  await fs.unlink(file).then(() => report.journals++, () => undefined);
}

/**
 * Remove the files and folders (`makeTemporaryFolder`'s, with what they hold) matching
 * `pattern` in folder `dir` of workspace `root`, through the folder pinned from the root (a
 * folder since swapped for a link is not followed; `rm` follows no link inside).
 * @returns how many were removed.
 */
async function sweepFolder(root: string, dir: string, pattern: RegExp): Promise<number> {
  let removed = 0;
  try {
    const { folder } = await pinFolder(workspaceFor(root), dir, dir, { doing: 'cleaned up' });
    try {
      for await (const entry of await folder.openDir()) {
        if (!pattern.test(entry.name)) continue;
        if (entry.isFile()) await fs.unlink(folder.at(entry.name)).then(() => removed++, () => undefined);
        else if (entry.isDirectory()) await fs.rm(folder.at(entry.name), { recursive: true, force: true }).then(() => removed++, () => undefined);
      }
    } finally {
      await folder.close();
    }
  } catch {
    // the folder or the workspace is gone, or moved: nothing to do there
  }
  return removed;
}

/**
 * Remove what processes that are gone left: the temporaries and journals of their threads,
 * their output store folders in the temporary folder, and their empty pids cgroups. Cheap
 * (a few `readdir`s when nothing is left); meant for the start of a host.
 * @returns what was removed; never rejects.
 */
export async function sweepStale(options: SweepOptions = {}): Promise<SweepReport> {
  const report = emptyReport();
  const tmpdir = options.tmpdir ?? os.tmpdir();
  await Promise.all([sweepJournals(tmpdir, report), sweepOutputFolders(tmpdir, report), sweepCgroups(options.cgroupRoots ?? pidsCgroupRoots(), report)]).catch(() => undefined);
  return report;
}

async function sweepJournals(tmpdir: string, report: SweepReport): Promise<void> {
  const folder = journalFolder(tmpdir);
  if (!(await journalFolderIsPrivate(tmpdir))) return;
  const names = await fs.readdir(folder).catch(() => [] as string[]);
  for (const name of names) {
    const owner = JOURNAL_NAME.exec(name);
    if (owner === null) continue;
    const file = path.join(folder, name);
    const stat = await fs.lstat(file).catch(() => undefined);
    if (stat === undefined || !stat.isFile() || !processGone(Number(owner[1]), stat.mtimeMs)) continue;
    await sweepJournal(file, Number(owner[1]), Number(owner[2]), report);
  }
}

async function sweepOutputFolders(tmpdir: string, report: SweepReport): Promise<void> {
  const uid = typeof process.getuid === 'function' ? process.getuid() : undefined;
  const names = await fs.readdir(tmpdir).catch(() => [] as string[]);
  for (const name of names) {
    const owner = OUTPUT_FOLDER.exec(name);
    if (owner === null) continue;
    const folder = path.join(tmpdir, name);
    const stat = await fs.lstat(folder).catch(() => undefined);
    if (stat === undefined || !stat.isDirectory() || (uid !== undefined && stat.uid !== uid)) continue;
    if (!processGone(Number(owner[1]), stat.mtimeMs)) continue;
    await fs.rm(folder, { recursive: true, force: true }).then(() => report.outputFolders++, () => undefined);
  }
}

async function sweepCgroups(roots: readonly string[], report: SweepReport): Promise<void> {
  for (const root of roots) {
    const names = await fs.readdir(root).catch(() => [] as string[]);
    for (const name of names) {
      const owner = CGROUP.exec(name);
      if (owner === null) continue;
      const dir = path.join(root, name);
      const stat = await fs.lstat(dir).catch(() => undefined);
      if (stat === undefined || !stat.isDirectory() || !processGone(Number(owner[1] ?? owner[2]), stat.mtimeMs)) continue;
      // Only an empty cgroup goes (the kernel refuses to remove one with processes anyway).
      const procs = await fs.readFile(path.join(dir, 'cgroup.procs'), 'utf8').catch(() => undefined);
      if (procs === undefined || procs.trim() !== '') continue;
      await fs.rmdir(dir).then(() => report.cgroups++, () => undefined);
    }
  }
}

/** The folders of this process's pids cgroup, v1 and v2, where `command-process.ts` makes its cgroups. */
function pidsCgroupRoots(): string[] {
  const { pidsV1, unified } = ownCgroups();
  const roots: string[] = [];
  if (pidsV1 !== undefined) roots.push(path.join('/sys/fs/cgroup/pids', pidsV1));
  if (unified !== undefined) roots.push(path.join('/sys/fs/cgroup', unified));
  return roots;
}

let staleSweep: Promise<SweepReport> | undefined;

/**
 * {@link sweepStale} once per process, started on the next turn of the event loop (off the
 * call path of whoever asks first); later calls get the same promise.
 * @returns the report of the one sweep; never rejects.
 */
export function sweepStaleOnce(): Promise<SweepReport> {
  return (staleSweep ??= new Promise<void>((resolve) => setImmediate(resolve)).then(() => sweepStale()));
}
