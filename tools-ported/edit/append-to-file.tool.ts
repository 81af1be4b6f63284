import { tool, ToolExecutionError, writeFileInside, type Tool, type ToolContext, type Workspace } from '../../src/tool.js';
import { resolveWritable, statInside } from '../common/fs-inside.js';
import { linesOfInput, splitLines } from '../common/lines.js';
import { toEol } from '../common/text-codec.js';
import { formatNote, loadTextForEdit, plural, saveText } from '../common/text-file.js';

/** Arguments of append_to_file. */
export interface AppendToFileInput {
  /**
   * The file to append to, relative to the workspace root (or absolute inside it). It is
   * created (UTF-8, with its missing folders) when it does not exist.
   * @format workspace-path
   */
  filepath: string;
  /** The text to add at the end. When the file does not end with a line break, one is added first. */
  content: string;
}

/**
 * Add text at the end of a file, creating the file if it does not exist. Use it for logs,
 * notes and lists that grow; the rest of the file is untouched. The text takes the file's line
 * endings and encoding, and starts on a new line. To insert elsewhere use insert_lines.
 */
@tool({ name: 'append_to_file', version: '1.0.0', kind: 'file_write', requiresConfirmation: true, scopedWrite: true, tags: ['edit', 'ported'], timeoutMs: 30_000 })
export class AppendToFileTool implements Tool<AppendToFileInput, string> {
  run(args: AppendToFileInput, ctx: ToolContext): Promise<string> {
    return appendToFile(ctx.workspace, args);
  }
}

/**
 * Append `content` to a file (created when missing).
 * @throws ToolExecutionError for empty content, folders, binary or unsupported files.
 */
export async function appendToFile(workspace: Workspace, args: AppendToFileInput): Promise<string> {
  if (args.content === '') throw new ToolExecutionError('content is empty; nothing to append.');
  const real = resolveWritable(workspace, args.filepath);
  const existing = await statInside(workspace, real, args.filepath);
  if (existing === undefined) {
    const written = await writeFileInside(workspace, args.filepath, args.content);
    return `Created ${workspace.relative(written.path)} with ${plural(linesOfInput(args.content).length, 'line')} (${plural(written.bytes, 'byte')}).`;
  }
  if (existing.kind === 'folder') throw new ToolExecutionError(`${args.filepath} is a folder; give a file path.`);
  const file = await loadTextForEdit(workspace, args.filepath);
  const added = toEol(args.content, file.format.eol);
  const separator = file.text === '' || file.text.endsWith('\n') ? '' : file.format.eol;
  const updated = file.text + separator + added;
  await saveText(workspace, args.filepath, updated, file.format);
  return `Appended ${plural(linesOfInput(args.content).length, 'line')} to ${file.shown}${separator ? ' (after adding a line break to its last line)' : ''}; it now has ${plural(splitLines(updated).lines.length, 'line')}${formatNote(file.format)}.`;
}
