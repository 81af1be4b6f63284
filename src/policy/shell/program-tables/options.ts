/**
 * A compact way to write a table's options: `opts('-n= --lines=', '-q --quiet')` gives two
 * entries, the first taking a value. In one string, the spellings of one option are separated
 * by spaces; a spelling ending in `=` takes a required value, in `[=]` an optional one (per
 * spelling: `'-f --follow[=]'` is a flag `-f` and `--follow` with an optional value).
 *
 * @module
 */
import type { ArgumentEffect, OptionEntry } from './types.js';

/**
 * The entries of one spec: spellings with the same value marker share an entry, so that in
 * `'-f --follow[=]'` the short `-f` stays a flag (a short option taken for one with a value
 * would hide the rest of its cluster from the reading).
 */
function entries(spec: string, effect: ArgumentEffect | undefined): OptionEntry[] {
  const groups = new Map<OptionEntry['value'] | 'none', string[]>();
  for (const spelling of spec.trim().split(/\s+/)) {
    const value = spelling.endsWith('[=]') ? 'optional' : spelling.endsWith('=') ? 'required' : 'none';
    const name = value === 'optional' ? spelling.slice(0, -3) : value === 'required' ? spelling.slice(0, -1) : spelling;
    const names = groups.get(value) ?? [];
    names.push(name);
    groups.set(value, names);
  }
  return [...groups].map(([value, names]) => Object.freeze({
    names: Object.freeze(names),
    ...(value !== 'none' && { value }),
    ...(effect !== undefined && effect !== 'read' && { effect }),
  }));
}

/** Options that only read (or only print), one string per option. */
export function opts(...specs: readonly string[]): OptionEntry[] {
  return specs.flatMap((spec) => entries(spec, undefined));
}

/** Reading options whose value names a file listing more files to read (see {@link OptionEntry.readsNames}). */
export function names(...specs: readonly string[]): OptionEntry[] {
  return specs.flatMap((spec) => entries(spec, undefined).map((entry) => Object.freeze({ ...entry, readsNames: true as const })));
}

/** Options that write files (known, so that `allow_options` may name them, and not covered otherwise). */
export function writes(...specs: readonly string[]): OptionEntry[] {
  return specs.flatMap((spec) => entries(spec, 'write'));
}

/** Options that run another program or change which one runs (covered only by `allow_options`). */
export function runs(...specs: readonly string[]): OptionEntry[] {
  return specs.flatMap((spec) => entries(spec, 'exec'));
}
