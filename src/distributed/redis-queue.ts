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
  private closed = false;

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
    // Its own connection (it blocks reading the queue's event stream). BullMQ reads through a
    // duplicate of the client given, made and owned by it, whose close waits for it to be ready
    // (for ever while the server does not answer): each duplicate is kept here too, so that
    // close() ends it whatever its state, and nothing of a caller that gave up stays open.
    const connection = await redisClient(this.url, this.option);
    this.others.push(connection);
    const duplicate = connection.duplicate.bind(connection);
    connection.duplicate = (...args: Parameters<Redis['duplicate']>) => {
      const made = duplicate(...args);
      made.on('error', () => undefined);
      if (this.closed) made.disconnect();
      else this.others.push(made);
      return made;
    };
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
    this.closed = true;
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
