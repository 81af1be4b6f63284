/**
 * Which memory store a tool system opens (`src/types/memory-service.ts` has the one interface,
 * {@link MemoryStore}): a call store that keeps notes itself, as the PostgreSQL store does
 * (`openMemory`, `postgres/memory.ts`), keeps them, so that every machine on that store sees
 * them; otherwise the workspace's SQLite file in the state folder (`sqlite/memory.ts`). A new
 * store is one file implementing {@link MemoryStore}, reached by its call store's `openMemory`.
 *
 * The workspace's identity keys the notes in both: the workspace's real path unless the tool
 * system names one (`ToolSystemOptions.memoryWorkspace`), so that processes on machines whose
 * checkouts have different paths share a workspace's notes.
 *
 * @module
 */
import type { MemoryNote, MemoryStore } from '../types/memory-service.js';
import type { CallStore } from './call-store.js';
import { SqliteMemoryStore } from './sqlite/memory.js';

/** Where a tool system's notes are kept. */
export interface MemoryPlace {
  /** The tool system's call store, if it has one. */
  store: CallStore | undefined;
  /** The state folder, where the SQLite memory file is (absolute). */
  stateDir: string;
  /** The workspace's identity. */
  workspace: string;
}

/** A call store that keeps memory itself. */
interface KeepsMemory {
  openMemory(workspace: string): MemoryStore;
}

/** Whether `store` keeps memory itself (has `openMemory`; read by shape: stores reach here through proxies). */
function keepsMemory(store: CallStore | undefined): store is CallStore & KeepsMemory {
  return typeof (store as Partial<KeepsMemory> | undefined)?.openMemory === 'function';
}

/**
 * Open the memory store of `place`: its call store's, else the SQLite file in its state folder.
 * @throws Error when the SQLite file cannot be made or opened.
 */
export async function openMemoryStore(place: MemoryPlace): Promise<MemoryStore> {
  if (keepsMemory(place.store)) return place.store.openMemory(place.workspace);
  return SqliteMemoryStore.open(place.stateDir, place.workspace);
}

/**
 * A memory store opened by `open` on its first use (a tool system that never remembers anything
 * opens nothing), kept open until {@link MemoryStore.close}. A failed opening is each call's
 * rejection, and tried again by the next call.
 */
export function lazyMemoryStore(open: () => Promise<MemoryStore>): MemoryStore {
  let opening: Promise<MemoryStore> | undefined;
  let closed = false;
  const ready = (): Promise<MemoryStore> => {
    if (closed) return Promise.reject(new Error('the memory store is closed'));
    opening ??= open().catch((error: unknown) => {
      opening = undefined;
      throw error;
    });
    return opening;
  };
  let where = '(not opened yet)';
  const on = async <T>(fn: (store: MemoryStore) => Promise<T>): Promise<T> => {
    const store = await ready();
    where = store.where;
    return fn(store);
  };
  return {
    get where() {
      return where;
    },
    remember: (scope: string, text: string, tags: readonly string[]): Promise<MemoryNote> => on((s) => s.remember(scope, text, tags)),
    search: (scope: string, query: string, limit: number, tag?: string) => on((s) => s.search(scope, query, limit, tag)),
    list: (scope: string, limit: number, tag?: string) => on((s) => s.list(scope, limit, tag)),
    get: (scope: string, id: number) => on((s) => s.get(scope, id)),
    forget: (scope: string, id: number) => on((s) => s.forget(scope, id)),
    async close() {
      closed = true;
      const opened = opening;
      opening = undefined;
      if (opened !== undefined) await (await opened.catch(() => undefined))?.close();
    },
  };
}
