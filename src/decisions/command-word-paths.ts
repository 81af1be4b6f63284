/**
 * What files and folders a shell command's words may name, for the deciders that judge paths
 * (`policy-files.decider.ts`: path rules; `protected-paths.decider.ts`: protected paths and
 * toolgate's own files). One reading for both, so that a word is judged the same way wherever
 * it is judged:
 *
 * - the word itself, an option's value after `=` (`--output=f`), the rest of a short option
 *   cluster (`-ofile`, `-fsecrets/key`), what follows each `:` (git's `HEAD:path`), and a file
 *   given as `@F`, `<F` or `NAME@F` (curl's `-d @F`, `-F n=<F`, `--variable n@F`; `@argfile`);
 * - `~` and `~user` expanded to the home folder the command would see (`HOME`, or the user's
 *   entry in `/etc/passwd`); `~+`, `~-` and an unknown user are folders the words do not show;
 *   the analysis gives words without their quotes, and bash leaves a quoted `~` (`"~/x"`) or
 *   one after `=` or `:` in a word that is not an assignment (`--out=~/x`) as it is, so a form
 *   starting with `~` is judged both ways: the home reading and a folder named `~`
 *   ({@link tildeReadings});
 * - the value of a `NAME=VALUE` argument (`dd of=FILE`), where bash expands `~` too;
 * - globs expanded against the folder's entries as bash would (dot files too: fail closed),
 *   with a `..` component climbing from where a link leads, as the kernel does;
 * - relative words taken from every folder the command may run in: the call's folder, where
 *   each static `cd`/`pushd` of the line leads, both as bash's default (`-L`) reads it (`..`
 *   removes the name before it) and as the kernel does (`-P`: `..` after a link climbs from
 *   where it leads) ({@link lineFolders}), and every folder the
 *   command's own words or its wrappers' words name ({@link commandFolders}): a program option
 *   that changes folder (`git -C DIR`, `tar -C DIR`, `make -C DIR`, `sudo -D DIR`, `env -C DIR`,
 *   `unshare -w DIR`, `ninja -C DIR`...) names its folder as a word, so this needs no list of
 *   such options, and it holds for programs no table knows; an absolute word is also taken below
 *   each such folder (`chroot DIR`, `sudo -R DIR`);
 * - a folder no word shows (`find -execdir`, `cd "$d"`, `cd -`, `popd`) is reported through
 *   `unseen`, and the deciders ask.
 *
 * The candidates are absolute paths, links not yet resolved (`Workspace.resolve` or
 * {@link realOutside} resolve them).
 *
 * @module
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { globSegmentPattern } from '../policy/glob-segment.js';
import { namesFilesInCode } from '../policy/shell/code-arguments.js';
import { programTable } from '../policy/shell/program-tables/index.js';
import type { ShellAnalysis, ShellCommand } from '../policy/shell/types.js';
import { realOf } from '../workspace/own-state-paths.js';

/** Most folders one command is judged from (the line's and its own). */
const MAX_FOLDERS = 16;

/** Most paths one glob word of a command is expanded to for judging. */
const MAX_GLOB_MATCHES = 500;

/** Most characters of an option cluster whose rests are taken as paths (`-abcdefgFILE`). */
const MAX_CLUSTER = 8;

/** A reason that some path of the line is not shown by its words (the deciders ask). */
export type Unseen = (why: string) => void;

/** Shortened command text for messages. */
export function shownText(command: ShellCommand, max = 120): string {
  return command.text.length > max ? `${command.text.slice(0, max)}…` : command.text;
}

/**
 * The forms of a word that may be paths: the word (unless an option), an option's value after
 * `=`, the rests of a short option cluster (`-ofile` gives `ofile`, `file`...), what follows
 * each `:` (git reads `HEAD:secrets/key`, `:0:secrets/key`), and the file of an `@F`, `<F` or
 * `NAME@F` form (curl reads `-d @secrets/key`, `-F 'f=@secrets/key;type=text/plain'`).
 */
export function wordPathForms(word: string): string[] {
  const forms: string[] = [];
  if (!word.startsWith('-')) {
    forms.push(word);
    // `NAME=VALUE` as an argument (`dd of=~/.bashrc`, `make FILE=x`): bash expands a `~` after
    // its `=` as in an assignment, and the program may read VALUE as a path
    const assigned = /^[A-Za-z_][A-Za-z0-9_]*=/.exec(word);
    if (assigned !== null) forms.push(word.slice(assigned[0].length));
  } else if (word.includes('=')) forms.push(word.slice(word.indexOf('=') + 1));
  else if (!word.startsWith('--')) for (let k = 2; k < Math.min(word.length, MAX_CLUSTER + 2); k++) forms.push(word.slice(k));
  for (const form of [...forms, ...(word.startsWith('-') && !word.includes('=') && word.includes(':') ? [word] : [])]) {
    for (let at = form.indexOf(':'); at >= 0; at = form.indexOf(':', at + 1)) forms.push(form.slice(at + 1));
  }
  // a file given by `@F` or `<F` (curl's `-d @F`, `-F n=@F;type=x`, `-F 'n=<F'`, `-H @F`, a
  // compiler's or javac's `@argfile`) or `NAME@F` (curl's `--variable n@F`, `--data-urlencode n@F`),
  // with the `;type=...` curl allows after it and its quotes
  for (const form of [...forms]) {
    const at = /^(?:[<@]|%?[A-Za-z_][A-Za-z0-9_]*@)(.+)$/.exec(form);
    if (at === null) continue;
    const file = at[1]!.replace(/^"([^"]*)".*$/, '$1');
    forms.push(file, file.split(';')[0]!);
  }
  // a program's own brace globbing (curl expands `-T '{secrets/key,x}'` and `file:///a/{b}`):
  // a quoted `{...}` is literal to bash, so the word is static, and each alternative is judged
  for (const form of [...forms]) if (form.includes('{') && form.includes('}')) forms.push(...braceForms(form));
  return [...new Set(forms.filter((f) => f !== '' && !f.startsWith('-') && !f.includes('\u0000')))];
}

/**
 * Most forms one word's braces expand to for judging. A curl word whose braces expand to more
 * than {@link MAX_BRACE_WORDS} is unseen for path purposes (`understood-programs.ts`), so the
 * cut never decides alone.
 */
const MAX_BRACE_FORMS = 256;

/** How many names a word's braces may expand to before a program that globs them is unseen. */
export const MAX_BRACE_WORDS = 64;

/** `{a,b}` and `{a}` groups of `form` expanded (innermost first, as curl and bash read them), at most {@link MAX_BRACE_FORMS}. */
function braceForms(form: string): string[] {
  const out: string[] = [];
  const pending = [form];
  while (pending.length > 0 && out.length < MAX_BRACE_FORMS) {
    const next = pending.pop()!;
    const m = /\{([^{}]*)\}/.exec(next);
    if (m === null) {
      out.push(next);
      continue;
    }
    for (const alternative of m[1]!.split(',')) pending.push(next.slice(0, m.index) + alternative + next.slice(m.index + m[0].length));
  }
  return out;
}

/**
 * The home folder `~user` names (`user` empty: the command's own `HOME`), or undefined when it
 * is not known. Read from `/etc/passwd` for another user (Node has no getpwnam).
 */
export function homeFolder(user: string): string | undefined {
  if (user === '') {
    const home = process.env.HOME || os.homedir();
    return path.isAbsolute(home) ? home : undefined;
  }
  if (!/^[A-Za-z0-9_][A-Za-z0-9_.-]*\$?$/.test(user)) return undefined;
  try {
    if (os.userInfo().username === user) return os.userInfo().homedir;
  } catch {
    // no entry for the current user: read the file
  }
  try {
    for (const line of fs.readFileSync('/etc/passwd', 'utf8').split('\n')) {
      const fields = line.split(':');
      if (fields[0] === user && fields[5] !== undefined && path.isAbsolute(fields[5])) return fields[5];
    }
  } catch {
    // no passwd file: not known
  }
  return undefined;
}

/**
 * A path form with a leading `~` or `~user` expanded, as bash expands it at the start of a
 * word (and after `=` in an assignment-like option value); `undefined` when the folder is not
 * known (`~+`, `~-`, an unknown user). A form without `~` is returned as it is.
 */
export function expandTilde(form: string): string | undefined {
  const m = /^~([^/]*)(\/.*)?$/.exec(form);
  if (m === null) return form;
  const user = m[1]!;
  if (user === '+' || user === '-' || /^[+-]?\d+$/.test(user)) return undefined;
  const home = homeFolder(user);
  return home === undefined ? undefined : `${home}${m[2] ?? ''}`;
}

/**
 * The paths a form may be after tilde expansion: the form itself when it does not start with
 * `~`; else its home reading ({@link expandTilde}, absent with `unknown` set when that folder is
 * not known) and the form as written (a folder named `~`): the words come without their quotes,
 * and bash expands `~` only unquoted, at the start of a word or after the first `=` or a `:` of
 * an assignment, so both readings are judged (fail closed).
 */
export function tildeReadings(form: string): { forms: string[]; unknown: boolean } {
  if (!form.startsWith('~')) return { forms: [form], unknown: false };
  const home = expandTilde(form);
  return { forms: home === undefined ? [form] : [home, form], unknown: home === undefined };
}

/** `absolute` with every existing link resolved (the missing rest appended), wherever it is. */
export function realOutside(absolute: string): string {
  return realOf(absolute) ?? absolute;
}

/**
 * The existing paths (absolute) a shell glob word (`*`, `?`, `[...]` in its components) names
 * from the folder `from`, as bash would expand it, except that a leading dot is matched too
 * (fail closed); at most {@link MAX_GLOB_MATCHES}. A `..` component climbs from where the
 * folder before it really is (a link's target), as the kernel does.
 */
function globMatches(from: string, word: string): string[] {
  let current = [path.isAbsolute(word) ? path.parse(word).root : from];
  for (const part of word.split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '..') {
      current = [...new Set(current.map((c) => path.dirname(realOutside(c))))];
      continue;
    }
    if (!/[*?[]/.test(part)) {
      current = current.map((c) => path.join(c, part));
      continue;
    }
    const pattern = globSegmentPattern(part);
    const next: string[] = [];
    for (const folder of current) {
      let names: string[];
      try {
        names = fs.readdirSync(folder);
      } catch {
        continue;
      }
      for (const name of names) if (pattern.test(name) && next.push(path.join(folder, name)) >= MAX_GLOB_MATCHES) break;
    }
    current = next.slice(0, MAX_GLOB_MATCHES);
  }
  return current;
}

/**
 * The absolute paths (links not resolved) a command word may name from the folders `bases`:
 * each of its {@link wordPathForms}, `~` expanded, globs expanded. Forms that are not static
 * text (`$`, backquotes, braces) are skipped: the deciders see them through `dynamicWords`.
 */
function wordTargets(command: ShellCommand, word: string, bases: readonly string[], unseen: Unseen, roots: readonly string[], lexical: ReadonlySet<string>): string[] {
  const out: string[] = [];
  for (const raw of wordPathForms(word)) {
    const readings = tildeReadings(raw);
    if (readings.unknown) unseen(`the word \`${word.slice(0, 80)}\` of \`${shownText(command)}\` names a folder (~+, ~-, an unknown user's home) the words do not show`);
    for (const form of readings.forms) out.push(...formTargets(word, form, bases, unseen, roots, lexical));
  }
  return [...new Set(out)];
}

/** The absolute paths one path form (`~` expanded or not) of `word` names from `bases` (see {@link wordTargets}). */
function formTargets(word: string, form: string, bases: readonly string[], unseen: Unseen, roots: readonly string[], lexical: ReadonlySet<string>): string[] {
  if (/[{}$`\u0000]/.test(form)) return [];
  if (/^\/proc\/(self|thread-self|\d+)\/(cwd|root|fd|map_files)(\/|$)/.test(form) && !/^\/proc\/(self|thread-self)\/root(\/|$)/.test(form)) {
    unseen(`${JSON.stringify(word.slice(0, 80))} names a file through another process's view (/proc/.../cwd, fd), which the words do not show`);
  }
  // an absolute word names the same path below each new root the command names
  const spelled = path.isAbsolute(form) ? [form, ...roots.map((root) => path.join(root, form))] : bases.map((base) => (lexical.has(base) ? path.resolve(base, form) : `${base}${path.sep}${form}`));
  return /[*?[]/.test(form) ? spelled.flatMap((one) => globMatches('/', one)) : spelled;
}

/** Whether `absolute` is a folder (links followed). */
function isFolder(absolute: string): boolean {
  try {
    return fs.statSync(absolute).isDirectory();
  } catch {
    return false;
  }
}

/**
 * The folders the commands of a line may run in, without a sandbox: the call's folder, and
 * where each static `cd`/`pushd` of the line leads from those (at most {@link MAX_FOLDERS}). A
 * folder change that is not static (`cd "$d"`, `cd -`, `cd` alone, `popd`) is reported through
 * `unseen`. Each change is followed as bash's default `cd -L` reads it (lexically) and as the
 * kernel resolves it (`cd -P`: links first, then `..`), and a `~` word both as the home folder
 * and as a folder named `~` ({@link tildeReadings}).
 */
function lineFolders(analyses: readonly ShellAnalysis[], from: string, unseen: Unseen): string[] {
  let bases = [from];
  // cd looks a relative name up in CDPATH's folders first (`CDPATH=sub cd deep`, `read CDPATH`)
  const cdpath = analyses.some((analysis) => analysis.commands.some((command) => /CDPATH/.test(command.text)));
  for (const analysis of analyses) {
    for (const command of analysis.commands) {
      if (!['cd', 'pushd', 'popd'].includes(command.program)) continue;
      const target = command.argv.slice(1).find((w) => !/^-[LPe@]+$/.test(w));
      // (a `~` word may be quoted, then a name CDPATH is searched for)
      if (cdpath && target !== undefined && !/^(\/|\.\.?(\/|$))/.test(target)) {
        unseen(`\`${shownText(command)}\` may change to a folder of CDPATH, which the line sets`);
        continue;
      }
      const readings = target === undefined ? undefined : tildeReadings(target);
      if (command.program === 'popd' || readings === undefined || readings.unknown || target === '-' || (command.dynamicWords?.length ?? 0) > 0 || /^[+-]/.test(target!)) {
        unseen(`\`${shownText(command)}\` changes to a folder the words do not show`);
        continue;
      }
      // bash's cd (-L) removes the name before a `..`; `cd -P`, `set -P`, or a -L change that
      // fails, go where the kernel leads (`..` after a link climbs from the link's target): both
      const next: string[] = [];
      for (const base of bases) {
        for (const form of readings.forms) {
          const lexical = path.resolve(base, form);
          const physical = realOutside(path.isAbsolute(form) ? form : `${base}${path.sep}${form}`);
          next.push(lexical);
          // the same folder unless a `..` follows a link
          if (physical !== realOutside(lexical)) next.push(physical);
        }
      }
      bases = [...new Set([...bases, ...next])];
      if (bases.length > MAX_FOLDERS) {
        unseen('the line changes folder more often than is followed');
        bases = bases.slice(0, MAX_FOLDERS);
      }
    }
  }
  return bases;
}

/** find's actions that run a command in the folder of each file found. */
const IN_FOUND_FOLDER = new Set(['-execdir', '-okdir']);

/**
 * The folders one command may run in or be rooted at: the line's `bases`, and every existing
 * folder its words and its wrappers' words name from those (`git -C sub`, `tar -C sub`,
 * `sudo -D sub`, `env --chdir=sub`, `chroot sub`): a relative word of the command is judged
 * from each of them too. A command of `find -execdir`/`-okdir` with words besides `{}` runs in
 * folders the words do not show (every folder below the starting points): `unseen`.
 */
function commandFolders(command: ShellCommand, bases: readonly string[], unseen: Unseen, lexical: Set<string>): string[] {
  if (command.program === 'find') {
    const argv = command.argv;
    for (let i = 1; i < argv.length; i++) {
      if (!IN_FOUND_FOLDER.has(argv[i]!)) continue;
      let end = i + 1;
      while (end < argv.length && argv[end] !== ';' && argv[end] !== '+') end++;
      if (argv.slice(i + 1, end).some((w, k) => k > 0 && w !== '{}')) {
        unseen(`\`${shownText(command)}\` runs a command in each folder find walks (${argv[i]}), which the words do not show`);
      }
      i = end;
    }
  }
  const words = [...command.argv.slice(1), ...(command.wrapperWords ?? []).flatMap((w) => w.slice(1)), ...(command.globalWords ?? [])];
  // a folder made earlier in the line (`mkdir d && tar -C d -cf - ../.env`) does not exist yet: a word climbing with `..` is also taken from it, on paper
  const climbs = [...words, ...command.writes, ...(command.reads ?? [])].some((word) => wordPathForms(word).some((form) => /(^|\/)\.\.(\/|$)/.test(form)));
  const out = [...bases];
  for (const word of words) {
    for (const form of wordPathForms(word).flatMap((raw) => tildeReadings(raw).forms)) {
      if (/[*?[{}$`\u0000]/.test(form)) continue;
      for (const base of bases) {
        // not normalised: `sub/link/..` is where the link leads's parent, as the kernel reads it
        const folder = path.isAbsolute(form) ? form : `${base}${path.sep}${form}`;
        if (out.includes(folder)) continue;
        if (!isFolder(folder)) {
          if (!climbs || fs.existsSync(folder)) continue;
          lexical.add(folder);
        }
        if (out.length >= MAX_FOLDERS * 2) {
          unseen(`\`${shownText(command)}\` names more folders than are followed`);
          return out;
        }
        out.push(folder);
      }
    }
  }
  return out;
}

/**
 * Every word of a command that may name a path, with the folders to take it from: its
 * arguments, its wrappers' own words (`xargs -a FILE`, `flock FILE`, `time -o FILE`), git's
 * global words, its redirect targets and input files, and the words the loops around it
 * iterate over (`ShellCommand.loopWords`: `for f in ~/.ssh/*; do cat "$f"; done`). A relative word is taken from every folder
 * of {@link commandFolders}; an absolute one also below each folder the command names past the
 * line's (a new root: `chroot sub`, `sudo -R sub`).
 */
function commandTargets(command: ShellCommand, lineBases: readonly string[], unseen: Unseen): { word: string; targets: string[] }[] {
  // folders that do not exist yet (made earlier in the line): words are taken from them on paper
  const lexical = new Set<string>();
  const folders = commandFolders(command, lineBases, unseen, lexical);
  const roots = folders.slice(lineBases.length);
  const words = [...command.argv.slice(1), ...(command.wrapperWords ?? []).flatMap((w) => w.slice(1)), ...(command.globalWords ?? []), ...command.writes, ...(command.reads ?? []), ...(command.loopWords ?? [])];
  const out: { word: string; targets: string[] }[] = [];
  for (const word of new Set(words)) out.push({ word, targets: wordTargets(command, word, folders, unseen, roots, lexical) });
  return out;
}

/**
 * Why a command reads files no word of the line names, or undefined: under `xargs` its words
 * come from the input (`ls -a | xargs cat`, `xargs -a list cat`), or an option of its table
 * reads a list of file names from a file (`sort --files0-from=list`, `tar -T list`,
 * `md5sum -c sums`; `readsNames` in `program-tables/`), or its own code names files (an
 * interpreter's code, awk's `ARGV`, sed's `r`/`w`: `namesFilesInCode`). A program the analysis
 * does not understand at all (`make`, `./run.sh`) is `understood-programs.ts`'s. A long option is matched by its name or a
 * prefix of at least 3 letters (GNU abbreviations), a short one anywhere in a cluster: fail closed.
 */
export function namesNotInWords(command: ShellCommand): string | undefined {
  if (command.wrappers.includes('xargs')) return `\`${shownText(command)}\` gets file names from xargs's input, which the words do not show`;
  const inCode = command.argv[0] === undefined ? undefined : namesFilesInCode(command.program, command.argv.slice(1));
  if (inCode !== undefined) return `\`${shownText(command)}\`: ${inCode}, which the words do not show`;
  const table = command.argv[0]?.includes('/') === true ? undefined : programTable(command.program);
  const form = table?.subcommands !== undefined ? table.subcommands[command.argv[1] ?? ''] : table?.form;
  for (const entry of form?.options ?? []) {
    if (entry.readsNames !== true) continue;
    for (const name of entry.names) {
      const long = name.startsWith('--');
      const hit = command.argv.slice(1).find((word) => {
        if (word === '--') return false;
        if (long) {
          const given = word.split('=')[0]!;
          return given.length >= 5 && name.startsWith(given);
        }
        return !word.startsWith('--') && word.startsWith('-') && word.slice(1).includes(name[1]!) || (table?.programs.includes('tar') === true && /^[A-Za-z]+$/.test(word) && word.includes(name[1]!) && word === command.argv[1]);
      });
      if (hit !== undefined) return `\`${shownText(command)}\` reads the names of the files it reads from a file (${hit}), which the words do not show`;
    }
  }
  return undefined;
}

/**
 * One call's command words read as paths ({@link lineFolders}, {@link commandTargets}), shared
 * by the deciders of one decision (protected paths, own state, policy path rules): each reading
 * stats and resolves every word in every folder. What the reading could not show is kept in
 * order and told to each reader again, so each decides as with a reading of its own.
 */
export class LineReading {
  private lineBases: { bases: string[]; notes: string[] } | undefined;
  private own: string[] | undefined;
  private readonly byBases = new Map<readonly string[], Map<ShellCommand, { targets: { word: string; targets: string[] }[]; notes: string[] }>>();

  constructor(private readonly call: { readonly paths: readonly { readonly real: string }[]; readonly workspace: { readonly realRoot: string }; readonly commands: readonly ShellAnalysis[] }) {}

  /** The call's own folder (its first path argument's, else the workspace root), as one stable list. */
  callFolder(): string[] {
    return (this.own ??= [this.call.paths[0]?.real ?? this.call.workspace.realRoot]);
  }

  /** The folders the line's commands may run in ({@link lineFolders}), its notes told to `unseen`. */
  bases(unseen: Unseen): string[] {
    if (this.lineBases === undefined) {
      const notes: string[] = [];
      this.lineBases = { bases: lineFolders(this.call.commands, this.callFolder()[0]!, (why) => notes.push(why)), notes };
    }
    for (const why of this.lineBases.notes) unseen(why);
    return this.lineBases.bases;
  }

  /** What `command`'s words may name from `bases` (one of this reading's lists; {@link commandTargets}), its notes told to `unseen`. */
  targets(command: ShellCommand, bases: readonly string[], unseen: Unseen): { word: string; targets: string[] }[] {
    let cache = this.byBases.get(bases);
    if (cache === undefined) this.byBases.set(bases, (cache = new Map()));
    let read = cache.get(command);
    if (read === undefined) {
      const notes: string[] = [];
      read = { targets: commandTargets(command, bases, (why) => notes.push(why)), notes };
      cache.set(command, read);
    }
    for (const why of read.notes) unseen(why);
    return read.targets;
  }
}

const readings = new WeakMap<object, LineReading>();

/**
 * The {@link LineReading} of `call` for the deciders asked about it in this synchronous pass:
 * made on first use and forgotten at the next microtask, so a later look (the recheck after a
 * person's answer, a decision after an async decider) reads the file system afresh.
 */
export function lineReading(call: ConstructorParameters<typeof LineReading>[0]): LineReading {
  let reading = readings.get(call);
  if (reading === undefined) {
    reading = new LineReading(call);
    readings.set(call, reading);
    queueMicrotask(() => readings.delete(call));
  }
  return reading;
}
