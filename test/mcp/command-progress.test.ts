/**
 * Issue 34: a long `run_command` streams its output to an MCP client while it runs. The
 * command prints a line, then waits for a file that the test writes only when that line has
 * reached it as a log message (with progress notifications, a growing count of characters, that
 * do not repeat the text): without streaming, the command would wait until its timeout and fail. Over a real `toolgate mcp` (stdio), driven by the SDK
 * v1 `Client`; the server is closed and the folders removed.
 */
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { LoggingMessageNotificationSchema, type CallToolResult, type Progress } from '@modelcontextprotocol/sdk/types.js';
import { BIN } from '../helpers.js';
import { cleanUpMcp, mcpFolders } from './http-command.js';

let root: string;
let ws: string;
let state: string;
const clients: Client[] = [];
const children: ChildProcess[] = [];

beforeEach(() => {
  ({ root, ws, state } = mcpFolders('toolgate-mcp-progress-'));
});
afterEach(() => cleanUpMcp(clients, children, root));

describe('run_command streams its output to the MCP client while it runs', () => {
  it('progress and log messages carry the output before the call ends', { timeout: 60_000 }, async () => {
    const client = new Client({ name: 'toolgate-progress-test', version: '1.0.0' });
    const args = [BIN, 'mcp', '--workspace', ws, '--state-dir', state, '--yes', '--no-policy'];
    await client.connect(new StdioClientTransport({ command: process.execPath, args, stderr: 'pipe' }));
    clients.push(client);
    const logs: unknown[] = [];
    const go = () => fs.writeFileSync(path.join(ws, 'go'), '');
    client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => {
      logs.push(n.params.data);
      if (typeof n.params.data === 'string' && n.params.data.includes('ready')) go();
    });
    const progress: Progress[] = [];
    const command = 'for i in 1 2 3; do echo "line $i"; done; echo ready; while [ ! -f go ]; do sleep 0.05; done; echo finished';
    const result = (await client.callTool({ name: 'run_command', arguments: { command, timeout_ms: 20_000 } }, undefined, {
      onprogress: (p) => {
        progress.push(p);
      },
      timeout: 30_000,
    })) as CallToolResult;
    const text = result.content.map((c) => (c.type === 'text' ? c.text : '')).join('');
    assert.equal(result.isError, undefined, text);
    assert.match(text, /ready\nfinished/);
    assert.ok(progress.length > 0, 'progress notifications came');
    // The output is in the log messages only: a client showing both sees each line once.
    assert.ok(progress.every((p) => p.message === undefined), JSON.stringify(progress));
    for (let i = 1; i < progress.length; i++) assert.ok(progress[i]!.progress > progress[i - 1]!.progress, 'progress only grows');
    assert.ok(logs.some((data) => typeof data === 'string' && data.includes('ready')), JSON.stringify(logs));
  });
});
