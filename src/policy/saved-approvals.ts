/**
 * `always` answers kept in the user's policy file, as `[[approved]]` entries: read through the
 * shared view of that file (`userPolicyFile`: the policy decider re-checks it before each call,
 * so an entry a person deletes stops counting at once, with no second stat), written by adding
 * the entries and replacing the file atomically (a temporary file in the same folder, flushed,
 * then renamed over it).
 *
 * Writing: all the keys of one answer go in one pass (one read, one write, one rename). A
 * symlinked file (a dotfile manager's) is written where it points (`realpath`), so the link
 * stays a link. Writers are serialised by an exclusive lock file next to the real file
 * (`<file>.lock`, made with `O_EXCL`; waited for up to {@link LOCK_WAIT_MS} ms; a lock older
 * than {@link STALE_LOCK_MS} ms is a crashed writer's and is taken over), and each writer
 * reads the file inside the lock, so two processes saving at once both keep their entries.
 * (The lock rather than an `O_APPEND` write: a `.json` file must be rewritten, and one
 * mechanism covers both formats.)
 *
 * @module
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Logger } from '../logging/logger.js';
import { temporaryName } from '../workspace/temp-names.js';
import { withApproved, type ApprovedEntry } from './policy-file.js';
import { userPolicyFile, type UserPolicyFile } from './policy-set.js';
import type { SavedApprovals } from './remembered-approvals.js';
import { makeFolders } from '../util/folders.js';

const NONE: ReadonlySet<string> = new Set();

/** Longest wait for another writer's lock, in ms. */
const LOCK_WAIT_MS = 3000;
/** A lock file older than this (ms) is left by a writer that died: taken over. */
const STALE_LOCK_MS = 10_000;

/** Saved approvals in one policy file (the user's). */
export class PolicyFileApprovals implements SavedApprovals {
  private readonly watched: UserPolicyFile;

  /** @param file - the user's policy file (absolute); it and its folder are made on the first save. */
  constructor(private readonly file: string, private readonly logger: Logger) {
    this.watched = userPolicyFile(file);
  }

  /**
   * The keys in the file as of its last check (none when it is absent or invalid). The policy
   * decider checks it before every call, just before the remembered decider asks here.
   */
  private keys(): ReadonlySet<string> {
    const status = this.watched.current();
    return status.state === 'ok' ? status.policy!.approved : NONE;
  }

  get size(): number {
    return this.keys().size;
  }

  has(key: string): boolean {
    return this.keys().has(key);
  }

  save(key: string, tool: string, summary: string): void {
    this.saveAll([{ key, tool, summary }]);
  }

  /** Save every entry not in the file yet, in one locked read-modify-rename. */
  saveAll(entries: readonly ApprovedEntry[]): void {
    const keys = this.watched.refresh().state === 'ok' ? this.keys() : NONE;
    const missing = entries.filter((e) => !keys.has(e.key));
    if (missing.length === 0) return;
    try {
      makeFolders(path.dirname(this.file), 0o700);
      const target = realTarget(this.file);
      withLock(target, () => {
        let current = '';
        try {
          current = fs.readFileSync(target, 'utf8');
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
        }
        // Named as configured: the format is the configured name's (.json or TOML).
        const text = withApproved(current, this.file, missing);
        if (text !== current) replaceFile(target, text);
      });
    } catch (error) {
      this.logger.warn({ event: 'approval_not_saved', file: this.file, tools: [...new Set(missing.map((e) => e.tool))], err: (error as Error)?.message }, 'an "always" answer could not be saved in the policy file; it counts for this turn only');
    } finally {
      this.watched.refresh();
    }
  }
}

/** Where to write: the file a symlink points to (kept a symlink), else the path itself. */
function realTarget(file: string): string {
  try {
    return fs.realpathSync(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    // A dangling symlink is not replaced by a file.
    if (fs.lstatSync(file, { throwIfNoEntry: false })?.isSymbolicLink()) throw new Error(`${file} is a symbolic link to a file that does not exist`);
    return file;
  }
}

/** `text` written to a temporary file next to `target`, flushed, renamed over it. */
function replaceFile(target: string, text: string): void {
  const temp = path.join(path.dirname(target), temporaryName(path.basename(target)));
  try {
    const fd = fs.openSync(temp, 'wx', 0o600);
    try {
      fs.writeFileSync(fd, text);
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    fs.renameSync(temp, target);
  } catch (error) {
    fs.rmSync(temp, { force: true });
    throw error;
  }
}

const pause = new Int32Array(new SharedArrayBuffer(4));

/** Run `fn` holding `<target>.lock` (see the module's TSDoc). */
function withLock(target: string, fn: () => void): void {
  const lock = `${target}.lock`;
  const deadline = Date.now() + LOCK_WAIT_MS;
  for (;;) {
    try {
      fs.closeSync(fs.openSync(lock, 'wx', 0o600));
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const held = fs.statSync(lock, { throwIfNoEntry: false });
      if (held !== undefined && Date.now() - held.mtimeMs > STALE_LOCK_MS) {
        fs.rmSync(lock, { force: true });
        continue;
      }
      if (Date.now() > deadline) throw new Error(`${lock} is held by another writer`, { cause: error });
      Atomics.wait(pause, 0, 0, 2 + Math.random() * 8);
    }
  }
  try {
    fn();
  } finally {
    fs.rmSync(lock, { force: true });
  }
}
