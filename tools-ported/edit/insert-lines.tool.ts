import { tool, ToolExecutionError, type Tool, type ToolContext, type Workspace } from '../../src/tool.js';
import { editExcerpt, linesOfInput, spliceLines, splitLines, joinLines } from '../common/lines.js';
import { formatNote, loadTextForEdit, plural, saveText } from '../common/text-file.js';

/** Arguments of insert_lines. */
export interface InsertLinesInput {
  /**
   * The file to change, relative to the workspace root (or absolute inside it).
   * @format workspace-path
   */
  filepath: string;
  /**
   * Insert after this line (1-based); 0 inserts at the top of the file, the file's last line
   * number at its end.
   * @TJS-type integer
   * @minimum 0
   */
  after_line: number;
  /** The lines to insert (a final line break is optional; use "\n" for one empty line). */
  content: string;
}

/**
 * Insert lines into a file after a given line number, without changing any other line. Use
 * it to add code or text at a known place (read the file with line numbers first). The new
 * lines take the file's line endings and encoding. To change existing text prefer
 * replace_in_file; to add at the end, append_to_file.
 */
@tool({ name: 'insert_lines', version: '1.0.0', kind: 'file_write', requiresConfirmation: true, scopedWrite: true, tags: ['edit', 'ported'], timeoutMs: 30_000 })
export class InsertLinesTool implements Tool<InsertLinesInput, string> {
  run(args: InsertLinesInput, ctx: ToolContext): Promise<string> {
    return insertLines(ctx.workspace, args);
  }
}

/**
 * Insert `content` after line `after_line`.
 * @throws ToolExecutionError for empty content or a line number past the end of the file.
 */
export async function insertLines(workspace: Workspace, args: InsertLinesInput): Promise<string> {
  if (args.content === '') throw new ToolExecutionError('content is empty; nothing to insert (use "\\n" to insert one empty line).');
  const file = await loadTextForEdit(workspace, args.filepath);
  const model = splitLines(file.text);
  const count = model.lines.length;
  if (!Number.isInteger(args.after_line) || args.after_line < 0 || args.after_line > count) {
    throw new ToolExecutionError(`after_line is ${args.after_line}, but ${file.shown} has ${plural(count, 'line')}; use 0 (the top) to ${count} (the end). It was not changed.`);
  }
  const inserted = linesOfInput(args.content);
  const updated = spliceLines(model, args.after_line, 0, inserted, file.format.eol);
  await saveText(workspace, args.filepath, joinLines(updated), file.format);
  const from = args.after_line + 1;
  const to = args.after_line + inserted.length;
  return (
    `Inserted ${plural(inserted.length, 'line')} into ${file.shown} after line ${args.after_line} (now lines ${from === to ? from : `${from}-${to}`}; the file has ${plural(updated.lines.length, 'line')})${formatNote(file.format)}.\n` +
    editExcerpt(updated.lines, from, to)
  );
}
