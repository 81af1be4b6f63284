/**
 * Options and arguments with which a program that is neither a shell nor an interpreter runs
 * commands: a file of commands it reads (`sqlite3 -init FILE`, `psql -f FILE`, `dc -f FILE`,
 * `m4 FILE`), commands of its own language that start programs (`sqlite3 db '.shell ...'`,
 * `psql -c '\! ...'`, `mysql -e 'system ...'`, `less '+!...'`), and a command line given as an
 * option's value (`git rebase -x TEXT`, `git grep -O TEXT`, `man -P TEXT`, `zip -TT TEXT`,
 * `sort --compress-program=PROG`). The kind, not a list of samples: every program here either
 * hands the walk the command line it will run (analysed like `bash -c` text, its commands
 * judged by every rule) or makes the line uncertain, so a deny rule on a command makes it a
 * person's question and an allow rule asks. The older entries of the same kind (awk, sed, tar,
 * rsync, ssh, vim) are in `code-arguments.ts`.
 *
 * @module
 */

/** What {@link commandsInOptions} found: a reason the line is uncertain, and command lines the program runs. */
export interface OptionCommands {
  readonly doubt?: string;
  /** Command lines given as option values (static), to be analysed as nested lines. */
  readonly lines: readonly string[];
}

const NONE: OptionCommands = { lines: [] };

/** The value of option `names` at `args[i]` (`-x V`, `-xV` for one-letter names, `--name=V`), `null` when `args[i]` is not that option; undefined when the value is not static or missing. */
function valueOf(args: ReadonlyArray<string | undefined>, i: number, names: readonly string[]): { value: string | undefined; next: number } | null {
  const a = args[i];
  if (a === undefined) return null;
  for (const name of names) {
    if (a === name) return { value: args[i + 1], next: i + 1 };
    if (name.startsWith('--') && a.startsWith(`${name}=`)) return { value: a.slice(name.length + 1), next: i };
    if (/^-[A-Za-z]$/.test(name) && a.startsWith(name) && !a.startsWith('--')) return { value: a.slice(2), next: i };
  }
  return null;
}

/** Every value of the options `names` in `args`: static ones as text, others as undefined. */
function valuesOf(args: ReadonlyArray<string | undefined>, names: readonly string[]): (string | undefined)[] {
  const found: (string | undefined)[] = [];
  for (let i = 0; i < args.length; i++) {
    if (args[i] === '--') break;
    const v = valueOf(args, i, names);
    if (v === null) continue;
    found.push(v.value);
    i = v.next;
  }
  return found;
}

/** Option values that are command lines: analysed as such, or a doubt when one is not static. */
function commandValues(program: string, args: ReadonlyArray<string | undefined>, names: readonly string[], what: string): OptionCommands {
  const values = valuesOf(args, names);
  if (values.length === 0) return NONE;
  if (values.some((v) => v === undefined)) return { doubt: `${program} ${what} a command that is not static`, lines: [] };
  return { lines: values as string[] };
}

/** sqlite3's options that take a value (so that its database operand is found). */
const SQLITE_VALUE_OPTIONS = /^--?(cmd|init|separator|newline|nullvalue|vfs|mmap|pagecache|lookaside|maxsize|heap|escape)$/;

/** SQL or dot-command text for sqlite3 that may start a program or read commands from a file: a dot command (`.shell`, `.system`, `.read`, `.once |cmd`, `.load`), load_extension(), edit(). */
function sqliteRuns(text: string): boolean {
  return /^\s*\./m.test(text) || /load_extension|\bedit\s*\(/i.test(text);
}

function sqlite(program: string, args: ReadonlyArray<string | undefined>): OptionCommands {
  let database = false;
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a !== undefined && /^--?init(=|$)/.test(a)) return { doubt: `${program} -init reads commands from a file the analysis does not read`, lines: [] };
    if (a !== undefined && /^--?cmd$/.test(a)) {
      const v = args[++i];
      if (v === undefined || sqliteRuns(v)) return { doubt: `${program} -cmd runs a dot command or SQL that may start programs`, lines: [] };
      continue;
    }
    if (a !== undefined && SQLITE_VALUE_OPTIONS.test(a)) { i++; continue; }
    if (a !== undefined && a.startsWith('-') && !database) continue;
    if (!database) { database = true; continue; }
    // what follows the database is SQL or dot commands, run in order
    if (a === undefined || sqliteRuns(a)) return { doubt: `${program} runs a dot command (.shell, .system, .read, .once |...) or SQL that may start programs or read commands from a file`, lines: [] };
  }
  return NONE;
}

function psql(args: ReadonlyArray<string | undefined>): OptionCommands {
  if (valuesOf(args, ['-f', '--file']).length > 0) return { doubt: 'psql -f reads commands from a file the analysis does not read', lines: [] };
  // backslash commands (`\!`, `\i`, `\o |cmd`, `\copy ... program`) and COPY ... PROGRAM start programs or read files of commands
  if (valuesOf(args, ['-c', '--command']).some((v) => v === undefined || v.includes('\\') || /\bprogram\b/i.test(v))) return { doubt: 'psql -c runs a backslash command or COPY PROGRAM, which may start programs', lines: [] };
  if (valuesOf(args, ['-o', '--output', '-L', '--log-file']).some((v) => v === undefined || v.trimStart().startsWith('|'))) return { doubt: 'psql writes its output to a command', lines: [] };
  return NONE;
}

function mysql(program: string, args: ReadonlyArray<string | undefined>): OptionCommands {
  if (args.some((a) => a !== undefined && /^--(pager|defaults-file|defaults-extra-file|plugin-dir|default-auth|load-data-local-dir)(=|$)/.test(a))) {
    return { doubt: `${program} is given a pager, a configuration file or a plugin, which may start programs`, lines: [] };
  }
  if (valuesOf(args, ['-e', '--execute']).some((v) => v === undefined || /\\[!.P]|\b(system|source|pager)\b/i.test(v))) {
    return { doubt: `${program} -e runs a client command (system, source, pager) that may start programs or read commands from a file`, lines: [] };
  }
  return NONE;
}

/** git subcommand options whose value is a command line git runs. */
const GIT_COMMAND_OPTIONS: Readonly<Record<string, readonly string[]>> = {
  rebase: ['-x', '--exec'],
  grep: ['-O', '--open-files-in-pager'],
  difftool: ['-x', '--extcmd'],
  'filter-branch': ['--env-filter', '--tree-filter', '--index-filter', '--parent-filter', '--msg-filter', '--commit-filter', '--tag-name-filter'],
  'send-email': ['--sendmail-cmd', '--to-cmd', '--cc-cmd', '--header-cmd', '--smtp-server'],
  fetch: ['--upload-pack'], pull: ['--upload-pack'], clone: ['-u', '--upload-pack'], 'ls-remote': ['--upload-pack'],
  push: ['--receive-pack', '--exec'], archive: ['--exec'],
};

/** `args` are git's words after the subcommand's global options were dropped (`normaliseGit`): `[sub, ...]`. */
function git(args: ReadonlyArray<string | undefined>): OptionCommands {
  const sub = args[0];
  if (sub === undefined) return NONE;
  const rest = args.slice(1);
  if (sub === 'bisect' && rest[0] === 'run') {
    return rest.slice(1).some((a) => a === undefined) ? { doubt: 'git bisect run runs a command that is not static', lines: [] } : { lines: [rest.slice(1).map((a) => shellQuote(a!)).join(' ')] };
  }
  if (sub === 'submodule' && rest.includes('foreach')) {
    const text = rest[rest.lastIndexOf('foreach') + 1 + (rest.slice(rest.lastIndexOf('foreach') + 1).findIndex((a) => a === undefined || !a.startsWith('-')))];
    return text === undefined ? { doubt: 'git submodule foreach runs a command that is not static', lines: [] } : { lines: [text] };
  }
  if (sub === 'help' && rest.some((a) => a === undefined || /^(-w|--web|--browser|-[a-z]*w)/.test(a))) return { doubt: 'git help --web starts a browser the configuration names', lines: [] };
  const names = GIT_COMMAND_OPTIONS[sub];
  return names === undefined ? NONE : commandValues(`git ${sub}`, rest, names, 'runs');
}

/** A word quoted for a shell line. */
function shellQuote(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/**
 * What `program`'s own arguments make it run (see the module's summary). `args` are its words
 * after the name (undefined for one that is not static); for git, after its global options.
 */
export function commandsInOptions(program: string, args: ReadonlyArray<string | undefined>): OptionCommands {
  switch (program) {
    case 'sqlite3':
    case 'sqlite':
      return sqlite(program, args);
    case 'psql':
      return psql(args);
    case 'mysql':
    case 'mariadb':
      return mysql(program, args);
    case 'git':
      return git(args);
    case 'dc':
      for (let i = 0; i < args.length; i++) {
        const expression = valueOf(args, i, ['-e', '--expression']);
        if (expression !== null) {
          if (expression.value === undefined || expression.value.includes('!')) return { doubt: 'dc -e runs a program with the ! command, which starts programs', lines: [] };
          i = expression.next;
        } else if (args[i] === undefined || /^(-f|--file)/.test(args[i]!) || !args[i]!.startsWith('-')) return { doubt: 'dc reads a program from a file (its ! command starts programs)', lines: [] };
      }
      return NONE;
    case 'm4':
      // syscmd and esyscmd run commands; a file's macros are not read here
      if (args.some((a) => a === undefined || (!a.startsWith('-') && a !== '-'))) return { doubt: 'm4 reads macros from a file the analysis does not read (syscmd and esyscmd run commands)', lines: [] };
      return NONE;
    case 'less':
    case 'more':
      // `+CMD` runs less commands at start: `!cmd` and `|` start programs
      return args.some((a) => a === undefined || (/^(\+|-\+|--?(cmd|command))/.test(a) && /[!|]/.test(a))) ? { doubt: `${program} runs a command at start that may start programs`, lines: [] } : NONE;
    case 'man':
      return commandValues('man', args, ['-P', '--pager', '-H', '--html'], 'runs');
    case 'zip':
      return merge(commandValues('zip', args, ['--unzip-command'], 'runs'), commandValues('zip', args, ['-TT'], 'runs'));
    case 'sort':
      return commandValues('sort', args, ['--compress-program'], 'runs');
    case 'ssh-keygen':
      return args.some((a) => a === undefined || /^-[A-Za-z]*[DK]|^-O/.test(a)) ? { doubt: 'ssh-keygen loads a library or runs a helper (-D, -O, -K)', lines: [] } : NONE;
    case 'openssl':
      return args.some((a) => a === undefined || /^-?(engine|provider|provider-path)$/.test(a) || /SO_PATH|LOAD/.test(a)) ? { doubt: 'openssl loads an engine or provider library', lines: [] } : NONE;
    case 'gpg':
    case 'gpg2':
      return args.some((a) => a === undefined || /^--(exec-path|photo-viewer|load-extension|agent-program|dirmngr-program|keyserver-options|list-options|verify-options)/.test(a))
        ? { doubt: `${program} is given a program to run or a library to load`, lines: [] } : NONE;
    default:
      return NONE;
  }
}

function merge(a: OptionCommands, b: OptionCommands): OptionCommands {
  const doubt = a.doubt ?? b.doubt;
  return { ...(doubt !== undefined && { doubt }), lines: [...a.lines, ...b.lines] };
}
