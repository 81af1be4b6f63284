/**
 * The user's and the workspace's policy files together ({@link PolicySet}), re-checked before
 * every decision, and their default locations ({@link defaultPolicyPaths}).
 *
 * Across files the stricter verdict wins (deny > ask > allow > no rule), so the workspace
 * file (which comes with a repository, and so from whoever wrote it) can only narrow what
 * the user's file says: a workspace `allow` never overrides a user `ask` or `deny`. It does
 * count where the user's file allows the call too or says nothing about it; in that case the
 * decision is the same as with no policy files at all as far as the user is concerned (the
 * approval mode still decides later), so the repository grants nothing the user's policy
 * withholds.
 *
 * @module
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parsePolicyFile, PolicyFileError, type PolicyAction, type PolicyFile, type PolicyRule } from './policy-file.js';
import { matchPolicyRules, type PolicyCallInput, type PolicyMatch } from './policy-rules.js';

/** Which file a rule or an error comes from, in order of authority. */
type PolicyLayer = 'user' | 'workspace';

import type { PolicyPaths } from './policy-paths.js';

export { defaultPolicyPaths, type PolicyPaths } from './policy-paths.js';

/** What the policy files together say about one call. */
export interface PolicyDecision {
  /**
   * The strictest verdict of the files (deny > ask > allow); `undefined` when no rule of
   * either file matched (no opinion). An unreadable or invalid file is a `deny` of every call.
   */
  readonly verdict: PolicyAction | undefined;
  /** Readable: the rule (file:line) and, for a shell call, the command; or the invalid file and line. */
  readonly reason: string;
  /** The deciding rule, when a rule decided. */
  readonly rule?: PolicyRule;
  /** For a shell call: the text of the command the verdict is about. */
  readonly command?: string;
  /** The file the verdict comes from. */
  readonly layer?: PolicyLayer;
  /** The file that could not be read or is invalid, when that is why every call is denied. */
  readonly error?: PolicyFileError;
  /**
   * `always_ask = true` in either file: the caller must ask a person afresh even when the
   * verdict is `allow` or `undefined`, and even over a remembered approval. Also set on an
   * `ask` that only a person may answer (`PolicyMatch.person`: a deny rule may match what the
   * analysis cannot see). (Irrelevant to a `deny`.)
   */
  readonly fresh: boolean;
}

/** The state of one configured file, as of the last check. */
export interface PolicyFileStatus {
  readonly layer: PolicyLayer;
  readonly path: string;
  /** `absent`: no file there (no rules); `invalid`: unreadable or invalid (every call is denied). */
  readonly state: 'absent' | 'ok' | 'invalid';
  /** When `ok`: the parsed file. */
  readonly policy?: PolicyFile;
  /** When `invalid`: why. */
  readonly error?: PolicyFileError;
}

/** {@link PolicySet.explain}'s answer: each file's own verdict, and the combined one. */
export interface PolicyExplanation {
  readonly files: ReadonlyArray<PolicyFileStatus & { readonly match?: PolicyMatch }>;
  readonly decision: PolicyDecision;
}

const STRICTNESS: Readonly<Record<PolicyAction, number>> = { allow: 1, ask: 2, deny: 3 };

/** A policy file larger than this is refused unread (`invalid`): no policy needs more. */
const MAX_POLICY_BYTES = 1024 * 1024;

/** Flags of the open: never block (a FIFO), and for the workspace file never follow a symlink. */
const OPEN_FLAGS = fs.constants.O_RDONLY | (fs.constants.O_NONBLOCK ?? 0);
const NO_FOLLOW = fs.constants.O_NOFOLLOW ?? 0;

/**
 * One configured file: what it held at its last check.
 *
 * Only a regular file of at most {@link MAX_POLICY_BYTES} is read; anything else (a FIFO, a
 * device such as `/dev/zero`, a socket) is `invalid` without being opened for a blocking read.
 * The text is read through a descriptor opened with `O_NONBLOCK` and checked again with
 * `fstat` (regular, size) before reading, so a file swapped between the stat and the open is
 * caught too. The workspace file comes from a repository, and git can ship symlinks: it must
 * not be one (`lstat`, and `O_NOFOLLOW` on the open), nor sit in a `.toolgate` folder that is
 * one, or a link to a secret outside the workspace would show its first characters in a
 * syntax error. The user's file may be a
 * symlink (dotfile managers) to a regular file.
 */
class WatchedFile {
  private signature = '';
  private hash = '';
  /** The call the last check was made for (see {@link recent}), weakly. */
  private checkedFor: WeakRef<object> | undefined;
  status: PolicyFileStatus;
  private readonly absent: PolicyFileStatus;

  constructor(readonly layer: PolicyLayer, readonly path: string) {
    this.absent = Object.freeze({ layer, path, state: 'absent' });
    this.status = this.absent;
  }

  /**
   * Bring {@link status} up to date: a stat each time (mtime, size, inode); the text is read
   * and hashed (sha256) only when the stat changed, and parsed only when the hash changed.
   * A rewrite that keeps size, inode and a coarse mtime all the same is not seen until the
   * next change; on the file systems toolgate runs on mtime has sub-millisecond resolution.
   */
  refresh(call?: object): PolicyFileStatus {
    this.checkedFor = call === undefined ? undefined : new WeakRef(call);
    let stat: fs.Stats | undefined;
    try {
      stat = this.layer === 'workspace' ? fs.lstatSync(this.path, { throwIfNoEntry: false }) : fs.statSync(this.path, { throwIfNoEntry: false });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOTDIR') return this.setAbsent();
      return this.set(`error:${(error as NodeJS.ErrnoException).code}`, '', () => this.invalid(PolicyFileError.fromUnreadable(this.path, error)));
    }
    if (stat === undefined) return this.setAbsent();
    const signature = `${stat.mtimeMs}:${stat.size}:${stat.ino}:${stat.mode}`;
    if (signature === this.signature) return this.status;
    const refused = refusal(stat);
    if (refused !== undefined) return this.set(signature, `refused:${refused}`, () => this.invalid(PolicyFileError.fromRefused(this.path, refused)));
    let text: string;
    try {
      text = this.read();
    } catch (error) {
      // No signature kept: a fix that leaves mtime and size alone (chmod) must be seen too.
      return this.set('', '', () => this.invalid(error instanceof Refused ? PolicyFileError.fromRefused(this.path, error.message) : PolicyFileError.fromUnreadable(this.path, error)));
    }
    const hash = crypto.createHash('sha256').update(text).digest('hex');
    return this.set(signature, hash, () => {
      try {
        return { layer: this.layer, path: this.path, state: 'ok', policy: parsePolicyFile(text, this.path) };
      } catch (error) {
        if (error instanceof PolicyFileError) return this.invalid(error);
        throw error;
      }
    });
  }

  /** The text, read through a non-blocking descriptor that is checked again (regular, size) before reading. */
  private read(): string {
    // O_NOFOLLOW guards the last name only: a repository's `.toolgate` may not be a link either.
    if (this.layer === 'workspace' && fs.lstatSync(path.dirname(this.path), { throwIfNoEntry: false })?.isSymbolicLink()) throw new Refused(LINKED_FOLDER);
    let fd: number;
    try {
      fd = fs.openSync(this.path, OPEN_FLAGS | (this.layer === 'workspace' ? NO_FOLLOW : 0));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ELOOP' && this.layer === 'workspace') throw new Refused(SYMLINK);
      throw error;
    }
    try {
      const stat = fs.fstatSync(fd);
      const refused = refusal(stat);
      if (refused !== undefined) throw new Refused(refused);
      // Read at most one byte past the limit: a file that grew since the fstat is refused too.
      const buffer = Buffer.allocUnsafe(Math.min(stat.size, MAX_POLICY_BYTES) + 1);
      let length = 0;
      for (;;) {
        const n = fs.readSync(fd, buffer, length, buffer.length - length, null);
        if (n === 0) break;
        length += n;
        if (length === buffer.length) {
          if (length > MAX_POLICY_BYTES) throw new Refused(TOO_LARGE);
          break;
        }
      }
      return buffer.toString('utf8', 0, length);
    } finally {
      fs.closeSync(fd);
    }
  }

  /**
   * The state as checked for `call` (an object of that call: the executor's call state): the
   * last check's when it was made for that same call (the policy decider's, a moment ago),
   * else a check now. So a call's later looks at the files (its path filter, the paths of its
   * commands) see what its decision saw, without a stat more, and a file changed between two
   * calls is seen by the second.
   */
  recent(call: object): PolicyFileStatus {
    return this.checkedFor?.deref() === call ? this.status : this.refresh(call);
  }

  /** {@link status}, checking once if it was never checked. */
  current(): PolicyFileStatus {
    return this.signature === '' && this.hash === '' ? this.refresh() : this.status;
  }

  private invalid(error: PolicyFileError): PolicyFileStatus {
    return { layer: this.layer, path: this.path, state: 'invalid', error };
  }

  /** No file there: the one frozen `absent` status, not a new object per call. */
  private setAbsent(): PolicyFileStatus {
    this.signature = 'absent';
    this.hash = '';
    this.status = this.absent;
    return this.status;
  }

  private set(signature: string, hash: string, make: () => PolicyFileStatus): PolicyFileStatus {
    const changed = hash === '' || hash !== this.hash;
    this.signature = signature;
    if (changed) {
      this.hash = hash;
      this.status = make();
    }
    return this.status;
  }
}

const SYMLINK = 'is not a regular file (a symbolic link: a workspace policy file must be the file itself)';
const LINKED_FOLDER = 'is not read: its folder is a symbolic link (a workspace policy file must be in the workspace itself)';
const TOO_LARGE = `is larger than ${MAX_POLICY_BYTES / 1024 / 1024} MiB (a policy file is small; this one is refused unread)`;

/** A file refused between the open and the read; the message is the problem. */
class Refused extends Error {}

/** Why a file with this stat is not read, if it is not. */
function refusal(stat: fs.Stats): string | undefined {
  if (stat.isSymbolicLink()) return SYMLINK;
  if (stat.isDirectory()) return 'cannot be read (EISDIR)';
  if (!stat.isFile()) return 'is not a regular file';
  if (stat.size > MAX_POLICY_BYTES) return TOO_LARGE;
  return undefined;
}

/**
 * The user files being watched, by path: weakly, so an entry lives exactly as long as a policy
 * set or a saved-approvals store holds it. (A bound with eviction would let a new policy set
 * get a second WatchedFile while the saved approvals still read the first, which the policy
 * decider no longer refreshes: a deleted approval would keep counting.)
 */
const watchedFiles = new Map<string, WeakRef<WatchedFile>>();
const forgotten = new FinalizationRegistry<string>((key) => {
  if (watchedFiles.get(key)?.deref() === undefined) watchedFiles.delete(key);
});

/**
 * The one {@link WatchedFile} of a layer's file at `file`, shared by every {@link PolicySet}
 * (the policy decider's, the path filter's; one per workspace) and, for the user's file, by
 * the saved approvals, so its text is parsed once and kept once, and a call's looks at it are
 * one stat ({@link WatchedFile.recent}).
 */
function sharedFile(layer: PolicyLayer, file: string): WatchedFile {
  const key = `${layer}\u0000${file}`;
  let watched = watchedFiles.get(key)?.deref();
  if (watched === undefined) {
    watched = new WatchedFile(layer, file);
    watchedFiles.set(key, new WeakRef(watched));
    forgotten.register(watched, key);
  }
  return watched;
}

/**
 * The user's file as of its last check, for the saved approvals (`saved-approvals.ts`): the
 * policy decider re-checks it just before (same call, same synchronous pass), so reading it
 * again would only repeat the stat. `refresh` forces a check (the first use, after a save).
 */
export interface UserPolicyFile {
  /** The state as of the last check (checking once if never checked). */
  current(): PolicyFileStatus;
  /** Check now. */
  refresh(): PolicyFileStatus;
}

/** The shared view of the user's file at `file` (see {@link UserPolicyFile}). */
export function userPolicyFile(file: string): UserPolicyFile {
  const watched = sharedFile('user', file);
  return { current: () => watched.current(), refresh: () => watched.refresh() };
}

/**
 * The user's and the workspace's policy files. Every {@link decide} first re-checks both
 * files (a stat each; read, hash and parse only what changed), so a rule added between two
 * calls applies to the second, and fixing an invalid file takes effect without a restart.
 */
export class PolicySet {
  private readonly watched: WatchedFile[];

  /**
   * @param paths - the files, in order of authority. An absent path is a file not
   *   configured; a configured path with no file there holds no rules (not an error).
   */
  constructor(paths: PolicyPaths) {
    this.watched = [];
    if (paths.user !== undefined) this.watched.push(sharedFile('user', paths.user));
    if (paths.workspace !== undefined) this.watched.push(sharedFile('workspace', paths.workspace));
  }

  /**
   * Re-check the files and return their states (user first); with `call`, the states as
   * checked for that call already if they were ({@link WatchedFile.recent}).
   */
  check(call?: object): readonly PolicyFileStatus[] {
    return this.watched.map((w) => (call === undefined ? w.refresh() : w.recent(call)));
  }

  /**
   * What the policy files say about one call, after re-checking them. An unreadable or
   * invalid file denies every call, naming the file and line, until it is fixed. Otherwise
   * each file's rules give a verdict ({@link matchPolicyRules}) and the stricter one wins
   * (the user's file on a tie).
   * @param look - for one call: `recheck: true` checks the files now and marks them checked
   *   for `call`; `recheck: false` uses the states checked for `call` already (one stat per
   *   file per call), checking only a file not checked for it. Without it, a check now.
   */
  decide(input: PolicyCallInput, look?: { call: object; recheck: boolean }): PolicyDecision {
    return this.evaluate(input, false, look).decision;
  }

  /** {@link decide}, with each file's own verdict and, for a shell call, each command's (for `toolgate policy check --explain`). */
  explain(input: PolicyCallInput): PolicyExplanation {
    return this.evaluate(input, true);
  }

  /** @param look - for a call: `recheck` checks the files now (marked as checked for it), else the states already checked for it are used. */
  private evaluate(input: PolicyCallInput, detail: boolean, look?: { call: object; recheck: boolean }): PolicyExplanation {
    const files: Array<PolicyFileStatus & { match?: PolicyMatch }> = [];
    let fresh = false;
    let person = false;
    let invalid: PolicyFileStatus | undefined;
    let best: { match: PolicyMatch; layer: PolicyLayer } | undefined;
    for (const watched of this.watched) {
      const status = look === undefined ? watched.refresh() : look.recheck ? watched.refresh(look.call) : watched.recent(look.call);
      if (status.state === 'invalid') {
        invalid ??= status;
        files.push(status);
        continue;
      }
      if (status.state === 'absent') {
        files.push(status);
        continue;
      }
      const policy = status.policy!;
      if (policy.alwaysAsk) fresh = true;
      const match = matchPolicyRules(policy, input, detail);
      files.push(match === undefined ? status : { ...status, match });
      if (match?.verdict === 'ask' && match.person === true) person = true;
      if (match !== undefined && (best === undefined || STRICTNESS[match.verdict] > STRICTNESS[best.match.verdict])) best = { match, layer: status.layer };
    }
    let decision: PolicyDecision;
    if (invalid !== undefined) {
      const error = invalid.error!;
      const problem = error.line === undefined ? error.problem : `line ${error.line}: ${error.problem}`;
      decision = { verdict: 'deny', reason: `the policy file ${error.file} ${error.line === undefined ? problem : `is invalid (${problem})`}; every call is denied until it is fixed`, layer: invalid.layer, error, fresh };
    } else if (best === undefined) {
      decision = { verdict: undefined, reason: 'no policy rule matched', fresh };
    } else {
      const { match, layer } = best;
      if (match.verdict === 'ask' && person) fresh = true;
      decision = match.command === undefined
        ? { verdict: match.verdict, reason: match.reason, rule: match.rule, layer, fresh }
        : { verdict: match.verdict, reason: match.reason, rule: match.rule, command: match.command, layer, fresh };
    }
    return { files, decision };
  }
}
