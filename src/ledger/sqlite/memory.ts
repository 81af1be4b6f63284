/**
 * The memory store of one machine: one SQLite file per workspace in the state folder, next to
 * the workspace's ledger (`memory-<key>.sqlite`, the key being 16 hex digits of the SHA-256 of
 * the workspace's identity: its real path unless one is named). Full-text search is SQLite
 * FTS5 (the `unicode61` tokenizer: words lowercased, no stemming), ranked by BM25, a note
 * matching any word of the query. Implements {@link MemoryStore} (`src/types/memory-service.ts`).
 *
 * The tool system opens it once, on the first memory call, and closes it with itself: every
 * statement runs in its own transaction in WAL mode, so another process writing the same file
 * (a second agent, a restarted one) is seen by the next statement.
 *
 * @module
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { ToolExecutionError } from '../../errors/errors.js';
import { checkNoteText, MEMORY_LIMITS, queryWords, type MemoryNote, type MemoryStore } from '../../types/memory-service.js';

/** The memory file of the workspace whose identity is `workspace`, in the state folder `stateDir`. */
export function memoryFile(stateDir: string, workspace: string): string {
  const key = crypto.createHash('sha256').update(workspace).digest('hex').slice(0, 16);
  return path.join(path.resolve(stateDir), `memory-${key}.sqlite`);
}

interface NoteRow { id: number; text: string; tags: string; scope: string; created: string }

const toNote = (row: NoteRow): MemoryNote => ({ id: row.id, text: row.text, tags: JSON.parse(row.tags) as string[], scope: row.scope, created: row.created });

const HAS_TAG = 'EXISTS (SELECT 1 FROM json_each(n.tags) WHERE value = ?)';

/** A workspace's memory file, open until {@link SqliteMemoryStore.close}. */
export class SqliteMemoryStore implements MemoryStore {
  private closed = false;

  private constructor(private readonly db: Database.Database, readonly where: string) {}

  /**
   * Open (and make, on first use) the memory file of workspace `workspace` in `stateDir`
   * (made mode 0700 when missing; the file and its companions mode 0600).
   * @throws Error when the folder or file cannot be made or opened.
   */
  static open(stateDir: string, workspace: string): SqliteMemoryStore {
    const file = memoryFile(stateDir, workspace);
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
    return new SqliteMemoryStore(db, file);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.db.close();
  }

  async remember(scope: string, text: string, tags: readonly string[]): Promise<MemoryNote> {
    checkNoteText(text);
    return this.db.transaction(() => {
      const { n } = this.db.prepare('SELECT count(*) AS n FROM notes WHERE scope = ?').get(scope) as { n: number };
      if (n >= MEMORY_LIMITS.notes) throw new ToolExecutionError(`this scope (${scope}) already holds ${MEMORY_LIMITS.notes} notes, the most it may; forget some with memory_forget first. Nothing was changed.`);
      const { total } = this.db.prepare('SELECT count(*) AS total FROM notes').get() as { total: number };
      if (total >= MEMORY_LIMITS.totalNotes) throw new ToolExecutionError(`this workspace's memory already holds ${MEMORY_LIMITS.totalNotes} notes in all scopes, the most it may; forget some with memory_forget first. Nothing was changed.`);
      const created = new Date().toISOString();
      const info = this.db.prepare('INSERT INTO notes (scope, text, tags, created) VALUES (?, ?, ?, ?)').run(scope, text, JSON.stringify(tags), created);
      return { id: Number(info.lastInsertRowid), text, tags: [...tags], scope, created };
    }).immediate();
  }

  async search(scope: string, query: string, limit: number, tag?: string): Promise<MemoryNote[]> {
    // Each word quoted (no FTS5 syntax passed through), any of them.
    const match = queryWords(query).map((w) => `"${w}"`).join(' OR ');
    const rows = this.db.prepare(
      `SELECT n.id, n.text, n.tags, n.scope, n.created FROM notes_fts f JOIN notes n ON n.id = f.rowid
       WHERE notes_fts MATCH ? AND n.scope = ? ${tag === undefined ? '' : `AND ${HAS_TAG}`}
       ORDER BY bm25(notes_fts), n.id LIMIT ?`,
    ).all(...(tag === undefined ? [match, scope, limit] : [match, scope, tag, limit])) as NoteRow[];
    return rows.map(toNote);
  }

  async list(scope: string, limit: number, tag?: string): Promise<{ notes: MemoryNote[]; total: number }> {
    const where = `n.scope = ? ${tag === undefined ? '' : `AND ${HAS_TAG}`}`;
    const params = tag === undefined ? [scope] : [scope, tag];
    const { total } = this.db.prepare(`SELECT count(*) AS total FROM notes n WHERE ${where}`).get(...params) as { total: number };
    const rows = this.db.prepare(`SELECT n.id, n.text, n.tags, n.scope, n.created FROM notes n WHERE ${where} ORDER BY n.id DESC LIMIT ?`).all(...params, limit) as NoteRow[];
    return { notes: rows.map(toNote), total };
  }

  async get(scope: string, id: number): Promise<MemoryNote | undefined> {
    const row = this.db.prepare('SELECT id, text, tags, scope, created FROM notes WHERE id = ? AND scope = ?').get(id, scope) as NoteRow | undefined;
    return row === undefined ? undefined : toNote(row);
  }

  async forget(scope: string, id: number): Promise<boolean> {
    return this.db.prepare('DELETE FROM notes WHERE id = ? AND scope = ?').run(id, scope).changes > 0;
  }
}
