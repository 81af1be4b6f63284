/**
 * Shell-command analysis (issue 15, item 4): what a shell tool's command line would run, read
 * with a real parser (web-tree-sitter 0.27 with the tree-sitter-bash 0.25 grammar as wasm,
 * shipped beside this module).
 * The only module that imports web-tree-sitter. The walk over the tree is `command-line.ts`;
 * the tables are `wrappers.ts` and `programs.ts`.
 *
 * @module
 */
import { fileURLToPath } from 'node:url';
import type { Language, Parser } from 'web-tree-sitter';
import { analyseCommandLine, MAX_COMMAND_LINE_LENGTH, type ParseCommandLine } from './command-line.js';
import { loadOnce } from './load-once.js';
import { isSafeEnvironmentName } from './programs.js';
import type { ShellAnalysis } from './types.js';

/**
 * Analyses one command line (the `command` argument of `run_command` or `exec_command`),
 * synchronously. Never throws: whatever it cannot read (a parse error, a construct it does
 * not know, text fed to a shell that it cannot see, a text over 64 KiB, a parse over
 * {@link PARSE_TIME_LIMIT_MS}) becomes a reason in `uncertain`. Empty or blank text gives no
 * commands and no reasons.
 */
export type ShellAnalyzer = (text: string) => ShellAnalysis;

/** The longest one parse may take, in milliseconds (500): a guard against pathological text, since a full 64 KiB script parses in 30 to 200 ms; a slower parse is cancelled and the text is uncertain. */
const PARSE_TIME_LIMIT_MS = 500;

const analyzer = loadOnce(createAnalyzer);

/** The bash grammar's wasm, relative to this module (copied there by `scripts/bundle.ts` from tree-sitter-bash). */
const SHELL_GRAMMAR_FILE = './tree-sitter-bash.wasm';

/**
 * Loads the bash grammar (about 25 ms, once per process) and gives the analyzer. Concurrent
 * callers share one load; a failed load rejects with web-tree-sitter's error (the grammar's
 * wasm missing or not loadable) and a later call tries again.
 */
export function loadShellAnalyzer(): Promise<ShellAnalyzer> {
  return analyzer.get();
}

/** The analyzer if {@link loadShellAnalyzer} has finished loading it, else undefined (a sync fast path). */
export function readyShellAnalyzer(): ShellAnalyzer | undefined {
  return analyzer.ready();
}

async function createAnalyzer(): Promise<ShellAnalyzer> {
  // web-tree-sitter loads with the grammar: calls of tools without a shell command never need it.
  const { Language: Languages, Parser: Parsers } = await import('web-tree-sitter');
  await Parsers.init();
  // The grammar ships in the package beside this module (the build copies it from the
  // tree-sitter-bash package, a dev dependency: its native sources and prebuilds, 20 MB, are
  // not needed to load the wasm).
  const wasm = fileURLToPath(new URL(SHELL_GRAMMAR_FILE, import.meta.url));
  const language: Language = await Languages.load(wasm);
  const parser: Parser = new Parsers();
  parser.setLanguage(language);
  const parse: ParseCommandLine = (text) => {
    const deadline = performance.now() + PARSE_TIME_LIMIT_MS;
    let tree;
    try {
      tree = parser.parse(text, null, { progressCallback: () => performance.now() > deadline });
    } catch (error) {
      parser.reset();
      return `the parser failed: ${error instanceof Error ? error.message : String(error)}`;
    }
    if (tree === null) {
      parser.reset();
      return `parsing took longer than ${PARSE_TIME_LIMIT_MS} ms`;
    }
    return { root: tree.rootNode, release: () => tree.delete() };
  };
  return (text) => {
    if (typeof text !== 'string') return { commands: [], uncertain: ['the command line is not a string'], kind: 'shell_command' };
    if (text.length > MAX_COMMAND_LINE_LENGTH) {
      return { commands: [], uncertain: [`command line longer than ${MAX_COMMAND_LINE_LENGTH} characters`], kind: 'shell_command', beyondLimits: true };
    }
    return analyseCommandLine(text, parse);
  };
}

/**
 * The analyses of a call's command arguments (`commandArguments`, the names of its
 * `@format shell-command` arguments; a missing or non-string value has none), each with the
 * doubt the call's own `env` and `workdir` arguments add ({@link toolArgumentDoubt}). What the
 * executor gives its deciders and what `toolgate policy check --explain` shows.
 */
export function analyzeCommandArguments(analyze: ShellAnalyzer, commandArguments: readonly string[], args: Readonly<Record<string, unknown>>): ShellAnalysis[] {
  const found: ShellAnalysis[] = [];
  for (const name of commandArguments) {
    const text = args[name];
    if (typeof text !== 'string') continue;
    const analysis = analyze(text);
    const doubt = toolArgumentDoubt(args, analysis);
    found.push(doubt === undefined ? analysis : { ...analysis, uncertain: [...analysis.uncertain, doubt] });
  }
  return found;
}

/**
 * Why a shell tool's own arguments make its command lines unvouchable, or undefined: an `env`
 * object naming a variable outside the safe list (`GIT_CONFIG_*`, `BASH_ENV`, `PS4`... run
 * code as surely as `NAME=value cmd` does), or a `workdir` other than the workspace root when
 * a command runs git (like `git -C DIR`, another folder's repository config can run programs).
 */
export function toolArgumentDoubt(args: Readonly<Record<string, unknown>>, analysis: ShellAnalysis): string | undefined {
  const env = args.env;
  if (env !== undefined && env !== null) {
    if (typeof env !== 'object' || Array.isArray(env)) return 'the call\'s env argument is not an object of names';
    const names = Object.keys(env).filter((name) => !isSafeEnvironmentName(name));
    if (names.length > 0) return `the call's env argument sets ${names.slice(0, 3).join(', ')}${names.length > 3 ? '...' : ''}, which programs may read as configuration that runs code`;
  }
  const workdir = args.workdir;
  if (workdir !== undefined && workdir !== null && !(typeof workdir === 'string' && /^(\.\/?|)$/.test(workdir)) && analysis.commands.some((command) => command.program === 'git')) {
    return 'git runs in another folder (the workdir argument), whose repository config can run programs';
  }
  return undefined;
}
