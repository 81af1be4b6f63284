/**
 * One policy file: its format, parsing and validation ({@link parsePolicyFile}). A policy
 * file is TOML (JSON when its name ends in `.json`) holding an optional `always_ask` flag and
 * a list of `[[rules]]`; every rule is named by file and line (`"<file>:<line>"`) in every
 * decision and message. Globs are compiled here, once per parse; matching a call against the
 * rules is `policy-rules.ts`, the user and workspace files together `policy-set.ts`.
 *
 * ```toml
 * always_ask = false
 *
 * [[rules]]
 * tool = "write_file"
 * paths = ["docs/**", "*.md"]
 * action = "allow"
 * reason = "docs are fine"
 * ```
 *
 * Unknown keys are errors: a typo must not silently widen or narrow a policy.
 *
 * @module
 */
import { createRequire } from 'node:module';
import type picomatch from 'picomatch';
import type * as SmolToml from 'smol-toml';

// picomatch and smol-toml load with the first policy file read (most calls read none).
const require = createRequire(import.meta.url);
const toml = (): typeof SmolToml => require('smol-toml') as typeof SmolToml;
const globs = (): typeof picomatch => require('picomatch') as typeof picomatch;
import { PolicyFileError } from './policy-file-error.js';
import { jsonErrorPosition, Locator } from './policy-file-lines.js';
import { ACTION_KINDS, isActionKind, type ActionKind } from './action-kinds.js';

export { PolicyFileError } from './policy-file-error.js';

/** What a rule says about the calls it matches: let them run, ask a person first, or refuse them. */
export type PolicyAction = 'allow' | 'ask' | 'deny';

const ACTIONS: readonly PolicyAction[] = ['allow', 'ask', 'deny'];

/** A compiled glob: whether one value matches it. */
type GlobMatcher = (value: string) => boolean;

/** A rule's globs, compiled once when its file is parsed. */
interface RuleMatchers {
  /** The `tool` glob; `undefined` for `"*"` (every tool). */
  readonly tool: GlobMatcher | undefined;
  /** One path argument matches one of the `paths` globs. */
  readonly path: GlobMatcher | undefined;
  /** `[argument name, value glob]` for each `args` entry. */
  readonly args: ReadonlyArray<readonly [string, GlobMatcher]> | undefined;
  /** One matcher per word of `command`, a trailing `"*"` word dropped (it adds nothing: see {@link PolicyRule.command}). */
  readonly command: readonly GlobMatcher[] | undefined;
  /** Whether an option (or, for a program no table knows, a word) is in `allow_options`. */
  readonly allowOption?: GlobMatcher;
  /**
   * How many of the `command` words, from the first, are literal (no glob character): only a
   * literal word names a program or a subcommand (`"r*"` matches rm but does not name it, so
   * it covers rm's reading forms only, and rm has none).
   */
  readonly literalWords?: number;
}

/**
 * One rule of a policy file. `action` is required; every other key narrows the calls the
 * rule matches, so a rule with only `action` matches every call. Within one file the LAST
 * matching rule wins.
 */
export interface PolicyRule {
  /** `"<file>:<line>"`: how decisions, audit events and messages name the rule. */
  readonly id: string;
  /** The policy file's path, as the {@link PolicySet} was given it. */
  readonly file: string;
  /** 1-based line of the rule's `[[rules]]` header (or of its `{` in an inline list or JSON). */
  readonly line: number;
  /** What the rule says about the calls it matches. */
  readonly action: PolicyAction;
  /**
   * Tool name or glob (picomatch syntax on the name, such as `"github__*"`). Default `"*"`:
   * every tool.
   */
  readonly tool: string;
  /**
   * The action kinds it applies to (`kind = "file_read"` or a list; see `action-kinds.ts`).
   * For a shell call each command is judged with its own kind (`network` for `curl`), so a
   * rule for one kind never approves a command of another beside it. Absent: any kind.
   */
  readonly kind?: readonly ActionKind[];
  /**
   * Globs (picomatch, `dot: true`) on the call's path arguments, workspace-relative with `/`
   * separators (`"docs/**"`, `"*.md"` for top-level Markdown files only). A call that reaches
   * several paths is judged path by path (`matchPolicyRules`: a deny of any path denies, an
   * allow needs every path allowed); a call with no path argument, or with a
   * path that is absolute or holds a `..` segment, does not match. The workspace root itself
   * is the path `.`, matched by `"."` and `"**"`. A `deny` or `ask` rule's globs match in any
   * case (`".env"` catches `.ENV`, the same file on a case-insensitive file system); an
   * `allow` rule's only as written. A `deny` or `ask` glob that matches a folder also matches
   * everything beneath it, as a `.gitignore` line does (a deny glob matching `sub/.env` covers `sub/.env/key`);
   * an `allow` glob matches only the paths it names. Absent: any paths, or none.
   */
  readonly paths?: readonly string[];
  /**
   * Value patterns (picomatch, `dot: true`) by argument name (`{ url = "https://api.example.com/**" }`).
   * Every listed argument must match its pattern. A URL is matched as the tools read it as
   * well as written (`argument-readings.ts`: `https://EVIL.com./x` is `https://evil.com/x`,
   * `https://evil.com?.example.com/` is evil.com): an `allow` needs every reading to match, a
   * `deny` or `ask` any one. For an `allow` a missing or non-string value does not match; a
   * `deny` or `ask` also matches a number or boolean by its text and an array by any item.
   * Absent: any arguments.
   */
  readonly args?: Readonly<Record<string, string>>;
  /**
   * Shell tools only: the words that must start a command's argv (`"git status"`; written as
   * one string split on whitespace, or as a list of words when a word holds a space). A
   * prefix match: `"git status"` matches `git status -s` (for an allow rule, only as far as the
   * tables cover what follows: see below). A trailing `"*"` word is dropped (`"echo *"` is
   * `"echo"`); every other word is a glob on one word
   * (picomatch, bash-style: `*` spans `/`; a leading `./` is kept). The first word is matched
   * against the program name, except that a program run by path (`./git`, `/bin/rm`) is matched
   * by an allow rule only as written (`"./build.sh"`; `"git"` does not allow `./git`), by deny
   * and ask rules by its name as well (`"rm"` denies `/bin/rm`); and also against the command's
   * wrappers: `"sudo"` (or `"sudo rm"`, the rest matched from the unwrapped program) catches
   * `sudo rm x`, which the shell analysis gives as `rm x` wrapped in `sudo`. A rule with a
   * `command` key never matches a call that is not a shell call.
   *
   * An `allow` rule covers only what the per-program tables know to be safe after its words
   * (`src/policy/shell/program-tables/`, docs/policy.md): `"git"` covers `git log --oneline`
   * but not `git log --output=f` or `git commit`; `"git commit"` covers `git commit -m x`. For
   * a program no table knows, it covers exactly its words (`"make test"` covers `make test`,
   * not `make test X=1`). A trailing `"*"` adds nothing. A rule naming a wrapper
   * (`"timeout"`) covers no command the wrapper runs: that is judged on its own. Deny and ask
   * rules match the words as a prefix, whatever follows.
   */
  readonly command?: readonly string[];
  /**
   * Allow rules with `command` only: options the rule covers beyond the tables (`["--output",
   * "-o"]`; globs on the option's name, `--output` also matches `--output=f`), or, for a
   * program no table knows, words allowed after the rule's own (`["--verbose", "test:*"]`).
   * `["*"]` covers every option and word: the person says so explicitly.
   */
  readonly allowOptions?: readonly string[];
  /** Shown in messages about the calls the rule decides. */
  readonly reason?: string;
  /** The compiled globs. */
  readonly matchers: RuleMatchers;
}

/** One parsed policy file. */
export interface PolicyFile {
  /** Its path, as given to {@link parsePolicyFile}. */
  readonly file: string;
  /**
   * `always_ask = true`: every call that would be allowed asks a person afresh (it beats
   * allow rules and remembered approvals). Default false.
   */
  readonly alwaysAsk: boolean;
  /** Its rules, in file order. */
  readonly rules: readonly PolicyRule[];
  /**
   * The keys of the requests a person approved for good (`[[approved]]` entries, written by
   * toolgate when the answer was `always`; see `remembered-approvals.ts`). They count only in
   * the user's file: a workspace file cannot approve anything by itself.
   */
  readonly approved: ReadonlySet<string>;
}

/** The keys a rule may have. */
const RULE_KEYS = ['tool', 'kind', 'paths', 'args', 'command', 'allow_options', 'action', 'reason'] as const;
/** The keys at the top of a file. */
const FILE_KEYS = ['always_ask', 'rules', 'approved'] as const;
/** The keys of an `[[approved]]` entry. */
const APPROVED_KEYS = ['key', 'tool', 'summary', 'saved'] as const;

/**
 * Parse and validate one policy file.
 * @param text - the file's content.
 * @param file - its path: named in every rule id and error; TOML unless it ends in `.json`.
 * @throws PolicyFileError naming file, line and key for a syntax error or an invalid key or value.
 */
export function parsePolicyFile(text: string, file: string): PolicyFile {
  const json = file.toLowerCase().endsWith('.json');
  let data: unknown;
  try {
    data = json ? JSON.parse(text) : toml().parse(text);
  } catch (error) {
    if (error instanceof toml().TomlError) {
      const first = error.message.split('\n')[0]!.replace(/^Invalid TOML document: /, '');
      throw PolicyFileError.fromInvalid(file, error.line, `TOML syntax error: ${first} (column ${error.column})`, error);
    }
    const { line, column } = jsonErrorPosition(text);
    throw PolicyFileError.fromInvalid(file, line, `JSON syntax error: ${(error as Error).message.split('\n')[0]} (column ${column})`, error);
  }
  const at = new Locator(text, json, file);
  if (json) at.rejectDuplicateKeys();
  return validate(data, at);
}

// ---------------------------------------------------------------------------------------------
// Validation

function validate(data: unknown, at: Locator): PolicyFile {
  if (!isTable(data)) throw at.fail(1, `a policy file must be a table of keys (always_ask, rules); got ${describe(data)}`);
  for (const key of Object.keys(data)) {
    if (!(FILE_KEYS as readonly string[]).includes(key)) throw at.fail(at.topKey(key), `unknown key '${key}' at the top of the file${suggest(key, FILE_KEYS)}; the keys are ${FILE_KEYS.join(', ')}`);
  }
  const alwaysAsk = data.always_ask;
  if (alwaysAsk !== undefined && typeof alwaysAsk !== 'boolean') throw at.fail(at.topKey('always_ask'), `always_ask must be true or false; got ${describe(alwaysAsk)}`);
  const list = data.rules ?? [];
  if (!Array.isArray(list)) throw at.fail(at.topKey('rules'), `rules must be a list of tables ([[rules]]); got ${describe(list)}`);
  const rules = list.map((raw, index) => validateRule(raw, index, at));
  const approved = validateApproved(data.approved ?? [], at);
  return Object.freeze({ file: at.file, alwaysAsk: alwaysAsk === true, rules: Object.freeze(rules), approved });
}

/** One `[[approved]]` entry, as {@link withApproved} writes it. */
export interface ApprovedEntry {
  /** The request's key: 64 hex digits (see `remembered-approvals.ts`). */
  readonly key: string;
  readonly tool: string;
  /** What was approved, for a person reading the file. */
  readonly summary: string;
}

/**
 * The text of a policy file with `entries` added to its `[[approved]]` list (those whose key
 * it does not hold yet): appended as TOML tables (comments and layout kept), or, for a `.json`
 * file, added to its `approved` array (the file rewritten with two-space indentation). The
 * date they were saved goes with them. `current` itself when every key is there already.
 * @param current - the file's text now (`''` for a file that does not exist yet).
 * @throws PolicyFileError when `current` is not a valid policy file (nothing is added to a
 *   file that already denies every call).
 */
export function withApproved(current: string, file: string, entries: readonly ApprovedEntry[]): string {
  const held = current.trim() === '' ? new Set<string>() : parsePolicyFile(current, file).approved;
  const seen = new Set(held);
  const added = entries.filter((e) => !seen.has(e.key) && seen.add(e.key));
  if (added.length === 0) return current;
  const saved = new Date().toISOString();
  if (file.toLowerCase().endsWith('.json')) {
    const data = current.trim() === '' ? {} : JSON.parse(current) as Record<string, unknown>;
    data.approved = [...((data.approved as unknown[] | undefined) ?? []), ...added.map((entry) => ({ ...entry, saved }))];
    return `${JSON.stringify(data, null, 2)}\n`;
  }
  const table = toml().stringify({ approved: added.map((entry) => ({ key: entry.key, tool: entry.tool, summary: entry.summary, saved })) });
  const header = current.includes('[[approved]]') ? '' : '\n# Requests approved with "always" (toolgate writes these; delete an entry to be asked again).\n';
  return `${current}${current === '' || current.endsWith('\n') ? '' : '\n'}${header}\n${table.trim()}\n`;
}

/** The `[[approved]]` entries: a key (64 hex digits), the tool, and text for people. */
function validateApproved(list: unknown, at: Locator): ReadonlySet<string> {
  const line = at.topKey('approved');
  if (!Array.isArray(list)) throw at.fail(line, `approved must be a list of tables ([[approved]]); got ${describe(list)}`);
  const keys = new Set<string>();
  list.forEach((raw, index) => {
    const where = `approved entry ${index + 1}`;
    if (!isTable(raw)) throw at.fail(line, `${where} must be a table; got ${describe(raw)}`);
    for (const key of Object.keys(raw)) {
      if (!(APPROVED_KEYS as readonly string[]).includes(key)) throw at.fail(line, `unknown key '${key}' in ${where}${suggest(key, APPROVED_KEYS)}; its keys are ${APPROVED_KEYS.join(', ')}`);
    }
    if (typeof raw.key !== 'string' || !/^[0-9a-f]{64}$/.test(raw.key)) throw at.fail(line, `key in ${where} must be the 64 hex digits toolgate wrote; got ${describe(raw.key)}`);
    if (typeof raw.tool !== 'string' || raw.tool === '') throw at.fail(line, `tool in ${where} must be a tool name; got ${describe(raw.tool)}`);
    if (raw.summary !== undefined && typeof raw.summary !== 'string') throw at.fail(line, `summary in ${where} must be a string; got ${describe(raw.summary)}`);
    keys.add(raw.key);
  });
  return keys;
}

function validateRule(raw: unknown, index: number, at: Locator): PolicyRule {
  const line = at.rule(index);
  const where = `rule ${index + 1}`;
  if (!isTable(raw)) throw at.fail(line, `${where} must be a table; got ${describe(raw)}`);
  for (const key of Object.keys(raw)) {
    if (!(RULE_KEYS as readonly string[]).includes(key)) throw at.fail(at.ruleKey(index, key), `unknown key '${key}' in ${where}${suggest(key, RULE_KEYS)}; a rule's keys are ${RULE_KEYS.join(', ')}`);
  }
  const keyLine = (key: string) => at.ruleKey(index, key);

  const action = raw.action;
  if (action === undefined) throw at.fail(line, `${where} has no action; add action = "allow", "ask" or "deny"`);
  if (typeof action !== 'string' || !(ACTIONS as readonly string[]).includes(action)) {
    throw at.fail(keyLine('action'), `action in ${where} must be "allow", "ask" or "deny"; got ${describe(action)}`);
  }

  let tool = '*';
  let toolMatcher: GlobMatcher | undefined;
  if (raw.tool !== undefined) {
    tool = nonEmptyString(raw.tool, 'tool', where, keyLine, at);
    if (tool !== '*') toolMatcher = compileGlob(tool, {}, () => at.fail(keyLine('tool'), `tool in ${where} is not a valid glob: ${JSON.stringify(tool)}`));
  }

  let kind: ActionKind[] | undefined;
  if (raw.kind !== undefined) {
    const kinds = stringOrList(raw.kind, 'kind', where, keyLine, at);
    for (const k of kinds) {
      if (!isActionKind(k)) throw at.fail(keyLine('kind'), `unknown kind ${JSON.stringify(k)} in ${where}; the kinds are ${ACTION_KINDS.join(', ')}`);
    }
    kind = kinds as ActionKind[];
  }

  let paths: string[] | undefined;
  let pathMatcher: GlobMatcher | undefined;
  if (raw.paths !== undefined) {
    paths = stringOrList(raw.paths, 'paths', where, keyLine, at);
    const matchers = paths.map((glob) => {
      const bad = (problem: string) => at.fail(keyLine('paths'), `paths in ${where}: ${JSON.stringify(glob)} ${problem}`);
      if (glob.startsWith('/') || /^[A-Za-z]:/.test(glob) || glob.startsWith('~')) throw bad('must be relative to the workspace (no leading /, ~ or drive)');
      if (glob.split('/').includes('..')) throw bad('must not hold a .. segment');
      if (glob.startsWith('./')) throw bad('must be written without a leading ./');
      if (glob.includes('\\')) throw bad('must use / as the separator');
      // Deny and ask rules match any case (on a case-insensitive file system `.ENV` is `.env`); an allow only as written.
      const matcher = compileGlob(glob, { dot: true, nocase: action !== 'allow' }, () => bad('is not a valid glob'));
      return glob === '**' || glob === '.' ? (p: string) => p === '.' || matcher(p) : matcher;
    });
    const anyGlob: GlobMatcher = matchers.length === 1 ? matchers[0]! : (p) => matchers.some((m) => m(p));
    // A deny or ask glob that matches a folder covers all it holds, as a `.gitignore` line does
    // (a glob matching `sub/.env` covers `sub/.env/key`; the sandbox hides such a folder whole): its narrowest
    // reading as a refusal. An allow glob grants only the paths it matches as written.
    pathMatcher = action === 'allow' ? anyGlob : (p) => anyGlob(p) || someFolderOf(p, anyGlob);
  }

  let args: Record<string, string> | undefined;
  let argMatchers: Array<readonly [string, GlobMatcher]> | undefined;
  if (raw.args !== undefined) {
    if (!isTable(raw.args)) throw at.fail(keyLine('args'), `args in ${where} must be a table of argument name = "pattern"; got ${describe(raw.args)}`);
    const entries = Object.entries(raw.args);
    if (entries.length === 0) throw at.fail(keyLine('args'), `args in ${where} is empty; list at least one argument = "pattern", or remove it`);
    args = {};
    argMatchers = [];
    for (const [name, pattern] of entries) {
      const argLine = at.argKey(index, name);
      if (typeof pattern !== 'string') throw at.fail(argLine, `args.${name} in ${where} must be a string pattern; got ${describe(pattern)}`);
      if (pattern === '') throw at.fail(argLine, `args.${name} in ${where} is an empty pattern`);
      args[name] = pattern;
      argMatchers.push([name, compileGlob(pattern, { dot: true }, () => at.fail(argLine, `args.${name} in ${where} is not a valid glob: ${JSON.stringify(pattern)}`))]);
    }
  }

  let command: string[] | undefined;
  let commandMatchers: GlobMatcher[] | undefined;
  if (raw.command !== undefined) {
    if (typeof raw.command === 'string') {
      command = raw.command.trim().split(/\s+/).filter((w) => w !== '');
    } else if (Array.isArray(raw.command) && raw.command.every((w) => typeof w === 'string')) {
      command = raw.command as string[];
    } else {
      throw at.fail(keyLine('command'), `command in ${where} must be a string of words ("git status") or a list of words; got ${describe(raw.command)}`);
    }
    if (command.length === 0 || command.some((w) => w === '')) throw at.fail(keyLine('command'), `command in ${where} is empty or holds an empty word`);
    const words = command[command.length - 1] === '*' ? command.slice(0, -1) : command;
    commandMatchers = words.map((word): GlobMatcher => {
      if (word === '*') return () => true;
      // picomatch drops a leading `./` from a pattern; a command word keeps it (`./build.sh` is a path, not `build.sh`)
      const dotSlash = /^(\.\/)+/.exec(word)?.[0] ?? '';
      const glob = compileGlob(word.slice(dotSlash.length), { dot: true, bash: true, nonegate: true }, () => at.fail(keyLine('command'), `command in ${where}: the word ${JSON.stringify(word)} is not a valid glob`));
      return dotSlash === '' ? glob : (value) => value.startsWith(dotSlash) && glob(value.slice(dotSlash.length));
    });
  }

  let allowOptions: string[] | undefined;
  let allowOption: GlobMatcher | undefined;
  if (raw.allow_options !== undefined) {
    allowOptions = stringOrList(raw.allow_options, 'allow_options', where, keyLine, at);
    if (command === undefined) throw at.fail(keyLine('allow_options'), `allow_options in ${where} needs a command key: it widens what an allow rule for a command covers`);
    if (action !== 'allow') throw at.fail(keyLine('allow_options'), `allow_options in ${where} applies to allow rules only (a ${String(action)} rule matches whatever follows its command words)`);
    const matchers = allowOptions.map((glob) => compileGlob(glob, { dot: true, bash: true, nonegate: true }, () => at.fail(keyLine('allow_options'), `allow_options in ${where}: ${JSON.stringify(glob)} is not a valid glob`)));
    allowOption = matchers.length === 1 ? matchers[0] : (value) => matchers.some((m) => m(value));
  }

  let reason: string | undefined;
  if (raw.reason !== undefined) {
    if (typeof raw.reason !== 'string') throw at.fail(keyLine('reason'), `reason in ${where} must be a string; got ${describe(raw.reason)}`);
    reason = raw.reason;
  }

  const rule: PolicyRule = {
    id: `${at.file}:${line}`, file: at.file, line, action: action as PolicyAction, tool,
    ...(kind && { kind: Object.freeze(kind) }),
    ...(paths && { paths: Object.freeze(paths) }),
    ...(args && { args: Object.freeze(args) }),
    ...(command && { command: Object.freeze(command) }),
    ...(allowOptions && { allowOptions: Object.freeze(allowOptions) }),
    ...(reason !== undefined && { reason }),
    matchers: Object.freeze({
      tool: toolMatcher, path: pathMatcher, args: argMatchers && Object.freeze(argMatchers), command: commandMatchers && Object.freeze(commandMatchers),
      ...(allowOption && { allowOption }),
      ...(command && { literalWords: literalPrefix(command[command.length - 1] === '*' ? command.slice(0, -1) : command) }),
    }),
  };
  return Object.freeze(rule);
}

/** How many words, from the first, hold no glob character. */
function literalPrefix(words: readonly string[]): number {
  const i = words.findIndex((word) => /[*?[\]{}()!+@]/.test(word));
  return i < 0 ? words.length : i;
}

/** A glob compiled to one regular expression; `bad()` makes the error for a pattern picomatch cannot compile. */
function compileGlob(glob: string, options: picomatch.PicomatchOptions, bad: () => PolicyFileError): GlobMatcher {
  let re: RegExp;
  try {
    re = globs().makeRe(glob, options);
  } catch {
    throw bad();
  }
  // picomatch gives a regular expression matching nothing for a pattern it cannot read.
  if (re.source === '$^') throw bad();
  return (value) => re.test(value);
}

function nonEmptyString(value: unknown, key: string, where: string, keyLine: (key: string) => number, at: Locator): string {
  if (typeof value !== 'string') throw at.fail(keyLine(key), `${key} in ${where} must be a string; got ${describe(value)}`);
  if (value === '') throw at.fail(keyLine(key), `${key} in ${where} is an empty pattern`);
  return value;
}

/** Whether `matches` holds for a folder above the workspace-relative path `p` (`a`, `a/b` for `a/b/c`). */
function someFolderOf(p: string, matches: GlobMatcher): boolean {
  for (let end = p.indexOf('/'); end > 0; end = p.indexOf('/', end + 1)) {
    if (matches(p.slice(0, end))) return true;
  }
  return false;
}

function stringOrList(value: unknown, key: string, where: string, keyLine: (key: string) => number, at: Locator): string[] {
  const list = typeof value === 'string' ? [value] : value;
  if (!Array.isArray(list) || !list.every((v) => typeof v === 'string')) throw at.fail(keyLine(key), `${key} in ${where} must be a string or a list of strings; got ${describe(value)}`);
  if (list.length === 0) throw at.fail(keyLine(key), `${key} in ${where} is an empty list; give at least one, or remove the key`);
  if (list.some((v) => v === '')) throw at.fail(keyLine(key), `${key} in ${where} holds an empty pattern`);
  return [...list] as string[];
}

function isTable(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value) && !(value instanceof Date);
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (value instanceof Date) return 'a date';
  if (typeof value === 'object') return 'a table';
  if (typeof value === 'string') return `the string ${JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}...` : value)}`;
  return `${typeof value === 'boolean' ? 'the boolean' : `the ${typeof value}`} ${String(value)}`;
}

/** `" (did you mean 'x'?)"` when `key` is one or two edits away from a known key. */
function suggest(key: string, known: readonly string[]): string {
  const near = known.find((k) => editDistance(key.toLowerCase(), k) <= 2);
  return near === undefined ? '' : ` (did you mean '${near}'?)`;
}

function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) row.push(Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1)));
    prev = row;
  }
  return prev[b.length]!;
}
