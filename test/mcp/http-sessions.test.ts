/**
 * HTTP session limits of `toolgate mcp --http` (issue 18): abandoned sessions are capped (the
 * one idle for longest is closed to make room), closed after `sessionIdleMs` without a
 * request, and a new session is refused (503) only when every session has a request open.
 * Real HTTP on loopback: 1,000 clients that initialize and go away without DELETE.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { Writable } from 'node:stream';
import pino from 'pino';
import { serveHttp, ToolSystem, ToolRegistry, type McpServerHandle } from 'toolgate';
import { DEFAULT_MAX_SESSIONS, DEFAULT_SESSION_IDLE_MS } from '../../src/mcp/http-sessions.js';
import { HttpSessions } from '../../src/mcp/http-sessions.js';

const agent = new http.Agent({ keepAlive: true, maxSockets: 8 });

/** POST one JSON-RPC message; the status and the session id the server gave. */
function post(url: string, message: unknown, session?: string): Promise<{ status: number; session: string | undefined; body: string }> {
  return new Promise((resolve, reject) => {
    const body = JSON.stringify(message);
    const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' };
    if (session !== undefined) headers['mcp-session-id'] = session;
    const req = http.request(url, { method: 'POST', headers, agent }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, session: res.headers['mcp-session-id'] as string | undefined, body: text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

const INIT = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'abandoning', version: '1' } } };
const ping = (id: number) => ({ jsonrpc: '2.0', id, method: 'ping' });

/** Start a session and leave it (no initialized notification needed for ping, no DELETE). */
async function abandon(url: string): Promise<string> {
  const r = await post(url, INIT);
  assert.equal(r.status, 200, r.body);
  return r.session!;
}

describe('HTTP sessions are bounded', () => {
  let system: ToolSystem;
  before(() => {
    system = new ToolSystem({ registry: new ToolRegistry(), ledger: false, executor: { outputStore: false } });
  });
  after(async () => {
    await system.close();
    agent.destroy();
  });

  test('the defaults are documented values: 100 sessions, 30 minutes idle', () => {
    assert.equal(DEFAULT_MAX_SESSIONS, 100);
    assert.equal(DEFAULT_SESSION_IDLE_MS, 30 * 60_000);
  });

  test('1,000 abandoned sessions: at most maxSessions are kept, the oldest idle ones are evicted first', async () => {
    let handle: McpServerHandle & { url: string } | undefined;
    try {
      handle = await serveHttp({ system, tasks: false, token: false });
      const ids: string[] = [];
      for (let i = 0; i < 1000; i++) {
        ids.push(await abandon(handle.url));
        // Session 0 stays in use: it is never the one idle for longest.
        if (i % 50 === 0) assert.equal((await post(handle.url, ping(i), ids[0])).status, 200);
      }
      const alive = async (id: string) => (await post(handle!.url, ping(7), id)).status === 200;
      assert.equal(await alive(ids[0]!), true, 'the session in use was kept');
      // The newest DEFAULT_MAX_SESSIONS - 1 are there with session 0; everything older is gone.
      for (const id of ids.slice(1000 - (DEFAULT_MAX_SESSIONS - 1))) assert.equal(await alive(id), true);
      for (const id of ids.slice(1, 1000 - (DEFAULT_MAX_SESSIONS - 1))) {
        const r = await post(handle.url, ping(8), id);
        assert.equal(r.status, 404, 'evicted sessions are unknown');
        assert.match(r.body, /unknown or expired session; initialize again/);
      }
    } finally {
      await handle?.close();
    }
  });

  test('a session without a request for sessionIdleMs is closed; one in use is kept', async () => {
    // The server's log says which sessions it closed (asking the server would count as activity).
    const evicted: Array<{ session: string; why: string }> = [];
    const logger = pino({ level: 'info' }, new Writable({
      write(chunk: Buffer, _encoding, done) {
        const line = JSON.parse(chunk.toString('utf8')) as { event?: string; session?: string; why?: string };
        if (line.event === 'mcp_session_evicted') evicted.push({ session: line.session!, why: line.why! });
        done();
      },
    }));
    let handle: McpServerHandle & { url: string } | undefined;
    try {
      handle = await serveHttp({ system, tasks: false, token: false, sessionIdleMs: 1000, logger });
      const idle = await abandon(handle.url);
      const used = await abandon(handle.url);
      // Keep `used` busy while `idle` ages; give up after 30 s (the sweep runs every 250 ms here).
      const deadline = Date.now() + 30_000;
      while (!evicted.some((e) => e.session === idle) && Date.now() < deadline) {
        assert.equal((await post(handle.url, ping(1), used)).status, 200);
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
      assert.deepEqual(evicted, [{ session: idle, why: 'idle' }]);
      assert.equal((await post(handle.url, ping(2), idle)).status, 404, 'the idle session is gone');
      assert.equal((await post(handle.url, ping(3), used)).status, 200, 'the session in use was kept');
    } finally {
      await handle?.close();
    }
  });

  test('limits out of range are option errors naming the option', async () => {
    await assert.rejects(serveHttp({ system, maxSessions: 0 }), { code: 'INVALID_OPTIONS', message: /maxSessions/ });
    await assert.rejects(serveHttp({ system, sessionIdleMs: 10 }), { code: 'INVALID_OPTIONS', message: /sessionIdleMs/ });
  });
});

describe('HttpSessions (the bookkeeping, without sockets)', () => {
  test('at the cap with every session busy there is no room; once one is idle, it makes room', async () => {
    const closed: string[] = [];
    const sessions = new HttpSessions<{ close(): Promise<void> }>({ maxSessions: 2 });
    try {
      for (const id of ['a', 'b']) sessions.add(id, { close: async () => void closed.push(id) });
      const endA = sessions.begin('a');
      const endB = sessions.begin('b');
      assert.equal(sessions.makeRoom(), false);
      endB();
      assert.equal(sessions.makeRoom(), true);
      assert.deepEqual(closed, ['b']);
      assert.deepEqual(sessions.ids(), ['a']);
      endA();
    } finally {
      await sessions.close();
    }
  });

  test('sweep closes only sessions idle for sessionIdleMs', async () => {
    const sessions = new HttpSessions<{ close(): Promise<void> }>({ sessionIdleMs: 1000 });
    try {
      sessions.add('old', { close: async () => undefined });
      sessions.add('busy', { close: async () => undefined });
      const end = sessions.begin('busy');
      sessions.sweep(Date.now() + 5000);
      assert.deepEqual(sessions.ids(), ['busy']);
      end();
    } finally {
      await sessions.close();
    }
  });
});
