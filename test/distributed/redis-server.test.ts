/**
 * The test Redis (`redis-server.ts`) restarts on its own port, since its clients hold its URL:
 * a port another process took while it was down is waited out, and one kept past the wait
 * fails the restart with a message that says so. (That it dies with a killed test process is
 * `../server-guard.test.ts`.)
 */
import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, describe, it } from 'node:test';
import { Redis } from 'ioredis';
import { redisMissing, RedisServer } from './redis-server.js';

/** Listen on 127.0.0.1:`port` (as another process that took the port would). */
function takePort(port: number): Promise<net.Server> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve(server));
  });
}

describe('the test Redis restarts on its port', { skip: redisMissing(), concurrency: false }, () => {
  let redis: RedisServer;
  before(async () => {
    redis = await RedisServer.start();
  });
  after(async () => {
    await redis?.stop();
  });

  async function ping(): Promise<string> {
    const client = new Redis(redis.url, { lazyConnect: true, maxRetriesPerRequest: 1 });
    try {
      await client.connect();
      return await client.ping();
    } finally {
      client.disconnect();
    }
  }

  it('waits out another process that took its port while it was down, and comes back there', async () => {
    let taken: net.Server | undefined;
    await redis.restart({
      down: async () => {
        taken = await takePort(redis.port);
        // Given back a moment later, while the restart is trying (the scenario, not a bound).
        setTimeout(() => taken!.close(), 500);
      },
    });
    assert.ok(taken !== undefined, 'the port was taken while the server was down');
    assert.equal(await ping(), 'PONG');
  });

  it('fails the restart saying why when the port stays taken past the wait', async () => {
    let taken: net.Server | undefined;
    try {
      await assert.rejects(redis.restart({ portWaitMs: 1000, down: async () => void (taken = await takePort(redis.port)) }),
        new RegExp(`cannot restart on port ${redis.port}: another process took the port while it was down`));
    } finally {
      await new Promise((resolve) => taken?.close(resolve));
    }
    await redis.restart();
    assert.equal(await ping(), 'PONG');
  });
});
