/**
 * The sizing options the runners that keep workers or child processes share, checked once.
 *
 * @module
 */
import os from 'node:os';
import { ToolgateOptionError } from '../errors/errors.js';

/** Heap cap in MiB for tools that declare none, without `defaultMemoryMb`. */
export const DEFAULT_MEMORY_MB = 1024;

/** How many workers (threads or processes) a group keeps, and the default heap cap. */
export interface Sizing {
  /** Workers per group: `poolSize`, default `max(2, os.availableParallelism())`. */
  size: number;
  /** Heap cap in MiB for tools that declare none: `defaultMemoryMb`, default 1024. */
  memoryMb: number;
}

/**
 * Check `poolSize` and `defaultMemoryMb` and fill in their defaults.
 * @throws ToolgateOptionError when one is out of range.
 */
export function sizingOf(options: { poolSize?: number; defaultMemoryMb?: number }): Sizing {
  const size = options.poolSize ?? Math.max(2, os.availableParallelism());
  if (!Number.isInteger(size) || size < 1 || size > 256) throw ToolgateOptionError.fromBadOption('poolSize', `must be an integer from 1 to 256; got ${size}`);
  const memoryMb = options.defaultMemoryMb ?? DEFAULT_MEMORY_MB;
  if (!Number.isInteger(memoryMb) || memoryMb < 16) throw ToolgateOptionError.fromBadOption('defaultMemoryMb', `must be an integer >= 16; got ${memoryMb}`);
  return { size, memoryMb };
}
