/**
 * The ledger case of `npm run bench`: {@link benchLedger} measures the cost a durable ledger
 * adds to a call: the same main-runner no-op call (`do_nothing_main`, through the full
 * decision pipeline) on an executor without a store and on one with a ledger in a temporary
 * folder on local disk (record, claim and close-out: three `BEGIN IMMEDIATE` commits in WAL
 * mode with `synchronous = NORMAL`), interleaved in rounds. Returns the medians in µs per
 * call. Target: at most 150 µs added per call.
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

/** Medians, in µs per call, of the call without and with a ledger, and the difference. */
export async function benchLedger(rounds = 15, batch = 500): Promise<{ withoutUs: number; withUs: number; costUs: number; file: string }> {
  const { registry } = await loadTools({
    modules: [new URL('../test/fixtures/bench.tool.js', import.meta.url)],
    schemas: fileURLToPath(new URL('../../test/fixtures/tool-schemas.json', import.meta.url)),
  });
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'toolgate-bench-ledger-'));
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
    return { withoutUs: median(without), withUs: median(withLedger), costUs: median(costs), file };
  } finally {
    await Promise.all([plain.close(), durable.close()]);
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** The bench's ledger line. */
export async function ledgerBenchLine(): Promise<string> {
  const { withoutUs, withUs, costUs } = await benchLedger();
  return `ledger cost per call:       ${costUs.toFixed(2)} µs  (target <= 150 µs; main-runner call ${withoutUs.toFixed(2)} µs without a store, ${withUs.toFixed(2)} µs with one on local disk)\n`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) process.stdout.write(await ledgerBenchLine());
