/**
 * Opening a call store from a spec (what `--store` and the `store` option of `ToolSystem`
 * take): a `postgres://` or `postgresql://` URL opens the PostgreSQL store
 * (`postgres/store.ts`, `pg` loaded then); anything else opens the SQLite ledger as before
 * (a file path, or the workspace's ledger in the state folder when no spec is given).
 *
 * @module
 */
import type { CallStore } from './call-store.js';
import { isPostgresUrl } from './postgres/database.js';
import { Ledger, type LedgerOptions } from './store.js';

/** Options of {@link openCallStore} besides the spec: the ledger options (limits, `readonly`, the state folder and workspace of a SQLite ledger). */
export interface OpenStoreOptions extends LedgerOptions {
  /** The schema of a PostgreSQL store. Default `toolgate`. */
  schema?: string;
}

/** Whether `spec` names a PostgreSQL store (a `postgres://` or `postgresql://` URL). */
export function isStoreUrl(spec: string | undefined): spec is string {
  return spec !== undefined && isPostgresUrl(spec);
}

/**
 * Open the call store `spec` names: a `postgres://`/`postgresql://` URL, the PostgreSQL store
 * of that server (the password from the URL, `PGPASSWORD` or the password file); a path, that
 * SQLite ledger file; `undefined`, the SQLite ledger of `options.workspace` in `options.dir`.
 * @throws ToolgateOptionError for a bad option; PackageUnavailableError (code PACKAGE_UNAVAILABLE) naming `pg` when the PostgreSQL store is
 *   asked for and it is not installed; the store's error when it cannot be opened (a URL's
 *   password is never in it).
 */
export async function openCallStore(spec: string | undefined, options: OpenStoreOptions = {}): Promise<CallStore> {
  if (isStoreUrl(spec)) {
    const { PostgresStore } = await import('./postgres/store.js');
    const { file: _file, dir: _dir, workspace: _workspace, busyTimeoutMs: _busy, ...limits } = options;
    return PostgresStore.open({ ...limits, url: spec });
  }
  const { schema: _schema, ...ledger } = options;
  return Ledger.open(spec === undefined ? ledger : { ...ledger, file: spec });
}
