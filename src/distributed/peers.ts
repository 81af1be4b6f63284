/**
 * The optional peers of the distributed mode, loaded on first use: `bullmq` (6) and `ioredis`
 * (5). A user who never sets `queue` never loads them; one who does without them installed
 * gets a {@link ToolgateOptionError} naming the package to install.
 *
 * @module
 */
import { ToolgateOptionError } from '../errors/errors.js';

/** The `bullmq` module. */
export type BullMq = typeof import('bullmq');
/** The `ioredis` module's default export (the client class). */
export type IoRedis = typeof import('ioredis').Redis;

/**
 * Import an optional peer.
 * @throws ToolgateOptionError naming the package (and `option`) when it is not installed.
 */
async function peer<T>(name: string, option: string, load: () => Promise<T>): Promise<T> {
  try {
    return await load();
  } catch (error) {
    const code = (error as NodeJS.ErrnoException)?.code;
    if (code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') {
      throw ToolgateOptionError.fromBadOption(option, `needs the package ${name}, which is not installed: npm install ${name}`);
    }
    throw error;
  }
}

/** `bullmq`. @throws ToolgateOptionError when it is not installed. */
export function loadBullMq(option = 'queue'): Promise<BullMq> {
  return peer('bullmq@6', option, () => import('bullmq'));
}

/** `ioredis`'s client class. @throws ToolgateOptionError when it is not installed. */
export async function loadIoRedis(option = 'queue'): Promise<IoRedis> {
  return (await peer('ioredis@5', option, () => import('ioredis'))).Redis;
}
