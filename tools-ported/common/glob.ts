/**
 * Glob for the tools (list_files, grep_files, find_files): the one tool module that imports
 * fast-glob, and the limits for glob patterns a model writes, checked before fast-glob
 * expands anything.
 *
 * @module
 */
import fg from 'fast-glob';

/** fast-glob, for the tools' own walks (its `Options`, `generateTasks`, `stream`). */
export { fg };

/**
 * An upper bound of how many patterns brace expansion makes of `pattern` (the product of the
 * alternatives of every brace group, ranges counted by their length), stopping early once
 * past `limit`. Checked before fast-glob expands anything: expansion itself can exhaust memory.
 */
export function braceAlternatives(pattern: string, limit: number): number {
  let total = 1;
  const open: Array<{ commas: number; start: number }> = [];
  for (let i = 0; i < pattern.length && total <= limit; i++) {
    const c = pattern[i];
    if (c === '\\') {
      i++;
      continue;
    }
    if (c === '{') open.push({ commas: 0, start: i });
    else if (c === ',' && open.length) open[open.length - 1]!.commas++;
    else if (c === '}' && open.length) {
      const group = open.pop()!;
      let n = group.commas + 1;
      if (group.commas === 0) {
        const range = /^(-?\d+|[a-zA-Z])\.\.(-?\d+|[a-zA-Z])(?:\.\.-?\d+)?$/.exec(pattern.slice(group.start + 1, i));
        if (range) {
          const a = /\d/.test(range[1]!) ? Number(range[1]) : range[1]!.charCodeAt(0);
          const b = /\d/.test(range[2]!) ? Number(range[2]) : range[2]!.charCodeAt(0);
          n = Math.abs(b - a) + 1;
        }
      }
      total *= Math.max(1, n);
    }
  }
  return total;
}
