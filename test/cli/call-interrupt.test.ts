/**
 * Ctrl-C during `toolgate call`: the call is stopped (its command killed), recorded `ABORTED`
 * in the ledger (before, the process died at once and left the call "running (owner gone)"),
 * and the command exits 130 saying so.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { BIN, runCli } from '../helpers.js';

describe('toolgate call interrupted by SIGINT', () => {
  it('stops the call, records it ABORTED and exits 130', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tg-interrupt-'));
    const env = { ...process.env, XDG_STATE_HOME: path.join(dir, 'state'), XDG_CONFIG_HOME: path.join(dir, 'config') };
    const ws = path.join(dir, 'ws');
    fs.mkdirSync(ws);
    try {
      const child = spawn(process.execPath, [BIN, 'call', 'run_command', '{"command":"echo started; sleep 60; echo never > after.txt"}',
        '--workspace', ws, '--yes', '--stream', '--dangerously-disable-sandbox', '--call-id', 'long1'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
      let stderr = '';
      const closed = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
      await new Promise<void>((resolve, reject) => {
        child.stderr.on('data', (d) => {
          stderr += d;
          if (stderr.includes('started')) resolve();
        });
        child.on('close', () => reject(new Error(`exited before the command started: ${stderr}`)));
      });
      child.kill('SIGINT');
      const code = await closed;
      assert.equal(code, 130, stderr);
      assert.match(stderr, /interrupted: stopping call long1/);
      const trace = await runCli(['trace', '--workspace', ws, '--call', 'long1', '--json'], { env });
      assert.equal(trace.code, 0, trace.stderr);
      assert.doesNotMatch(trace.stdout, /"state": ?"running"/, trace.stdout);
      assert.match(trace.stdout, /ABORTED/, trace.stdout);
      assert.equal(fs.existsSync(path.join(ws, 'after.txt')), false, 'the command was stopped');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('toolgate call stopped by SIGTERM (timeout, a service manager)', () => {
  it('stops the call likewise and exits 143', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tg-term-'));
    const env = { ...process.env, XDG_STATE_HOME: path.join(dir, 'state'), XDG_CONFIG_HOME: path.join(dir, 'config') };
    const ws = path.join(dir, 'ws');
    fs.mkdirSync(ws);
    try {
      const child = spawn(process.execPath, [BIN, 'call', 'run_command', '{"command":"echo started; sleep 60"}',
        '--workspace', ws, '--yes', '--stream', '--dangerously-disable-sandbox', '--call-id', 'term1'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
      let stderr = '';
      const closed = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
      await new Promise<void>((resolve, reject) => {
        child.stderr.on('data', (d) => {
          stderr += d;
          if (stderr.includes('started')) resolve();
        });
        child.on('close', () => reject(new Error(`exited before the command started: ${stderr}`)));
      });
      child.kill('SIGTERM');
      assert.equal(await closed, 143, stderr);
      const trace = await runCli(['trace', '--workspace', ws, '--call', 'term1', '--json'], { env });
      assert.match(trace.stdout, /ABORTED/, trace.stdout);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
