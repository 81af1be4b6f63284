/**
 * A deny or ask command rule's program named inside another command's arguments: `git rebase
 * -x 'curl x'`, `man -P 'curl x' ls`, `python3 -c 'os.system("curl x")'`, `socat -
 * EXEC:'curl x'` under a deny rule for curl. Such a program may run the text as a command
 * line, which the analysis does not read (a list of the programs that do cannot be
 * completed), so the line counts as one that may hold the denied command: only a person
 * allows it (issue 30, item 6). A command a per-program table vouches for (`echo curl`,
 * `grep curl notes.txt`, `git log --grep=curl`) prints or reads its words and is not counted.
 *
 * @module
 */
import type { PolicyFile, PolicyRule } from './policy-file.js';
import { commandCoverage } from './shell/program-tables/coverage.js';
import type { ShellAnalysis } from './shell/types.js';

/** Characters that end a program name inside a word of text: blanks, shell operators, quotes, `=`, `:` and `,` (`--exec=curl`, `EXEC:curl`), `!` (`+!curl`). */
const SEPARATORS = /[\s;|&()<>`'"!={}$:,\\]+/;

/** Nothing of the command is named by a rule: the table alone decides. */
const BARE = { named: 0, matched: 0, namedWrapper: -1, allowOption: () => false } as const;

/**
 * The last deny rule (else the last ask rule) among `rules` whose command names a program
 * that a command of `shell` not vouched for by a table names inside its arguments, or
 * undefined. `rules` are the file's rules that match the call apart from the command.
 */
export function ruleNamedInArguments(file: PolicyFile, shell: ShellAnalysis, matchesCall: (rule: PolicyRule) => boolean): PolicyRule | undefined {
  let ask: PolicyRule | undefined;
  for (let i = file.rules.length - 1; i >= 0; i--) {
    const rule = file.rules[i]!;
    const program = rule.matchers.command?.[0];
    if (program === undefined || rule.action === 'allow' || (rule.action === 'ask' && ask !== undefined) || !matchesCall(rule)) continue;
    const named = shell.commands.some((command) => {
      if (command.argv.length < 2 || commandCoverage(command, BARE).covered) return false;
      return command.argv.slice(1).some((word) => word.split(SEPARATORS).some((token) => token !== '' && names(program, token)));
    });
    if (!named) continue;
    if (rule.action === 'deny') return rule;
    ask = rule;
  }
  return ask;
}

/** Whether `token` names the program: as it is, by its last path part (`/usr/bin/curl`), or after a short option it is glued to (`-Ocurl`). */
function names(program: (word: string) => boolean, token: string): boolean {
  const base = token.slice(token.lastIndexOf('/') + 1);
  return program(token) || program(base) || (/^-[A-Za-z0-9]./.test(base) && program(base.slice(2)));
}
