/**
 * Lines of rules and keys in a policy file's text ({@link Locator}), and the position of a JSON
 * syntax error ({@link jsonErrorPosition}): the parsers give no positions for values, so the
 * text is scanned. Split from `policy-file.ts`, which validates.
 *
 * @module
 */
import { PolicyFileError } from './policy-file-error.js';

// ---------------------------------------------------------------------------------------------
// Lines: the parsers give no positions for values, so the lines of rules and keys are found
// by scanning the text. The scan works on a masked copy (comments and the contents of strings
// that are not keys blanked, offsets and newlines kept), so a `reason = "tool = x"` or a
// commented-out rule is not taken for a key or a header.

interface Region {
  /** Offset of the rule's start (`[[rules]]` or `{`). */
  readonly start: number;
  /** Offset just past the rule's end. */
  readonly end: number;
}

/** Finds the lines of rules and keys in one file's text; makes its errors. */
export class Locator {
  private readonly masked: string;
  private readonly lineStarts: number[];
  private readonly regions: Region[];

  constructor(text: string, json: boolean, readonly file: string) {
    this.masked = mask(text, json);
    this.lineStarts = [0];
    for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) === 10) this.lineStarts.push(i + 1);
    this.regions = ruleRegions(this.masked);
  }

  fail(line: number, problem: string): PolicyFileError {
    return PolicyFileError.fromInvalid(this.file, line, problem);
  }

  /** Line of rule `index` (line 1 when it cannot be found). */
  rule(index: number): number {
    const region = this.regions[index];
    return region === undefined ? 1 : this.lineOf(region.start);
  }

  /** Line of `key` in rule `index` (the rule's line when it cannot be found). */
  ruleKey(index: number, key: string): number {
    const region = this.regions[index];
    if (region === undefined) return 1;
    const at = findKey(this.masked, key, region.start, region.end);
    return at === undefined ? this.rule(index) : this.lineOf(at);
  }

  /** Line of argument `name` in rule `index`'s `args` (the `args` line, else the rule's). */
  argKey(index: number, name: string): number {
    const region = this.regions[index];
    if (region === undefined) return 1;
    const subTable = /^[ \t]*\[[ \t]*rules[ \t]*\.[ \t]*args[ \t]*\]/gm;
    subTable.lastIndex = region.start;
    const header = subTable.exec(this.masked);
    const argsAt = header !== null && header.index < region.end ? header.index : findKey(this.masked, 'args', region.start, region.end);
    if (argsAt === undefined) return this.rule(index);
    const at = findKey(this.masked, name, argsAt + 1, region.end);
    return this.lineOf(at ?? argsAt);
  }

  /**
   * JSON only: a key given twice in one object (`{"rules": [...], "rules": []}`) is an error
   * naming the second one's line: `JSON.parse` keeps the last silently, so a rule list or a
   * rule's `action` could be replaced by a later line a reader skims past. (TOML parsers
   * reject duplicate keys themselves.) Runs on the masked text after a successful parse.
   */
  rejectDuplicateKeys(): void {
    const masked = this.masked;
    const objects: Array<Map<string, number> | undefined> = [];
    for (let i = 0; i < masked.length; i++) {
      const c = masked[i];
      if (c === '{') objects.push(new Map());
      else if (c === '[') objects.push(undefined);
      else if (c === '}' || c === ']') objects.pop();
      else if (c === '"') {
        let j = i + 1;
        while (j < masked.length && masked[j] !== '"') j += masked[j] === '\\' ? 2 : 1;
        const keys = objects[objects.length - 1];
        if (keys !== undefined && /^\s*:/.test(masked.slice(j + 1, j + 40))) {
          const key = JSON.parse(masked.slice(i, j + 1)) as string;
          const first = keys.get(key);
          if (first !== undefined) throw this.fail(this.lineOf(i), `duplicate key ${JSON.stringify(key)} (first at line ${first}); JSON keeps only the last, so each key may be given once`);
          keys.set(key, this.lineOf(i));
        }
        i = j;
      }
    }
  }

  /** Line of a top-level `key` (line 1 when it cannot be found). */
  topKey(key: string): number {
    let from = 0;
    for (;;) {
      const at = findKey(this.masked, key, from, this.masked.length);
      if (at === undefined) return 1;
      if (!this.regions.some((r) => at >= r.start && at < r.end)) return this.lineOf(at);
      from = at + 1;
    }
  }

  private lineOf(offset: number): number {
    let lo = 0;
    let hi = this.lineStarts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.lineStarts[mid]! <= offset) lo = mid;
      else hi = mid - 1;
    }
    return lo + 1;
  }
}

/** Offset of the first `key =` / `"key":` between `from` and `to`. */
function findKey(masked: string, key: string, from: number, to: number): number | undefined {
  const k = key.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const re = new RegExp(`(^|[\\s{,])(${k}|"${k}"|'${k}')\\s*[=:]`, 'gm');
  re.lastIndex = from;
  const m = re.exec(masked);
  if (m === null) return undefined;
  const at = m.index + m[1]!.length;
  return at < to ? at : undefined;
}

/** The regions of the rules, in order: `[[rules]]` tables, or the tables of an inline `rules = [...]` / JSON `"rules": [...]`. */
function ruleRegions(masked: string): Region[] {
  const regions: Region[] = [];
  const header = /^[ \t]*\[\[[ \t]*rules[ \t]*\]\]/gm;
  const anyHeader = /^[ \t]*\[/gm;
  for (let m = header.exec(masked); m !== null; m = header.exec(masked)) {
    // The table runs to the next header that is not one of its own sub-tables ([rules.args]).
    let end = masked.length;
    anyHeader.lastIndex = m.index + m[0].length;
    for (let h = anyHeader.exec(masked); h !== null; h = anyHeader.exec(masked)) {
      if (!/^\[[ \t]*rules[ \t]*\.(?!\[)/.test(masked.slice(h.index + h[0].length - 1, h.index + h[0].length + 20))) {
        end = h.index;
        break;
      }
    }
    regions.push({ start: m.index + m[0].indexOf('['), end });
  }
  const inline = /(^|[\s{,])(rules|"rules"|'rules')\s*[=:]\s*\[/gm;
  for (let m = inline.exec(masked); m !== null; m = inline.exec(masked)) {
    let depth = 0;
    let start = -1;
    for (let i = m.index + m[0].length - 1; i < masked.length; i++) {
      const c = masked[i];
      if (c === '[' || c === '{') {
        depth++;
        if (c === '{' && depth === 2) start = i;
      } else if (c === ']' || c === '}') {
        depth--;
        if (c === '}' && depth === 1 && start >= 0) {
          regions.push({ start, end: i + 1 });
          start = -1;
        }
        if (depth === 0) break;
      }
    }
  }
  return regions.sort((a, b) => a.start - b.start);
}

/**
 * `text` with comments (`#` in TOML) and the contents of strings that are not keys replaced
 * by spaces; quotes, newlines and offsets kept. A string is a key when `=` or `:` (or a `.`
 * of a dotted key) follows it.
 */
function mask(text: string, json: boolean): string {
  const out = text.split('');
  const blank = (from: number, to: number) => {
    for (let i = from; i < to; i++) if (out[i] !== '\n' && out[i] !== '\r') out[i] = ' ';
  };
  let i = 0;
  while (i < text.length) {
    const c = text[i]!;
    if (c === '#' && !json) {
      const end = text.indexOf('\n', i);
      const stop = end < 0 ? text.length : end;
      blank(i, stop);
      i = stop;
    } else if (c === '"' || (c === "'" && !json)) {
      const triple = !json && text.startsWith(c.repeat(3), i);
      const open = triple ? 3 : 1;
      let j = i + open;
      for (; j < text.length; j++) {
        if (c === '"' && text[j] === '\\') {
          j++;
          continue;
        }
        if (triple ? text.startsWith(c.repeat(3), j) : text[j] === c) break;
        if (!triple && text[j] === '\n') break; // unterminated: the parser has already said so
      }
      const close = Math.min(j + (triple ? 3 : 1), text.length);
      if (!/^[ \t]*[=:.]/.test(text.slice(close, close + 40))) blank(i + open, j);
      i = close;
    } else {
      i++;
    }
  }
  return out.join('');
}

/**
 * Line and column (1-based) of the first JSON syntax error in `text`: Node 20's `JSON.parse`
 * messages do not always carry a position, so a small scanner finds it.
 */
export function jsonErrorPosition(text: string): { line: number; column: number } {
  let i = 0;
  const ws = () => {
    while (i < text.length && ' \t\n\r'.includes(text[i]!)) i++;
  };
  const fail = (): never => {
    throw i;
  };
  const value = (): void => {
    ws();
    const c = text[i];
    if (c === '{') {
      i++;
      ws();
      if (text[i] === '}') {
        i++;
        return;
      }
      for (;;) {
        ws();
        if (text[i] !== '"') fail();
        string();
        ws();
        if (text[i] !== ':') fail();
        i++;
        value();
        ws();
        if (text[i] === ',') i++;
        else if (text[i] === '}') {
          i++;
          return;
        } else fail();
      }
    } else if (c === '[') {
      i++;
      ws();
      if (text[i] === ']') {
        i++;
        return;
      }
      for (;;) {
        value();
        ws();
        if (text[i] === ',') i++;
        else if (text[i] === ']') {
          i++;
          return;
        } else fail();
      }
    } else if (c === '"') {
      string();
    } else {
      const m = /^(true|false|null|-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?)/.exec(text.slice(i, i + 400));
      if (m === null) fail();
      i += m![0].length;
    }
  };
  const string = () => {
    i++;
    while (i < text.length && text[i] !== '"') {
      const code = text.charCodeAt(i);
      if (code < 0x20) fail();
      if (text[i] === '\\') {
        i++;
        if (text[i] === 'u') {
          if (!/^[0-9a-fA-F]{4}$/.test(text.slice(i + 1, i + 5))) fail();
          i += 4;
        } else if (!'"\\/bfnrt'.includes(text[i] ?? 'x')) fail();
      }
      i++;
    }
    if (i >= text.length) fail();
    i++;
  };
  let offset = text.length;
  try {
    value();
    ws();
    if (i < text.length) fail();
  } catch (at) {
    offset = typeof at === 'number' ? at : 0;
  }
  offset = Math.min(offset, text.length);
  const before = text.slice(0, offset);
  const line = before.split('\n').length;
  return { line, column: offset - before.lastIndexOf('\n') };
}
