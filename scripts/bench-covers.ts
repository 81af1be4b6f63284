/**
 * `npm run bench -- --covers`: what the sandbox covers cost a shell command (`commandSandbox`,
 * `Workspace.sandboxCovers`): `run_command 'true'` in the default sandbox under one deny path
 * rule (`**\/.env`) against the same command with no path rule (no walk), in workspaces of
 * 1,000, 20,000 and 100,000 files (folders of 100 files, one `.env` among them), measured
 * in the same run, interleaved (a call with the rule, a call without, the order alternating).
 * Prints, per size, the median ms per call of each and their difference and ratio. Each
 * executor serves warm-up calls first, uncounted. Then the covers alone (`workspaceCovers`,
 * without the command's own ~0.5 s around them): a fresh walk vs an answer kept from an
 * earlier walk (`cover-snapshots.ts`: one `lstat` per folder and the mount table read).
 *
 * Needs bubblewrap (the covers apply only inside the sandbox); without it the bench says so
 * and exits 0. Options: `--calls N` (default 15 per path and size), `--sizes 1000,20000`.
 *
 * Run alone: `npm run build && node dist/scripts/bench.js --covers`.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { loadBuiltinTools, loadPortedTools, ToolExecutor, type ToolRegistry } from '../src/index.js';
import { bubblewrapAvailable } from '../src/sandbox/bubblewrap.js';
import { forgetCoverSnapshots, workspaceCovers } from '../src/workspace/cover-snapshots.js';

/** Is this bench asked for (`--covers`)? */
export function coversRequested(argv: readonly string[] = process.argv): boolean {
  return argv.includes('--covers');
}

const FILES_PER_FOLDER = 100;

function option(argv: readonly string[], name: string): string | undefined {
  const at = argv.indexOf(`--${name}`);
  return at >= 0 ? argv[at + 1] : undefined;
}

function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

/** A workspace of `files` files in folders of {@link FILES_PER_FOLDER}, one `.env` in the first. */
function makeWorkspace(root: string, files: number): string {
  const ws = path.join(root, 'ws');
  fs.mkdirSync(ws);
  for (let i = 0; i < files; i++) {
    const dir = path.join(ws, `pkg${Math.floor(i / FILES_PER_FOLDER)}`);
    if (i % FILES_PER_FOLDER === 0) fs.mkdirSync(dir);
    fs.writeFileSync(path.join(dir, i === 0 ? '.env' : `f${i}.txt`), '');
  }
  return ws;
}

/** Median ms per `run_command 'true'` with one deny path rule and with none, for one workspace size. */
async function benchSize(registry: ToolRegistry, files: number, calls: number): Promise<{ ruled: number; plain: number; walked: number; kept: number }> {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'toolgate-bench-covers-'));
  const executors: ToolExecutor[] = [];
  try {
    const ws = makeWorkspace(root, files);
    const policy = path.join(root, 'policy.toml');
    fs.writeFileSync(policy, '[[rules]]\ntool = "run_command"\naction = "allow"\n\n[[rules]]\naction = "deny"\npaths = ["**/.env"]\n');
    const ruled = new ToolExecutor(registry, { workspaceRoot: ws, policy: { user: policy, workspace: false }, approvalMode: 'allow-all' });
    const plain = new ToolExecutor(registry, { workspaceRoot: ws, approvalMode: 'allow-all' });
    executors.push(ruled, plain);
    const call = async (executor: ToolExecutor): Promise<number> => {
      const t0 = performance.now();
      const r = await executor.execute({ name: 'run_command', arguments: { command: 'true' } }, { confirm: true });
      const ms = performance.now() - t0;
      if (!r.success) throw new Error(`run_command 'true' failed in a workspace of ${files} files: ${JSON.stringify(r).slice(0, 500)}`);
      return ms;
    };
    for (let i = 0; i < 3; i++) {
      await call(ruled);
      await call(plain);
    }
    const samples = { ruled: [] as number[], plain: [] as number[] };
    for (let i = 0; i < calls; i++) {
      if (i % 2 === 0) {
        samples.ruled.push(await call(ruled));
        samples.plain.push(await call(plain));
      } else {
        samples.plain.push(await call(plain));
        samples.ruled.push(await call(ruled));
      }
    }
    // The covers alone, without the command around them (whose own ~0.5 s varies by more
    // than the walk on a shared machine): a fresh walk vs an answer kept from an earlier one.
    const filter = Object.assign((p: string) => p === '.env' || p.endsWith('/.env'), { rulesKey: 'bench' });
    const real = fs.realpathSync(ws);
    const walked: number[] = [];
    const kept: number[] = [];
    for (let i = 0; i < calls; i++) {
      forgetCoverSnapshots();
      let t0 = performance.now();
      await workspaceCovers(real, filter);
      walked.push(performance.now() - t0);
      t0 = performance.now();
      await workspaceCovers(real, filter);
      kept.push(performance.now() - t0);
    }
    return { ruled: median(samples.ruled), plain: median(samples.plain), walked: median(walked), kept: median(kept) };
  } finally {
    for (const e of executors) await e.close();
    fs.rmSync(root, { recursive: true, force: true });
  }
}

/** Run the covers bench and print its lines; the exit code (0, or 1 when a call failed). */
export async function runCoversBench(argv: readonly string[] = process.argv): Promise<number> {
  if (!bubblewrapAvailable()) {
    process.stdout.write('sandbox covers: bubblewrap does not work here; covers apply only inside the sandbox (nothing measured)\n');
    return 0;
  }
  const calls = Number(option(argv, 'calls') ?? 15);
  const sizes = (option(argv, 'sizes') ?? '1000,20000,100000').split(',').map(Number);
  const { registry } = await loadBuiltinTools();
  await loadPortedTools(registry);
  process.stdout.write(`sandbox covers: run_command 'true', one deny path rule vs none, ${calls} calls each (median ms per call)\n`);
  for (const files of sizes) {
    const r = await benchSize(registry, files, calls);
    process.stdout.write(`  ${String(files).padStart(7)} files: with rule ${r.ruled.toFixed(1)} ms, without ${r.plain.toFixed(1)} ms, difference ${(r.ruled - r.plain).toFixed(1)} ms, ratio ${(r.ruled / r.plain).toFixed(2)}x; the covers alone: walked ${r.walked.toFixed(2)} ms, kept ${r.kept.toFixed(2)} ms\n`);
  }
  return 0;
}
