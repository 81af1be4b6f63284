/**
 * Close-out: what the model sees of a tool's output. Never-empty output, truncation with a
 * note that is never cut, and notes (exit status and the like) appended outside the window.
 *
 * @module
 */
import type { TruncationStrategy } from '../types/tool.js';

/** Substituted when a tool produced no output. */
export const NO_OUTPUT = '[no output]';

/** Text form of a tool's return value: strings as they are, `undefined`/`null` as empty, the rest as JSON. */
export function outputText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value === undefined || value === null) return '';
  try {
    return JSON.stringify(value, null, 2) ?? String(value);
  } catch {
    return String(value);
  }
}

function lines(n: number): string {
  return n === 1 ? '1 line' : `${n} lines`;
}

function countLines(text: string): number {
  if (text === '') return 0;
  let n = 1;
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) n++;
  return text.endsWith('\n') ? n - 1 : n;
}

/** Do not split a UTF-16 surrogate pair at a cut. */
function safeEnd(text: string, end: number): number {
  const code = text.charCodeAt(end - 1);
  return code >= 0xd800 && code <= 0xdbff ? end - 1 : end;
}
function safeStart(text: string, start: number): number {
  const code = text.charCodeAt(start);
  return code >= 0xdc00 && code <= 0xdfff ? start + 1 : start;
}

/**
 * Cut `text` to at most `maxLength` characters (UTF-16 code units), adding a note that says
 * how many characters and lines were omitted and the limit. The note is outside the window.
 *
 * @param maxLength - characters to keep; `<= 0` disables truncation.
 * @param strategy - `head` keeps the start; `head-tail` keeps the first and last halves.
 */
export function truncate(text: string, maxLength: number, strategy: TruncationStrategy = 'head'): string {
  if (maxLength <= 0 || text.length <= maxLength) return text;
  if (strategy === 'head-tail') {
    const headEnd = safeEnd(text, Math.ceil(maxLength / 2));
    const tailStart = safeStart(text, text.length - Math.floor(maxLength / 2));
    const omitted = text.slice(headEnd, tailStart);
    return (
      `${text.slice(0, headEnd)}\n[... ${omitted.length} characters (${lines(countLines(omitted))}) omitted from the middle of ` +
      `${text.length}; limit ${maxLength} characters ...]\n${text.slice(tailStart)}`
    );
  }
  const end = safeEnd(text, maxLength);
  const omitted = text.slice(end);
  return `${text.slice(0, end)}\n[output truncated: ${omitted.length} of ${text.length} characters (${lines(countLines(omitted))}) omitted; limit ${maxLength} characters]`;
}

/**
 * The model-facing output of a successful call.
 * @param value - the tool's return value (strings as they are, other values as JSON).
 * @param notes - notes the tool added; appended after the (possibly truncated) text.
 * @param maxLength - characters to keep (UTF-16 code units); `<= 0` disables truncation.
 * @param strategy - `head` or `head-tail`.
 * @returns never empty: `[no output]` stands for an empty result.
 */
export function closeOut(value: unknown, notes: readonly string[], maxLength: number, strategy: TruncationStrategy): string {
  const text = outputText(value);
  const body = text === '' ? NO_OUTPUT : truncate(text, maxLength, strategy);
  if (notes.length === 0) return body;
  return `${body}${body.endsWith('\n') ? '' : '\n'}${notes.join('\n')}`;
}

/** {@link truncate}'s note, matched where it begins: head-tail's, then head's. */
const NOTES = [
  /\n\[\.\.\. \d+ characters \(\d+ lines?\) omitted from the middle of \d+; limit \d+ characters( \.\.\.\])/y,
  /\n\[output truncated: \d+ of \d+ characters \(\d+ lines?\) omitted; limit \d+ characters(\])/y,
] as const;

/**
 * `output` with `where` (where the whole output is kept, and how much of it) said inside the
 * note that {@link truncate} wrote when it cut the text at `maxLength` with `strategy` (looked
 * for only where that note begins, so text of the tool's that looks like one is left alone);
 * `output` as it is when there is none there (a summary the tool's projection made, say).
 */
export function withKeptNote(output: string, where: string, maxLength: number, strategy: TruncationStrategy): string {
  const cut = strategy === 'head-tail' ? Math.ceil(maxLength / 2) : maxLength;
  const note = NOTES[strategy === 'head-tail' ? 0 : 1];
  // safeEnd may have moved the cut one unit back (a surrogate pair kept whole).
  for (const at of [cut, cut - 1]) {
    note.lastIndex = at;
    const match = note.exec(output);
    if (match === null) continue;
    const close = match.index + match[0].length - match[1]!.length;
    return `${output.slice(0, close)}; ${where}${output.slice(close)}`;
  }
  return output;
}
