/**
 * The shapes the command-line walk (`command-line.ts`) passes around: a parsed line, the
 * walk's context at a node, and how an assignment is used.
 *
 * @module
 */
import type { SyntaxNode, Word } from './words.js';

/** A parsed command line, to be released when the walk is done with it. */
interface ParsedCommandLine {
  /** The root node (type `program`). */
  readonly root: SyntaxNode & { readonly hasError: boolean };
  /** Frees the tree (tree-sitter trees live in wasm memory). */
  release(): void;
}

/** Parses a command line; a string return says why it could not (too slow, no tree). */
export type ParseCommandLine = (text: string) => ParsedCommandLine | string;

/** One word a `for` loop's variable takes (`loop-bindings.ts`): static text, or a plain glob whose matches it takes. */
export interface LoopValue {
  readonly text: string;
  readonly glob: boolean;
}

/** Loop variables whose values are known, by name, with the words each takes. */
export type LoopBindings = ReadonlyMap<string, readonly LoopValue[]>;

/** How an assignment is made, which decides which names are vouched for. */
export type AssignmentUse =
  /** `NAME=v cmd`, `env NAME=v cmd`, `export NAME=v`: NAME goes into a program's environment. */
  | 'environment'
  /** `NAME=v` alone, `local NAME=v`: NAME changes the environment only if it was exported already. */
  | 'statement';

/** Where in the command line the walk is. */
export interface Context {
  /** How many shells, `eval`s or `env -S` strings enclose this text. */
  readonly depth: number;
  /** Files written by redirections of enclosing compound commands. */
  readonly writes: readonly string[];
  /** Files read by input redirections (`< f`, `0< f`) of enclosing commands; absent when none. */
  readonly reads?: readonly string[];
  /** Wrappers enclosing this text (the shell of a `bash -c`), outermost first. */
  readonly wrappers: readonly string[];
  /** The own words of the wrappers of `wrappers.ts` among them (name, options, operands before the command), by index in `wrappers`. */
  readonly wrapperWords?: ReadonlyMap<number, readonly string[]>;
  /**
   * The words the `for`/`select` loops around this text iterate over and the subjects of the
   * `case` statements around it (static words without quotes, others as written); absent when
   * none. Recorded on each command inside as `ShellCommand.loopWords`.
   */
  readonly loopWords?: readonly string[] | undefined;
  /**
   * The `for` loop variables around this text whose values are known, with their words
   * (`loop-bindings.ts`): a use of one is read as each of them. Absent when none.
   */
  readonly bindings?: LoopBindings | undefined;
  /**
   * Whether the command's standard input is fed within the line (a heredoc, a here-string, a
   * `<` file, a pipe from an earlier command), not the call's own: a shell reading it runs
   * text the line supplies (case C6), not what a person or an `input_command` types.
   */
  readonly fedInput?: boolean;
  /**
   * The text fed, when the line gives it literally to this very command (a quoted heredoc's
   * body, a static here-string, `echo 'literal' |`): a shell reading it has it analysed like
   * `bash -c` text (the doubt stays: a command in it may read part of it as data).
   */
  readonly fedText?: string;
  /**
   * Whether the walk is inside double quotes or an unquoted heredoc body (and not in a
   * substitution inside them): there single quotes and `$'` are plain characters, so
   * `"${x:-'$(rm x)'}"` runs rm although the grammar reads a single-quoted string.
   */
  readonly doubleQuoted?: boolean;
}

/** What the commands that run other command text (`command-runners.ts`) need of the walk. */
export interface CommandWalker {
  /** Whether any command changes folder (`cd`, `find -execdir`, `env -C`...). */
  changedFolder: boolean;
  /** Notes a reason the analysis cannot vouch for the line. */
  doubt(reason: string): void;
  /** A program reads commands or code from standard input (the call's own, or text the line feeds it). */
  readsInput(what: string, context: Context, text: string): void;
  /** Parses and walks a nested command line (the text of `bash -c`, `eval`, `trap`...). */
  line(text: string, context: Context): void;
  /** Unwraps wrappers, shells and `eval` around `words`, and records what runs. */
  run(words: readonly Word[], context: Context, text: string): void;
  /** Records one simple command as it runs. */
  record(argv: readonly Word[], wrappers: readonly string[], context: Pick<Context, 'writes' | 'reads' | 'loopWords'>, text: string, wrapperWords?: ReadonlyMap<number, readonly string[]>): void;
}
