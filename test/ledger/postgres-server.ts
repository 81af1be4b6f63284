/**
 * A PostgreSQL server for tests. With `TOOLGATE_PG_URL` set (a superuser's URL), tests use that
 * server; otherwise each test file starts its own PostgreSQL 15 from
 * `/usr/lib/postgresql/15/bin` (or `TOOLGATE_PG_BIN`): `initdb` in a temporary folder owned by
 * the `postgres` user (PostgreSQL refuses to run as root: as root, every command runs through
 * `runuser -u postgres`), listening on a free loopback port, its socket in that folder, the
 * superuser's password random (scram-sha-256 over TCP). It is stopped and its folder removed at
 * the end of the file (and on exit, should the file die first; and by its watchdog,
 * `../server-guard.ts`, should the file be killed from outside); `initdb --no-sync` and
 * `fsync=off`, since the cluster is thrown away. Each file gets a database of its own
 * (`CREATE DATABASE`), so files can run at once on one server. `npm test` runs its files under
 * `test/with-postgres.ts`, which starts one server for the whole run ({@link sharePostgres}):
 * a file then only makes its database there, unless it restarts the server (`restarts`).
 *
 * Neither a URL nor the binaries: {@link postgresForTests} returns a `skip` reason naming the
 * package to install (Debian `postgresql`).
 *
 * A child process of a test file (the contract's dying owners) inherits the file's database
 * through `TOOLGATE_PG_TEST_DB` and starts nothing.
 */
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { ServerGuard } from '../server-guard.js';

/** A server (and a database of this file on it). */
export interface PgTestServer {
  /** The URL of this file's database (with the password). */
  readonly url: string;
  /** The superuser's password (tests check it never shows). */
  readonly password: string;
  /** Whether this file started the server (and can restart it). */
  readonly own: boolean;
  /** The server's pid (its postmaster) when this file started it. */
  readonly pid?: number;
  /**
   * `pg_ctl stop -m immediate` (every connection dropped), then with no server either `down`
   * ms or, better, until `down()` resolves (a test waits there for what must happen while the
   * server is down, an event, not a time), then start it again on the same port and socket
   * folder (crash recovery) and wait until it takes a connection. Runs without blocking this
   * process (its workers and callers go on meanwhile).
   * @throws when the server is not this file's, or does not come back within 60 s (with its log's tail); what `down()` throws.
   */
  restartImmediate(down?: number | (() => Promise<void>)): Promise<void>;
  /** Drop the database, stop the server this file started, remove its folder. */
  stop(): Promise<void>;
}

const CHILD_ENV = 'TOOLGATE_PG_TEST_DB';
const BIN = process.env.TOOLGATE_PG_BIN ?? '/usr/lib/postgresql/15/bin';

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** Run a PostgreSQL program as the `postgres` user (through runuser when this process is root). */
function asPostgres(program: string, args: string[]): { status: number | null; output: string } {
  const root = process.getuid?.() === 0;
  const run = root ? spawnSync('runuser', ['-u', 'postgres', '--', path.join(BIN, program), ...args], { encoding: 'utf8', timeout: 120_000 })
    : spawnSync(path.join(BIN, program), args, { encoding: 'utf8', timeout: 120_000 });
  return { status: run.status, output: `${run.stdout ?? ''}${run.stderr ?? ''}${run.error ? String(run.error) : ''}` };
}

/** {@link asPostgres} without blocking this process. */
function asPostgresAsync(program: string, args: string[]): Promise<{ status: number | null; output: string }> {
  const root = process.getuid?.() === 0;
  const child = root ? spawn('runuser', ['-u', 'postgres', '--', path.join(BIN, program), ...args], { stdio: ['ignore', 'pipe', 'pipe'] })
    : spawn(path.join(BIN, program), args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const timer = setTimeout(() => child.kill('SIGKILL'), 120_000);
  return new Promise((resolve) => {
    child.on('error', (error) => (output += String(error)));
    child.on('close', (status) => {
      clearTimeout(timer);
      resolve({ status, output });
    });
  });
}

/** Wait until the server at `url` takes a connection and answers (up to `ms`). */
async function untilServing(url: string, ms: number): Promise<void> {
  const end = Date.now() + ms;
  for (;;) {
    const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2_000 });
    try {
      await client.connect();
      await client.query('SELECT 1');
      return;
    } catch (error) {
      if (Date.now() > end) throw error;
      await new Promise((resolve) => setTimeout(resolve, 200));
    } finally {
      await client.end().catch(() => undefined);
    }
  }
}

/** Make a database named after the test file on the server at `adminUrl`; its URL. */
async function makeDatabase(adminUrl: string, name: string): Promise<string> {
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query(`DROP DATABASE IF EXISTS ${name}`);
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

async function dropDatabase(adminUrl: string, name: string): Promise<void> {
  const admin = new pg.Client({ connectionString: adminUrl });
  try {
    await admin.connect();
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  } catch {
    // the server is going away with it
  } finally {
    await admin.end().catch(() => undefined);
  }
}

/** A server started by this process: its superuser's URL (database `postgres`) and password. */
interface OwnServer {
  readonly admin: string;
  readonly password: string;
  /** The postmaster's pid (a new one after a restart). */
  readonly pid: number;
  restartImmediate(down?: number | (() => Promise<void>)): Promise<void>;
  /** Stop it (`-m immediate`) and remove its folder. */
  stop(): Promise<void>;
}

/** The variable through which a run ({@link sharePostgres}) gives its files one server: `{ admin }` (the superuser's URL) as JSON. */
const SHARED_ENV = 'TOOLGATE_PG_TEST_SHARED';

/** Options of {@link postgresForTests}. */
export interface PgTestOptions {
  /** The file restarts the server (`restartImmediate`): it starts one of its own even when the run shares one. */
  restarts?: boolean;
}

/**
 * The server for the test file `file` (its `import.meta.url`), or `{ skip }` saying why there
 * is none: a database on `TOOLGATE_PG_URL`'s server, else on the run's shared server (see
 * {@link sharePostgres}; not for a file that `restarts` it), else on a server of its own.
 */
export async function postgresForTests(file: string, options: PgTestOptions = {}): Promise<PgTestServer | { skip: string }> {
  const inherited = process.env[CHILD_ENV];
  if (inherited !== undefined) {
    const { url, password } = JSON.parse(inherited) as { url: string; password: string };
    return { url, password, own: false, restartImmediate: async () => { throw new Error('a child does not restart the server'); }, stop: async () => undefined };
  }
  const database = `toolgate_${path.basename(new URL(file).pathname).replace(/\W+/g, '_').toLowerCase().slice(0, 40)}_${randomBytes(3).toString('hex')}`;
  const shared = options.restarts === true ? undefined : process.env[SHARED_ENV];
  const given = process.env.TOOLGATE_PG_URL || (shared ? (JSON.parse(shared) as { admin: string }).admin : undefined);
  if (given) {
    const url = await makeDatabase(given, database);
    process.env[CHILD_ENV] = JSON.stringify({ url, password: decodeURIComponent(new URL(given).password) });
    return {
      url, password: decodeURIComponent(new URL(given).password), own: false,
      restartImmediate: async () => { throw new Error('the server is not this file\'s (TOOLGATE_PG_URL, or the run\'s shared one): it cannot be restarted'); },
      stop: () => dropDatabase(given, database),
    };
  }
  if (!fs.existsSync(path.join(BIN, 'pg_ctl'))) {
    return { skip: `no PostgreSQL: install the Debian package postgresql (binaries in ${BIN}) or set TOOLGATE_PG_URL to a superuser's postgres:// URL` };
  }
  const server = await startPostgres();
  const url = await makeDatabase(server.admin, database);
  process.env[CHILD_ENV] = JSON.stringify({ url, password: server.password });
  return {
    url, password: server.password, own: true, get pid() {
      return server.pid;
    },
    restartImmediate: (down) => server.restartImmediate(down), stop: () => server.stop(),
  };
}

/**
 * One server for every test file of a run (`test/with-postgres.ts`): its files get their
 * databases on it (through the environment of the processes started after this), except those
 * that restart it. `undefined` when `TOOLGATE_PG_URL` names a server or there are no binaries.
 * The caller stops it; it is stopped on exit and on SIGINT/SIGTERM too.
 */
export async function sharePostgres(): Promise<{ stop(): Promise<void> } | undefined> {
  if (process.env.TOOLGATE_PG_URL || !fs.existsSync(path.join(BIN, 'pg_ctl'))) return undefined;
  let server: OwnServer;
  try {
    server = await startPostgres();
  } catch (error) {
    // Each file starts its own then (and says why it cannot).
    process.stderr.write(`# no shared PostgreSQL for this run: ${(error as Error).message.slice(0, 300)}\n`);
    return undefined;
  }
  process.env[SHARED_ENV] = JSON.stringify({ admin: server.admin });
  return { stop: () => server.stop() };
}

/** The pid of the server running on the data folder `data` (the first line of its postmaster.pid). */
function postmasterPid(data: string): number {
  const pid = Number(fs.readFileSync(path.join(data, 'postmaster.pid'), 'utf8').split('\n')[0]);
  if (!Number.isSafeInteger(pid) || pid <= 0) throw new Error(`no server pid in ${data}/postmaster.pid`);
  return pid;
}

/** initdb and start a server in a new folder; it is stopped on exit, on SIGINT/SIGTERM, or by `stop()`. */
async function startPostgres(): Promise<OwnServer> {
  const root = process.getuid?.() === 0;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'toolgate-pg-'));
  // Killed from outside, this process runs no hook: its watchdog stops the server (pg_ctl
  // detaches it into a session of its own) and removes the folder.
  const guard = ServerGuard.start();
  guard.remove('folder', dir);
  const data = path.join(dir, 'data');
  const password = randomBytes(12).toString('hex');
  fs.writeFileSync(path.join(dir, 'pwfile'), `${password}\n`, { mode: 0o600 });
  if (root) {
    const chown = spawnSync('chown', ['-R', 'postgres:postgres', dir]);
    if (chown.status !== 0) throw new Error(`cannot give ${dir} to the postgres user`);
  }
  const init = asPostgres('initdb', ['-D', data, '-U', 'postgres', '--auth-local=trust', '--auth-host=scram-sha-256', `--pwfile=${path.join(dir, 'pwfile')}`, '-E', 'UTF8', '--no-instructions', '--no-sync']);
  if (init.status !== 0) {
    fs.rmSync(dir, { recursive: true, force: true });
    guard.disarm();
    throw new Error(`initdb failed: ${init.output}`);
  }
  const log = path.join(dir, 'server.log');
  // PostgreSQL cannot listen on port 0: the port is chosen free, then bound by the server a
  // moment later, and another process may take it in between (test files run at once): then
  // it starts again on another.
  let port = 0;
  let options = '';
  for (let attempt = 1; ; attempt++) {
    port = await freePort();
    options = `-c listen_addresses=127.0.0.1 -p ${port} -k ${dir} -c fsync=off -c max_connections=200`;
    const logged = fs.existsSync(log) ? fs.statSync(log).size : 0;
    const start = asPostgres('pg_ctl', ['-D', data, '-l', log, '-o', options, '-w', '-t', '60', 'start']);
    if (start.status === 0) break;
    const said = fs.existsSync(log) ? fs.readFileSync(log, 'utf8').slice(logged) : '';
    if (attempt < 5 && /Address already in use/.test(said)) continue;
    fs.rmSync(dir, { recursive: true, force: true });
    guard.disarm();
    throw new Error(`pg_ctl start failed on port ${port}: ${start.output}\n${said.slice(-2000)}`);
  }
  // SIGQUIT is `pg_ctl stop -m immediate`; its backends are in its process group.
  let pid = postmasterPid(data);
  guard.kill('server', pid, { signal: 'SIGQUIT', group: true });
  let stopped = false;
  const stopNow = (): void => {
    if (stopped) return;
    stopped = true;
    asPostgres('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']);
    fs.rmSync(dir, { recursive: true, force: true });
    guard.disarm();
  };
  process.once('exit', stopNow);
  process.once('beforeExit', stopNow);
  // Killed by a signal (a test runner's timeout): stop the server first.
  const onSignal = (signal: NodeJS.Signals): void => {
    stopNow();
    process.kill(process.pid, signal);
  };
  process.once('SIGTERM', onSignal);
  process.once('SIGINT', onSignal);
  const admin = `postgres://postgres:${password}@127.0.0.1:${port}/postgres`;
  return {
    admin, password, get pid() {
      return pid;
    },
    restartImmediate: async (down = 0) => {
      const tail = () => (fs.existsSync(log) ? fs.readFileSync(log, 'utf8').slice(-2000) : '(no log)');
      const stop = await asPostgresAsync('pg_ctl', ['-D', data, '-m', 'immediate', '-w', '-t', '60', 'stop']);
      if (stop.status !== 0) throw new Error(`pg_ctl stop -m immediate failed: ${stop.output}\n${tail()}`);
      // What `down()` throws is thrown once the server is back: a failed wait leaves no server down.
      let failed: { error: unknown } | undefined;
      if (typeof down === 'function') await down().catch((error: unknown) => void (failed = { error }));
      else if (down > 0) await new Promise((resolve) => setTimeout(resolve, down));
      // The same options as the first start: the port, the socket folder, the settings. The
      // same port, since its clients hold its URL: another process that took the port while
      // the server was down is waited out (30 s), then the restart fails saying so.
      const portFreeBy = Date.now() + 30_000;
      for (;;) {
        const logged = fs.existsSync(log) ? fs.statSync(log).size : 0;
        const start = await asPostgresAsync('pg_ctl', ['-D', data, '-l', log, '-o', options, '-w', '-t', '60', 'start']);
        if (start.status === 0) break;
        const said = fs.existsSync(log) ? fs.readFileSync(log, 'utf8').slice(logged) : '';
        if (!/Address already in use/.test(said)) throw new Error(`pg_ctl start after the immediate stop failed: ${start.output}\n${tail()}`);
        if (Date.now() > portFreeBy) throw new Error(`the test PostgreSQL cannot restart on port ${port}: another process took the port while it was down, and kept it for 30 s (its clients hold its URL, so it must come back there): ${said.slice(-500)}`);
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
      pid = postmasterPid(data);
      guard.kill('server', pid, { signal: 'SIGQUIT', group: true });
      try {
        await untilServing(admin, 60_000);
      } catch (error) {
        throw new Error(`PostgreSQL did not take connections after its restart: ${(error as Error).message}\n${tail()}`);
      }
      if (failed !== undefined) throw failed.error;
    },
    stop: async () => {
      process.removeListener('exit', stopNow);
      process.removeListener('beforeExit', stopNow);
      process.removeListener('SIGTERM', onSignal);
      process.removeListener('SIGINT', onSignal);
      stopNow();
    },
  };
}
