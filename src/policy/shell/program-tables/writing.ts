/**
 * Programs whose purpose is to write the files their operands name (`tee`, `cp`, `mv`, `ln`,
 * `mkdir`, `touch`, `rm`, `rmdir`, `install`, `truncate`, `chmod`): a rule naming the program
 * covers that write, with the options listed; a rule that names no program (`command = "*"`)
 * does not. And `dd`, which only copies standard input to standard output unless its `of=`
 * operand names a file to write (not covered without `allow_options = ["of"]`).
 *
 * @module
 */
import { opts } from './options.js';
import type { FormEntry, ProgramTable } from './types.js';

const writing = (programs: string[], options: FormEntry['options'], note: string, extra: Partial<FormEntry> = {}): ProgramTable =>
  ({ family: 'writing coreutils', programs, form: { effect: 'write', options, note, ...extra } });

/** dd's operands are `key=value`; only `of=` writes (and `conv=`/`oflag=` only shape the output). */
function checkDd(args: readonly string[], allowed: (word: string, index: number) => boolean): string | undefined {
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    const key = /^([a-z]+)=/.exec(a)?.[1];
    if (key === undefined) {
      if (a === '--help' || a === '--version') continue;
      return `unknown dd operand ${a}`;
    }
    if (allowed(key, i) || allowed(`${key}=`, i)) continue;
    if (key === 'of') return 'dd of= writes the named file';
    if (!['if', 'bs', 'ibs', 'obs', 'cbs', 'count', 'skip', 'iseek', 'seek', 'oseek', 'conv', 'iflag', 'oflag', 'status'].includes(key)) return `unknown dd operand ${key}=`;
  }
  return undefined;
}

/** The tables of the programs that write their operands, and dd. */
export const WRITING: readonly ProgramTable[] = [
  writing(['tee'], opts('-a --append', '-i --ignore-interrupts', '-p', '--output-error[=]'), 'writes its operands'),
  writing(['cp'], opts('-a --archive', '--attributes-only', '--backup[=]', '-b', '--copy-contents', '-d', '-f --force', '-i --interactive', '-H',
    '-l --link', '-L --dereference', '-n --no-clobber', '-P --no-dereference', '-p', '--preserve[=]', '--no-preserve=', '--parents', '-R -r --recursive',
    '--reflink[=]', '--remove-destination', '--sparse=', '--strip-trailing-slashes', '-s --symbolic-link', '-S= --suffix=', '-t= --target-directory=',
    '-T --no-target-directory', '-u --update[=]', '-v --verbose', '-x --one-file-system', '--debug', '--keep-directory-symlink'), 'copies to its last operand'),
  writing(['mv'], opts('--backup[=]', '-b', '-f --force', '-i --interactive', '-n --no-clobber', '--no-copy', '--strip-trailing-slashes', '-S= --suffix=',
    '-t= --target-directory=', '-T --no-target-directory', '-u --update[=]', '-v --verbose', '--debug', '--exchange'), 'moves its operands'),
  writing(['ln'], opts('--backup[=]', '-b', '-d -F --directory', '-f --force', '-i --interactive', '-L --logical', '-n --no-dereference', '-P --physical',
    '-r --relative', '-s --symbolic', '-S= --suffix=', '-t= --target-directory=', '-T --no-target-directory', '-v --verbose'), 'links to its operands'),
  writing(['mkdir'], opts('-m= --mode=', '-p --parents', '-v --verbose'), 'creates its operands'),
  writing(['touch'], opts('-a', '-c --no-create', '-d= --date=', '-f', '-h --no-dereference', '-m', '-r= --reference=', '-t=', '--time='), 'touches its operands'),
  writing(['rm'], opts('-f --force', '-i', '-I', '--interactive[=]', '--one-file-system', '--preserve-root[=]', '-r -R --recursive', '-d --dir', '-v --verbose'),
    'removes its operands; not --no-preserve-root'),
  writing(['rmdir'], opts('--ignore-fail-on-non-empty', '-p --parents', '-v --verbose'), 'removes its operands'),
  writing(['install'], opts('--backup[=]', '-b', '-c', '-C --compare', '-d --directory', '-D', '-g= --group=', '-m= --mode=', '-o= --owner=',
    '-p --preserve-timestamps', '-S= --suffix=', '-t= --target-directory=', '-T --no-target-directory', '-v --verbose'),
  'copies to its last operand; not -s/--strip (runs strip)'),
  writing(['truncate'], opts('-c --no-create', '-o --io-blocks', '-r= --reference=', '-s= --size='), 'resizes its operands'),
  writing(['chmod'], opts('-c --changes', '-f --silent --quiet', '-v --verbose', '--preserve-root', '--reference=', '-R --recursive'),
    'changes the mode of its operands'),
  { family: 'writing coreutils', programs: ['dd'], form: { effect: 'read', options: [], check: checkDd, note: 'copies input to output; not of= (writes a file)' } },
];
