/**
 * What counts as typing into a running program through a `@format shell-input` argument:
 * anything but an empty text (a poll) and a lone Ctrl-C. Kept apart from `shell-input.ts`
 * so that the approval step can ask it without loading the shell analysis.
 *
 * @module
 */

/** Ctrl-C as a terminal sends it: a lone one interrupts, it types nothing. */
const CTRL_C = '\u0003';

/** Whether a shell-input value types something: a string that is neither empty (a poll) nor a lone Ctrl-C. */
export function typesInput(value: unknown): value is string {
  return typeof value === 'string' && value !== '' && value !== CTRL_C;
}

/** Whether a call types anything into a program through one of its `@format shell-input` arguments. */
export function carriesInput(inputArguments: readonly string[], args: Readonly<Record<string, unknown>>): boolean {
  return inputArguments.some((name) => typesInput(args[name]));
}
