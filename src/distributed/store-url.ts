/**
 * The `--store` of the distributed mode: where the shared call store is. A SQLite file (a
 * path, or `sqlite:PATH`) is shared by the processes of one machine; `postgres://...` by
 * several machines (the password from the URL, `PGPASSWORD` or the password file; never
 * logged).
 *
 * @module
 */
import path from 'node:path';
import type { CallStore } from '../ledger/call-store.js';
import { isStoreUrl, openCallStore } from '../ledger/open-store.js';
import { ToolgateOptionError } from '../errors/errors.js';

/**
 * Open the store a `--store` value names.
 * @param base - what a relative path is resolved against.
 * @throws ToolgateOptionError when it cannot be opened (the message names the store, without a password).
 */
export async function openStore(spec: string, base = process.cwd()): Promise<CallStore> {
  const remote: boolean = isStoreUrl(spec);
  const target = remote ? spec : path.resolve(base, spec.startsWith('sqlite:') ? spec.slice('sqlite:'.length) : spec);
  try {
    return await openCallStore(target);
  } catch (error) {
    if (error instanceof ToolgateOptionError) throw error;
    // The store's error stays the cause (a caller tells a server restarting from a wrong URL by it).
    throw Object.assign(ToolgateOptionError.fromBadOption('store', `could not be opened (${remote ? 'the PostgreSQL store' : target}): ${(error as Error).message}`), { cause: error });
  }
}
