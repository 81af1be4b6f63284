/**
 * Lines of a text as the line tools number them: split at LF, each line keeping its own
 * ending (LF, CRLF, or none for a last line without a final newline), so that an edit writes
 * back every untouched line exactly as it was, mixed endings included. Plain functions, no
 * side effects at import.
 *
 * @module
 */
import { ToolExecutionError } from '../../src/tool.js';
import type { Eol } from './text-codec.js';

/** A text as lines: `lines[i]` without its ending, `endings[i]` its ending (`''` only for the last). */
export interface LineModel {
  lines: string[];
  endings: string[];
}

/**
 * Split `text` into lines. A final line ending does not start a new line (`"a\nb\n"` has two
 * lines); the empty text has none.
 */
export function splitLines(text: string): LineModel {
  const lines: string[] = [];
  const endings: string[] = [];
  let start = 0;
  while (start < text.length) {
    const lf = text.indexOf('\n', start);
    if (lf === -1) {
      lines.push(text.slice(start));
      endings.push('');
      break;
    }
    const crlf = lf > start && text.charCodeAt(lf - 1) === 13;
    lines.push(text.slice(start, crlf ? lf - 1 : lf));
    endings.push(crlf ? '\r\n' : '\n');
    start = lf + 1;
  }
  return { lines, endings };
}

/** Join a line model back into text. */
export function joinLines(model: LineModel): string {
  let out = '';
  for (let i = 0; i < model.lines.length; i++) out += model.lines[i]! + model.endings[i]!;
  return out;
}

/** Lines of new text a caller gave (`"x\ny\n"` and `"x\ny"` are both two lines; `""` is one empty line). */
export function linesOfInput(text: string): string[] {
  const parts = text.split(/\r?\n/);
  if (parts.length > 1 && parts[parts.length - 1] === '') parts.pop();
  return parts;
}

/**
 * Replace `deleteCount` lines starting at index `at` (0-based) with `inserted`, new lines
 * taking `eol`. Keeps the file's convention for its end: a file that ended without a final
 * line break still does, and one that ended with one still does.
 */
export function spliceLines(model: LineModel, at: number, deleteCount: number, inserted: readonly string[], eol: Eol): LineModel {
  const hadFinalNewline = model.lines.length === 0 || model.endings[model.endings.length - 1] !== '';
  const lines = [...model.lines];
  const endings = [...model.endings];
  lines.splice(at, deleteCount, ...inserted);
  endings.splice(at, deleteCount, ...inserted.map(() => eol));
  // Every line but the last ends with a line break; the last follows the file's convention.
  for (let i = 0; i < endings.length - 1; i++) if (endings[i] === '') endings[i] = eol;
  if (endings.length > 0) {
    const last = endings.length - 1;
    if (!hadFinalNewline) endings[last] = '';
    else if (endings[last] === '') endings[last] = eol;
  }
  return { lines, endings };
}

/**
 * Check a 1-based inclusive line range against a file of `count` lines (case T5: an end
 * before the start is the caller's mistake, reported before anything changes).
 * @throws ToolExecutionError naming the problem and the valid range.
 */
export function checkRange(startLine: number, endLine: number, count: number, shown: string): void {
  if (endLine < startLine) {
    throw new ToolExecutionError(`end_line (${endLine}) is before start_line (${startLine}); give a range with start_line <= end_line. ${shown} was not changed.`);
  }
  if (count === 0) throw new ToolExecutionError(`${shown} is empty (it has no lines); nothing to change.`);
  if (startLine > count || endLine > count) {
    throw new ToolExecutionError(`${shown} has ${count} ${count === 1 ? 'line' : 'lines'}; lines ${startLine} to ${endLine} are not all in it (use 1 to ${count}). It was not changed.`);
  }
}

/** Characters of one line shown in an excerpt at most. */
const EXCERPT_LINE_CHARS = 200;

/**
 * Numbered lines `from`..`to` (1-based, inclusive, clamped to the file), as `  12 | text`,
 * long lines cut, for showing the model what an edit left.
 */
export function excerpt(lines: readonly string[], from: number, to: number): string {
  const first = Math.max(1, from);
  const last = Math.min(lines.length, to);
  if (last < first) return '';
  const width = String(last).length;
  const out: string[] = [];
  for (let n = first; n <= last; n++) {
    const line = lines[n - 1]!;
    const cut = line.length > EXCERPT_LINE_CHARS ? `${line.slice(0, EXCERPT_LINE_CHARS)}... (${line.length} characters)` : line;
    out.push(`${String(n).padStart(width)} | ${cut}`);
  }
  return out.join('\n');
}

/** Lines of context shown around an edit, and lines of an edited region shown at most. */
const CONTEXT_LINES = 2;
const MAX_EXCERPT_LINES = 20;

/**
 * The lines around an edited region `from`..`to` (1-based, in the new file), with context,
 * at most {@link MAX_EXCERPT_LINES} lines of the region itself.
 */
export function editExcerpt(lines: readonly string[], from: number, to: number): string {
  if (lines.length === 0) return '(the file is now empty)';
  const regionEnd = Math.min(to, from + MAX_EXCERPT_LINES - 1);
  const shown = excerpt(lines, from - CONTEXT_LINES, regionEnd + (regionEnd === to ? CONTEXT_LINES : 0));
  return regionEnd < to ? `${shown}\n... (${to - regionEnd} more edited lines)` : shown;
}
