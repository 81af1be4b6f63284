import { tool, type Tool, type ToolContext, type Workspace } from '../../src/tool.js';
import { checkRange, excerpt, joinLines, spliceLines, splitLines } from '../common/lines.js';
import { formatNote, loadTextForEdit, plural, saveText } from '../common/text-file.js';

/** Arguments of remove_line_range. */
export interface RemoveLineRangeInput {
  /**
   * The file to change, relative to the workspace root (or absolute inside it).
   * @format workspace-path
   */
  filepath: string;
  /**
   * First line to remove (1-based).
   * @TJS-type integer
   * @minimum 1
   */
  start_line: number;
  /**
   * Last line to remove (1-based, inclusive; at least start_line).
   * @TJS-type integer
   * @minimum 1
   */
  end_line: number;
}

/** Lines of the removed text shown back at most. */
const SHOWN_REMOVED = 5;

/**
 * Remove a range of lines (start_line to end_line, 1-based, inclusive) from a file, leaving
 * every other line as it was. Use it to delete blocks by line number (read the file with line
 * numbers first); the result shows what was removed and the lines now around the cut. For
 * text you can quote, replace_in_file with an empty new_text does the same.
 */
@tool({ name: 'remove_line_range', version: '1.0.0', kind: 'file_write', requiresConfirmation: true, scopedWrite: true, tags: ['edit', 'ported'], timeoutMs: 30_000 })
export class RemoveLineRangeTool implements Tool<RemoveLineRangeInput, string> {
  run(args: RemoveLineRangeInput, ctx: ToolContext): Promise<string> {
    return removeLineRange(ctx.workspace, args);
  }
}

/**
 * Remove lines `start_line`..`end_line`.
 * @throws ToolExecutionError for an end before the start (case T5) or a range past the end of the file.
 */
export async function removeLineRange(workspace: Workspace, args: RemoveLineRangeInput): Promise<string> {
  const file = await loadTextForEdit(workspace, args.filepath);
  const model = splitLines(file.text);
  checkRange(args.start_line, args.end_line, model.lines.length, file.shown);
  const removedCount = args.end_line - args.start_line + 1;
  const removed = excerpt(model.lines, args.start_line, Math.min(args.end_line, args.start_line + SHOWN_REMOVED - 1));
  const moreRemoved = removedCount > SHOWN_REMOVED ? `\n... (${removedCount - SHOWN_REMOVED} more removed lines)` : '';
  const updated = spliceLines(model, args.start_line - 1, removedCount, [], file.format.eol);
  await saveText(workspace, args.filepath, joinLines(updated), file.format);
  const around = updated.lines.length === 0 ? '(the file is now empty)' : excerpt(updated.lines, args.start_line - 2, args.start_line + 1);
  const range = removedCount === 1 ? `line ${args.start_line}` : `lines ${args.start_line}-${args.end_line}`;
  return (
    `Removed ${range} (${plural(removedCount, 'line')}) from ${file.shown}; it now has ${plural(updated.lines.length, 'line')}${formatNote(file.format)}.\n` +
    `Removed:\n${removed}${moreRemoved}\nNow around the cut:\n${around}`
  );
}
