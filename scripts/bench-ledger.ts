/**
 * The ledger case of `npm run bench`: {@link benchLedger} measures the cost a durable ledger
 * adds to a call: the same main-runner no-op call (`do_nothing_main`, through the full
 * decision pipeline) on an executor without a store and on one with a ledger in a temporary
 * folder on disk (a claim commit per call in WAL mode with `synchronous = NORMAL`, its end
 * riding on the next commit), interleaved in rounds. Returns the medians in µs per call, and
 * the disk measured: the system's temporary folder, unless that is a memory file system
 * (`tmpfs`, `ramfs`: no disk at all), then a folder under this repository's `dist/`. The line
 * names the file system and its device (from `/proc/self/mountinfo`). Target: at most 150 µs
 * added per call on a local disk.
 *
 * Run alone: `npm run build && node dist/scripts/bench-ledger.js`.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { loadTools, ToolExecutor, type ExecuteOptions } from '../src/index.js';

function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

/** A mounted file system: its type, its source (the device) and where it is mounted. */
interface Mount {
  fsType: string;
  source: string;
  mountPoint: string;
}

/**
 * The file system holding `dir`: the mount of `/proc/self/mountinfo` with the longest mount
 * point that contains it; `undefined` where that file cannot be read (not Linux).
 */
function mountOf(dir: string): Mount | undefined {
  let text: string;
  try {
    text = fs.readFileSync('/proc/self/mountinfo', 'utf8');
  } catch {
    return undefined;
  }
  const real = fs.realpathSync(dir);
  // Octal escapes (\040 for a space) as the kernel writes them.
  const unescape = (field: string) => field.replace(/\\([0-7]{3})/g, (_, octal: string) => String.fromCharCode(parseInt(octal, 8)));
  let best: Mount | undefined;
  for (const line of text.split('\n')) {
    // id parent major:minor root mount-point options [optional fields...] - fstype source super-options
    const fields = line.split(' ');
    const dash = fields.indexOf('-');
    if (fields.length < 5 || dash < 0) continue;
    const mountPoint = unescape(fields[4]!);
    const inside = mountPoint === '/' || real === mountPoint || real.startsWith(`${mountPoint}/`);
    if (inside && (best === undefined || mountPoint.length >= best.mountPoint.length)) {
      best = { fsType: fields[dash + 1]!, source: unescape(fields[dash + 2] ?? '?'), mountPoint };
    }
  }
  return best;
}

const MEMORY_FILE_SYSTEMS = new Set(['tmpfs', 'ramfs']);

/**
 * A temporary folder on a disk: in the system's temporary folder unless that lives in memory,
 * then under this repository's `dist/` (on the disk the repository is on).
 */
function diskFolder(): { dir: string; disk: string } {
  const tmp = os.tmpdir();
  const tmpMount = mountOf(tmp);
  const base = tmpMount !== undefined && MEMORY_FILE_SYSTEMS.has(tmpMount.fsType) ? fileURLToPath(new URL('..', import.meta.url)) : tmp;
  const dir = fs.mkdtempSync(path.join(base, 'toolgate-bench-ledger-'));
  const mount = mountOf(dir);
  const disk = mount === undefined ? `${base} (file system unknown)` : `${mount.fsType} ${mount.source} at ${base}${base === tmp ? '' : ` (${tmp} is ${tmpMount!.fsType})`}`;
  return { dir, disk };
}

/** Medians, in µs per call, of the call without and with a ledger, and the difference; the disk measured. */
export async function benchLedger(rounds = 15, batch = 500): Promise<{ withoutUs: number; withUs: number; costUs: number; file: string; disk: string }> {
  const { registry } = await loadTools({
    modules: [new URL('../test/fixtures/bench.tool.js', import.meta.url)],
    schemas: fileURLToPath(new URL('../../test/fixtures/tool-schemas.json', import.meta.url)),
  });
  const { dir, disk } = diskFolder();
  const plain = new ToolExecutor(registry, { policyHook: () => undefined, sweepLeftovers: false });
  const durable = new ToolExecutor(registry, { policyHook: () => undefined, sweepLeftovers: false, ledger: { dir, workspace: dir, maxCalls: 1_000_000 } });
  const gated: ExecuteOptions = { mode: 'explore', timeoutMs: 30_000 };
  const args = { n: 1 };
  const sample = async (executor: ToolExecutor) => {
    const t0 = performance.now();
    for (let i = 0; i < batch; i++) {
      const r = await executor.execute({ name: 'do_nothing_main', arguments: args }, gated);
      if (!r.success) throw new Error(`bench call failed: ${r.error}`);
    }
    return ((performance.now() - t0) * 1000) / batch;
  };
  try {
    await sample(plain);
    await sample(durable); // warm-up
    const without: number[] = [];
    const withLedger: number[] = [];
    for (let r = 0; r < rounds; r++) {
      if (r % 2 === 0) {
        without.push(await sample(plain));
        withLedger.push(await sample(durable));
      } else {
        withLedger.push(await sample(durable));
        without.push(await sample(plain));
      }
    }
    const file = durable.ledger!.file;
    const costs = without.map((w, i) => withLedger[i]! - w);
    return { withoutUs: median(without), withUs: median(withLedger), costUs: median(costs), file, disk };
  } finally {
    await Promise.all([plain.close(), durable.close()]);
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** The bench's ledger line. */
export async function ledgerBenchLine(): Promise<string> {
  const { withoutUs, withUs, costUs, disk } = await benchLedger();
  return `ledger cost per call:       ${costUs.toFixed(2)} µs  (target <= 150 µs; main-runner call ${withoutUs.toFixed(2)} µs without a store, ${withUs.toFixed(2)} µs with one on ${disk})\n`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) process.stdout.write(await ledgerBenchLine());
