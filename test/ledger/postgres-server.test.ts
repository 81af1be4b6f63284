/**
 * The test PostgreSQL (`postgres-server.ts`) restarts on its own port, since its clients hold
 * its URL: a port another process took while it was down is waited out. (That it dies with a
 * killed test process is `../server-guard.test.ts`.)
 */
import assert from 'node:assert/strict';
import net from 'node:net';
import { after, describe, it } from 'node:test';
import pg from 'pg';
import { postgresForTests, type PgTestServer } from './postgres-server.js';

const server = await postgresForTests(import.meta.url, { restarts: true });

describe('the test PostgreSQL restarts on its port', { skip: 'skip' in server ? server.skip : undefined }, () => {
  after(async () => {
    await (server as PgTestServer).stop();
  });

  it('waits out another process that took its port while it was down, and comes back there', async () => {
    const own = server as PgTestServer;
    const port = Number(new URL(own.url).port);
    const before = own.pid;
    let taken: net.Server | undefined;
    await own.restartImmediate(async () => {
      taken = await new Promise<net.Server>((resolve, reject) => {
        const listener = net.createServer();
        listener.once('error', reject);
        listener.listen(port, '127.0.0.1', () => resolve(listener));
      });
      // Given back a moment later, while the restart is trying (the scenario, not a bound).
      setTimeout(() => taken!.close(), 500);
    });
    assert.ok(taken !== undefined, 'the port was taken while the server was down');
    assert.notEqual(own.pid, before, 'a new server process, watched by its guard');
    const client = new pg.Client({ connectionString: own.url });
    await client.connect();
    try {
      assert.equal((await client.query('SELECT 1 AS one')).rows[0].one, 1);
    } finally {
      await client.end();
    }
  });
});
