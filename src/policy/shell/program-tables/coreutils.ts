/**
 * The common programs that only read and print: ls, cat, head, tail, wc, echo, printf, pwd,
 * diff, cmp, cut, tr, stat, du, df, date and the like. An allow rule naming one covers the
 * options listed; an option not listed asks. Options that would write are not listed
 * (`date -s` sets the clock, `xxd` and `uniq` write a second operand, `tree -o` writes).
 *
 * @module
 */
import { names, opts } from './options.js';
import type { FormEntry, OptionEntry, ProgramTable } from './types.js';

const reading = (programs: string[], options: readonly OptionEntry[], extra: Partial<FormEntry> = {}): ProgramTable =>
  ({ family: 'coreutils', programs, form: { effect: 'read', options, ...extra } });

const HELP = opts('--help', '--version');

/** `date`: operands must be a `+FORMAT` (a bare operand sets the clock). */
function dateOperands(operands: readonly string[]): string | undefined {
  return operands.every((o) => o.startsWith('+')) ? undefined : 'date with an operand that is not +FORMAT sets the clock';
}

/** The read-only coreutils tables. */
export const COREUTILS: readonly ProgramTable[] = [
  reading(['echo'], [], { noOptions: true, note: 'any words (it prints them)' }),
  reading(['printf'], [], { noOptions: true, note: 'any words (it prints them; -v into a plain name only, checked by the analysis)' }),
  reading(['true', 'false', ':'], [], { noOptions: true, note: 'any words (ignored)' }),
  reading(['pwd'], opts('-L --logical', '-P --physical')),
  reading(['ls', 'dir', 'vdir'], [...HELP, ...opts('-a --all', '-A --almost-all', '--author', '-b --escape', '--block-size=', '-B --ignore-backups', '-c', '-C',
    '--color[=] --colour[=]', '-d --directory', '-D --dired', '-f', '-F --classify[=]', '--file-type', '--format=', '--full-time', '-g', '--group-directories-first',
    '-G --no-group', '-h --human-readable', '--si', '-H --dereference-command-line', '--dereference-command-line-symlink-to-dir', '--hide=',
    '--hyperlink[=]', '--indicator-style=', '-i --inode', '-I= --ignore=', '-k --kibibytes', '-l', '-L --dereference', '-m', '-n --numeric-uid-gid',
    '-N --literal', '-o', '-p', '-q --hide-control-chars', '--show-control-chars', '-Q --quote-name', '--quoting-style=', '-r --reverse',
    '-R --recursive', '-s --size', '-S', '--sort=', '--time=', '--time-style=', '-t', '-T= --tabsize=', '-u', '-U', '-v', '-w= --width=', '-x',
    '-X', '-Z --context', '--zero', '-1')]),
  reading(['cat'], [...HELP, ...opts('-A --show-all', '-b --number-nonblank', '-e', '-E --show-ends', '-n --number', '-s --squeeze-blank', '-t', '-T --show-tabs', '-u', '-v --show-nonprinting')]),
  reading(['tac'], [...HELP, ...opts('-b --before', '-r --regex', '-s= --separator=')]),
  reading(['head'], [...HELP, ...opts('-c= --bytes=', '-n= --lines=', '-q --quiet --silent', '-v --verbose', '-z --zero-terminated')], { numberOption: true }),
  reading(['tail'], [...HELP, ...opts('-c= --bytes=', '-f --follow[=]', '-F', '-n= --lines=', '--max-unchanged-stats=', '--pid=', '-q --quiet --silent',
    '--retry', '-s= --sleep-interval=', '-v --verbose', '-z --zero-terminated')], { numberOption: true }),
  reading(['wc'], [...HELP, ...opts('-c --bytes', '-m --chars', '-l --lines', '-L --max-line-length', '-w --words', '--total='), ...names('--files0-from=')]),
  reading(['diff'], [...HELP, ...opts('--normal', '-q --brief', '-s --report-identical-files', '-c', '-C= --context[=]', '-u', '-U= --unified[=]', '-e --ed',
    '-n --rcs', '-y --side-by-side', '-W= --width=', '--left-column', '--suppress-common-lines', '-p --show-c-function', '-F= --show-function-line=',
    '--label=', '--expand-tabs -t', '-T --initial-tab', '--tabsize=', '--suppress-blank-empty', '-l --paginate', '-r --recursive', '--no-dereference',
    '-N --new-file', '--unidirectional-new-file', '--ignore-file-name-case', '--no-ignore-file-name-case', '-x= --exclude=', '-X= --exclude-from=',
    '-S= --starting-file=', '--from-file=', '--to-file=', '-i --ignore-case', '-E --ignore-tab-expansion', '-Z --ignore-trailing-space',
    '-b --ignore-space-change', '-w --ignore-all-space', '-B --ignore-blank-lines', '-I= --ignore-matching-lines=', '-a --text',
    '--strip-trailing-cr', '-D= --ifdef=', '--GTYPE-group-format=', '--line-format=', '--LTYPE-line-format=', '-d --minimal', '--horizon-lines=',
    '--speed-large-files', '--color[=]', '--palette=')], { numberOption: true }),
  reading(['cmp'], [...HELP, ...opts('-b --print-bytes', '-i= --ignore-initial=', '-l --verbose', '-n= --bytes=', '-s --quiet --silent')]),
  reading(['comm'], [...HELP, ...opts('-1', '-2', '-3', '--check-order', '--nocheck-order', '--output-delimiter=', '--total', '-z --zero-terminated')]),
  reading(['cut'], [...HELP, ...opts('-b= --bytes=', '-c= --characters=', '-d= --delimiter=', '-f= --fields=', '-n', '--complement', '-s --only-delimited', '--output-delimiter=', '-z --zero-terminated')]),
  reading(['paste'], [...HELP, ...opts('-d= --delimiters=', '-s --serial', '-z --zero-terminated')]),
  reading(['join'], [...HELP, ...opts('-a=', '-e=', '-i --ignore-case', '-j=', '-o=', '-t=', '-v=', '-1=', '-2=', '--check-order', '--nocheck-order', '--header', '-z --zero-terminated')]),
  reading(['tr'], [...HELP, ...opts('-c -C --complement', '-d --delete', '-s --squeeze-repeats', '-t --truncate-set1')]),
  reading(['nl'], [...HELP, ...opts('-b= --body-numbering=', '-d= --section-delimiter=', '-f= --footer-numbering=', '-h= --header-numbering=', '-i= --line-increment=',
    '-l= --join-blank-lines=', '-n= --number-format=', '-p --no-renumber', '-s= --number-separator=', '-v= --starting-line-number=', '-w= --number-width=')]),
  reading(['fold'], [...HELP, ...opts('-b --bytes', '-s --spaces', '-w= --width=')]),
  reading(['expand', 'unexpand'], [...HELP, ...opts('-i --initial', '-t= --tabs=', '-a --all', '--first-only')]),
  reading(['rev'], HELP),
  reading(['basename'], [...HELP, ...opts('-a --multiple', '-s= --suffix=', '-z --zero')]),
  reading(['dirname'], [...HELP, ...opts('-z --zero')]),
  reading(['realpath'], [...HELP, ...opts('-e --canonicalize-existing', '-m --canonicalize-missing', '-L --logical', '-P --physical', '-q --quiet', '--relative-to=', '--relative-base=', '-s --strip --no-symlinks', '-z --zero')]),
  reading(['readlink'], [...HELP, ...opts('-f --canonicalize', '-e --canonicalize-existing', '-m --canonicalize-missing', '-n --no-newline', '-q --quiet', '-s --silent', '-v --verbose', '-z --zero')]),
  reading(['stat'], [...HELP, ...opts('-L --dereference', '-f --file-system', '--cached=', '-c= --format=', '--printf=', '-t --terse')]),
  reading(['du'], [...HELP, ...opts('-0 --null', '-a --all', '-A --apparent-size', '-B= --block-size=', '-b --bytes', '-c --total', '-D --dereference-args', '-d= --max-depth=',
    '-H', '-h --human-readable', '--inodes', '-k', '-L --dereference', '-l --count-links', '-m', '-P --no-dereference', '-S --separate-dirs',
    '--si', '-s --summarize', '-t= --threshold=', '--time[=]', '--time-style=', '-X= --exclude-from=', '--exclude=', '-x --one-file-system'), ...names('--files0-from=')]),
  reading(['df'], [...HELP, ...opts('-a --all', '-B= --block-size=', '-h --human-readable', '-H --si', '-i --inodes', '-k', '-l --local', '--no-sync', '--output[=]', '-P --portability', '--sync', '--total', '-t= --type=', '-T --print-type', '-x= --exclude-type=')]),
  reading(['date'], [...HELP, ...opts('-d= --date=', '--debug', '-f= --file=', '-I[=] --iso-8601[=]', '--resolution', '-R --rfc-email', '--rfc-3339=', '-r= --reference=', '-u --utc --universal')],
    { operands: dateOperands, note: 'not -s/--set, nor an operand that is not +FORMAT' }),
  reading(['sleep'], HELP),
  reading(['seq'], [...HELP, ...opts('-f= --format=', '-s= --separator=', '-w --equal-width')]),
  reading(['which'], opts('-a')),
  reading(['whoami', 'id', 'groups', 'uname', 'nproc', 'tty', 'logname', 'arch', 'hostid', 'printenv'], [...HELP, ...opts('-a --all', '-s --kernel-name', '-n --nodename',
    '-r --kernel-release', '-v --kernel-version', '-m --machine', '-p --processor', '-i --hardware-platform', '-o --operating-system', '-u --user', '-g --group',
    '-G --groups', '-z --zero', '--ignore=', '-Z --context')]),
  reading(['md5sum', 'sha1sum', 'sha224sum', 'sha256sum', 'sha384sum', 'sha512sum', 'b2sum', 'cksum', 'sum'], [...HELP, ...names('-c --check'), ...opts('-b --binary',
    '--tag', '-t --text', '-z --zero', '--ignore-missing', '--quiet', '--status', '--strict', '-w --warn', '-l= --length=', '-a= --algorithm=', '--base64', '--raw', '--untagged', '-r', '-s --sysv')]),
  reading(['base64', 'base32', 'basenc'], [...HELP, ...opts('-d --decode', '-i --ignore-garbage', '-w= --wrap=', '--base64', '--base64url', '--base32', '--base32hex', '--base16', '--base2msbf', '--base2lsbf', '--z85')]),
  reading(['od'], [...HELP, ...opts('-A= --address-radix=', '--endian=', '-j= --skip-bytes=', '-N= --read-bytes=', '-S[=] --strings[=]', '-t= --format=', '-v --output-duplicates',
    '-w[=] --width[=]', '--traditional', '-a', '-b', '-c', '-d', '-f', '-i', '-l', '-o', '-s', '-x')]),
  reading(['xxd'], opts('-a -autoskip', '-b -bits', '-c=', '-cols=', '-E -EBCDIC', '-e', '-g=', '-groupsize=', '-i -include', '-l=', '-len=', '-n=', '-name=', '-o=', '-offset=', '-p -ps -postscript -plain', '-r -revert', '-s=', '-seek=', '-u', '-R='),
    { operands: { max: 1 }, note: 'one operand at most (a second is written)' }),
  reading(['file'], [...HELP, ...opts('-b --brief', '-E', '-e= --exclude=', '--exclude-quiet=', '--extension', '-F= --separator=', '-h --no-dereference',
    '-i --mime', '--mime-type', '--mime-encoding', '-k --keep-going', '-L --dereference', '-l --list', '-m= --magic-file=', '-N --no-pad', '-n --no-buffer',
    '-0 --print0', '-p --preserve-date', '-P=', '-r --raw', '-s --special-files', '-S --no-sandbox', '-z --uncompress', '-Z --uncompress-noreport'), ...names('-f= --files-from=')]),
  reading(['column'], [...HELP, ...opts('-t --table', '-s= --separator=', '-o= --output-separator=', '-c= --output-width=', '-x --fillrows', '-N= --table-columns=',
    '-R= --table-right=', '-T= --table-truncate=', '-E= --table-noextreme=', '-W= --table-wrap=', '-H= --table-hide=', '-O= --table-order=', '-n= --table-name=',
    '-J --json', '-L --keep-empty-lines', '-r= --tree=', '-i= --tree-id=', '-p= --tree-parent=', '-e --table-header-repeat', '-l= --table-columns-limit=', '-d --table-noheadings')]),
  reading(['tree'], opts('-a', '-d', '-l', '-f', '-x', '-L=', '-P=', '-I=', '--gitignore', '--ignore-case', '--matchdirs', '--metafirst', '--prune', '--info',
    '--noreport', '--charset=', '--filelimit=', '-q', '-N', '-Q', '-p', '-u', '-g', '-s', '-h', '--si', '--du', '-D', '--timefmt=', '-F', '--inodes', '--device',
    '-v', '-t', '-c', '-U', '-r', '--dirsfirst', '--filesfirst', '--sort=', '-i', '-A', '-S', '-n', '-C', '-X', '-J', '--noreport', '--help', '--version'),
  { note: 'not -o (writes a file), -R (writes 00Tree.html files), -H' }),
  reading(['env'], [...HELP, ...opts('-i --ignore-environment', '-0 --null', '-u= --unset=')], { note: 'printing the environment; with a command it is a wrapper' }),
];
