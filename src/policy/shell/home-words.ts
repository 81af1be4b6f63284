/**
 * `~` in a command line that may change `HOME`: bash expands `~` (alone, or before `/`) to the
 * value `HOME` has when the word is expanded, so after `HOME=.git`, `read HOME`,
 * `for HOME in ...`, `unset HOME` or inside `env HOME=... bash -c '...'`, the word
 * `~/hooks/pre-commit` names a path the analysis does not know, while the deciders that judge
 * paths read `~` as the home folder toolgate's own process has (`command-word-paths.ts`). Such
 * a word is reported as `$HOME` (computed when the line runs): each decider then treats it as
 * any other word it cannot show (unseen), and the walk adds a doubt so that no allow rule or
 * remembered answer covers the line.
 *
 * Fail closed: the whole line counts, whatever the order (a loop or a function runs an earlier
 * word after the change), and a `~` bash leaves as it is (quoted, `"~/x"`) is rewritten too.
 *
 * @module
 */
import type { ShellCommand } from './types.js';

/** A `~` bash may expand to `HOME`: at the start of a word or after `=` or `:` (assignments, `dd of=~/x`), followed by `/`, `:` or the end. `~user`, `~+` and `~-` do not read `HOME`. */
const HOME_TILDE = /(^|[=:])~(?=\/|:|$)/g;

/** `word` with every `~` that reads `HOME` spelled `$HOME`. */
function unseenHome(word: string): string {
  return word.replace(HOME_TILDE, '$1$HOME');
}

/**
 * `command` with each word holding a `~` that reads `HOME` (its program and arguments, its
 * wrappers' and git's global words, redirection targets, loop words) spelled `$HOME`, the
 * arguments among them added to `dynamicWords`; undefined when it has none.
 */
export function homeWordsUnseen(command: ShellCommand): ShellCommand | undefined {
  const changed = (word: string): boolean => unseenHome(word) !== word;
  const lists = [command.argv, command.writes, command.reads ?? [], command.loopWords ?? [], command.globalWords ?? [], ...(command.wrapperWords ?? [])];
  if (!lists.some((list) => list.some(changed))) return undefined;
  const dynamic = new Set(command.dynamicWords ?? []);
  command.argv.forEach((word, i) => { if (i > 0 && changed(word)) dynamic.add(i); });
  return {
    ...command,
    argv: command.argv.map(unseenHome),
    writes: command.writes.map(unseenHome),
    ...(command.reads !== undefined && { reads: command.reads.map(unseenHome) }),
    ...(command.loopWords !== undefined && { loopWords: command.loopWords.map(unseenHome) }),
    ...(command.globalWords !== undefined && { globalWords: command.globalWords.map(unseenHome) }),
    ...(command.wrapperWords !== undefined && { wrapperWords: command.wrapperWords.map((words) => words.map(unseenHome)) }),
    ...(dynamic.size > 0 && { dynamicWords: [...dynamic].sort((a, b) => a - b) }),
  };
}
