/**
 * How a worker stops:
 * - `toolgate worker` on SIGTERM or SIGINT says on stderr that it stops and how many calls it
 *   was running, and exits 143 or 130;
 * - with the store's and the queue's PostgreSQL down, SIGTERM ends it while the server is still
 *   down (before, its reconciler's store retry held it until the server came back);
 * - a worker whose queue server refuses it (BullMQ's check of the server fails) leaves no
 *   connection open behind its failed start.
 */
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Ledger } from '../../src/ledger/store.js';
import { serveQueue } from '../../src/distributed/serve.js';
import { postgresForTests, type PgTestServer } from '../ledger/postgres-server.js';
import { Cluster, freshDatabase, until, type WorkerProcess } from './cluster.js';
import { redisMissing } from './redis-server.js';

const missing = redisMissing();
const pg = await postgresForTests(import.meta.url, { restarts: true });

/** Resolves with a worker's exit code (or signal). */
function exited(worker: WorkerProcess): Promise<number | string> {
  if (worker.child.exitCode !== null) return Promise.resolve(worker.child.exitCode);
  return new Promise((resolve) => worker.child.once('exit', (code, signal) => resolve(code ?? signal ?? 'unknown')));
}

describe('toolgate worker stopped by a signal', { skip: missing, concurrency: false }, () => {
  let cluster: Cluster;
  after(async () => cluster?.stop());

  it('SIGTERM: one line on stderr with the calls it was running, exit 143', async () => {
    cluster = await Cluster.start();
    const worker = await cluster.worker();
    const store = Ledger.open({ file: cluster.store });
    const { QueueCaller } = await import('../../src/distributed/queue-caller.js');
    const caller = await QueueCaller.open({ queue: cluster.queue, store, workspace: cluster.workspace });
    try {
      const call = caller.call({ name: 'append_call_id', arguments: { file: 'stop.txt', waitMs: 60_000 }, callId: 'stop-1' }, { session: 's' });
      await until(() => cluster.marker('stop.txt').length === 1, 30_000, 'the call to start');
      const exit = exited(worker);
      worker.child.kill('SIGTERM');
      assert.equal(await exit, 143, worker.stderr);
      assert.match(worker.stderr, /toolgate worker: SIGTERM: stopping; 1 call was running here/, worker.stderr);
      const result = await call;
      assert.equal(result.errorCode, 'ABORTED', result.output);
    } finally {
      await caller.close();
      await store.close();
    }
  });

  it('SIGINT on an idle worker: says so, exit 130', async () => {
    const worker = await cluster.worker();
    const exit = exited(worker);
    worker.child.kill('SIGINT');
    assert.equal(await exit, 130, worker.stderr);
    assert.match(worker.stderr, /toolgate worker: SIGINT: stopping; 0 calls were running here/, worker.stderr);
  });
});

describe('a worker whose store and queue server is down', { skip: missing ?? ('skip' in pg ? pg.skip : undefined), concurrency: false }, () => {
  let cluster: Cluster | undefined;
  let database: Awaited<ReturnType<typeof freshDatabase>> | undefined;
  after(async () => {
    await cluster?.stop();
    await database?.drop();
  });

  it('exits on SIGTERM while the server is still down (no store retry waited for)', { skip: 'own' in pg && !pg.own ? 'the server is not this file\'s' : undefined }, async (t) => {
    database = await freshDatabase((pg as PgTestServer).url, 'down');
    cluster = await Cluster.start(database.url, database.url);
    const worker = await cluster.worker();
    // Down for 10 s, less than the store's 15 s retry: a worker that waits for its retry
    // exits only once the server is back.
    let back = false;
    const restart = (pg as PgTestServer).restartImmediate(10_000).then(() => (back = true));
    try {
      // The reconciler looks every 2 s: after 3 s one of its passes is retrying the store.
      await new Promise((resolve) => setTimeout(resolve, 3_000));
      const exit = exited(worker);
      const sent = Date.now();
      worker.child.kill('SIGTERM');
      const code = await exit;
      t.diagnostic(`exited ${Date.now() - sent} ms after SIGTERM (code ${code}); the server back: ${back}`);
      assert.equal(code, 143, worker.stderr);
      assert.equal(back, false, `the worker exited while the server was down: ${worker.stderr}`);
    } finally {
      await restart;
    }
  });
});

/**
 * A queue server that refuses BullMQ: it speaks enough of Redis's protocol for a client to
 * connect, and says it is Redis 4 (BullMQ needs 5). Counts the connections open to it.
 */
async function refusingRedis(): Promise<{ url: string; open(): number; close(): Promise<void> }> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    let buffer = '';
    socket.on('data', (chunk) => {
      buffer += chunk.toString('latin1');
      for (;;) {
        const parsed = command(buffer);
        if (parsed === undefined) break;
        buffer = buffer.slice(parsed.length);
        socket.write(reply(parsed.args));
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  return {
    url: `redis://127.0.0.1:${port}`,
    open: () => sockets.size,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** One command (`*N $len arg ...`) at the start of `text`, or `undefined` when incomplete. */
function command(text: string): { args: string[]; length: number } | undefined {
  const head = /^\*(\d+)\r\n/.exec(text);
  if (head === null) return undefined;
  let at = head[0].length;
  const args: string[] = [];
  for (let i = 0; i < Number(head[1]); i++) {
    const size = /^\$(\d+)\r\n/.exec(text.slice(at));
    if (size === null) return undefined;
    at += size[0].length;
    if (text.length < at + Number(size[1]) + 2) return undefined;
    args.push(text.slice(at, at + Number(size[1])));
    at += Number(size[1]) + 2;
  }
  return { args, length: at };
}

function reply(args: string[]): string {
  const name = args[0]?.toLowerCase();
  const bulk = (s: string) => `$${Buffer.byteLength(s)}\r\n${s}\r\n`;
  if (name === 'info') return bulk('# Server\r\nredis_version:4.0.0\r\nredis_mode:standalone\r\nloading:0\r\nmaxmemory_policy:noeviction\r\n');
  if (name === 'subscribe') return args.slice(1).map((channel, i) => `*3\r\n${bulk('subscribe')}${bulk(channel)}:${i + 1}\r\n`).join('');
  return '+OK\r\n';
}

describe('a worker whose queue server refuses it', { concurrency: false }, () => {
  it('fails to start and leaves no connection to that server open', async () => {
    const server = await refusingRedis();
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'toolgate-refused-'));
    const store = Ledger.open({ file: path.join(dir, 'store.sqlite') });
    try {
      await assert.rejects(serveQueue({
        queue: server.url, store, workspace: dir, concurrency: 1, system: { logLevel: 'silent' },
      }), /Redis version/);
      await until(() => server.open() === 0, 10_000, `the refused worker's connections to close (${server.open()} open)`);
    } finally {
      await store.close();
      await server.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

after(async () => {
  if (!('skip' in pg)) await pg.stop();
});
