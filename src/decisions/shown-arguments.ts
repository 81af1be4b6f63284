/**
 * How a call's arguments are shown to the person asked to approve it, wherever they are asked
 * (the CLI prompt, `toolgate approvals list|show`, the cockpit, an MCP form, an adapter's
 * interrupt): what the person approves must be what they saw.
 *
 * - Nothing is rendered that could make text read differently than it is: control characters
 *   (terminal escape sequences, `\r`), bidi and zero-width characters, other format and
 *   invisible characters, spaces other than U+0020, and runs of more than
 *   {@link MAX_SPACE_RUN} spaces (which push the rest of a line out of sight) are shown escaped,
 *   as `\u{202e}`, a run as `\u{20}×350`.
 * - A long value is never cut at its end only: it is shown whole up to a bound (larger for a
 *   command: {@link isCommandArgument}), else its head AND its tail with the count of what is
 *   omitted between them, and the view says it is cut, so that the person can ask for the
 *   whole ({@link wholeArguments}, `toolgate approvals show ID`).
 *
 * @module
 */

/** Spaces in a row shown as they are; a longer run is shown as `\u{20}×N` (an indentation at a line's start: up to {@link MAX_INDENT}). */
const MAX_SPACE_RUN = 8;
/** Spaces at the start of a line (after a newline) shown as they are: indentation. */
const MAX_INDENT = 40;

/**
 * Characters never rendered: controls (but `\n`, handled apart), format characters (bidi,
 * zero-width, the BOM), surrogates, private-use and unassigned code points, line and paragraph
 * separators, spaces other than U+0020, and the invisible fillers and selectors. A run of the
 * same one is matched whole.
 */
const HIDDEN = new RegExp(`( {${MAX_SPACE_RUN + 1},})|((?! )[\\p{Cc}\\p{Cf}\\p{Cs}\\p{Co}\\p{Cn}\\p{Zl}\\p{Zp}\\p{Zs}\\u034f\\u115f\\u1160\\u17b4\\u17b5\\u180b-\\u180f\\u3164\\ufe00-\\ufe0f\\uffa0])\\2*`, 'gu');

/**
 * `text` with everything that could hide or disguise part of it escaped (see the module
 * comment): a character as `\u{hex}`, a run of four or more of the same as `\u{hex}×N`, a
 * run of more than {@link MAX_SPACE_RUN} spaces as `\u{20}×N`. With `keepNewlines`, `\n` stays
 * a newline (and a `\r` right before it is dropped: a CRLF line end); otherwise it is escaped.
 * `lineStart`: the text starts a line (after a newline), so that its indentation is kept.
 */
export function visibleText(text: string, keepNewlines = true, lineStart = false): string {
  return text.replace(HIDDEN, (run: string, spaces: string | undefined, char: string | undefined, offset: number) => {
    if (spaces !== undefined) {
      const atStart = offset === 0 ? lineStart : keepNewlines && text[offset - 1] === '\n';
      const indent = atStart && spaces.length <= MAX_INDENT;
      return indent ? spaces : `\\u{20}×${spaces.length}`;
    }
    const c = char!;
    if (c === '\n' && keepNewlines) return run;
    if (c === '\r' && run === '\r' && keepNewlines && text[offset + 1] === '\n') return '';
    const code = `\\u{${c.codePointAt(0)!.toString(16)}}`;
    const count = [...run].length;
    return count >= 4 ? `${code}×${count}` : code.repeat(count);
  });
}

/**
 * `value` as JSON (indented by `indent`) that parses to the same value, with every character
 * {@link visibleText} would escape written as a JSON `\uXXXX` escape instead (a run of more than
 * {@link MAX_SPACE_RUN} spaces inside a string too), so that printing it renders nothing hidden.
 */
export function visibleJson(value: unknown, indent?: number): string {
  const json = JSON.stringify(value, null, indent) ?? 'null';
  // Structural whitespace is only spaces and newlines at the start of a line: every other
  // match is inside a string, where a \uXXXX escape means the same character.
  return json.replace(HIDDEN, (run: string, spaces: string | undefined, _c: string | undefined, offset: number) => {
    if (spaces !== undefined && (offset === 0 || json[offset - 1] === '\n')) return spaces;
    if (run === '\n') return run;
    let out = '';
    for (let i = 0; i < run.length; i++) out += `\\u${run.charCodeAt(i).toString(16).padStart(4, '0')}`;
    return out;
  });
}

/** Names of arguments that hold a command or a program: shown whole up to a much larger bound. */
const COMMAND_ARGUMENT = /^(command|cmd|commands|script|shell|argv|code|program|source)$/i;

/** Whether argument `key` holds a command (a `run_command`-like tool's): shown whole unless really enormous. */
function isCommandArgument(key: string): boolean {
  return COMMAND_ARGUMENT.test(key);
}

/** Bounds of one shown argument value. */
interface ShownBounds {
  /** Characters shown whole at most; more are shown as head and tail. */
  chars: number;
  /** Lines shown whole at most; more are shown as head and tail lines. */
  lines: number;
}

/** Bounds of an ordinary argument in a prompt. */
const ARGUMENT_BOUNDS: ShownBounds = { chars: 600, lines: 16 };
/** Bounds of a command argument ({@link isCommandArgument}) in a prompt. */
const COMMAND_BOUNDS: ShownBounds = { chars: 4000, lines: 120 };

/** One argument's value as shown. */
interface ShownValue {
  /** The text shown ({@link visibleText}; newlines kept as newlines). */
  text: string;
  /** Characters of the value (code points) left out of `text`; 0 when shown whole. */
  omittedChars: number;
  /** Lines of the value left out of `text`; 0 when none. */
  omittedLines: number;
  /** The value's length in code points. */
  length: number;
}

/**
 * A value shown within `bounds`: whole, or its first and last lines (about two thirds and one
 * third of the bound) with a line `... [N lines omitted] ...` between them, and within a long
 * line its head and tail with `... [N characters omitted] ...` between them. Escaping
 * ({@link visibleText}) applies to what is shown, after the cut.
 */
function shownValue(value: string, bounds: ShownBounds): ShownValue {
  const chars = [...value];
  const length = chars.length;
  let omittedLines = 0;
  let omittedChars = 0;
  // A CRLF line end is shown as a line end (a lone `\r` is escaped).
  let lines = value.split('\n').map((l, i, all) => (i < all.length - 1 && l.endsWith('\r') ? l.slice(0, -1) : l));
  const starts = lines.map((_l, i) => i > 0);
  if (lines.length > bounds.lines) {
    const head = Math.ceil((bounds.lines * 2) / 3);
    const tail = bounds.lines - head;
    omittedLines = lines.length - head - tail;
    const cutLines = lines.slice(head, lines.length - tail);
    omittedChars += cutLines.reduce((n, l) => n + [...l].length + 1, 0);
    lines = [...lines.slice(0, head), `\u0000${omittedLines}`, ...lines.slice(lines.length - tail)];
    starts.splice(head, omittedLines - 1);
  }
  let budget = bounds.chars;
  const shown = lines.map((line, i) => {
    if (line.startsWith('\u0000')) return `... [${line.slice(1)} lines omitted] ...`;
    const lineStart = starts[i]!;
    const cps = [...line];
    const room = Math.max(80, budget);
    budget -= Math.min(cps.length, room);
    if (cps.length <= room) return visibleText(line, false, lineStart);
    const head = Math.ceil((room * 2) / 3);
    const tail = room - head;
    omittedChars += cps.length - head - tail;
    return `${visibleText(cps.slice(0, head).join(''), false, lineStart)} ... [${cps.length - head - tail} characters omitted] ... ${visibleText(cps.slice(cps.length - tail).join(''), false)}`;
  });
  return { text: shown.join('\n'), omittedChars, omittedLines, length };
}

/** A value as text: a string as it is, anything else as JSON. */
function argumentText(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value) ?? String(value);
}

/** What {@link shownArguments} gives: each argument's shown value, and which were cut. */
export interface ShownArguments {
  /** Per argument, in order: its key (escaped) and its shown value. */
  entries: Array<{ key: string; value: ShownValue; command: boolean }>;
  /** Keys (escaped) of the arguments not shown whole. */
  cut: string[];
  /** Keys (escaped) of command arguments not shown whole: the prompt warns about them. */
  cutCommands: string[];
}

/**
 * Every argument shown within its bounds ({@link COMMAND_BOUNDS} for a command, else
 * {@link ARGUMENT_BOUNDS}). The command arguments are `commandArguments` (the tool's, as a
 * confirmation request carries them) and those named like one ({@link isCommandArgument}).
 */
export function shownArguments(args: Readonly<Record<string, unknown>>, commandArguments: readonly string[] = []): ShownArguments {
  const out: ShownArguments = { entries: [], cut: [], cutCommands: [] };
  for (const [rawKey, raw] of Object.entries(args ?? {})) {
    const command = commandArguments.includes(rawKey) || isCommandArgument(rawKey);
    const value = shownValue(argumentText(raw), command ? COMMAND_BOUNDS : ARGUMENT_BOUNDS);
    const key = visibleText(rawKey, false);
    out.entries.push({ key, value, command });
    if (value.omittedChars > 0 || value.omittedLines > 0) {
      out.cut.push(key);
      if (command) out.cutCommands.push(key);
    }
  }
  return out;
}

/**
 * The first command argument (the tool's `commandArguments`, or one named like one) whose value
 * a prompt cannot show whole ({@link COMMAND_BOUNDS}: more than 4,000 characters or 120 lines),
 * or undefined when each is shown whole. A grant nobody saw the command of (an allow rule, a
 * remembered answer) does not cover such a call: a person is asked, with the whole view offered.
 */
export function commandBeyondView(args: Readonly<Record<string, unknown>>, commandArguments: readonly string[]): string | undefined {
  for (const [key, raw] of Object.entries(args ?? {})) {
    if (!(commandArguments.includes(key) || isCommandArgument(key))) continue;
    const text = argumentText(raw);
    // shorter than one line's room and the line bound: shown whole
    if (text.length <= 80) continue;
    const value = shownValue(text, COMMAND_BOUNDS);
    if (value.omittedChars > 0 || value.omittedLines > 0) return key;
  }
  return undefined;
}

/**
 * Every argument whole, as lines of text: `key: value`, escaped ({@link visibleText}), a
 * value's further lines indented under it as `    | ...` (so that none passes for a line of
 * the view).
 */
export function wholeArguments(args: Readonly<Record<string, unknown>>): string {
  return Object.entries(args ?? {})
    .map(([key, value]) => `  ${visibleText(key, false)}: ${indentLines(visibleText(argumentText(value), true))}`)
    .join('\n');
}

/** Further lines of a shown value indented under it, as `    | ...`. */
export function indentLines(text: string): string {
  return text.replace(/\n/g, '\n    | ');
}

/**
 * A one-line summary of `args` of at most about `max` characters: its escaped compact JSON
 * ({@link visibleJson}), whole, or head and tail with `…[N more]…` between them.
 * @returns the text, and whether it was cut.
 */
export function argumentsSummary(args: unknown, max = 80): { text: string; cut: boolean } {
  const text = visibleJson(args);
  if (text.length <= max) return { text, cut: false };
  const head = Math.ceil((max * 2) / 3);
  const tail = max - head;
  return { text: `${text.slice(0, head)}…[${text.length - head - tail} more]…${text.slice(text.length - tail)}`, cut: true };
}
