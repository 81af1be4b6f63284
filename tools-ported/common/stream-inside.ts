/**
 * Streaming a body of unknown length into a workspace file, atomically: the bytes go to a new
 * temporary file in the target's folder (opened exclusively, never through a link, inside the
 * folder pinned with `pinFolder` of src/workspace/pinned-folder.ts), which is renamed over the
 * target only when the whole body arrived within the byte limit. On any failure (limit passed,
 * network error, abort, the call's deadline passing) the temporary file is removed, and so are
 * the folders this write created, so nothing is left behind. A thread or process killed
 * mid-write leaves its temporary file to the sweep of `src/workspace/leftovers.ts`.
 *
 * @module
 */
import fs from 'node:fs/promises';
import crypto from 'node:crypto';
import path from 'node:path';
import { PathTraversalError, pinFolder, throwIfStopped, ToolExecutionError, type Workspace } from '../../src/tool.js';
import { resolveWritable } from './fs-inside.js';

/** What {@link streamToFileInside} wrote. */
export interface StreamedFile {
  /** Real path of the file written. */
  path: string;
  /** Bytes written. */
  bytes: number;
  /** Whether an existing file was replaced. */
  overwrote: boolean;
  /** SHA-256 of the bytes, lowercase hexadecimal. */
  sha256: string;
}

/** The body passed the byte limit; nothing was kept. */
class StreamTooLargeError extends ToolExecutionError {}

/**
 * Check that `input` may be written (inside the workspace, writable in the mode, not a folder,
 * not an existing file unless `overwrite`), before any byte is fetched.
 * @returns the resolved real path.
 * @throws PathTraversalError outside the workspace; ToolExecutionError for the rest.
 */
export async function checkWritableTarget(workspace: Workspace, input: string, overwrite: boolean): Promise<string> {
  if (/[\\/]$/.test(input)) throw new ToolExecutionError(`${input} names a folder (it ends with a slash); give the full path of the file to write.`);
  const real = resolveWritable(workspace, input);
  const stat = await fs.lstat(real).catch(() => undefined);
  if (stat?.isDirectory()) throw new ToolExecutionError(`${input} is a folder; give the full path of the file to write (for example ${input.replace(/[\\/]+$/, '')}/name.ext).`);
  if (stat !== undefined && !stat.isFile()) throw new ToolExecutionError(`${input} exists and is not a regular file; it is not replaced.`);
  if (stat !== undefined && !overwrite) throw new ToolExecutionError(`${input} already exists; pass overwrite: true to replace it, or choose another path. Nothing was written.`);
  return real;
}

/** The folders above `dir` (included) that do not exist yet, outermost first. */
async function missingFolders(dir: string): Promise<string[]> {
  const missing: string[] = [];
  let current = dir;
  for (;;) {
    try {
      await fs.lstat(current);
      return missing;
    } catch {
      missing.unshift(current);
      const up = path.dirname(current);
      if (up === current) return missing;
      current = up;
    }
  }
}

/**
 * Write `source` to `input` atomically, failing once more than `maxBytes` bytes arrive.
 * @throws StreamTooLargeError past `maxBytes` (nothing kept); PathTraversalError outside the
 *   workspace; ToolExecutionError when the target is a folder, exists without `overwrite`, or
 *   the write fails; whatever `source` throws (network errors), after cleaning up.
 */
export async function streamToFileInside(
  workspace: Workspace,
  input: string,
  source: AsyncIterable<Uint8Array>,
  options: { maxBytes: number; overwrite: boolean; signal?: AbortSignal; deadline?: number },
): Promise<StreamedFile> {
  const stop = { signal: options.signal, deadline: options.deadline };
  const real = await checkWritableTarget(workspace, input, options.overwrite);
  const dir = path.dirname(real);
  const created = await missingFolders(dir);
  const { folder } = await pinFolder(workspace, dir, input, { create: true, doing: 'changed' });
  const name = path.basename(real);
  let done = false;
  try {
    const existing = await folder.lstat(name);
    if (existing?.isSymbolicLink()) throw new PathTraversalError(input, workspace.realRoot, 'changed into a symbolic link while it was being written');
    if (existing !== undefined && !existing.isFile()) throw new ToolExecutionError(`${input} exists and is not a regular file; it is not replaced.`);
    if (existing !== undefined && !options.overwrite) throw new ToolExecutionError(`${input} already exists; pass overwrite: true to replace it. Nothing was written.`);
    const hash = crypto.createHash('sha256');
    let bytes = 0;
    await folder.replaceFile(
      name,
      input,
      async (file) => {
        for await (const chunk of source) {
          throwIfStopped(stop, input);
          bytes += chunk.length;
          if (bytes > options.maxBytes) {
            throw new StreamTooLargeError(`the download is larger than max_bytes (${options.maxBytes} bytes); it was stopped and nothing was kept. Raise max_bytes if the file is expected to be this large.`);
          }
          hash.update(chunk);
          await file.write(chunk);
        }
      },
      existing !== undefined ? existing.mode & 0o1777 & ~0o6000 : undefined,
      stop,
    );
    done = true;
    return { path: real, bytes, overwrote: existing !== undefined, sha256: hash.digest('hex') };
  } finally {
    await folder.close();
    if (!done) {
      for (const made of created.reverse()) await fs.rmdir(made).catch(() => undefined);
    }
  }
}
