import { tool, ToolExecutionError, type Tool, type ToolContext, type Workspace } from '../../src/tool.js';
import { editExcerpt, splitLines } from '../common/lines.js';
import { describeCandidates, nearestCandidates } from '../common/nearest.js';
import { toEol } from '../common/text-codec.js';
import { formatNote, loadTextForEdit, plural, saveText } from '../common/text-file.js';

/** Arguments of replace_in_file. */
export interface ReplaceInFileInput {
  /**
   * The file to change, relative to the workspace root (or absolute inside it).
   * @format workspace-path
   */
  filepath: string;
  /**
   * The exact text to find, whitespace and indentation included. Line breaks may be written
   * as LF: they match the file's own line endings (LF or CRLF). Include enough surrounding
   * lines to make it unique in the file.
   */
  old_text: string;
  /** The text to put in its place (empty to delete old_text). */
  new_text: string;
  /**
   * How many times old_text must occur. Every occurrence is replaced; when the count in the
   * file differs, nothing changes and the error lists where old_text occurs.
   * @TJS-type integer
   * @minimum 1
   * @default 1
   */
  expected_occurrences?: number;
}

/**
 * Replace an exact piece of text in a file with new text. Use it for targeted edits of
 * existing code or prose: old_text must match exactly once (or expected_occurrences times),
 * else nothing changes and the error shows where it occurs, or the nearest lines with their
 * line numbers when it does not. Keeps the file's encoding and line endings. For whole-file
 * rewrites use write_file; for line-number edits, edit_file_line or remove_line_range.
 */
@tool({ name: 'replace_in_file', version: '1.0.0', kind: 'file_write', requiresConfirmation: true, scopedWrite: true, tags: ['edit', 'ported'], timeoutMs: 30_000 })
export class ReplaceInFileTool implements Tool<ReplaceInFileInput, string> {
  run(args: ReplaceInFileInput, ctx: ToolContext): Promise<string> {
    return replaceInFile(ctx.workspace, args);
  }
}

/** 1-based line of the character at `offset`. */
export function lineAt(text: string, offset: number): number {
  return linesAt(text, [offset])[0]!;
}

/** 1-based lines of the characters at ascending `offsets`, in one pass. */
export function linesAt(text: string, offsets: readonly number[]): number[] {
  const out: number[] = [];
  let line = 1;
  let i = text.indexOf('\n');
  for (const offset of offsets) {
    while (i !== -1 && i < offset) {
      line++;
      i = text.indexOf('\n', i + 1);
    }
    out.push(line);
  }
  return out;
}

/** Start offsets of the non-overlapping occurrences of `needle` in `text`. */
export function occurrences(text: string, needle: string): number[] {
  const found: number[] = [];
  for (let i = text.indexOf(needle); i !== -1; i = text.indexOf(needle, i + needle.length)) found.push(i);
  return found;
}

/** Where each occurrence starts, as "lines 3, 17 and 40" (at most 20 listed). */
function listLines(lineNumbers: number[]): string {
  const shown = lineNumbers.slice(0, 20).map(String);
  const more = lineNumbers.length > 20 ? ` and ${lineNumbers.length - 20} more` : '';
  if (shown.length === 1) return `line ${shown[0]}`;
  return `lines ${shown.slice(0, -1).join(', ')}${more ? `, ${shown.at(-1)}${more}` : ` and ${shown.at(-1)}`}`;
}

/**
 * Replace `old_text` with `new_text` in a file when it occurs exactly `expected_occurrences`
 * times; otherwise change nothing and explain.
 * @throws ToolExecutionError for an empty old_text, no-op edits, zero or unexpected counts.
 * @throws PathTraversalError for paths outside the workspace.
 */
export async function replaceInFile(workspace: Workspace, args: ReplaceInFileInput): Promise<string> {
  const expected = args.expected_occurrences ?? 1;
  if (args.old_text === '') throw new ToolExecutionError('old_text is empty; give the exact text to replace (to add text, use insert_lines or append_to_file).');
  if (args.old_text === args.new_text) throw new ToolExecutionError('old_text and new_text are the same; nothing would change.');
  const file = await loadTextForEdit(workspace, args.filepath);
  const { text, format } = file;
  // Line breaks in the arguments match the file's own; a file with mixed endings may still
  // hold old_text exactly as given.
  let needle = toEol(args.old_text, format.eol);
  let replacement = toEol(args.new_text, format.eol);
  let found = occurrences(text, needle);
  if (found.length === 0 && needle !== args.old_text) {
    const literal = occurrences(text, args.old_text);
    if (literal.length > 0) {
      needle = args.old_text;
      replacement = args.new_text;
      found = literal;
    }
  }
  if (found.length === 0) {
    const lines = splitLines(text).lines;
    const candidates = describeCandidates(lines, nearestCandidates(lines, args.old_text), args.old_text);
    throw new ToolExecutionError(
      `old_text was not found in ${file.shown}; nothing was changed. old_text must match exactly, whitespace and indentation included. ${candidates}\nCopy the exact lines (without the line numbers) into old_text and try again.`,
    );
  }
  if (found.length !== expected) {
    const lineNumbers = linesAt(text, found);
    throw new ToolExecutionError(
      `old_text occurs ${plural(found.length, 'time')} in ${file.shown} (at ${listLines(lineNumbers)}), but expected_occurrences is ${expected}; nothing was changed. ` +
        (found.length > expected
          ? `Add surrounding lines to old_text so that it matches only where you mean, or set expected_occurrences to ${found.length} to replace every occurrence.`
          : `Set expected_occurrences to ${found.length} to replace ${found.length === 1 ? 'it' : 'them all'}.`),
    );
  }
  let updated = '';
  let last = 0;
  for (const offset of found) {
    updated += text.slice(last, offset) + replacement;
    last = offset + needle.length;
  }
  updated += text.slice(last);
  await saveText(workspace, args.filepath, updated, format);
  const firstStart = found[0]!;
  const fromLine = lineAt(updated, firstStart);
  const replacedEnd = firstStart + Math.max(0, replacement.length - (replacement.endsWith('\n') ? 1 : 0));
  const toLine = Math.max(fromLine, lineAt(updated, replacedEnd));
  const newLines = linesAt(updated, found.map((o, i) => o + i * (replacement.length - needle.length)));
  return (
    `Replaced ${plural(found.length, 'occurrence')} in ${file.shown} at ${listLines(newLines)}${formatNote(format)}.\n` +
    `${found.length > 1 ? 'The first, as the file reads now' : 'As the file reads now'}:\n${editExcerpt(splitLines(updated).lines, fromLine, toLine)}`
  );
}
