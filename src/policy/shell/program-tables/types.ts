/**
 * The shape of the per-program tables (issue 30, item 1): what an allow rule naming a program
 * covers. A table lists, per program, the forms known to be safe (its subcommands, options and
 * operands that only read, or only do what the form itself does); whatever a table does not
 * list is not covered, and a command using it asks. The tables are data, one file per family
 * (`git.ts`, `sed.ts`, `awk.ts`, `find.ts`, `search.ts`, `sort.ts`, `tar.ts`, `wrappers.ts`,
 * `writing.ts`, `coreutils.ts`), gathered in `index.ts`; the reading is `coverage.ts`.
 *
 * Reading a command's words against its table (`coverage.ts`):
 * - the first word that is not an option picks a subcommand when the table has `subcommands`
 *   (git); otherwise the table's `form` applies;
 * - each option must be an entry of the form's `options` (long options by their exact name:
 *   no abbreviations, since GNU getopt's prefix matching could reach an option the table does
 *   not list), with effect `read`; `--` ends the options;
 * - operands are accepted, unless the form says how many may be given or checks them
 *   (`operands`): sed scripts, awk programs, find expressions, dd's `of=`;
 * - a form with effect `read` is covered by a rule naming only the program; a form with any
 *   other effect only by a rule naming it (`command = "git commit"`, `command = "tee"`).
 *
 * @module
 */

/**
 * What an argument form does beyond printing:
 * - `read`: reads files or state, prints; covered by a rule naming the program;
 * - `write`: writes or removes files (or repository state): covered only where a rule names
 *   the form (a program whose purpose is writing, such as `tee`, or a subcommand such as
 *   `git commit`), or an option listed in the rule's `allow_options`;
 * - `network`: reaches another machine (`git fetch`): covered only where a rule names it;
 * - `exec`: runs another program, or changes which one runs (`git -c`, `rg --pre`, `sort
 *   --compress-program`): covered only by `allow_options`. Listed where known, so that
 *   `policy check --explain` can say what an option does; unlisted options are not covered
 *   either.
 */
export type ArgumentEffect = 'read' | 'write' | 'network' | 'exec';

/** One option of a form. */
export interface OptionEntry {
  /** Its spellings: short (`-n`) and long (`--lines`). A short spelling is one letter after `-`. */
  readonly names: readonly string[];
  /**
   * Whether it takes a value: `required` (the next word, the rest of a short cluster `-n5`, or
   * after `=` for a long one), `optional` (only attached: `--color=auto`, `-I{}`), absent for a
   * flag.
   */
  readonly value?: 'required' | 'optional';
  /** What it does; default `read`. An option with another effect is covered only by `allow_options`. */
  readonly effect?: ArgumentEffect;
  /**
   * Set when its value names a file listing the files the program reads (`--files0-from`, tar's
   * `-T`, `md5sum -c`): names no word of the line shows, which the path rules cannot judge
   * without a sandbox (`policy-files.decider.ts` asks then).
   */
  readonly readsNames?: true;
}

/**
 * What the operands of a form may be. `any` (the default): every operand is data the form
 * reads (file names, patterns). `none`: no operand. `{ max }`: at most that many (`uniq IN OUT`
 * writes OUT, so `uniq` takes one). A function: a check that returns why an operand is not
 * covered (an sed script with a `w` command), or undefined; it sees all operands at once.
 */
type OperandRule = 'any' | 'none' | { readonly max: number } | ((operands: readonly string[]) => string | undefined);

/** One form of a program: the program itself, or one of its subcommands. */
export interface FormEntry {
  /** What the form does with no options (see {@link ArgumentEffect}). */
  readonly effect: ArgumentEffect;
  /** The options known safe for it (and, with another effect, known but not covered by default). */
  readonly options: readonly OptionEntry[];
  /** What its operands may be; default `any`. */
  readonly operands?: OperandRule;
  /** Whether every word is an operand, with no option parsing (`echo`: `-x` is printed); default false. */
  readonly noOptions?: boolean;
  /** Whether `-NUM` is an option of its own (`head -5`, `grep -3`); default false. */
  readonly numberOption?: boolean;
  /**
   * A check of the whole argument list (after the program or subcommand), for programs whose
   * arguments are not getopt-shaped (find's expression, tar's old-style keys, dd's
   * `key=value`): returns why the words are not covered, or undefined; replaces the option
   * reading when given.
   */
  readonly check?: (args: readonly string[], allowed: (word: string, index: number) => boolean) => string | undefined;
  /** A line for people (docs/policy.md's table): what the form covers. */
  readonly note?: string;
}

/** The table of one program (or of several names of one program: `grep`, `egrep`). */
export interface ProgramTable {
  /** The program names (basenames) it applies to. */
  readonly programs: readonly string[];
  /** The family it belongs to, as in docs/policy.md (`git`, `sed`, `coreutils`...). */
  readonly family: string;
  /** The form when the program has no subcommands. */
  readonly form?: FormEntry;
  /** Subcommands by name, for programs that have them (git). A subcommand not listed is not covered. */
  readonly subcommands?: Readonly<Record<string, FormEntry>>;
  /** Options before the subcommand (git's global options), read like a form's options. */
  readonly globalOptions?: readonly OptionEntry[];
  /** Whether it runs another command given in its arguments (`timeout`, `xargs`): a wrapper, judged by `wrapperForm`. */
  readonly wrapper?: boolean;
}
