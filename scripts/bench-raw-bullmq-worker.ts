/**
 * The raw BullMQ worker of `npm run bench -- --distributed`: a worker of queue `argv[3]` on
 * Redis `argv[2]` whose jobs return at once (the floor a toolgate worker is compared with).
 */
import { Worker } from 'bullmq';
import { Redis } from 'ioredis';

const [url, name] = process.argv.slice(2) as [string, string];
// The options of toolgate's worker (`src/distributed/worker.ts`): 4 at once, no stalled job run again, a 30 s lock.
const worker = new Worker(name, async () => 'ok', { connection: new Redis(url, { maxRetriesPerRequest: null }), concurrency: 4, maxStalledCount: 0, lockDuration: 30_000 });
await worker.waitUntilReady();
process.stderr.write('raw worker: ready\n');
process.on('SIGTERM', () => void worker.close().then(() => process.exit(0)));
