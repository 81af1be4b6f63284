/**
 * The call store contract (`call-store-contract.ts`) against the PostgreSQL store, on a server
 * of its own (`postgres-server.ts`), one schema per test.
 */
import { createHash } from 'node:crypto';
import { after, describe } from 'node:test';
import { PostgresStore } from '../../src/ledger/postgres/store.js';
import { callStoreContract } from './call-store-contract.js';
import { postgresForTests } from './postgres-server.js';

const server = await postgresForTests(import.meta.url);
if ('skip' in server) {
  describe('call store contract: PostgreSQL store', { skip: server.skip }, () => undefined);
} else {
  after(() => server.stop());
  const schemaOf = (place: string) => `t_${createHash('sha256').update(place).digest('hex').slice(0, 16)}`;
  callStoreContract('PostgreSQL store', (place, limits) => PostgresStore.open({ url: server.url, schema: schemaOf(place), ...limits }));
}
