/**
 * Issue 34: the cockpit shows the latest progress of a running call whoever made it. A long
 * `run_command` called over a real `toolgate mcp` (stdio; the client asks for no progress
 * notifications) prints a line, then waits for a file the test writes only once that line has
 * reached the cockpit's event stream (`/api/events`) as the running call's progress: the
 * executor recorded it in the ledger, not the CLI. The server and cockpit are closed and the
 * folders removed.
 */
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { Ledger } from 'toolgate';
import { startCockpit, type CockpitHandle } from '../../src/cockpit/server.js';
import { BIN } from '../helpers.js';
import { cleanUpMcp, mcpFolders } from '../mcp/http-command.js';

let root: string;
let ws: string;
let state: string;
const clients: Client[] = [];
const children: ChildProcess[] = [];
let cockpit: CockpitHandle | undefined;
let ledger: Ledger | undefined;

beforeEach(() => {
  ({ root, ws, state } = mcpFolders('toolgate-cockpit-mcp-progress-'));
});
afterEach(async () => {
  await cockpit?.close();
  cockpit = undefined;
  await ledger?.close();
  ledger = undefined;
  await cleanUpMcp(clients, children, root);
});

interface CallEvent {
  event: { kind: string };
  call: { tool: string; state: string; progress?: string };
}

/** Read the cockpit's event stream until `seen(call event)` holds for one of them; the stream is then closed. */
async function watchCalls(url: string, token: string, seen: (e: CallEvent) => boolean, signal: AbortSignal): Promise<CallEvent> {
  const res = await fetch(`${url}api/events`, { headers: { authorization: `Bearer ${token}` }, signal });
  assert.equal(res.status, 200);
  const decoder = new TextDecoder();
  let buffer = '';
  for await (const chunk of res.body!) {
    buffer += decoder.decode(chunk as Uint8Array, { stream: true });
    let end;
    while ((end = buffer.indexOf('\n\n')) !== -1) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      if (!block.split('\n').includes('event: call')) continue;
      const data = block.split('\n').filter((l) => l.startsWith('data: ')).map((l) => l.slice(6)).join('');
      const event = JSON.parse(data) as CallEvent;
      if (seen(event)) return event;
    }
  }
  throw new Error('the event stream ended');
}

describe('the cockpit shows the progress of an MCP call while it runs', () => {
  it('run_command over toolgate mcp: its latest output line is the running call\'s progress in /api/events', { timeout: 90_000 }, async () => {
    const client = new Client({ name: 'toolgate-cockpit-progress-test', version: '1.0.0' });
    const args = [BIN, 'mcp', '--workspace', ws, '--state-dir', state, '--yes', '--no-policy'];
    await client.connect(new StdioClientTransport({ command: process.execPath, args, stderr: 'pipe' }));
    clients.push(client);
    ledger = Ledger.open({ dir: state, workspace: ws });
    cockpit = await startCockpit({ ledger, port: 0, pollMs: 50 });

    const stream = new AbortController();
    const watched = watchCalls(cockpit.url, cockpit.token, (e) => e.call.tool === 'run_command' && e.call.state === 'running' && /ready/.test(e.call.progress ?? ''), stream.signal);
    const command = 'echo "line 1"; echo ready; while [ ! -f go ]; do sleep 0.05; done; echo finished';
    const called = client.callTool({ name: 'run_command', arguments: { command, timeout_ms: 60_000 } }, undefined, { timeout: 80_000 }) as Promise<CallToolResult>;
    let shown: CallEvent;
    try {
      shown = await watched;
    } finally {
      stream.abort();
    }
    assert.match(shown.call.progress!, /ready/);
    // Only now may the command end: without the recorded progress it would wait for its timeout.
    fs.writeFileSync(path.join(ws, 'go'), '');
    const result = await called;
    const text = result.content.map((c) => (c.type === 'text' ? c.text : '')).join('');
    assert.equal(result.isError, undefined, text);
    assert.match(text, /ready\nfinished/);
  });
});
