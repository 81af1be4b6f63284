/**
 * The optional peers of the distributed mode, loaded on first use: `bullmq` (6) and `ioredis`
 * (5). A user who never sets `queue` never loads them; one who does without them installed
 * gets a {@link PackageUnavailableError} naming the package to install (the one loader of
 * optional packages, src/util/optional-package.ts).
 *
 * @module
 */
import type { PackageUnavailableError } from '../errors/errors.js';
import { loadOptional } from '../util/optional-package.js';

/** The `bullmq` module. */
export type BullMq = typeof import('bullmq');
/** The `ioredis` module's default export (the client class). */
export type IoRedis = typeof import('ioredis').Redis;

/** `bullmq`. @throws {@link PackageUnavailableError} when it is not installed. */
export function loadBullMq(option = 'queue'): Promise<BullMq> {
  return loadOptional<BullMq>('bullmq', `the ${option} option`);
}

/** `ioredis`'s client class. @throws {@link PackageUnavailableError} when it is not installed. */
export async function loadIoRedis(option = 'queue'): Promise<IoRedis> {
  return (await loadOptional<typeof import('ioredis')>('ioredis', `the ${option} option`)).Redis;
}
