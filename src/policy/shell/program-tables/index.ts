/**
 * Every per-program table, by family and by program name: what the rest of toolgate (the
 * coverage of allow rules, docs/policy.md's table, the differential test) reads.
 *
 * Shape: {@link PROGRAM_TABLES} is a list of {@link ProgramTable} (see `types.ts`), one entry
 * per program or group of names of one program, each with its family, its names, and either a
 * `form` (options, operands, a check) or `subcommands` (git). Wrappers are in
 * {@link WRAPPER_TABLES}, read for the wrapper's own words before the command it runs.
 *
 * @module
 */
import { AWK } from './awk.js';
import { COREUTILS } from './coreutils.js';
import { FIND } from './find.js';
import { GIT } from './git.js';
import { SEARCH } from './search.js';
import { SED } from './sed.js';
import { SORT } from './sort.js';
import { TAR } from './tar.js';
import type { ProgramTable } from './types.js';
import { WRAPPERS } from './wrappers.js';
import { WRITING } from './writing.js';

export type { ProgramTable } from './types.js';

/** The tables of programs (not wrappers), family by family. */
export const PROGRAM_TABLES: readonly ProgramTable[] = Object.freeze([...GIT, ...SED, ...AWK, ...FIND, ...SEARCH, ...SORT, ...TAR, ...WRITING, ...COREUTILS]);

/** The tables of wrappers (their own options before the command they run), and of the shells whose static text is analysed. */
export const WRAPPER_TABLES: readonly ProgramTable[] = WRAPPERS;

function byName(tables: readonly ProgramTable[]): ReadonlyMap<string, ProgramTable> {
  const map = new Map<string, ProgramTable>();
  for (const table of tables) {
    for (const name of table.programs) {
      if (map.has(name)) throw new Error(`two tables for the program ${name}`);
      map.set(name, table);
    }
  }
  return map;
}

const PROGRAMS = byName(PROGRAM_TABLES);
const WRAPPER_MAP = byName(WRAPPER_TABLES);

/**
 * The table for a program run by name (a basename), or undefined for a program no table knows.
 * A wrapper run with no command (`env` printing the environment, `command -v ls`) is read with
 * its wrapper table; a shell is not (what it runs is a script or standard input).
 */
export function programTable(program: string): ProgramTable | undefined {
  const table = PROGRAMS.get(program);
  if (table !== undefined) return table;
  const wrapper = WRAPPER_MAP.get(program);
  return wrapper !== undefined && wrapper.family === 'wrappers' ? wrapper : undefined;
}

/** The table of a wrapper's own options, or undefined (a wrapper such as sudo, covered only where a rule names it). */
export function wrapperTable(wrapper: string): ProgramTable | undefined {
  return WRAPPER_MAP.get(wrapper);
}
