/**
 * sort and uniq: sort's reading options; not `-o` / `--output` (writes the named file) nor
 * `--compress-program` (runs a program), nor `-T` (a folder for temporary files). uniq takes
 * at most one operand (a second is the file it writes).
 *
 * @module
 */
import { names, opts, runs, writes } from './options.js';
import type { ProgramTable } from './types.js';

const SORT_OPTIONS = [
  ...opts(
    '-b --ignore-leading-blanks', '-d --dictionary-order', '-f --ignore-case', '-g --general-numeric-sort', '-i --ignore-nonprinting',
    '-M --month-sort', '-h --human-numeric-sort', '-n --numeric-sort', '-R --random-sort', '--random-source=', '-r --reverse', '--sort=',
    '-V --version-sort', '--batch-size=', '-c --check[=]', '-C', '--debug', '-k= --key=', '-m --merge', '-s --stable',
    '-S= --buffer-size=', '-t= --field-separator=', '--parallel=', '-u --unique', '-z --zero-terminated', '--help', '--version',
  ),
  ...names('--files0-from='),
  ...writes('-o= --output=', '-T= --temporary-directory='),
  ...runs('--compress-program='),
];

/** The sort and uniq tables. */
export const SORT: readonly ProgramTable[] = [
  { family: 'sort', programs: ['sort'], form: { effect: 'read', options: SORT_OPTIONS, note: 'not -o/--output, -T, --compress-program' } },
  {
    family: 'sort', programs: ['uniq'],
    form: {
      effect: 'read', operands: { max: 1 }, numberOption: true, note: 'one operand at most (a second is written)',
      options: opts('-c --count', '-d --repeated', '-D[=] --all-repeated[=]', '-f= --skip-fields=', '--group[=]', '-i --ignore-case', '-s= --skip-chars=', '-u --unique', '-z --zero-terminated', '-w= --check-chars='),
    },
  },
];
