/**
 * The call store contract (`call-store-contract.ts`) against the SQLite ledger. Another store
 * runs it with one line like this one.
 */
import path from 'node:path';
import { Ledger } from '../../src/ledger/store.js';
import { callStoreContract } from './call-store-contract.js';

callStoreContract('SQLite ledger', (place, limits) => Ledger.open({ file: path.join(place, 'ledger.sqlite'), ...limits }));
