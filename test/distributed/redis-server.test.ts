/**
 * The test Redis (redis-server.ts) starts on another port when the one it chose was taken
 * before redis-server bound it (Redis cannot listen on port 0: the port is chosen, then bound
 * a moment later, and other test files run at once).
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import { Redis } from 'ioredis';
import { freePort, RedisServer, redisMissing } from './redis-server.js';

describe('the test Redis server', { skip: redisMissing() }, () => {
  test('starts on another port when the chosen one is taken meanwhile', async () => {
    const squatter = net.createServer();
    await new Promise<void>((resolve) => squatter.listen(0, '127.0.0.1', resolve));
    const taken = (squatter.address() as net.AddressInfo).port;
    const chosen: number[] = [];
    let server: RedisServer | undefined;
    try {
      server = await RedisServer.start(async () => {
        const port = chosen.length === 0 ? taken : await freePort();
        chosen.push(port);
        return port;
      });
      assert.equal(chosen.length, 2, `ports tried: ${chosen.join(', ')}`);
      assert.notEqual(server.port, taken);
      const client = new Redis(server.url, { maxRetriesPerRequest: 1 });
      try {
        assert.equal(await client.ping(), 'PONG');
      } finally {
        client.disconnect();
      }
    } finally {
      await server?.stop();
      await new Promise((resolve) => squatter.close(resolve));
    }
  });
});
