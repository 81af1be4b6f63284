/**
 * git commands that print committed (or staged) file content from git's own objects: `git
 * show HEAD`, `git log -p`, `git diff HEAD~1`, `git grep X HEAD`, `git archive`, `git stash
 * show -p`. The sandbox hides a withheld working file, not the objects, and the path words of
 * such a line name no file, so under a deny or ask rule on paths the policy decider asks a
 * person about them (`policy-files.decider.ts`). The reading is the narrowest: a command is
 * free of this only when its form prints no file content (`git status`, `git log --oneline`),
 * names each blob it prints by `rev:path` (`git show HEAD:ok.txt`, judged by its path), or is
 * limited by pathspecs that are each an existing regular file (`git log -p -- ok.txt`);
 * any other form, and every subcommand not known here, counts as reading content.
 *
 * @module
 */
import { globSegmentPattern } from './glob-segment.js';
import type { ShellCommand } from './shell/types.js';

/** What a pathspec word names in the workspace: a regular file, a folder (or anything else), or nothing. */
export type PathKind = 'file' | 'other' | undefined;

/** Subcommands that print no file content (names, hashes, subjects, refs), apart from the options in {@link CONTENT_OPTIONS_OF}. */
const NO_CONTENT = new Set([
  'status', 'rev-parse', 'ls-files', 'ls-tree', 'merge-base', 'name-rev', 'describe', 'show-ref', 'for-each-ref', 'count-objects',
  'check-ignore', 'check-attr', 'check-ref-format', 'cherry', 'show-branch', 'version', 'var', 'branch', 'tag', 'remote', 'config',
  'stripspace', 'shortlog', 'rev-list', 'blame', 'commit', 'rm', 'mv', 'init', 'fetch', 'pull', 'push', 'merge', 'switch', 'add',
  'checkout', 'restore', 'reset', 'help',
]);

/** Options of a {@link NO_CONTENT} subcommand that print content: short letters, long names. */
const CONTENT_OPTIONS_OF: Readonly<Record<string, { short: string; long: readonly string[] }>> = {
  status: { short: 'v', long: ['--verbose'] },
  commit: { short: 'vp', long: ['--verbose', '--patch'] },
  add: { short: 'pie', long: ['--patch', '--interactive', '--edit'] },
  checkout: { short: 'p', long: ['--patch'] },
  restore: { short: 'p', long: ['--patch'] },
  reset: { short: 'p', long: ['--patch'] },
  config: { short: '', long: ['--blob'] },
};

/** Subcommands of the diff machinery: content only with a patch (by default for those in {@link PATCH_BY_DEFAULT}). */
const DIFF_FAMILY = new Set(['log', 'whatchanged', 'reflog', 'diff', 'show', 'diff-tree', 'diff-index', 'diff-files', 'range-diff']);
const PATCH_BY_DEFAULT = new Set(['diff', 'show', 'range-diff']);

/** Short options of the diff machinery that print or search content (a patch, a combined diff, pickaxe, line ranges). */
const PATCH_SHORT = 'puLSGWUcma';
/** Long options of the diff machinery that print or search content, by name (before `=`). */
const PATCH_LONG = new Set([
  '--patch', '--unified', '--function-context', '--patch-with-raw', '--patch-with-stat', '--word-diff', '--word-diff-regex', '--color-words',
  '--binary', '--check', '--cc', '--combined-all-paths', '--remerge-diff', '--diff-merges', '--pickaxe-all', '--pickaxe-regex', '--ext-diff',
  '--textconv', '--output', '--text', '--full-diff', '--follow', '--inter-hunk-context', '--line-prefix',
]);
/** Options that replace a patch-by-default with names or numbers. */
const NO_PATCH = new Set(['-s', '--no-patch', '--stat', '--numstat', '--shortstat', '--name-only', '--name-status', '--raw', '--summary', '--dirstat', '--compact-summary', '-X']);

/**
 * Why `command` (a `git` command) may print committed file content not named by a judged
 * path, or undefined when it cannot. `kindOf` tells what a word names in the workspace;
 * `underWithheld` whether a withheld path could lie at or below a word were it a folder in
 * some commit ({@link couldMatchBelow}; by default every word could).
 */
export function gitContentRead(command: ShellCommand, kindOf: (word: string) => PathKind, underWithheld: (word: string) => boolean = () => true): string | undefined {
  if (command.program !== 'git') return undefined;
  const args = command.argv.slice(1);
  const sub = args[0];
  if (sub === undefined) return undefined;
  const rest = args.slice(1);
  const dashes = rest.indexOf('--');
  const options = (dashes < 0 ? rest : rest.slice(0, dashes)).filter((w) => w.startsWith('-') && w !== '-');
  const why = `\`git ${sub}\` may print committed content of any file from git's objects, which the sandbox does not hide`;
  // a word computed at run time may be any option or revision
  if ((command.dynamicWords?.length ?? 0) > 0) return why;
  if (NO_CONTENT.has(sub)) {
    const content = CONTENT_OPTIONS_OF[sub];
    return content !== undefined && hasOption(options, content.short, content.long) ? why : undefined;
  }
  if (sub === 'cat-file') return catFileReads(rest, options) ? why : undefined;
  if (sub === 'grep') return grepReads(rest, kindOf) ? why : undefined;
  if (sub === 'stash') {
    const first = rest.find((w) => !w.startsWith('-'));
    return first === 'show' || hasOption(options, PATCH_SHORT, [...PATCH_LONG]) ? why : undefined;
  }
  if (!DIFF_FAMILY.has(sub)) return why;
  const patch = hasOption(options, PATCH_SHORT, [...PATCH_LONG]) || (PATCH_BY_DEFAULT.has(sub) && !options.some((o) => NO_PATCH.has(o.split('=')[0]!)));
  if (sub === 'show') {
    // every object named by `rev:path`: its path was judged; a bare revision may be a commit's patch or a blob
    const objects = operands(rest);
    if (objects.length > 0 && objects.every((w) => revisionPath(w))) return undefined;
    return why;
  }
  if (!patch) return undefined;
  if (options.some((o) => ['--full-diff', '--follow'].includes(o.split('=')[0]!))) return why;
  return limitedToFiles(rest, kindOf, underWithheld) ? undefined : why;
}

/** The words that are not options, `--` excluded (pathspecs after it included). */
function operands(rest: readonly string[]): string[] {
  const dashes = rest.indexOf('--');
  const before = (dashes < 0 ? rest : rest.slice(0, dashes)).filter((w) => !w.startsWith('-') || w === '-');
  return dashes < 0 ? before : [...before, ...rest.slice(dashes + 1)];
}

/** `rev:path`, `:path`, `:0:path`: a blob (or tree) named with its path. */
function revisionPath(word: string): boolean {
  return /^[^:]*:([0-3]:)?[^:]/.test(word) && !word.startsWith(':(') && !word.startsWith(':/');
}

/** Whether any option is among the long names (before `=`) or a short cluster holds one of the letters. */
function hasOption(options: readonly string[], short: string, long: readonly string[]): boolean {
  return options.some((o) => {
    if (o.startsWith('--')) return long.includes(o.split('=')[0]!);
    return [...o.slice(1)].some((c) => short.includes(c));
  });
}

/**
 * Whether the output is limited by pathspecs that each name an existing regular file: those
 * after `--`, or operands not right after an option (whose value they may be); and that no
 * withheld glob could match below, since a pathspec matches in every commit, where the same
 * name may have been a folder (`git log -p -- notes` once `notes/` held `notes/id.pem`).
 */
function limitedToFiles(rest: readonly string[], kindOf: (word: string) => PathKind, underWithheld: (word: string) => boolean): boolean {
  const dashes = rest.indexOf('--');
  const specs = dashes >= 0 ? rest.slice(dashes + 1) : [];
  const before = dashes < 0 ? rest : rest.slice(0, dashes);
  for (let i = 0; i < before.length; i++) {
    const word = before[i]!;
    if (word.startsWith('-') || (i > 0 && before[i - 1]!.startsWith('-'))) continue;
    if (kindOf(word) !== undefined) specs.push(word);
  }
  return specs.length > 0 && specs.every((s) => !/[*?[\]:\\]/.test(s) && kindOf(s) === 'file' && !underWithheld(s));
}

/**
 * Whether the path glob `glob` (a deny or ask rule's, workspace-relative, matched in any case)
 * could match `spec` or a path below it, were `spec` a folder: the glob's segments, `**`
 * taking any number, are matched against the spec's, and some are left over for what lies
 * below. A glob with syntax this reading does not follow (braces, extglobs, negation) could.
 */
export function couldMatchBelow(glob: string, spec: string): boolean {
  if (/[{}()!+@]/.test(glob)) return true;
  const parts = glob.split('/').filter((p) => p !== '' && p !== '.');
  const names = spec.split('/').filter((p) => p !== '' && p !== '.');
  if (names.includes('..')) return true;
  const segment = (pattern: string, name: string): boolean => globSegmentPattern(pattern, true).test(name);
  const memo = new Map<string, boolean>();
  const can = (i: number, j: number): boolean => {
    const key = `${i},${j}`;
    const known = memo.get(key);
    if (known !== undefined) return known;
    let result: boolean;
    if (i === names.length) result = true; // the spec is used up: what is below it may match the rest (or the spec itself matched)
    else if (j === parts.length) result = false;
    else if (parts[j] === '**') result = can(i, j + 1) || can(i + 1, j);
    else result = segment(parts[j]!, names[i]!) && can(i + 1, j + 1);
    memo.set(key, result);
    return result;
  };
  return can(0, 0);
}

/** `git cat-file`: content unless only sizes, types or existence are asked, or every object is `rev:path`. */
function catFileReads(rest: readonly string[], options: readonly string[]): boolean {
  if (options.some((o) => o.startsWith('--batch') || o === '--textconv' || o === '--filters')) return true;
  if (options.some((o) => ['-t', '-s', '-e'].includes(o)) && !options.includes('-p')) return false;
  const objects = operands(rest).filter((w) => !['blob', 'tree', 'commit', 'tag'].includes(w));
  return !(objects.length > 0 && objects.every((w) => revisionPath(w)));
}

/**
 * `git grep`: content from objects with `--cached` or a revision; the working tree otherwise.
 * Free only without `--cached` and when every operand after the pattern names an existing path
 * (those are judged as words); no path at all asks too.
 */
function grepReads(rest: readonly string[], kindOf: (word: string) => PathKind): boolean {
  const dashes = rest.indexOf('--');
  const before = dashes < 0 ? rest : rest.slice(0, dashes);
  const options = before.filter((w) => w.startsWith('-'));
  if (options.some((o) => o === '--cached' || o === '--recurse-submodules')) return true;
  const words = before.filter((w) => !w.startsWith('-'));
  const patternByOption = options.some((o) => /^-(e|f)|^--(and|or|not)$/.test(o));
  const paths = [...(patternByOption ? words : words.slice(1)), ...(dashes >= 0 ? rest.slice(dashes + 1) : [])];
  return paths.length === 0 || paths.some((p) => /[*?[\]:\\]/.test(p) || kindOf(p) === undefined);
}
