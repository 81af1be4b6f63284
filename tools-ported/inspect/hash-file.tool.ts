import crypto from 'node:crypto';
import { openFileInside, tool, type Tool, type ToolContext, type Workspace } from '../../src/tool.js';

/** Hash algorithms hash_file offers. */
export type HashAlgorithm = 'sha256' | 'sha1' | 'md5' | 'sha512';

/** Arguments of hash_file. */
export interface HashFileInput {
  /**
   * Path of the file, relative to the workspace root (or absolute inside it).
   * @format workspace-path
   */
  filepath: string;
  /**
   * Hash algorithm. sha1 and md5 are for matching published checksums, not for security.
   * @default "sha256"
   */
  algorithm?: HashAlgorithm;
}

/** What hash_file reports. */
export interface HashFileOutput {
  /** The file, relative to the workspace root. */
  filepath: string;
  algorithm: HashAlgorithm;
  /** The digest in lowercase hexadecimal. */
  digest: string;
  /** Bytes hashed (the file's size). */
  size_bytes: number;
}

/**
 * Compute the checksum of a file (sha256 by default; sha1, md5 or sha512 on request), reading
 * it in chunks so any size works. Use it to check a download against a published checksum or
 * to tell whether two files (text or binary) are identical; use diff_files to see how two text
 * files differ.
 */
@tool({ name: 'hash_file', version: '1.0.0', kind: 'file_read', readOnly: true, tags: ['inspect', 'ported'], timeoutMs: 120_000 })
export class HashFileTool implements Tool<HashFileInput, HashFileOutput> {
  run(args: HashFileInput, ctx: ToolContext): Promise<HashFileOutput> {
    return hashFile(ctx.workspace, args.filepath, args.algorithm ?? 'sha256', ctx.signal);
  }
}

/**
 * Hash a regular file inside the workspace, streaming it 1 MiB at a time.
 * @throws ToolExecutionError for a missing file, a folder or a special file.
 * @throws PathTraversalError for a path outside the workspace.
 */
export async function hashFile(workspace: Workspace, filepath: string, algorithm: HashAlgorithm, signal?: AbortSignal): Promise<HashFileOutput> {
  const file = await openFileInside(workspace, filepath);
  const hash = crypto.createHash(algorithm);
  const buffer = Buffer.alloc(1024 * 1024);
  let position = 0;
  try {
    for (;;) {
      signal?.throwIfAborted();
      const { bytesRead } = await file.read(buffer, 0, buffer.length, position);
      if (bytesRead === 0) break;
      hash.update(buffer.subarray(0, bytesRead));
      position += bytesRead;
    }
  } finally {
    await file.close();
  }
  return { filepath: workspace.relative(file.path), algorithm, digest: hash.digest('hex'), size_bytes: position };
}
