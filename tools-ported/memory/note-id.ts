/**
 * A memory note's id as a model gives it: the number (`1`), its digits as a string (`"1"`), or
 * the form `memory_remember` and `memory_list` print (`"#1"`). The 1.1.0 versions of
 * `memory_get` and `memory_forget` take all three; their 1.0.0 versions a number only.
 *
 * @module
 */
import { ToolExecutionError } from '../../src/tool.js';

/**
 * The note id a `memory_get` / `memory_forget` argument names.
 * @param given - `1`, `"1"` or `"#1"` (the schema already holds a string to `^#?[1-9][0-9]*$`).
 * @returns the id, a positive integer.
 * @throws ToolExecutionError (INVALID_ARGUMENTS) for anything else, or a number past 2^53.
 */
export function noteIdOf(given: number | string): number {
  const id = typeof given === 'number' ? given : /^#?[1-9][0-9]*$/.test(given) ? Number(given.replace(/^#/, '')) : Number.NaN;
  if (!Number.isSafeInteger(id) || id < 1) {
    throw new ToolExecutionError(`the note id ${JSON.stringify(given)} is not one: give the number after "#" (1, "1" or "#1")`, 'INVALID_ARGUMENTS');
  }
  return id;
}
