/**
 * The memory store: notes an agent keeps across runs, one SQLite file per workspace in the
 * state folder, next to the workspace's ledger (`memory-<key>.sqlite`; the folder and key
 * follow the ledger's rule, `src/ledger/paths.ts`: `$XDG_STATE_HOME/toolgate/` else
 * `~/.local/state/toolgate/`, the key being 16 hex digits of the SHA-256 of the workspace's
 * real path). Full-text search is SQLite FTS5, ranked by BM25.
 *
 * Every note has a scope: the workspace, or within it a user or an agent name
 * (`user:<name>`, `agent:<name>`); a call sees only the notes of its scope. Sizes and counts
 * are bounded ({@link MEMORY_LIMITS}); bad input is a `ToolExecutionError` that changes
 * nothing. The file is opened per call and closed after it, so another process (a restarted
 * agent) sees every note at once.
 *
 * @module
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { ToolExecutionError } from '../../src/tool.js';

/** Bounds of the memory store. */
export const MEMORY_LIMITS = Object.freeze({
  /** Characters of one note's text at most. */
  textChars: 4000,
  /** Tags of one note at most. */
  tags: 16,
  /** Notes in one scope at most (forget some to remember more). */
  notes: 1000,
  /** Notes in the whole file at most, every scope together (scopes are the model's to name). */
  totalNotes: 10_000,
  /** Notes one search or list returns at most. */
  results: 50,
  /** Characters of a search query at most. */
  queryChars: 500,
});

const TAG_PATTERN = /^[a-z0-9][a-z0-9_.-]{0,39}$/;
const NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.@-]{0,63}$/;

/** Who a note belongs to within the workspace. */
export interface MemoryScope {
  /** A user's name: notes of that user only. */
  user?: string;
  /** An agent's name: notes of that agent only. */
  agent?: string;
}

/** One note as stored. */
export interface MemoryNote {
  id: number;
  text: string;
  tags: string[];
  /** `workspace`, `user:<name>`, `agent:<name>` or `user:<name>/agent:<name>`. */
  scope: string;
  /** When it was remembered (ISO 8601, UTC). */
  created: string;
}

/** The state folder (the ledger's rule, `src/ledger/paths.ts` `defaultStateDir`). */
function memoryStateDir(env: NodeJS.ProcessEnv = process.env): string {
  const xdg = env.XDG_STATE_HOME;
  if (xdg !== undefined && path.isAbsolute(xdg)) return path.join(xdg, 'toolgate');
  return path.join(env.HOME || os.homedir(), '.local', 'state', 'toolgate');
}

/** The memory file of a workspace (key as `src/ledger/paths.ts` `workspaceKey`). */
export function memoryFile(workspaceRealRoot: string, env: NodeJS.ProcessEnv = process.env): string {
  const key = crypto.createHash('sha256').update(workspaceRealRoot).digest('hex').slice(0, 16);
  return path.join(memoryStateDir(env), `memory-${key}.sqlite`);
}

/** The scope key of `scope`, checking its names. @throws ToolExecutionError for a bad name. */
export function scopeKey(scope: MemoryScope): string {
  const parts: string[] = [];
  for (const which of ['user', 'agent'] as const) {
    const name = scope[which];
    if (name === undefined) continue;
    if (typeof name !== 'string' || !NAME_PATTERN.test(name)) {
      throw new ToolExecutionError(`${which} ${JSON.stringify(String(name).slice(0, 100))} is not a name: letters, digits, "_", ".", "@" and "-", at most 64 characters. Nothing was changed.`);
    }
    parts.push(`${which}:${name}`);
  }
  return parts.length === 0 ? 'workspace' : parts.join('/');
}

/** Check and normalize tags (lowercase, unique). @throws ToolExecutionError for bad ones. */
export function checkTags(tags: readonly string[] | undefined): string[] {
  if (tags === undefined) return [];
  if (tags.length > MEMORY_LIMITS.tags) throw new ToolExecutionError(`a note has at most ${MEMORY_LIMITS.tags} tags; got ${tags.length}. Nothing was changed.`);
  const out = new Set<string>();
  for (const tag of tags) {
    const t = String(tag).trim().toLowerCase();
    if (!TAG_PATTERN.test(t)) throw new ToolExecutionError(`tag ${JSON.stringify(String(tag).slice(0, 100))} must be lowercase letters, digits, "_", "." or "-" (at most 40 characters), such as "deploy". Nothing was changed.`);
    out.add(t);
  }
  return [...out];
}

/** An FTS5 query of the words of `query`, any of them (ranked), each quoted (no FTS syntax). */
function ftsQuery(query: string): string {
  const words = query.match(/[\p{L}\p{N}_]+/gu) ?? [];
  return [...new Set(words)].slice(0, 32).map((w) => `"${w}"`).join(' OR ');
}

interface NoteRow { id: number; text: string; tags: string; scope: string; created: string }

const toNote = (row: NoteRow): MemoryNote => ({ id: row.id, text: row.text, tags: JSON.parse(row.tags) as string[], scope: row.scope, created: row.created });

/** A workspace's memory file, opened for one call ({@link MemoryStore.open}; {@link MemoryStore.close} after). */
export class MemoryStore {
  private constructor(private readonly db: Database.Database) {}

  /** Open (and make, on first use) the memory file of the workspace whose real root is `workspaceRealRoot`. */
  static open(workspaceRealRoot: string, env: NodeJS.ProcessEnv = process.env): MemoryStore {
    const file = memoryFile(workspaceRealRoot, env);
    fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
    // Notes may hold secrets: the file and its WAL and shared-memory companions are the
    // owner's alone whatever the umask (made empty first, as the ledger's are).
    for (const companion of [file, `${file}-wal`, `${file}-shm`]) {
      try {
        fs.closeSync(fs.openSync(companion, fs.constants.O_CREAT | fs.constants.O_RDWR | fs.constants.O_NOFOLLOW, 0o600));
        fs.chmodSync(companion, 0o600);
      } catch {
        // not ours to change: SQLite reports what matters
      }
    }
    const db = new Database(file, { timeout: 5000 });
    try {
      db.pragma('journal_mode = WAL');
      db.exec(`
        CREATE TABLE IF NOT EXISTS notes (id INTEGER PRIMARY KEY AUTOINCREMENT, scope TEXT NOT NULL, text TEXT NOT NULL, tags TEXT NOT NULL, created TEXT NOT NULL);
        CREATE INDEX IF NOT EXISTS notes_scope ON notes (scope, id);
        CREATE VIRTUAL TABLE IF NOT EXISTS notes_fts USING fts5 (text, tags, content='notes', content_rowid='id');
        CREATE TRIGGER IF NOT EXISTS notes_ai AFTER INSERT ON notes BEGIN INSERT INTO notes_fts (rowid, text, tags) VALUES (new.id, new.text, new.tags); END;
        CREATE TRIGGER IF NOT EXISTS notes_ad AFTER DELETE ON notes BEGIN INSERT INTO notes_fts (notes_fts, rowid, text, tags) VALUES ('delete', old.id, old.text, old.tags); END;
      `);
    } catch (error) {
      db.close();
      throw error;
    }
    return new MemoryStore(db);
  }

  close(): void {
    this.db.close();
  }

  /**
   * Remember a note.
   * @throws ToolExecutionError (nothing stored) for empty or oversized text, bad tags, or a full scope.
   */
  remember(scope: string, text: string, tags: string[]): MemoryNote {
    if (typeof text !== 'string' || text.trim() === '') throw new ToolExecutionError('the note is empty; give the text to remember. Nothing was changed.');
    if (text.length > MEMORY_LIMITS.textChars) {
      throw new ToolExecutionError(`the note is ${text.length} characters, more than the ${MEMORY_LIMITS.textChars} a note may have; shorten or split it. Nothing was changed.`);
    }
    return this.db.transaction(() => {
      const { n } = this.db.prepare('SELECT count(*) AS n FROM notes WHERE scope = ?').get(scope) as { n: number };
      if (n >= MEMORY_LIMITS.notes) throw new ToolExecutionError(`this scope (${scope}) already holds ${MEMORY_LIMITS.notes} notes, the most it may; forget some with memory_forget first. Nothing was changed.`);
      const { total } = this.db.prepare('SELECT count(*) AS total FROM notes').get() as { total: number };
      if (total >= MEMORY_LIMITS.totalNotes) throw new ToolExecutionError(`this workspace's memory already holds ${MEMORY_LIMITS.totalNotes} notes in all scopes, the most it may; forget some with memory_forget first. Nothing was changed.`);
      const created = new Date().toISOString();
      const info = this.db.prepare('INSERT INTO notes (scope, text, tags, created) VALUES (?, ?, ?, ?)').run(scope, text, JSON.stringify(tags), created);
      return { id: Number(info.lastInsertRowid), text, tags, scope, created };
    }).immediate();
  }

  /** The notes of `scope` matching any word of `query`, best first (BM25), optionally with `tag`. */
  search(scope: string, query: string, limit: number, tag?: string): MemoryNote[] {
    if (typeof query !== 'string' || query.length > MEMORY_LIMITS.queryChars) throw new ToolExecutionError(`the query must be at most ${MEMORY_LIMITS.queryChars} characters.`);
    const match = ftsQuery(query);
    if (match === '') throw new ToolExecutionError('the query has no words to search for; give a few keywords.');
    const rows = this.db.prepare(
      `SELECT n.id, n.text, n.tags, n.scope, n.created FROM notes_fts f JOIN notes n ON n.id = f.rowid
       WHERE notes_fts MATCH ? AND n.scope = ? ${tag === undefined ? '' : 'AND EXISTS (SELECT 1 FROM json_each(n.tags) WHERE value = ?)'}
       ORDER BY bm25(notes_fts) LIMIT ?`,
    ).all(...(tag === undefined ? [match, scope, limit] : [match, scope, tag, limit])) as NoteRow[];
    return rows.map(toNote);
  }

  /** The notes of `scope`, newest first, optionally with `tag`; and how many there are in all. */
  list(scope: string, limit: number, tag?: string): { notes: MemoryNote[]; total: number } {
    const where = `scope = ? ${tag === undefined ? '' : 'AND EXISTS (SELECT 1 FROM json_each(tags) WHERE value = ?)'}`;
    const params = tag === undefined ? [scope] : [scope, tag];
    const { n } = this.db.prepare(`SELECT count(*) AS n FROM notes WHERE ${where}`).get(...params) as { n: number };
    const rows = this.db.prepare(`SELECT id, text, tags, scope, created FROM notes WHERE ${where} ORDER BY id DESC LIMIT ?`).all(...params, limit) as NoteRow[];
    return { notes: rows.map(toNote), total: n };
  }

  /** The note `id` of `scope`, or `undefined`. */
  get(scope: string, id: number): MemoryNote | undefined {
    const row = this.db.prepare('SELECT id, text, tags, scope, created FROM notes WHERE id = ? AND scope = ?').get(id, scope) as NoteRow | undefined;
    return row === undefined ? undefined : toNote(row);
  }

  /** Forget the note `id` of `scope`; whether there was one. */
  forget(scope: string, id: number): boolean {
    return this.db.prepare('DELETE FROM notes WHERE id = ? AND scope = ?').run(id, scope).changes > 0;
  }
}

/** Run `fn` on the workspace's memory file, closing it after. */
export function withMemory<T>(workspaceRealRoot: string, fn: (store: MemoryStore) => T): T {
  const store = MemoryStore.open(workspaceRealRoot);
  try {
    return fn(store);
  } finally {
    store.close();
  }
}

/** A note as the model reads it: `#id [tags] (created) text`. */
export function showNote(note: MemoryNote): string {
  const tags = note.tags.length === 0 ? '' : ` [${note.tags.join(', ')}]`;
  return `#${note.id}${tags} (${note.created.slice(0, 19)}Z) ${note.text}`;
}
