/**
 * Regression (issue 18): over stdio, a client that closes its end of toolgate's stdout after
 * `initialize` made the next write fail with an unhandled EPIPE, and `toolgate mcp` died with a
 * stack trace. Now the server ends as it does when stdin closes: exit code 0, nothing on
 * stderr that looks like a crash.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { BIN, tempWorkspace } from '../helpers.js';

const INIT = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'closing', version: '1' } } };

for (const how of ['keeps stdin open', 'then closes stdin too']) {
  test(`a client that closes toolgate's stdout after initialize (and ${how}): exit code 0, no stack trace`, async () => {
    const tmp = tempWorkspace();
    const child = spawn(process.execPath, [BIN, 'mcp', '--workspace', tmp.ws, '--no-ledger', '--tool', 'read_file'], { stdio: ['pipe', 'pipe', 'pipe'] });
    try {
      let stderr = '';
      child.stderr.setEncoding('utf8');
      child.stderr.on('data', (chunk: string) => (stderr += chunk));
      const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
      child.stdin.write(`${JSON.stringify(INIT)}\n`);
      // Wait for the answer to initialize, then close our end of its stdout.
      await new Promise<void>((resolve, reject) => {
        let out = '';
        child.stdout.setEncoding('utf8');
        child.stdout.on('data', (chunk: string) => {
          out += chunk;
          if (out.includes('"id":1')) resolve();
        });
        child.once('exit', () => reject(new Error(`exited before answering initialize: ${stderr}`)));
      });
      child.stdout.destroy();
      // Requests whose answers cannot be written: the first write fails with EPIPE.
      child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`);
      for (let id = 2; id < 6; id++) child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/list' })}\n`);
      if (how === 'then closes stdin too') setTimeout(() => child.stdin.end(), 200);
      const code = await Promise.race([exited, new Promise<'hung'>((resolve) => setTimeout(() => resolve('hung'), 60_000))]);
      assert.equal(code, 0, `exit code; stderr: ${stderr}`);
      assert.doesNotMatch(stderr, /EPIPE|Unhandled|\n\s+at /, stderr);
    } finally {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      tmp.cleanup();
    }
  });
}
