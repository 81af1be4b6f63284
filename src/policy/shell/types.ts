/**
 * What shell-command analysis says about a command line (the `command` argument of a shell
 * tool): every simple command in it at every depth, with wrappers unwrapped, and the reasons
 * it cannot vouch for the text. The analysis itself is `analyze.ts`.
 *
 * @module
 */
import type { ActionKind } from '../action-kinds.js';

/** One simple command found in a command line. */
export interface ShellCommand {
  /**
   * The words the program would get, after wrappers are unwrapped (`timeout 5 rm x` gives
   * `["rm", "x"]`) and global options that do not change what runs are dropped
   * (`git -C . --no-pager commit` gives `["git", "commit"]`). Quotes are removed from static
   * words; a word that is not static (holds `$X`, `$(...)`, a glob) is kept as written.
   * `argv[0]` is {@link ShellCommand.program} when the program is named by a bare name, and the
   * word exactly as written when it holds a `/` (`./git status` gives `["./git", "status"]`,
   * `/bin/rm -rf x` gives `["/bin/rm", "-rf", "x"]`): a program run by path may be any file, so
   * an allow rule for `git` must not allow `./git` (see `commandMatches` in `policy-rules.ts`).
   * In a line that may change `HOME` (`read HOME`, `for HOME in ...`, `unset HOME`...), a `~`
   * that reads `HOME` is given as `$HOME` in every word list of the command (`~/x` gives
   * `$HOME/x`, listed in `dynamicWords`): it names a folder only known when the line runs.
   */
  readonly argv: readonly string[];
  /** The program's name: `argv[0]` without a folder (`/bin/rm` gives `rm`), for deny rules and kinds. */
  readonly program: string;
  /** The wrappers unwrapped around it, outermost first (`["env", "timeout"]`), as program names. */
  readonly wrappers: readonly string[];
  /** `network` for programs that reach other machines (curl, ssh, `git push`...), else `shell_command`. */
  readonly kind: ActionKind;
  /** Files its redirections write to (`> out.txt`, `>> log`, `&> f`), as written; `/dev/null` and fd duplications excluded. */
  readonly writes: readonly string[];
  /**
   * Files its input redirections open for reading (`< key.txt`, `0< f`, `<> f`, also those of an
   * enclosing compound command or shell), as written; absent when none. Here-documents,
   * here-strings and fd duplications (`<&3`) name no file. Path rules and protected paths judge
   * them like the command's words (`policy-files.decider.ts`): `head < secrets/key.txt` reads
   * the file as surely as `head secrets/key.txt`.
   */
  readonly reads?: readonly string[];
  /**
   * The words the `for`/`select` loops around it iterate over, and the subjects of the `case`
   * statements around it (`for f in .b*rc ~/.ssh/*; do cat "$f"; done` gives `cat` the loop
   * words `[".b*rc", "~/.ssh/*"]`): a static word without its quotes, any other as written;
   * absent when none. The loop's variable in the command's words is not static (`dynamicWords`),
   * except where the loop's words are static (or plain globs) and its body provably never changes
   * it: the command is then recorded once for each word, the use read as that word
   * (`loop-bindings.ts`);
   * the deciders that judge paths judge these words like the command's own
   * (`command-word-paths.ts`).
   */
  readonly loopWords?: readonly string[];
  /** Its source text, for messages. */
  readonly text: string;
  /**
   * The own words of each wrapper in {@link ShellCommand.wrappers}, same order: the wrapper's
   * name, then its options and operands before the command (`["timeout", "-s", "KILL", "5"]`);
   * a shell or `eval` whose text was analysed has just its name. Absent when there are no
   * wrappers. Allow rules read them against the wrapper tables (`program-tables/wrappers.ts`).
   */
  readonly wrapperWords?: readonly (readonly string[])[];
  /**
   * git's global options dropped from `argv` (`git -c k=v --no-pager log` gives `["-c", "k=v",
   * "--no-pager"]`); absent when there were none. Allow rules read them against git's table.
   */
  readonly globalWords?: readonly string[];
  /**
   * The indices in `argv` (never 0) of the words that are not static (`"$F"`, `$(...)`, a
   * glob): at run time each may be anything, an option included, and an unquoted one several
   * words. Absent when every argument is static. Allow rules do not cover such a word where it
   * could be an option (`program-tables/coverage.ts`).
   */
  readonly dynamicWords?: readonly number[];
  /**
   * Set on the command a `@format shell-input` argument becomes when what reads it is not a
   * shell (an interpreter, a program the analysis does not know): text typed into `argv`'s
   * program, which the analysis cannot read (`src/policy/shell-input.ts`). Only an allow rule
   * that names the tool allows it.
   */
  readonly opaqueInput?: true;
  /**
   * Set on the commands of text typed into a program that may be a shell but is not known to
   * be one (`cat | bash`, `script -qc bash /dev/null`, a program the analysis does not know),
   * read as a shell would read it (`src/policy/shell-input.ts`): deny and ask rules apply to
   * them, an allow rule never does (the call's `opaqueInput` command needs its own).
   */
  readonly readAsShell?: true;
}

/** The analysis of one command line. */
export interface ShellAnalysis {
  /** Every simple command, in source order, at every depth (chains, pipes, subshells, substitutions, loops, function bodies). */
  readonly commands: readonly ShellCommand[];
  /**
   * Why the analysis cannot vouch for the text; empty when it can. Non-empty means a rule may
   * not allow the call (it asks): a parse error, a dynamic program name (`$X`, `$(...)`), text
   * fed to a shell or `eval` that is not static (a pipe or heredoc into `sh`, `eval "$x"`), a
   * substitution the grammar gave no node for (`${x:-\`rm x\`}`), data bash evaluates as code
   * (arithmetic over a variable, `${x@P}`, `printf -v "$x"`), an environment variable outside
   * the safe list given to a program, git pointed at another repository, a NUL in a word, a
   * program that runs another command the analysis does not unwrap (`strace`, `watch`), or a
   * construct the analysis does not know.
   */
  readonly uncertain: readonly string[];
  /** The most severe kind of its commands (`shell_command` when there are none). */
  readonly kind: ActionKind;
  /**
   * True when the analysis stopped at one of its limits (a line over 64 KiB, more than 4,096
   * commands, shells nested over 8 deep, a syntax tree over 256 deep, a parse over 500 ms):
   * `commands` may miss any number of commands, anywhere. A policy file with a deny rule
   * naming a command denies such a line; otherwise it asks (`policy-rules.ts`).
   */
  readonly beyondLimits?: boolean;
  /**
   * Those of {@link uncertain} that say only that a shell or an interpreter reads commands or
   * code from the call's own standard input (`bash`, `python3` started as a session), not from
   * text the line feeds it: what it reads is not in the line, and for a session it is judged
   * when typed (`input_command`). Absent when there are none. Every other doubt under a deny
   * rule that could match a hidden command needs a person (`policy-rules.ts`).
   */
  readonly callerInput?: readonly string[];
}
