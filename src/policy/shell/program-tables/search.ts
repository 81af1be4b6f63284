/**
 * grep and ripgrep: their reading options. Not covered for rg: `--pre` (runs a program on
 * every file), `-z` / `--search-zip` (runs decompression programs), `--hostname-bin` (runs a
 * program); for grep nothing writes or runs, but an unknown option still asks.
 *
 * @module
 */
import { opts, runs } from './options.js';
import type { ProgramTable } from './types.js';

const GREP_OPTIONS = opts(
  '-E --extended-regexp', '-F --fixed-strings', '-G --basic-regexp', '-P --perl-regexp', '-e= --regexp=', '-f= --file=', '-i -y --ignore-case',
  '--no-ignore-case', '-v --invert-match', '-w --word-regexp', '-x --line-regexp', '-c --count', '--color[=] --colour[=]', '-L --files-without-match',
  '-l --files-with-matches', '-m= --max-count=', '-o --only-matching', '-q --quiet --silent', '-s --no-messages', '-b --byte-offset',
  '-H --with-filename', '-h --no-filename', '--label=', '-n --line-number', '-T --initial-tab', '-Z --null', '-A= --after-context=',
  '-B= --before-context=', '-C= --context=', '--group-separator=', '--no-group-separator', '-a --text', '--binary-files=', '-D= --devices=',
  '-d= --directories=', '--exclude=', '--exclude-from=', '--exclude-dir=', '-I', '--include=', '-r --recursive', '-R --dereference-recursive',
  '--line-buffered', '-U --binary', '-z --null-data', '-V --version', '--help',
);

const RG_OPTIONS = [
  ...opts(
    '-e= --regexp=', '-f= --file=', '-A= --after-context=', '-B= --before-context=', '-C= --context=', '--binary', '--no-binary', '--block-buffered',
    '--line-buffered', '-b --byte-offset', '-s --case-sensitive', '--color=', '--colors=', '--column', '--no-column', '--context-separator=',
    '--no-context-separator', '-c --count', '--count-matches', '--crlf', '--no-crlf', '--debug', '--trace', '--dfa-size-limit=', '-E= --encoding=',
    '--no-encoding', '--engine=', '--field-context-separator=', '--field-match-separator=', '--files', '-l --files-with-matches',
    '--files-without-match', '-F --fixed-strings', '--no-fixed-strings', '-L --follow', '--no-follow', '--generate=', '-g= --glob=', '--glob-case-insensitive',
    '--no-glob-case-insensitive', '--heading', '--no-heading', '-h --help', '--hidden', '--no-hidden', '--iglob=', '-i --ignore-case',
    '--ignore-file=', '--ignore-file-case-insensitive', '--include-zero', '-v --invert-match', '--json', '--no-json', '--line-number', '-n',
    '-N --no-line-number', '-x --line-regexp', '-M= --max-columns=', '--max-columns-preview', '-m= --max-count=', '-d= --max-depth= --maxdepth=',
    '--max-filesize=', '--mmap', '--no-mmap', '-U --multiline', '--multiline-dotall', '--no-config', '--no-ignore', '--no-ignore-dot',
    '--no-ignore-exclude', '--no-ignore-files', '--no-ignore-global', '--no-ignore-messages', '--no-ignore-parent', '--no-ignore-vcs',
    '--no-messages', '--no-require-git', '--no-unicode', '-0 --null', '--null-data', '--one-file-system', '-o --only-matching', '--passthru',
    '--passthrough', '--path-separator=', '-P --pcre2', '--no-pcre2', '--pcre2-version', '-p --pretty', '-q --quiet', '--regex-size-limit=',
    '-r= --replace=', '-S --smart-case', '--sort=', '--sortr=', '--stats', '--no-stats', '--stop-on-nonmatch', '-a --text',
    '--no-text', '-j= --threads=', '--trim', '--no-trim', '-t= --type=', '-T= --type-not=', '--type-add=', '--type-clear=', '--type-list',
    '-u --unrestricted', '-V --version', '--vimgrep', '-H --with-filename', '-I --no-filename', '-w --word-regexp', '--auto-hybrid-regex',
    '--no-auto-hybrid-regex', '--hyperlink-format=', '--no-search-zip', '--no-pre', '--no-unicode',
  ),
  ...runs('--pre=', '--pre-glob=', '-z --search-zip', '--hostname-bin='),
];

/** The grep and ripgrep tables. */
export const SEARCH: readonly ProgramTable[] = [
  { family: 'grep/rg', programs: ['grep', 'egrep', 'fgrep', 'rgrep'], form: { effect: 'read', options: GREP_OPTIONS, numberOption: true, note: 'every reading option' } },
  { family: 'grep/rg', programs: ['rg'], form: { effect: 'read', options: RG_OPTIONS, note: 'reading options; not --pre, -z/--search-zip, --hostname-bin' } },
];
