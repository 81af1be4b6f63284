/**
 * Changes of working folder the command-line walk (`command-line.ts`) watches for: the
 * builtins `cd`, `pushd` and `popd`, and the options of wrappers that run their command in
 * another folder or root (`env -C`, `sudo -D`/`-R`, `unshare -w`, `nsenter --wd`, `chroot`);
 * `find -execdir` is noted where `find` is unwrapped (`command-runners.ts`).
 *
 * Why it matters: git finds its repository from the working folder, so git in a line that
 * changes folder anywhere may read the repository (and config that runs programs) of another
 * folder, like `git -C DIR`. Where each change leads, for the deciders that judge paths, is
 * `command-word-paths.ts`'s business (`cd -P`, `git -C`, `tar -C`, `make -C` are words there).
 *
 * @module
 */
import type { ShellCommand } from './types.js';
import type { Word } from './words.js';

/** Builtins that change the working folder of the commands after them. */
const CHANGE_FOLDER: ReadonlySet<string> = new Set(['cd', 'pushd', 'popd']);

/** Wrapper options that run the command in another folder or root: env -C/--chdir, sudo -D/--chdir/-R/--chroot, unshare and nsenter -w/--wd/-R/-r/--root/-W/--wdns. */
const CHANGE_FOLDER_OPTIONS = /^(-[^-]*[CDRrwW]|--(chdir|chroot|wd|root|wdns))/;

/** The wrappers {@link CHANGE_FOLDER_OPTIONS} applies to (`xargs -r` is not a change of folder). */
const FOLDER_WRAPPERS: ReadonlySet<string> = new Set(['env', 'sudo', 'doas', 'unshare', 'nsenter']);

/** Whether the program `program` (a basename) changes the working folder of the commands after it (`cd`, `pushd`, `popd`). */
export function changesFolder(program: string): boolean {
  return CHANGE_FOLDER.has(program);
}

/** Whether the wrapper `program`, given its own words `consumed` (options and operands before its command), runs its command in another folder or root. */
export function wrapperChangesFolder(program: string, consumed: readonly Word[]): boolean {
  return program === 'chroot' || (FOLDER_WRAPPERS.has(program) && consumed.some((word) => CHANGE_FOLDER_OPTIONS.test(word.text)));
}

/** The doubt for git in a line that changes folder (`changed`), or undefined when there is none. */
export function gitInChangedFolder(changed: boolean, commands: readonly ShellCommand[]): string | undefined {
  // git finds its repository from the working folder: a planted bare-repo-shaped folder's config runs programs
  if (!changed || !commands.some((command) => command.program === 'git')) return undefined;
  return 'git runs in a command line that changes folder (cd, pushd, find -execdir, env -C...): it may read a repository the analysis cannot vouch for';
}
