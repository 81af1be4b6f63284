/**
 * find: an allow rule for `find` covers the tests and the printing actions of its expression
 * (`-name`, `-type`, `-newer`, `-print`, `-printf`, `-ls`, `-prune`...). Not covered:
 * `-delete`, `-exec`, `-execdir`, `-ok`, `-okdir` (the command they run is judged as a command
 * of its own too), `-fprint`, `-fprint0`, `-fprintf`, `-fls` (write files), and any word not
 * known. The options before the paths (`-H`, `-L`, `-P`, `-O3`, `-D`) are covered except `-D`
 * with an unknown value.
 *
 * @module
 */
import type { ProgramTable } from './types.js';

/** Tests and actions that take no value. */
const FLAGS = new Set([
  '-print', '-print0', '-ls', '-prune', '-quit', '-true', '-false', '-empty', '-executable', '-readable', '-writable', '-nouser', '-nogroup',
  '-depth', '-d', '-mount', '-xdev', '-follow', '-noleaf', '-ignore_readdir_race', '-noignore_readdir_race', '-daystart', '-not', '-a', '-and',
  '-o', '-or', ',', '(', ')', '!', '-warn', '-nowarn', '-help', '--help', '-version', '--version',
]);

/** Tests and actions that take one value. */
const ONE_VALUE = new Set([
  '-name', '-iname', '-path', '-ipath', '-wholename', '-iwholename', '-regex', '-iregex', '-lname', '-ilname', '-type', '-xtype', '-size',
  '-mtime', '-mmin', '-atime', '-amin', '-ctime', '-cmin', '-newer', '-anewer', '-cnewer', '-perm', '-user', '-group', '-uid', '-gid', '-links',
  '-inum', '-samefile', '-maxdepth', '-mindepth', '-regextype', '-printf', '-fstype', '-used', '-context',
]);

/** Actions that write files, or run a command, or delete: never covered without allow_options. */
const NOT_COVERED: Readonly<Record<string, string>> = {
  '-delete': 'deletes files', '-exec': 'runs a command', '-execdir': 'runs a command', '-ok': 'runs a command', '-okdir': 'runs a command',
  '-fprint': 'writes a file', '-fprint0': 'writes a file', '-fprintf': 'writes a file', '-fls': 'writes a file',
};

/** find's arguments: leading options, the paths, then the expression. */
function checkFind(args: readonly string[], allowed: (word: string, index: number) => boolean): string | undefined {
  let i = 0;
  for (; i < args.length; i++) {
    const a = args[i]!;
    if (a === '-H' || a === '-L' || a === '-P' || /^-O\d$/.test(a)) continue;
    if (a === '-D') {
      i++;
      continue;
    }
    break;
  }
  // the paths: words before the first that starts the expression
  while (i < args.length && !/^[-(!,]/.test(args[i]!) && args[i] !== ')') i++;
  for (; i < args.length; i++) {
    const a = args[i]!;
    if (allowed(a, i)) {
      // an allowed -exec runs to its `;` or `{} +`; the command there is judged on its own
      if (a === '-exec' || a === '-execdir' || a === '-ok' || a === '-okdir') {
        while (i + 1 < args.length && !(args[i + 1] === ';' || (args[i + 1] === '+' && args[i] === '{}'))) i++;
        i++;
      } else if (ONE_VALUE.has(a) || a === '-fprint' || a === '-fprint0' || a === '-fls') i++;
      else if (a === '-fprintf') i += 2;
      continue;
    }
    if (FLAGS.has(a)) continue;
    if (ONE_VALUE.has(a) || /^-newer[aBcmt][aBcmt]$/.test(a)) {
      if (i + 1 >= args.length) return `${a} needs a value`;
      i++;
      continue;
    }
    const why = NOT_COVERED[a];
    if (why !== undefined) return `find ${a} ${why}`;
    return `unknown find expression word ${a}`;
  }
  return undefined;
}

/** The find table. */
export const FIND: readonly ProgramTable[] = [
  { family: 'find', programs: ['find'], form: { effect: 'read', options: [], check: checkFind, note: 'tests and printing actions; not -delete, -exec*, -ok*, -fprint*, -fls' } },
];
