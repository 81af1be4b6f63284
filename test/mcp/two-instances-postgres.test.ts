/**
 * Issue 33, acceptance: two `toolgate mcp --http` processes on ONE PostgreSQL call store
 * (two-instances.ts has the tests). PostgreSQL is started in a temporary folder as the
 * `postgres` user (postgres-server.ts); the file is skipped, saying why, without it.
 */
import { postgresForTests } from '../ledger/postgres-server.js';
import { twoInstanceTests } from './two-instances.js';

const server = await postgresForTests(import.meta.url);

twoInstanceTests(
  'two toolgate mcp --http processes on one PostgreSQL store (issue 33)',
  'skip' in server ? server.skip : false,
  () => ['--store', (server as { url: string }).url],
  async () => {
    if (!('skip' in server)) await server.stop();
  },
);
