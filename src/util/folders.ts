/**
 * Making a folder with the parents it lacks, as `fs.mkdirSync(dir, { recursive: true })`
 * does, but ending with an error where Node's own never ends: Node 20 retries, at full CPU
 * and for good, a parent that exists but cannot hold the folder (under /proc, mkdir answers
 * ENOENT), so `toolgate call --state-dir /proc/x` hung.
 *
 * @module
 */
import fs from 'node:fs';
import path from 'node:path';

/** Whether `error` is EEXIST for a path that is a folder (or a link to one) after all. */
function isFolderThere(error: unknown, dir: string): boolean {
  return (error as NodeJS.ErrnoException).code === 'EEXIST' && fs.statSync(dir, { throwIfNoEntry: false })?.isDirectory() === true;
}

/**
 * Make folder `dir` and the parents it lacks, each with `mode` (less the umask). A folder
 * that exists already is fine.
 * @throws the error of the mkdir that failed: ENOENT where a parent cannot hold folders,
 *   EEXIST where a file is in the way, EACCES, ENOTDIR and the like.
 */
export function makeFolders(dir: string, mode?: number): void {
  try {
    fs.mkdirSync(dir, { mode });
    return;
  } catch (error) {
    if (isFolderThere(error, dir)) return;
    const parent = path.dirname(dir);
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT' || parent === dir) throw error;
    makeFolders(parent, mode);
  }
  // The parents are there now; a second ENOENT is final.
  try {
    fs.mkdirSync(dir, { mode });
  } catch (error) {
    if (!isFolderThere(error, dir)) throw error;
  }
}
