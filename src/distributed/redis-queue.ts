/**
 * The Redis queue backend (`redis://`, `rediss://`): BullMQ on Redis, the cancel channel on
 * Redis pub/sub ({@link CANCEL_CHANNEL}), `rateLimitRpm` turns by a Lua script
 * (`redis-rate-limit.ts`). One client for the queues, the publishing and the turns; one more
 * for the queue events (BullMQ blocks reading their stream) and one for the cancel
 * subscription, each made when first needed.
 *
 * @module
 */
import type { Redis } from 'ioredis';
import { CANCEL_CHANNEL, redisClient } from './connection.js';
import { queueName } from './job.js';
import { loadBullMq, type BullMq } from './peers.js';
import { RedisRateLimiter } from './redis-rate-limit.js';
import { hearJobEvents, redactPassword, RUN_RETRY_DELAY_MS, type JobEventHandlers, type JobEvents, type JobQueue, type JobWorker, type JobWorkerOptions, type QueueBackend, type QueueBackendKind, type QueueJob } from './queue-backend.js';

class RedisQueueBackend implements QueueBackend {
  readonly kind = 'redis';
  /** Clients made besides the main one (events, the cancel subscription). */
  private readonly others: Redis[] = [];

  constructor(private readonly bull: BullMq, private readonly url: string, private readonly option: string, private readonly main: Redis) {}

  queue(pool: string): JobQueue {
    const queue = new this.bull.Queue(queueName(pool), { connection: this.main });
    queue.on('error', () => undefined);
    return queue;
  }

  worker(pool: string, processor: (job: QueueJob) => Promise<unknown>, options: JobWorkerOptions): JobWorker {
    const worker = new this.bull.Worker(queueName(pool), processor, {
      connection: this.main, concurrency: options.concurrency, maxStalledCount: 0, lockDuration: options.lockDuration, autorun: false, runRetryDelay: RUN_RETRY_DELAY_MS,
    });
    worker.on('error', (error) => options.onError(this.redact(String(error?.message))));
    return worker;
  }

  async events(pool: string, handlers: JobEventHandlers): Promise<JobEvents> {
    // Its own connection (it blocks reading the queue's event stream).
    const connection = await redisClient(this.url, this.option);
    this.others.push(connection);
    const events = new this.bull.QueueEvents(queueName(pool), { connection });
    return hearJobEvents(events, handlers);
  }

  async publishCancel(message: string): Promise<void> {
    await this.main.publish(CANCEL_CHANNEL, message);
  }

  async onCancel(listener: (message: string) => void): Promise<void> {
    const subscriber = await redisClient(this.url, this.option);
    this.others.push(subscriber);
    await subscriber.subscribe(CANCEL_CHANNEL);
    subscriber.on('message', (_channel: string, message: string) => listener(message));
  }

  rateLimiter(maxWaitMs?: number): RedisRateLimiter {
    return new RedisRateLimiter(this.main, 'toolgate:rate:', maxWaitMs);
  }

  redact(text: string): string {
    return redactPassword(this.url, text);
  }

  async close(): Promise<void> {
    for (const client of this.others) client.disconnect();
    this.main.disconnect();
  }
}

/** The Redis queue backend kind. */
export const redisQueue: QueueBackendKind = {
  async open(url, option) {
    const bull = await loadBullMq(option);
    return new RedisQueueBackend(bull, url, option, await redisClient(url, option));
  },
};
