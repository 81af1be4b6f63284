/**
 * Finding files by glob for the framework (tool folders, schema sources): the one module of
 * src/ that imports fast-glob.
 *
 * @module
 */
import fg from 'fast-glob';

/**
 * Absolute paths of the files matching `patterns` below `cwd`, sorted; `node_modules` is
 * always skipped.
 * @param patterns - glob patterns (fast-glob syntax), relative to `cwd`.
 * @param ignore - further patterns to skip.
 */
export async function findFiles(patterns: string[], cwd: string, ignore: string[] = []): Promise<string[]> {
  return (await fg(patterns, { cwd, absolute: true, ignore: ['**/node_modules/**', ...ignore] })).sort();
}
