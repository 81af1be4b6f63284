/**
 * The `@tool` decorator as the schema programs use it: a stand-in with the options toolgate's
 * generator reads (name, version, description), so that building each program's TypeScript
 * stays small and fast. The generator reads the decorator's options from the syntax, by the
 * name `tool`, whatever module it comes from.
 */
export interface ProgramToolOptions {
  name: string;
  version: string;
  description?: string;
}

/** Record nothing: these programs are only read by the schema generator and by tests. */
export function tool(_options: ProgramToolOptions): (target: abstract new (...args: never[]) => unknown) => void {
  return () => undefined;
}
