/**
 * A compact way to write a table's options: `opts('-n= --lines=', '-q --quiet')` gives two
 * entries, the first taking a value. In one string, the spellings of one option are separated
 * by spaces; a spelling ending in `=` takes a required value, in `[=]` an optional one.
 *
 * @module
 */
import type { ArgumentEffect, OptionEntry } from './types.js';

function entry(spec: string, effect: ArgumentEffect | undefined): OptionEntry {
  let value: OptionEntry['value'];
  const names = spec.trim().split(/\s+/).map((name) => {
    if (name.endsWith('[=]')) {
      value = 'optional';
      return name.slice(0, -3);
    }
    if (name.endsWith('=')) {
      value = 'required';
      return name.slice(0, -1);
    }
    return name;
  });
  return Object.freeze({ names: Object.freeze(names), ...(value !== undefined && { value }), ...(effect !== undefined && effect !== 'read' && { effect }) });
}

/** Options that only read (or only print), one string per option. */
export function opts(...specs: readonly string[]): OptionEntry[] {
  return specs.map((spec) => entry(spec, undefined));
}

/** Options that write files (known, so that `allow_options` may name them, and not covered otherwise). */
export function writes(...specs: readonly string[]): OptionEntry[] {
  return specs.map((spec) => entry(spec, 'write'));
}

/** Options that run another program or change which one runs (covered only by `allow_options`). */
export function runs(...specs: readonly string[]): OptionEntry[] {
  return specs.map((spec) => entry(spec, 'exec'));
}
