/**
 * The full-ledger case of `npm run bench` (`--ledger-full` runs it alone): does a ledger at
 * its call limit slow small calls down? Two `toolgate mcp` servers over stdio, in the same
 * run, on the same workspace: one with an empty ledger, one whose ledger already holds its
 * limit of ended calls (10,000, the default `maxCalls`, each with 2 KiB of output), so that
 * every call it ends puts it over the limit and retention must delete one. Each server
 * answers `tools/call read_file` of a small file, `IN_FLIGHT` calls at a time, in interleaved
 * rounds after a warm-up; a call's latency is from writing its request to reading its answer.
 * Prints the p99 of both and their ratio. Target: full / empty <= 2x (issue 31: retention on
 * the call path had raised the p99 of a small read_file from 30 ms to 418 ms).
 *
 * Run alone: `npm run build && node dist/scripts/bench.js --ledger-full [--calls N]`.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { Ledger } from '../src/index.js';

const BIN = fileURLToPath(new URL('../../bin/toolgate.js', import.meta.url));
/** The ledger's default call limit (LedgerOptions.maxCalls). */
const FULL = 10_000;
const IN_FLIGHT = 4;
const ROUNDS = 20;
/** The target: the full ledger's p99 at most this many times the empty one's. */
export const FULL_LEDGER_TARGET = 2;

/** Is this entry asked for alone (`--ledger-full`)? */
export function fullLedgerRequested(argv: readonly string[] = process.argv): boolean {
  return argv.includes('--ledger-full');
}

function percentile(values: number[], p: number): number {
  const s = [...values].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)]!;
}

/** An answer to a JSON-RPC request (what the bench reads of it). */
interface McpAnswer {
  result?: { isError?: boolean };
  error?: unknown;
}

/** A `toolgate mcp` server over stdio, and a client that matches answers to requests by id. */
class McpServer {
  private readonly child: ChildProcessWithoutNullStreams;
  private readonly waiting = new Map<number, { resolve: (message: McpAnswer) => void; reject: (error: Error) => void }>();
  private exited = false;
  private nextId = 1;
  private buffered = '';
  private stderr = '';

  constructor(workspace: string, stateDir: string, env: NodeJS.ProcessEnv) {
    this.child = spawn(process.execPath, [BIN, 'mcp', '--workspace', workspace, '--state-dir', stateDir], { stdio: ['pipe', 'pipe', 'pipe'], env });
    this.child.stderr.on('data', (chunk: Buffer) => (this.stderr = (this.stderr + chunk.toString()).slice(-2000)));
    this.child.on('exit', (code, signal) => {
      this.exited = true;
      for (const w of this.waiting.values()) w.reject(new Error(`toolgate mcp exited (${code ?? signal}) with requests unanswered: ${this.stderr}`));
      this.waiting.clear();
    });
    this.child.stdout.on('data', (chunk: Buffer) => {
      this.buffered += chunk.toString();
      for (let nl = this.buffered.indexOf('\n'); nl >= 0; nl = this.buffered.indexOf('\n')) {
        const line = this.buffered.slice(0, nl);
        this.buffered = this.buffered.slice(nl + 1);
        const message = JSON.parse(line) as McpAnswer & { id?: number };
        if (typeof message.id === 'number') {
          this.waiting.get(message.id)?.resolve(message);
          this.waiting.delete(message.id);
        }
      }
    });
  }

  request(method: string, params: unknown): Promise<McpAnswer> {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      if (this.exited) return reject(new Error(`toolgate mcp has exited: ${this.stderr}`));
      this.waiting.set(id, { resolve, reject });
      this.child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`, (error) => error && reject(error));
    });
  }

  async start(): Promise<void> {
    const init = await this.request('initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'bench', version: '1.0.0' } });
    if (init.error !== undefined) throw new Error(`initialize failed: ${JSON.stringify(init.error)} ${this.stderr}`);
    this.child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`);
  }

  /** Milliseconds of one `read_file` call. @throws when it fails. */
  async readFile(): Promise<number> {
    const t0 = performance.now();
    const answer = await this.request('tools/call', { name: 'read_file', arguments: { filepath: 'small.txt' } });
    const ms = performance.now() - t0;
    if (answer.error !== undefined || answer.result?.isError === true) throw new Error(`read_file failed: ${JSON.stringify(answer).slice(0, 500)} ${this.stderr}`);
    return ms;
  }

  /** `count` calls, `IN_FLIGHT` at a time; their latencies. */
  async calls(count: number): Promise<number[]> {
    const out: number[] = [];
    let left = count;
    const lane = async () => {
      while (left > 0) {
        left--;
        out.push(await this.readFile());
      }
    };
    await Promise.all(Array.from({ length: IN_FLIGHT }, lane));
    return out;
  }

  close(): Promise<void> {
    return new Promise((resolve) => {
      if (this.exited) return resolve();
      this.child.once('exit', () => resolve());
      this.child.stdin.end();
      setTimeout(() => this.child.kill('SIGKILL'), 10_000).unref();
    });
  }
}

/** Fill the workspace's ledger in `stateDir` with `FULL` ended calls (the default limit). */
async function fillLedger(stateDir: string, workspace: string): Promise<void> {
  const ledger = Ledger.open({ dir: stateDir, workspace });
  try {
    const output = 'x'.repeat(2048);
    for (let i = 0; i < FULL; i++) {
      const callId = `fill-${i}`;
      (await ledger.finish(
        { callId, session: 'fill', tool: 'read_file', version: '1.0.0', arguments: { filepath: `f${i}.txt` }, workspace, turn: '' },
        { state: 'done', decisions: [{ decider: 'mode', verdict: 'allow', reason: 'bench' }], result: { success: true, output, durationMs: 1, confirmed: true, tool: 'read_file', version: '1.0.0', callId, stopReason: 'completed', outcome: 'success', sideEffects: 'none' } },
      ));
    }
  } finally {
    await ledger.close();
  }
}

/** The p99 and p50 of small `read_file` calls through `toolgate mcp` with an empty and a full ledger (ms), their p99 ratio, and the calls the full ledger held after. */
export async function benchFullLedger(calls = 3000): Promise<{ emptyP99: number; fullP99: number; emptyP50: number; fullP50: number; ratio: number; heldAfter: number; prunedAfter: boolean }> {
  const temp = fs.mkdtempSync(path.join(os.tmpdir(), 'toolgate-bench-ledger-full-'));
  const servers: McpServer[] = [];
  try {
    const workspace = path.join(temp, 'workspace');
    fs.mkdirSync(workspace);
    fs.writeFileSync(path.join(workspace, 'small.txt'), 'a small file\n'.repeat(10));
    const env: NodeJS.ProcessEnv = { ...process.env, XDG_CONFIG_HOME: path.join(temp, 'config'), XDG_STATE_HOME: path.join(temp, 'state') };
    const emptyDir = path.join(temp, 'empty');
    const fullDir = path.join(temp, 'full');
    await fillLedger(fullDir, workspace);
    const empty = new McpServer(workspace, emptyDir, env);
    const full = new McpServer(workspace, fullDir, env);
    servers.push(empty, full);
    await Promise.all([empty.start(), full.start()]);
    await empty.calls(200); // warm-up, uncounted
    await full.calls(200);
    const samples = { empty: [] as number[], full: [] as number[] };
    const perRound = Math.ceil(calls / ROUNDS);
    for (let round = 0; round < ROUNDS; round++) {
      if (round % 2 === 0) {
        samples.empty.push(...(await empty.calls(perRound)));
        samples.full.push(...(await full.calls(perRound)));
      } else {
        samples.full.push(...(await full.calls(perRound)));
        samples.empty.push(...(await empty.calls(perRound)));
      }
    }
    await Promise.all(servers.splice(0).map((s) => s.close()));
    const reader = Ledger.open({ dir: fullDir, workspace, readonly: true });
    let heldAfter: number;
    let prunedAfter: boolean;
    try {
      heldAfter = (await reader.list({ state: 'done', limit: 1_000_000 })).length;
      prunedAfter = (await reader.tombstone('fill-0', 'fill')) !== undefined;
    } finally {
      await reader.close();
    }
    const emptyP99 = percentile(samples.empty, 99);
    const fullP99 = percentile(samples.full, 99);
    return { emptyP99, fullP99, emptyP50: percentile(samples.empty, 50), fullP50: percentile(samples.full, 50), ratio: fullP99 / emptyP99, heldAfter, prunedAfter };
  } finally {
    await Promise.all(servers.map((s) => s.close()));
    fs.rmSync(temp, { recursive: true, force: true });
  }
}

/** The bench's full-ledger line, and whether it is within its target. */
export async function fullLedgerBenchLine(argv: readonly string[] = process.argv): Promise<{ line: string; pass: boolean }> {
  const at = argv.indexOf('--calls');
  const calls = at >= 0 ? Number(argv[at + 1]) : 3000;
  const r = await benchFullLedger(calls);
  const pass = r.ratio <= FULL_LEDGER_TARGET;
  const line = `full ledger p99 / empty:     ${r.ratio.toFixed(2)}x   (target <= ${FULL_LEDGER_TARGET}x; small read_file through toolgate mcp, ${IN_FLIGHT} in flight, ${calls} calls each: p99 ${r.fullP99.toFixed(2)} ms with ${FULL} ended calls vs ${r.emptyP99.toFixed(2)} ms empty, p50 ${r.fullP50.toFixed(2)} vs ${r.emptyP50.toFixed(2)} ms; after: ${r.heldAfter} ended calls held, oldest ${r.prunedAfter ? 'pruned' : 'NOT pruned'}) ${pass ? 'PASS' : 'FAIL'}\n`;
  return { line, pass };
}
