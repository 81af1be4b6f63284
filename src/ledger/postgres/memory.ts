/**
 * The memory store of the shared PostgreSQL call store: the notes of every workspace in one
 * table of the store's schema (`memory_notes`, migration 3), keyed by the workspace's identity
 * (its real path unless one is named: `src/ledger/memory-stores.ts`). Implements
 * {@link MemoryStore} (`src/types/memory-service.ts`) with the same scopes, bounds and checks as
 * the SQLite file of one machine (`../sqlite/memory.ts`).
 *
 * Full-text search: each note's text and tags make a `tsvector` (`to_tsvector('simple', ...)`,
 * stored, GIN-indexed). The `simple` configuration lowercases words and neither stems nor
 * drops stop words, as SQLite FTS5's `unicode61` tokenizer does, so both stores find the same
 * notes. The query is the words of {@link queryWords}, each made a `tsquery` by
 * `plainto_tsquery` (plain text: no operator of the query language gets through) and joined
 * with `|`: a note matches ANY word, as on SQLite (`websearch_to_tsquery` and
 * `plainto_tsquery` of the whole query would ask for EVERY word, which misses the notes a
 * model's question-shaped query is after; `websearch_to_tsquery` would also give the model a
 * syntax, `"..."`, `or`, `-`, that the SQLite store does not take). Ranked by
 * `ts_rank(search, query, 1)` (term frequency, divided by 1 + the log of the note's length: the
 * nearest to BM25's length normalization PostgreSQL has; it has no inverse document
 * frequency), best first, ties by id.
 *
 * Writes run in the store's transaction (its write lock held), so the count bounds hold across
 * every process and machine. The store's connections are the call store's: closing this store
 * releases nothing; the call store's `close()` does.
 *
 * @module
 */
import { ToolExecutionError } from '../../errors/errors.js';
import { checkNoteText, MEMORY_LIMITS, queryWords, type MemoryNote, type MemoryStore } from '../../types/memory-service.js';
import { NOW_MS, type PgDatabase } from './database.js';

interface NoteRow { id: number; text: string; tags: string[]; scope: string; created_at: number }

const toNote = (row: NoteRow): MemoryNote => ({ id: row.id, text: row.text, tags: row.tags, scope: row.scope, created: new Date(row.created_at).toISOString() });

const COLUMNS = 'id, text, tags, scope, created_at';

/** The query: the words' `plainto_tsquery`s joined by `|` (NULL when no word makes a lexeme). */
const QUERY = `(SELECT string_agg('(' || t || ')', ' | ')::tsquery FROM (SELECT plainto_tsquery('simple', w)::text AS t FROM unnest($1::text[]) AS w) AS words WHERE t <> '')`;

/** One workspace's notes in a PostgreSQL store. */
export class PgMemoryStore implements MemoryStore {
  /**
   * @param db - the call store's connections.
   * @param workspace - the workspace's identity (the `workspace` column).
   * @param readonly - whether the call store was opened read-only (every write rejects).
   * @param where - the call store's URL without its password (and schema), for messages.
   */
  constructor(private readonly db: PgDatabase, private readonly workspace: string, private readonly readonly: boolean, readonly where: string) {}

  async close(): Promise<void> {
    // The call store's connections: its close() ends them.
  }

  async remember(scope: string, text: string, tags: readonly string[]): Promise<MemoryNote> {
    checkNoteText(text);
    this.writable();
    const [row] = await this.db.tx(async (q) => {
      const [counts] = await q<{ scope: number; total: number }>(
        'SELECT count(*) FILTER (WHERE scope = $2) AS scope, count(*) AS total FROM memory_notes WHERE workspace = $1', [this.workspace, scope]);
      if (Number(counts?.scope ?? 0) >= MEMORY_LIMITS.notes) throw new ToolExecutionError(`this scope (${scope}) already holds ${MEMORY_LIMITS.notes} notes, the most it may; forget some with memory_forget first. Nothing was changed.`);
      if (Number(counts?.total ?? 0) >= MEMORY_LIMITS.totalNotes) throw new ToolExecutionError(`this workspace's memory already holds ${MEMORY_LIMITS.totalNotes} notes in all scopes, the most it may; forget some with memory_forget first. Nothing was changed.`);
      return q<NoteRow>(`INSERT INTO memory_notes (workspace, scope, text, tags, created_at, search)
        VALUES ($1, $2, $3, $4::text[], ${NOW_MS}, to_tsvector('simple', $3 || ' ' || array_to_string($4::text[], ' '))) RETURNING ${COLUMNS}`,
      [this.workspace, scope, text, [...tags]]);
    });
    return toNote(row!);
  }

  async search(scope: string, query: string, limit: number, tag?: string): Promise<MemoryNote[]> {
    const words = queryWords(query);
    const rows = await this.db.read<NoteRow>(
      `SELECT ${COLUMNS} FROM memory_notes, ${QUERY} AS q (query)
       WHERE workspace = $2 AND scope = $3 AND search @@ query ${tag === undefined ? '' : 'AND $5 = ANY(tags)'}
       ORDER BY ts_rank(search, query, 1) DESC, id LIMIT $4`,
      tag === undefined ? [words, this.workspace, scope, limit] : [words, this.workspace, scope, limit, tag]);
    return rows.map(toNote);
  }

  async list(scope: string, limit: number, tag?: string): Promise<{ notes: MemoryNote[]; total: number }> {
    const where = `workspace = $1 AND scope = $2 ${tag === undefined ? '' : 'AND $3 = ANY(tags)'}`;
    const params = tag === undefined ? [this.workspace, scope] : [this.workspace, scope, tag];
    const [count] = await this.db.read<{ total: number }>(`SELECT count(*) AS total FROM memory_notes WHERE ${where}`, params);
    const rows = await this.db.read<NoteRow>(`SELECT ${COLUMNS} FROM memory_notes WHERE ${where} ORDER BY id DESC LIMIT $${params.length + 1}`, [...params, limit]);
    return { notes: rows.map(toNote), total: Number(count?.total ?? 0) };
  }

  async get(scope: string, id: number): Promise<MemoryNote | undefined> {
    if (!Number.isSafeInteger(id)) return undefined;
    const [row] = await this.db.read<NoteRow>(`SELECT ${COLUMNS} FROM memory_notes WHERE id = $1 AND workspace = $2 AND scope = $3`, [id, this.workspace, scope]);
    return row === undefined ? undefined : toNote(row);
  }

  async forget(scope: string, id: number): Promise<boolean> {
    this.writable();
    if (!Number.isSafeInteger(id)) return false;
    const rows = await this.db.tx((q) => q('DELETE FROM memory_notes WHERE id = $1 AND workspace = $2 AND scope = $3 RETURNING id', [id, this.workspace, scope]));
    return rows.length > 0;
  }

  private writable(): void {
    if (this.readonly) throw new ToolExecutionError(`the memory of ${this.where} is open read-only here; nothing was changed.`);
  }
}
