/**
 * A caller process of the distributed soak: `node soak-caller.js STORE QUEUE WORKSPACE PREFIX
 * COUNT INFLIGHT` calls `PREFIX-0` .. `PREFIX-(COUNT-1)` (every seventh asks a person first),
 * INFLIGHT at a time, and prints `ended ID CODE` per call. Killed and started again, it calls
 * the same ids: a retry of an ended call returns its stored result, so every id runs once.
 */
import { openCallStore } from '../../src/ledger/open-store.js';
import { QueueCaller } from '../../src/distributed/queue-caller.js';

const [storeFile, queueUrl, workspace, prefix, countText, inflightText] = process.argv.slice(2) as [string, string, string, string, string, string];
const store = await openCallStore(storeFile);
const caller = await QueueCaller.open({ queue: queueUrl, store, workspace, checkMs: 500 });
let next = 0;
const count = Number(countText);
async function lane(): Promise<void> {
  while (next < count) {
    const n = next++;
    const asking = n % 7 === 3;
    const result = await caller.call(
      { name: asking ? 'append_call_id_asking' : 'append_call_id', arguments: asking ? { file: 'soak.txt' } : { file: 'soak.txt', waitMs: 100 + (n % 5) * 100 }, callId: `${prefix}-${n}` },
      { session: 'soak' },
    );
    process.stdout.write(`ended ${prefix}-${n} ${result.errorCode ?? 'ok'}\n`);
  }
}
await Promise.all(Array.from({ length: Number(inflightText) }, lane));
await caller.close();
await store.close();
process.stdout.write('done\n');
