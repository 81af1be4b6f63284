/**
 * Opening a caller (`QueueCaller.open`: the start of `toolgate call|mcp|agent --queue`) whose
 * queue's server does not answer ends within its wait (`connectWaitMs`, `--queue-wait-ms`) with
 * `QUEUE_UNAVAILABLE`, and leaves nothing open: the command's process exits by itself. Before,
 * it waited for ever (BullMQ's job events retried the server, and their close waited for it).
 * Two servers that do not answer: a loopback port nobody listens on, and one that accepts TCP
 * but never speaks Redis's protocol.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import path from 'node:path';
import { QueueCaller } from '../../src/distributed/queue-caller.js';
import { openCallStore } from '../../src/ledger/open-store.js';
import { ToolgateError } from '../../src/errors/errors.js';
import { runCli, tempWorkspace } from '../helpers.js';

/** A loopback port nobody listens on (listened on once, then closed). */
async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('a caller whose queue server does not answer', { concurrency: false }, () => {
  const t = tempWorkspace();
  const sockets = new Set<net.Socket>();
  // Accepts connections and says nothing (no RESP): a client's ready check waits for ever.
  const silent = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => undefined);
    socket.on('close', () => sockets.delete(socket));
  });
  const servers: Array<[string, () => string]> = [];
  let refused = '';
  let mute = '';

  before(async () => {
    refused = `redis://127.0.0.1:${await closedPort()}`;
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    mute = `redis://127.0.0.1:${(silent.address() as net.AddressInfo).port}`;
  });
  after(async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise<void>((resolve) => silent.close(() => resolve()));
    t.cleanup();
  });
  servers.push(['nobody listens', () => refused], ['a server that never answers', () => mute]);

  for (const [what, url] of servers) {
    it(`QueueCaller.open: ${what}`, { timeout: 60_000 }, async () => {
      const store = await openCallStore(path.join(t.root, `open-${what.length}.sqlite`));
      try {
        await assert.rejects(QueueCaller.open({ queue: url(), store, workspace: t.ws, connectWaitMs: 300 }), (error: unknown) => {
          assert.ok(error instanceof ToolgateError, String(error));
          assert.equal(error.code, 'QUEUE_UNAVAILABLE');
          assert.match(error.message, /did not answer within 0\.3 s/);
          return true;
        });
      } finally {
        await store.close();
      }
    });

    it(`toolgate call --queue: ${what}: QUEUE_UNAVAILABLE, exit 1, and the process exits by itself`, { timeout: 60_000 }, async () => {
      // runCli resolves when the child exits: a handle left open makes the test time out.
      const run = await runCli(['call', 'read_file', '{"filepath":"a"}', '--queue', url(), '--store', path.join(t.root, 'call.sqlite'), '--workspace', t.ws, '--queue-wait-ms', '300', '--json']);
      assert.equal(run.code, 1, run.stderr);
      const result = JSON.parse(run.stdout) as { success: boolean; errorCode: string; output: string };
      assert.equal(result.success, false);
      assert.equal(result.errorCode, 'QUEUE_UNAVAILABLE', result.output);
      assert.match(result.output, /no call was sent/);
    });

    it(`toolgate mcp --queue: ${what}: says so, exit 1, and the process exits by itself`, { timeout: 60_000 }, async () => {
      const run = await runCli(['mcp', '--queue', url(), '--store', path.join(t.root, 'mcp.sqlite'), '--workspace', t.ws, '--queue-wait-ms', '300'], { input: '' });
      assert.equal(run.code, 1, run.stderr);
      assert.match(run.stderr, /toolgate: the queue's server redis:\/\/127\.0\.0\.1:\d+ did not answer within 0\.3 s/);
    });
  }

  it('--queue-wait-ms needs --queue and a positive integer', { timeout: 60_000 }, async () => {
    const alone = await runCli(['call', 'read_file', '{"filepath":"a"}', '--workspace', t.ws, '--queue-wait-ms', '300']);
    assert.equal(alone.code, 2, alone.stderr);
    assert.match(alone.stderr, /--queue-wait-ms needs --queue/);
    const bad = await runCli(['mcp', '--queue', refused, '--store', path.join(t.root, 'mcp.sqlite'), '--workspace', t.ws, '--queue-wait-ms', '0']);
    assert.equal(bad.code, 2, bad.stderr);
    assert.match(bad.stderr, /--queue-wait-ms must be a positive integer \(milliseconds\); got "0"/);
  });
});
