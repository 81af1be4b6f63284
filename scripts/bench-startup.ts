/**
 * `npm run bench -- --startup [--runs N]`: how fast the `toolgate` command starts, against
 * Node's own floor measured in the same run. Each of N rounds (default 15) runs, in an order
 * that alternates between rounds:
 *   (0) `node -e 0`,
 *   (1) `toolgate --version`,
 *   (2) `toolgate list`,
 *   (3) `toolgate call read_file` of a small file in a temporary workspace (with the ledger, in
 *       a temporary state folder: what the command does by default),
 *   (4) an MCP stdio client's wait for the answer to `initialize`: `toolgate mcp` is spawned,
 *       the request written to its stdin at once, and the time taken to the answer's line,
 *   (5) `import('toolgate')` in a new process: what every SDK user and test file pays before
 *       its first line runs (docs/performance.md, "Import cost").
 * Each is timed from spawn to exit (to the answer for (4)) as a new process, and the median of
 * each is printed with its ratio to (0) and PASS or FAIL against its target. The exit code is
 * 1 when a ratio misses its target.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';

const BIN = fileURLToPath(new URL('../../bin/toolgate.js', import.meta.url));
/** The root entry `toolgate` (dist/src/index.js), as an application imports it. */
const ROOT_ENTRY = new URL('../src/index.js', import.meta.url).href;

/** Is the startup bench asked for (`--startup` on the command line)? */
export function startupRequested(argv: readonly string[] = process.argv): boolean {
  return argv.includes('--startup');
}

function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

/** Milliseconds from spawning `node ...args` to its exit; rejects when it exits with another code than 0. */
function timeRun(args: string[], env: NodeJS.ProcessEnv): Promise<number> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'ignore', 'pipe'], env });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('exit', (code) => {
      const ms = performance.now() - t0;
      if (code === 0) resolve(ms);
      else reject(new Error(`node ${args.join(' ')} exited with ${code}: ${stderr.slice(0, 500)}`));
    });
  });
}

/** Milliseconds from spawning `toolgate mcp` to the answer to `initialize` on its stdout; the server is then closed. */
function timeMcpInitialize(args: string[], env: NodeJS.ProcessEnv): Promise<number> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(process.execPath, [BIN, 'mcp', ...args], { stdio: ['pipe', 'pipe', 'pipe'], env });
    let out = '';
    let stderr = '';
    let answered = false;
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (answered || !out.includes('\n')) return;
      const line = out.slice(0, out.indexOf('\n'));
      answered = true;
      const ms = performance.now() - t0;
      const reply = JSON.parse(line) as { id?: unknown; result?: { serverInfo?: unknown } };
      child.stdin.end();
      if (reply.id !== 1 || reply.result?.serverInfo === undefined) reject(new Error(`unexpected answer to initialize: ${line.slice(0, 300)}`));
      else child.once('exit', () => resolve(ms));
    });
    child.on('error', reject);
    child.on('exit', (code) => {
      if (!answered) reject(new Error(`toolgate mcp exited with ${code} before answering initialize: ${stderr.slice(0, 500)}`));
    });
    const initialize = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'bench', version: '1.0.0' } } };
    child.stdin.write(`${JSON.stringify(initialize)}\n`);
  });
}

/** One measured path: its label, its target ratio to `node -e 0` (none for the floor itself), and one sample. */
interface StartupPath {
  label: string;
  target: number | undefined;
  sample: () => Promise<number>;
}

/**
 * Run the startup bench and print its table.
 * @returns 0 when every ratio is within its target, else 1.
 */
export async function runStartupBench(argv: readonly string[] = process.argv): Promise<number> {
  const at = argv.indexOf('--runs');
  const runs = at >= 0 ? Number(argv[at + 1]) : 15;
  if (!Number.isInteger(runs) || runs < 1) throw new Error(`--runs must be a positive integer; got ${argv[at + 1]}`);
  const temp = fs.mkdtempSync(path.join(os.tmpdir(), 'toolgate-bench-startup-'));
  try {
    const workspace = path.join(temp, 'workspace');
    fs.mkdirSync(workspace);
    fs.writeFileSync(path.join(workspace, 'notes.txt'), 'one line of text\n');
    // No policy file of the user's, no ledger of theirs: every path starts from the same place.
    const env: NodeJS.ProcessEnv = { ...process.env, XDG_CONFIG_HOME: path.join(temp, 'config'), XDG_STATE_HOME: path.join(temp, 'state') };
    const paths: StartupPath[] = [
      { label: 'node -e 0', target: undefined, sample: () => timeRun(['-e', '0'], env) },
      { label: 'toolgate --version', target: 1.5, sample: () => timeRun([BIN, '--version'], env) },
      { label: 'toolgate list', target: 3, sample: () => timeRun([BIN, 'list'], env) },
      { label: 'toolgate call read_file', target: 4, sample: () => timeRun([BIN, 'call', 'read_file', '{"filepath":"notes.txt"}', '--workspace', workspace], env) },
      { label: 'MCP stdio initialize answered', target: 4, sample: () => timeMcpInitialize(['--workspace', workspace], env) },
      { label: "import('toolgate')", target: 2, sample: () => timeRun(['--input-type=module', '-e', `await import(${JSON.stringify(ROOT_ENTRY)});`], env) },
    ];
    const samples = paths.map(() => [] as number[]);
    for (const p of paths) await p.sample(); // warm-up: the file system cache, the ledger file
    for (let round = 0; round < runs; round++) {
      const order = paths.map((_, i) => (round % 2 === 0 ? i : paths.length - 1 - i));
      for (const i of order) samples[i]!.push(await paths[i]!.sample());
    }
    const floor = median(samples[0]!);
    process.stdout.write(`toolgate startup bench: node ${process.version}, ${os.availableParallelism()} CPUs, medians of ${runs} runs each (interleaved)\n\n`);
    process.stdout.write(`${'path'.padEnd(32)}${'median ms'.padStart(10)}${'ratio'.padStart(8)}${'target'.padStart(9)}  verdict\n`);
    let failed = 0;
    paths.forEach((p, i) => {
      const ms = median(samples[i]!);
      const ratio = ms / floor;
      const verdict = p.target === undefined ? '' : ratio <= p.target ? 'PASS' : 'FAIL';
      if (verdict === 'FAIL') failed++;
      const target = p.target === undefined ? '-' : `<= ${p.target}x`;
      process.stdout.write(`${p.label.padEnd(32)}${ms.toFixed(1).padStart(10)}${`${ratio.toFixed(2)}x`.padStart(8)}${target.padStart(9)}  ${verdict}\n`);
    });
    return failed === 0 ? 0 : 1;
  } finally {
    fs.rmSync(temp, { recursive: true, force: true });
  }
}
