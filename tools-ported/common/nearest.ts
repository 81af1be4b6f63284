/**
 * Finding where a text that was not found "nearly" is, so an error can show the model the
 * lines it probably meant (with line numbers) instead of only "not found". Similarity is the
 * Dice coefficient of character bigrams (order-insensitive, cheap, forgiving of whitespace
 * and small typos), computed over windows of as many lines as the text has, in one pass over
 * the file. Plain functions, no side effects at import.
 *
 * @module
 */
import { excerpt } from './lines.js';

/** A place in a file that resembles what was searched for. */
export interface Candidate {
  /** First line (1-based). */
  startLine: number;
  /** Last line (1-based, inclusive). */
  endLine: number;
  /** Similarity from 0 to 1. */
  score: number;
}

/** Characters of one line compared at most (a minified file's one line may be megabytes long). */
const MAX_COMPARED_LINE = 10_000;

/** Character bigrams of one line (whitespace runs collapsed to one space, ends trimmed). */
function lineBigrams(line: string): string[] {
  const s = (line.length > MAX_COMPARED_LINE ? line.slice(0, MAX_COMPARED_LINE) : line).replace(/\s+/g, ' ').trim();
  const out: string[] = [];
  for (let i = 0; i < s.length - 1; i++) out.push(s.slice(i, i + 2));
  return out;
}

/**
 * The `max` places of `lines` most similar to `needle`, best first, not overlapping.
 * Windows of as many lines as the needle has slide over the file; each window's bigram
 * multiset is kept up to date line by line, and so is its overlap with the needle's, so the
 * whole search costs one pass over the file.
 * @param lines - the file's lines (without endings).
 * @param needle - the text searched for (its line breaks LF or CRLF).
 */
export function nearestCandidates(lines: readonly string[], needle: string, max = 3): Candidate[] {
  if (lines.length === 0) return [];
  const needleLines = needle.split(/\r?\n/);
  if (needleLines.length > 1 && needleLines[needleLines.length - 1] === '') needleLines.pop();
  const k = Math.max(1, Math.min(needleLines.length, lines.length));
  const target = new Map<string, number>();
  let targetSize = 0;
  for (const line of needleLines) {
    for (const g of lineBigrams(line)) {
      target.set(g, (target.get(g) ?? 0) + 1);
      targetSize++;
    }
  }
  const window = new Map<string, number>();
  let windowSize = 0;
  let common = 0;
  const add = (g: string) => {
    const n = window.get(g) ?? 0;
    if (n < (target.get(g) ?? 0)) common++;
    window.set(g, n + 1);
    windowSize++;
  };
  const remove = (g: string) => {
    const n = window.get(g)! - 1;
    window.set(g, n);
    if (n < (target.get(g) ?? 0)) common--;
    windowSize--;
  };
  const scored: Candidate[] = [];
  for (let i = 0; i < lines.length; i++) {
    for (const g of lineBigrams(lines[i]!)) add(g);
    if (i >= k) for (const g of lineBigrams(lines[i - k]!)) remove(g); // recomputed: kept bigrams of a large file would not fit
    if (i < k - 1) continue;
    const score = targetSize === 0 || windowSize === 0 ? (targetSize === windowSize ? 1 : 0) : (2 * common) / (targetSize + windowSize);
    scored.push({ startLine: i - k + 2, endLine: i + 1, score });
  }
  scored.sort((a, b) => b.score - a.score || a.startLine - b.startLine);
  const picked: Candidate[] = [];
  for (const c of scored) {
    if (picked.length >= max || c.score <= 0) break;
    if (picked.some((p) => c.startLine <= p.endLine && p.startLine <= c.endLine)) continue;
    picked.push(c);
  }
  return picked;
}

/** Lines of one candidate shown at most. */
const CANDIDATE_LINES = 8;

/** The candidates as text for an error message: a header with the line range and similarity, then the numbered lines. */
export function describeCandidates(lines: readonly string[], candidates: readonly Candidate[], needle?: string): string {
  if (candidates.length === 0) return 'No similar lines were found.';
  const squash = (text: string) => text.replace(/\s+/g, '');
  const parts = candidates.map((c) => {
    const shownEnd = Math.min(c.endLine, c.startLine + CANDIDATE_LINES - 1);
    const range = c.startLine === c.endLine ? `line ${c.startLine}` : `lines ${c.startLine}-${c.endLine}`;
    const more = shownEnd < c.endLine ? `\n... (${c.endLine - shownEnd} more lines)` : '';
    const window = lines.slice(c.startLine - 1, c.endLine).join('\n');
    const similar = needle !== undefined && squash(needle) !== '' && squash(window).includes(squash(needle)) ? 'the same apart from whitespace or indentation' : `${Math.round(c.score * 100)}% similar`;
    return `${range} (${similar}):\n${excerpt(lines, c.startLine, shownEnd)}${more}`;
  });
  return `The nearest ${candidates.length === 1 ? 'candidate is' : 'candidates are'}:\n${parts.join('\n\n')}`;
}
