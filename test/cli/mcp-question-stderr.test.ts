/**
 * `toolgate mcp` over stdio with a client that cannot be asked (no elicitation): the question
 * that waits is named on the server's own stderr at the default log level, with the exact
 * `toolgate approvals allow ID --workspace ... --state-dir ...` to run (before, only the
 * client heard of it, and the server's terminal showed a call waiting and not why).
 */
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import path from 'node:path';
import { BIN, tempWorkspace } from '../helpers.js';

describe('toolgate mcp: a waiting question on stderr', () => {
  const tmp = tempWorkspace();
  after(() => tmp.cleanup());

  test('a 2026-07-28 call that asks prints the approvals command on stderr', async () => {
    const state = path.join(tmp.root, 'state');
    const child = spawn(process.execPath, [BIN, 'mcp', '--workspace', tmp.ws, '--state-dir', state, '--no-policy'], { cwd: tmp.root, stdio: ['pipe', 'pipe', 'pipe'] });
    try {
      let stderr = '';
      const seen = new Promise<void>((resolve) => {
        child.stderr.on('data', (d: Buffer) => {
          stderr += d.toString();
          if (/waits for an answer/.test(stderr)) resolve();
        });
        // Without the line, the call's refusal (after the 45 s wait) ends the wait: the test fails, never hangs.
        let stdout = '';
        child.stdout.on('data', (d: Buffer) => {
          stdout += d.toString(); // the whole text so far: the answer may come in pieces
          if (/"id":1\b/.test(stdout)) resolve();
        });
        child.on('close', () => resolve());
      });
      const meta = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} };
      child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'write_file', arguments: { filepath: 'a.md', content: 'x' }, _meta: meta } })}\n`);
      await seen;
      assert.match(stderr, new RegExp(`toolgate mcp: question 1 \\(write_file\\) waits for an answer: toolgate approvals allow 1 --workspace ${tmp.ws} --state-dir ${state} \\(or deny 1\\)`));
    } finally {
      child.kill('SIGTERM');
      if (child.exitCode === null) await once(child, 'close');
    }
  });
});
