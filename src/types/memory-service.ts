/**
 * The seam between the `memory` tools (`tools-ported/memory/`) and the store that keeps their
 * notes: one interface, {@link MemoryStore}, for every memory store (the SQLite file of one
 * machine, `src/ledger/sqlite/memory.ts`; the PostgreSQL call store's tables,
 * `src/ledger/postgres/memory.ts`; which one a tool system opens: `src/ledger/memory-stores.ts`).
 * The tool system lends each call of a memory tool its store, bound to the tool system's
 * workspace, through the call's `CallerServices` (read here by shape, so that this base module
 * imports nothing above it); the tool reads it back with {@link memoryOf}. A call that was
 * lent none (a registry used without a tool system) is answered "unavailable".
 *
 * Also here, so that every store checks the same way: the bounds ({@link MEMORY_LIMITS}), the
 * scope names ({@link scopeKey}), tags ({@link checkTags}), text ({@link checkNoteText}) and
 * query words ({@link queryWords}). Bad input is a `ToolExecutionError` that changes nothing.
 *
 * @module
 */
import { ToolExecutionError } from '../errors/errors.js';
import type { ToolContext } from './tool.js';

/** The domain of the memory tools. @internal */
export const MEMORY_DOMAIN = 'memory';

/** Bounds of every memory store. @internal */
export const MEMORY_LIMITS = Object.freeze({
  /** Characters of one note's text at most. */
  textChars: 4000,
  /** Tags of one note at most. */
  tags: 16,
  /** Notes in one scope at most (forget some to remember more). */
  notes: 1000,
  /** Notes of one workspace at most, every scope together (scopes are the model's to name). */
  totalNotes: 10_000,
  /** Notes one search or list returns at most. */
  results: 50,
  /** Characters of a search query at most. */
  queryChars: 500,
  /** Distinct words of a query searched for at most (the rest are ignored). */
  queryWords: 32,
});

/** One note as stored. @internal */
export interface MemoryNote {
  /** The note's id in its store (positive; unique within the workspace). */
  id: number;
  text: string;
  tags: string[];
  /** `workspace`, `user:<name>`, `agent:<name>` or `user:<name>/agent:<name>`. */
  scope: string;
  /** When it was remembered (ISO 8601, UTC). */
  created: string;
}

/**
 * A workspace's memory: what every memory store implements (one file per store; the choice is
 * `src/ledger/memory-stores.ts`). Every method resolves, or rejects with a `ToolExecutionError`
 * (bad input, a full scope: nothing changed) or the store's own error.
 * @internal
 */
export interface MemoryStore {
  /** Where the notes are kept, for messages (a file path, or a server URL without its password). */
  readonly where: string;
  /**
   * Remember a note in `scope` (a {@link scopeKey}); `tags` checked by {@link checkTags}.
   * @throws ToolExecutionError (nothing stored) for empty or oversized text, or a full scope or workspace.
   */
  remember(scope: string, text: string, tags: readonly string[]): Promise<MemoryNote>;
  /**
   * The notes of `scope` matching any word of `query` (words as {@link queryWords} finds them),
   * best match first, at most `limit`, only those with `tag` when given.
   * @throws ToolExecutionError for a query too long or without words.
   */
  search(scope: string, query: string, limit: number, tag?: string): Promise<MemoryNote[]>;
  /** The notes of `scope`, newest first, at most `limit` (only those with `tag` when given), and how many match in all. */
  list(scope: string, limit: number, tag?: string): Promise<{ notes: MemoryNote[]; total: number }>;
  /** The note `id` of `scope`, or `undefined`. */
  get(scope: string, id: number): Promise<MemoryNote | undefined>;
  /** Forget the note `id` of `scope`; whether there was one. */
  forget(scope: string, id: number): Promise<boolean>;
  /** Release what the store holds (idempotent; a store on the call store's connections holds nothing of its own). */
  close(): Promise<void>;
}

const TAG_PATTERN = /^[a-z0-9][a-z0-9_.-]{0,39}$/;
const NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.@-]{0,63}$/;

/** Who a note belongs to within the workspace. @internal */
export interface MemoryScope {
  /** A user's name: notes of that user only. */
  user?: string | undefined;
  /** An agent's name: notes of that agent only. */
  agent?: string | undefined;
}

/** The scope key of `scope`, checking its names. @throws ToolExecutionError for a bad name. @internal */
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

/** Check and normalize tags (lowercase, unique). @throws ToolExecutionError for bad ones. @internal */
export function checkTags(tags: readonly string[] | undefined): string[] {
  if (tags === undefined) return [];
  if (!Array.isArray(tags)) throw new ToolExecutionError('tags must be a list of words. Nothing was changed.');
  if (tags.length > MEMORY_LIMITS.tags) throw new ToolExecutionError(`a note has at most ${MEMORY_LIMITS.tags} tags; got ${tags.length}. Nothing was changed.`);
  const out = new Set<string>();
  for (const tag of tags) {
    const t = String(tag).trim().toLowerCase();
    if (!TAG_PATTERN.test(t)) throw new ToolExecutionError(`tag ${JSON.stringify(String(tag).slice(0, 100))} must be lowercase letters, digits, "_", "." or "-" (at most 40 characters), such as "deploy". Nothing was changed.`);
    out.add(t);
  }
  return [...out];
}

/** Check a note's text. @throws ToolExecutionError (nothing stored) when it is empty or longer than the bound. @internal */
export function checkNoteText(text: unknown): string {
  if (typeof text !== 'string' || text.trim() === '') throw new ToolExecutionError('the note is empty; give the text to remember. Nothing was changed.');
  if (text.length > MEMORY_LIMITS.textChars) {
    throw new ToolExecutionError(`the note is ${text.length} characters, more than the ${MEMORY_LIMITS.textChars} a note may have; shorten or split it. Nothing was changed.`);
  }
  return text;
}

/**
 * The distinct words of a search query (letters, digits and `_`; at most
 * {@link MEMORY_LIMITS.queryWords}): what every store searches for, any of them, with no query
 * syntax of its own passed through.
 * @throws ToolExecutionError for a query that is too long or has no words.
 * @internal
 */
export function queryWords(query: unknown): string[] {
  if (typeof query !== 'string' || query.length > MEMORY_LIMITS.queryChars) throw new ToolExecutionError(`the query must be at most ${MEMORY_LIMITS.queryChars} characters.`);
  const words = [...new Set(query.match(/[\p{L}\p{N}_]+/gu) ?? [])].slice(0, MEMORY_LIMITS.queryWords);
  if (words.length === 0) throw new ToolExecutionError('the query has no words to search for; give a few keywords.');
  return words;
}

/** A note as the model reads it: `#id [tags] (created) text`. @internal */
export function showNote(note: MemoryNote): string {
  const tags = note.tags.length === 0 ? '' : ` [${note.tags.join(', ')}]`;
  return `#${note.id}${tags} (${note.created.slice(0, 19)}Z) ${note.text}`;
}

/** Why memory tools are unavailable when no store was lent. @internal */
export const MEMORY_UNAVAILABLE = 'memory is unavailable here: notes are kept by the tool system (ToolSystem), and this call was run without one.';

/**
 * The memory store lent to this call.
 * @throws ToolExecutionError when none was lent ({@link MEMORY_UNAVAILABLE}).
 * @internal
 */
export function memoryOf(ctx: Pick<ToolContext, 'client'>): MemoryStore {
  const memory = (ctx.client?.services as { memory?: Partial<MemoryStore> } | undefined)?.memory;
  if (typeof memory?.remember !== 'function') throw new ToolExecutionError(MEMORY_UNAVAILABLE);
  return memory as MemoryStore;
}
