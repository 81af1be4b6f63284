/**
 * Issue 33: two `toolgate mcp --http` processes on ONE SQLite state folder (two-instances.ts
 * has the tests): the same as on PostgreSQL, on one machine.
 */
import { twoInstanceTests } from './two-instances.js';

twoInstanceTests('two toolgate mcp --http processes on one SQLite state folder (issue 33)', false, (state) => ['--state-dir', state], async () => undefined);
