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
  /** Its source text, for messages. */
  readonly text: string;
  /**
   * Set on the command a `@format shell-input` argument becomes when what reads it is not a
   * shell (an interpreter, a program the analysis does not know): text typed into `argv`'s
   * program, which the analysis cannot read (`src/policy/shell-input.ts`). Only an allow rule
   * that names the tool allows it.
   */
  readonly opaqueInput?: true;
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
}
