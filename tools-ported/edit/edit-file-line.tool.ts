import { tool, ToolExecutionError, type Tool, type ToolContext, type Workspace } from '../../src/tool.js';
import { editExcerpt, excerpt, joinLines, linesOfInput, spliceLines, splitLines } from '../common/lines.js';
import { formatNote, loadTextForEdit, plural, saveText } from '../common/text-file.js';

/** Arguments of edit_file_line. */
export interface EditFileLineInput {
  /**
   * The file to change, relative to the workspace root (or absolute inside it).
   * @format workspace-path
   */
  filepath: string;
  /**
   * The line to replace (1-based).
   * @TJS-type integer
   * @minimum 1
   */
  line_number: number;
  /**
   * The new content of the line, without its line ending; several lines replace the one line
   * with several. Empty leaves an empty line (to delete the line use remove_line_range).
   */
  new_text: string;
  /**
   * The line's current content, to make sure you change the line you think: when given and
   * the line reads otherwise, nothing changes and the error shows the line.
   */
  old_text?: string;
}

/**
 * Replace one line of a file, by line number, with new content. Use it when you know the line
 * number (from reading the file with line numbers); pass old_text as well to guard against a
 * line that moved. Keeps the file's line endings and encoding. For text you can quote, prefer
 * replace_in_file.
 */
@tool({ name: 'edit_file_line', version: '1.0.0', kind: 'file_write', requiresConfirmation: true, scopedWrite: true, tags: ['edit', 'ported'], timeoutMs: 30_000 })
export class EditFileLineTool implements Tool<EditFileLineInput, string> {
  run(args: EditFileLineInput, ctx: ToolContext): Promise<string> {
    return editFileLine(ctx.workspace, args);
  }
}

/**
 * Replace line `line_number` with `new_text`.
 * @throws ToolExecutionError for a line number past the end, a mismatching old_text, or an edit that changes nothing.
 */
export async function editFileLine(workspace: Workspace, args: EditFileLineInput): Promise<string> {
  const file = await loadTextForEdit(workspace, args.filepath);
  const model = splitLines(file.text);
  const count = model.lines.length;
  const n = args.line_number;
  if (!Number.isInteger(n) || n < 1 || n > count) {
    throw new ToolExecutionError(
      count === 0
        ? `${file.shown} is empty (it has no lines); use append_to_file or insert_lines to add text. It was not changed.`
        : `line_number is ${n}, but ${file.shown} has ${plural(count, 'line')} (use 1 to ${count}). It was not changed.`,
    );
  }
  const current = model.lines[n - 1]!;
  if (args.old_text !== undefined && args.old_text.replace(/\r?\n$/, '') !== current) {
    throw new ToolExecutionError(`line ${n} of ${file.shown} does not read as old_text; nothing was changed. The lines there now:\n${excerpt(model.lines, n - 2, n + 2)}`);
  }
  const replacement = linesOfInput(args.new_text);
  if (replacement.length === 1 && replacement[0] === current) {
    throw new ToolExecutionError(`line ${n} of ${file.shown} already reads as new_text; nothing would change.`);
  }
  const updated = spliceLines(model, n - 1, 1, replacement, file.format.eol);
  await saveText(workspace, args.filepath, joinLines(updated), file.format);
  const to = n + replacement.length - 1;
  return (
    `Replaced line ${n} of ${file.shown}${replacement.length > 1 ? ` with ${plural(replacement.length, 'line')} (now lines ${n}-${to})` : ''}${formatNote(file.format)}.\n` +
    editExcerpt(updated.lines, n, to)
  );
}
