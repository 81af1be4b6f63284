/**
 * tar: an allow rule for `tar` covers listing an archive (`-t`), extracting to standard output
 * (`-x -O`), and creating one on standard output (`-c` with no `-f` or `-f -`), with the
 * reading options. Not covered: extracting to files (`-x` without `-O`), creating or changing
 * an archive file (`-c -f FILE`, `-r`, `-u`, `-A`, `--delete`), `--to-command`,
 * `-I`/`--use-compress-program`, `-F`/`--info-script`, `--checkpoint-action`, `--rsh-command`,
 * an archive named `host:file` (tar runs a remote shell for it), and any unknown option. The
 * old style (`tar xzf a.tgz`) is read as the dash style.
 *
 * @module
 */
import { names, opts, runs, writes } from './options.js';
import type { OptionEntry, ProgramTable } from './types.js';

const TAR_OPTIONS: readonly OptionEntry[] = [
  ...opts(
    '-t --list', '-x --extract --get', '-c --create', '-v --verbose', '-f= --file=', '-z --gzip --gunzip --ungzip', '-j --bzip2', '-J --xz',
    '--zstd', '--lzip', '--lzma', '--lzop', '-Z --compress --uncompress', '-a --auto-compress', '-O --to-stdout', '-C= --directory=',
    '-X= --exclude-from=', '--exclude=', '--exclude-vcs', '--exclude-vcs-ignores', '--exclude-caches', '--wildcards',
    '--no-wildcards', '--anchored', '--no-anchored', '--ignore-case', '--no-ignore-case', '--null', '--no-null', '--no-recursion', '--recursion',
    '--numeric-owner', '--owner=', '--group=', '--mode=', '--mtime=', '--sort=', '--format=', '-H=', '--force-local', '-b= --blocking-factor=',
    '-B --read-full-records', '-i --ignore-zeros', '--occurrence[=]', '-w --interactive', '--totals[=]', '--utc', '--full-time', '-R --block-number',
    '--show-transformed-names', '--show-stored-names', '--transform= --xform=', '--strip-components=', '--one-file-system', '-h --dereference',
    '--hard-dereference', '-l --check-links', '-P --absolute-names', '--quoting-style=', '--no-quote-chars=', '--quote-chars=', '--warning=',
    '--checkpoint[=]', '--record-size=', '--label= -V=', '--posix', '--pax-option=', '--acls', '--no-acls', '--xattrs', '--no-xattrs',
    '--selinux', '--no-selinux', '--help', '--usage', '--version',
  ),
  ...names('-T= --files-from='),
  ...writes('--index-file=', '--volno-file=', '-r --append', '-u --update', '-A --catenate --concatenate', '--delete', '-k --keep-old-files', '--overwrite', '--remove-files', '-g= --listed-incremental='),
  ...runs('--to-command=', '-I= --use-compress-program=', '-F= --info-script= --new-volume-script=', '--checkpoint-action=', '--rsh-command=', '--rmt-command='),
];

const KNOWN = new Map(TAR_OPTIONS.flatMap((o) => o.names.map((n) => [n, o] as const)));

/** `tar xzf a.tgz` as `-x -z -f a.tgz`: the first word without a dash is a bundle of letters, whose values come next, in order. */
function dashStyle(args: readonly string[]): string[] {
  const first = args[0];
  if (first === undefined || first.startsWith('-') || !/^[A-Za-z]+$/.test(first)) return [...args];
  const out: string[] = [];
  let next = 1;
  for (const letter of first) {
    out.push(`-${letter}`);
    if (KNOWN.get(`-${letter}`)?.value === 'required' && next < args.length) out.push(args[next++]!);
  }
  return [...out, ...args.slice(next)];
}

function checkTar(given: readonly string[], allowed: (word: string, index: number) => boolean): string | undefined {
  const args = dashStyle(given);
  let mode: string | undefined;
  let file: string | undefined;
  let toStdout = false;
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === '--') break;
    if (!a.startsWith('-') || a === '-') continue;
    const names: Array<{ name: string; value?: string }> = [];
    if (a.startsWith('--')) {
      const eq = a.indexOf('=');
      const name = eq > 0 ? a.slice(0, eq) : a;
      const value = eq > 0 ? a.slice(eq + 1) : KNOWN.get(name)?.value === 'required' ? args[++i] : undefined;
      names.push(value === undefined ? { name } : { name, value });
    } else {
      for (let k = 1; k < a.length; k++) {
        const name = `-${a[k]}`;
        if (KNOWN.get(name)?.value === 'required') {
          const rest = a.slice(k + 1);
          names.push({ name, value: rest !== '' ? rest : args[++i] });
          break;
        }
        names.push({ name });
      }
    }
    for (const { name, value } of names) {
      const entry = KNOWN.get(name);
      if (!allowed(name, i)) {
        if (entry === undefined) return `unknown tar option ${name}`;
        if (entry.effect === 'write') return `tar ${name} changes an archive or the files it extracts to`;
        if (entry.effect === 'exec') return `tar ${name} runs a program`;
      }
      const canonical = entry?.names[0] ?? name;
      if (canonical === '-t' || canonical === '-x' || canonical === '-c') mode = canonical;
      if (canonical === '-f') file = value;
      if (canonical === '-O') toStdout = true;
    }
  }
  if (file !== undefined && /^[^/]*:/.test(file) && !args.includes('--force-local')) return `tar -f ${file} names a remote archive (tar runs a remote shell for it)`;
  if (mode === '-x' && !toStdout && !allowed('-x', 0)) return 'tar -x extracts files (use -O to print them)';
  if (mode === '-c' && file !== undefined && file !== '-' && !allowed('-c', 0)) return 'tar -c -f FILE writes an archive file';
  return undefined;
}

/**
 * Why a tar command writes or runs what no word names, whatever rule allowed it, or undefined:
 * extraction to files (`tar -xf a.tar`) writes the archive's entry names (`.git/hooks/x`,
 * `.envrc`, a hard link to a file elsewhere), and an archive named `host:file` runs a remote
 * shell. For `understood-programs.ts` (without a sandbox, what no word shows asks).
 */
export function tarNamesNotInWords(args: readonly string[]): string | undefined {
  return checkTar(args, (word) => word !== '-x');
}

/** The tar table. */
export const TAR: readonly ProgramTable[] = [
  { family: 'tar', programs: ['tar', 'gtar', 'bsdtar'], form: { effect: 'read', options: TAR_OPTIONS, check: checkTar, note: 'list (-t), extract to stdout (-x -O), create to stdout; not extraction to files, -f FILE with -c, --to-command, -I, -F, --checkpoint-action' } },
];
