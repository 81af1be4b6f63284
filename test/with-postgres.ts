/**
 * `node dist/test/with-postgres.js COMMAND [ARG...]`: run COMMAND (`npm test`'s `node --test` of
 * every file) with one PostgreSQL server for the whole run, so that each file that needs one
 * makes a database on it instead of running initdb and starting a server of its own
 * (`ledger/postgres-server.ts`). The server is stopped and its folder removed when COMMAND ends,
 * and on SIGINT/SIGTERM (passed on to COMMAND first). Without the PostgreSQL binaries, or with
 * `TOOLGATE_PG_URL` set, COMMAND runs as it is. Exits with COMMAND's code.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { sharePostgres } from './ledger/postgres-server.js';

const [command, ...args] = process.argv.slice(2);
if (command === undefined) {
  process.stderr.write('usage: node dist/test/with-postgres.js COMMAND [ARG...]\n');
  process.exit(2);
}
let child: ChildProcess | undefined;
// Registered before the server's own handlers (which stop it, then end this process by the same signal).
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => child?.kill(signal));
const server = await sharePostgres();
child = spawn(command, args, { stdio: 'inherit' });
const code = await new Promise<number>((resolve) => {
  child!.once('error', (error) => {
    process.stderr.write(`with-postgres: ${command}: ${error.message}\n`);
    resolve(127);
  });
  child!.once('exit', (exitCode, signal) => resolve(exitCode ?? (signal === null ? 1 : 128)));
});
await server?.stop();
process.exit(code);
