import { readFileInside, tool, ToolExecutionError, writeFileInside, type Tool, type ToolContext, type Workspace } from '../../src/tool.js';
import { resolveWritable, statInside } from '../common/fs-inside.js';
import { plural } from '../common/text-file.js';

/** Arguments of copy_file. */
export interface CopyFileInput {
  /**
   * The file to copy, relative to the workspace root (or absolute inside it).
   * @format workspace-path
   */
  source: string;
  /**
   * The path of the copy (the full new name). Missing parent folders are created.
   * @format workspace-path
   */
  destination: string;
  /**
   * Replace the destination when it exists (a file only, never a folder). Without it an
   * existing destination is refused.
   * @default false
   */
  overwrite?: boolean;
}

/** Largest file copied, in bytes (64 MiB). */
export const MAX_COPY_BYTES = 64 * 1024 * 1024;

/**
 * Copy a file inside the workspace, byte for byte (any encoding, text or binary), keeping its
 * permission bits. Refuses an existing destination unless overwrite is true; never copies
 * folders. The copy is written atomically.
 */
@tool({ name: 'copy_file', version: '1.0.0', kind: 'file_write', requiresConfirmation: true, scopedWrite: true, tags: ['edit', 'ported'], timeoutMs: 60_000 })
export class CopyFileTool implements Tool<CopyFileInput, string> {
  run(args: CopyFileInput, ctx: ToolContext): Promise<string> {
    return copyFile(ctx.workspace, args);
  }
}

/**
 * Copy `source` to `destination`.
 * @throws ToolExecutionError for a missing source, a folder, a file over 64 MiB, or an existing destination without overwrite.
 */
export async function copyFile(workspace: Workspace, args: CopyFileInput): Promise<string> {
  const realSource = workspace.resolve(args.source);
  const realDestination = resolveWritable(workspace, args.destination);
  if (realSource === realDestination) throw new ToolExecutionError(`source and destination are the same file (${workspace.relative(realSource)}); nothing was copied.`);
  const source = await statInside(workspace, realSource, args.source);
  if (source === undefined) throw new ToolExecutionError(`${args.source} does not exist; nothing was copied.`);
  if (source.kind === 'folder') throw new ToolExecutionError(`${args.source} is a folder; copy_file copies files only. Nothing was copied.`);
  if (source.size > MAX_COPY_BYTES) throw new ToolExecutionError(`${args.source} is ${source.size} bytes; copy_file copies files up to ${MAX_COPY_BYTES} bytes. Nothing was copied.`);
  const existing = await statInside(workspace, realDestination, args.destination);
  if (existing?.kind === 'folder') throw new ToolExecutionError(`${args.destination} is a folder; give the full path of the copy (for example ${args.destination.replace(/[\\/]+$/, '')}/${realSource.split(/[\\/]/).pop()}). Nothing was copied.`);
  if (existing !== undefined && args.overwrite !== true) {
    throw new ToolExecutionError(`${args.destination} already exists; pass overwrite: true to replace it, or choose another destination. Nothing was copied.`);
  }
  const { bytes, size } = await readFileInside(workspace, args.source, MAX_COPY_BYTES + 1);
  if (size > MAX_COPY_BYTES) throw new ToolExecutionError(`${args.source} is ${size} bytes; copy_file copies files up to ${MAX_COPY_BYTES} bytes. Nothing was copied.`);
  // The source's permission bits from the first byte written: a private file never has a
  // readable copy, not even for a moment.
  const written = await writeFileInside(workspace, args.destination, bytes, { mode: source.mode });
  return `Copied ${workspace.relative(realSource)} to ${workspace.relative(written.path)} (${plural(written.bytes, 'byte')})${written.overwrote ? ' (overwrote an existing file)' : ''}.`;
}
