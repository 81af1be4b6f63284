/**
 * The ledger's SQLite file: opening it (read-write: made with mode 0600, WAL, migrated; or
 * read-only: SQLite's read-only flag, never written) and its migrations. The only module
 * besides the other `sqlite/` modules that knows the driver (better-sqlite3).
 *
 * @module
 */
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { ToolgateOptionError } from '../../errors/errors.js';
import { makeFolders } from '../../util/folders.js';
import { MIGRATIONS } from '../migrations.js';

/** A driver's connection. */
export type Connection = Database.Database;

/** An opened ledger file. */
export interface OpenedFile {
  db: Connection;
  /** The schema version (`PRAGMA user_version`) after migrating. */
  version: number;
  /** What the schema has (a file opened read-only may be older than this toolgate), found by name, not by version number. */
  has: SchemaFeatures;
}

/** Parts of the schema that later migrations added. */
interface SchemaFeatures {
  /** The `tombstones` table. */
  tombstones: boolean;
  /** `calls.output_bytes` and `calls.stored_bytes`. */
  sizes: boolean;
  /** The owner and lease columns of `calls` (migration 6). */
  leases: boolean;
  /** `calls.first_event` and `calls.last_event`, which bound a call's events (migration 8; before it, the index `events_by_call`). */
  eventBounds: boolean;
}

/** What the file's schema has. */
function featuresOf(db: Connection): SchemaFeatures {
  const tables = new Set((db.prepare(`SELECT name FROM sqlite_master WHERE type = 'table'`).all() as Array<{ name: string }>).map((t) => t.name));
  const columns = new Set((db.prepare(`SELECT name FROM pragma_table_info('calls')`).all() as Array<{ name: string }>).map((c) => c.name));
  return { tombstones: tables.has('tombstones'), sizes: columns.has('output_bytes') && columns.has('stored_bytes'), leases: columns.has('lease_token'), eventBounds: columns.has('last_event') };
}

/**
 * Open `file` for writing (made with its folder when missing, mode 0600 for it and its WAL
 * companions, WAL with `synchronous = NORMAL`, migrated to the latest schema).
 * @param busyMs - how long a write waits for another process's lock.
 * @throws the driver's error when the file cannot be opened or is of a newer schema.
 */
export function openForWriting(file: string, busyMs: number): OpenedFile {
  makeFolders(path.dirname(file), 0o700);
  // Arguments and whole outputs may hold secrets: the file and its WAL and shared-memory
  // companions are the owner's alone, whatever the umask (made empty first, so no moment
  // exists where another user could open them).
  for (const companion of [file, `${file}-wal`, `${file}-shm`]) makePrivate(companion);
  const db = new Database(file, { timeout: busyMs });
  try {
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    // Checkpoint every 10,000 pages (about 40 MiB of WAL) rather than SQLite's 1,000: the
    // pages every call changes (the last leaf of calls, events, results) are then copied
    // into the file ten times less often (bench: ~150 -> ~110 µs a call under load).
    db.pragma('wal_autocheckpoint = 10000');
    db.pragma(`journal_size_limit = ${64 * 1024 * 1024}`);
    db.pragma('foreign_keys = ON');
    db.pragma(`busy_timeout = ${busyMs}`);
    migrate(db);
    return { db, version: MIGRATIONS.length, has: featuresOf(db) };
  } catch (error) {
    db.close();
    throw error;
  }
}

/**
 * Make `file` the owner's alone: created empty with mode 0600 when missing, else changed to
 * 0600 by its path. A file that exists is never opened here: this process may hold it open
 * through SQLite already (a second ledger on the same file: an executor's beside the
 * cockpit's), and closing any descriptor of a file drops every POSIX lock the process holds on
 * it (POSIX `fcntl` locks belong to the process and the file, not to a descriptor), SQLite's
 * among them. Without its lock on the `-shm` file, another process opening the ledger takes
 * this one for gone: it truncates the shared memory this process has mapped (which then dies
 * of SIGBUS when it touches it) and, closing as the last user, checkpoints and deletes the
 * WAL, so what this process writes afterwards goes to a deleted file no other process sees.
 * Source: sqlite.org/howtocorrupt.html, 2.2 "Posix advisory locks canceled by a separate
 * thread doing close()"; `unixLockSharedMemory` of SQLite's os_unix.c.
 * Never throws: a file that is not ours to change (a read-only or shared store) is left as it
 * is, and SQLite reports what matters.
 */
function makePrivate(file: string): void {
  try {
    // O_EXCL: made only when missing. A new file's descriptor holds no lock of anyone's.
    fs.closeSync(fs.openSync(file, fs.constants.O_CREAT | fs.constants.O_EXCL | fs.constants.O_RDWR, 0o600));
  } catch {
    // It exists (or cannot be made): only its mode is changed below.
  }
  try {
    fs.chmodSync(file, 0o600);
  } catch {
    // Not ours to change.
  }
}

/**
 * Open an existing `file` to read only: no folder made, no permission changed, no migration.
 * @throws the driver's error when it does not exist; Error when it is not a ledger or is of a newer schema.
 */
export function openForReading(file: string, busyMs: number): OpenedFile {
  const db = new Database(file, { readonly: true, fileMustExist: true, timeout: busyMs });
  try {
    db.pragma(`busy_timeout = ${busyMs}`);
    const version = db.pragma('user_version', { simple: true }) as number;
    if (version > MIGRATIONS.length) throw newerSchema(version);
    if (version < 1) throw new Error(`${file} is not a toolgate ledger (schema version ${version})`);
    return { db, version, has: featuresOf(db) };
  } catch (error) {
    db.close();
    throw error;
  }
}

function newerSchema(version: number): Error {
  return new Error(`ledger schema version ${version} is newer than this toolgate knows (${MIGRATIONS.length}); use a newer toolgate or another --state-dir`);
}

/**
 * Run the migrations the file lacks, each in a transaction with its version bump. The version
 * is read under the write lock: processes opening a new file at once migrate it once.
 */
function migrate(db: Connection): void {
  const step = db.transaction((): boolean => {
    const version = db.pragma('user_version', { simple: true }) as number;
    if (version > MIGRATIONS.length) throw newerSchema(version);
    if (version === MIGRATIONS.length) return false;
    db.exec(MIGRATIONS[version]!);
    db.pragma(`user_version = ${version + 1}`);
    return true;
  });
  while (step.immediate()) {
    // one migration per transaction
  }
}

/** Whether `error` is the store's (the file is busy, full, read-only, unreadable, corrupt) rather than one row's. */
export function storeError(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string'
    && /^SQLITE_(BUSY|LOCKED|FULL|IOERR|READONLY|CANTOPEN|NOMEM|PROTOCOL|CORRUPT|NOTADB|PERM|AUTH)/.test(code);
}

/**
 * An option that must be a positive integer, or its default.
 * @throws ToolgateOptionError naming `name` otherwise.
 */
export function positive(value: number | undefined, fallback: number, name: string): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 1) throw ToolgateOptionError.fromBadOption(name, `must be a positive integer; got ${String(value).slice(0, 50)}`);
  return value;
}
