/**
 * The `--store` of the distributed mode: where the shared call store is. A SQLite file (a
 * path, or `sqlite:PATH`) is shared by the processes of one machine; `postgres://...` by
 * several machines.
 *
 * @module
 */
import path from 'node:path';
import type { CallStore } from '../ledger/call-store.js';
import { Ledger } from '../ledger/store.js';
import { ToolgateOptionError } from '../errors/errors.js';

/**
 * Open the store a `--store` value names.
 * @param base - what a relative path is resolved against.
 * @throws ToolgateOptionError when it cannot be opened (the message names the store, without a password).
 */
export async function openStore(url: string, base = process.cwd()): Promise<CallStore> {
  if (/^postgres(ql)?:\/\//.test(url)) {
    throw ToolgateOptionError.fromBadOption('store', 'postgres:// needs the PostgreSQL call store, which this build does not have yet');
  }
  const file = path.resolve(base, url.startsWith('sqlite:') ? url.slice('sqlite:'.length) : url);
  try {
    return Ledger.open({ file });
  } catch (error) {
    throw ToolgateOptionError.fromBadOption('store', `could not be opened (${file}): ${(error as Error).message}`);
  }
}
