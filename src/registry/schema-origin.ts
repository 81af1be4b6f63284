/**
 * Where a tool's JSON Schema was read from, when it is a generated schema file of the user's
 * own tools (`toolgate schemas ... --out FILE`, loaded by `loadTools`): named in argument
 * errors, where a schema file left stale after the tool's types changed shows first. Not kept
 * for toolgate's shipped tools (their schema files are built with the package) or for schemas
 * given as objects.
 *
 * @module
 */
import type { RegisteredTool } from './registered-tool.js';

const ORIGINS = new WeakMap<RegisteredTool, string>();

/** Records that `tool`'s schemas were read from the generated schema file `file`. */
export function setSchemaFile(tool: RegisteredTool, file: string): void {
  ORIGINS.set(tool, file);
}

/** The generated schema file `tool`'s schemas were read from, if recorded ({@link setSchemaFile}). */
export function schemaFileOf(tool: RegisteredTool): string | undefined {
  return ORIGINS.get(tool);
}
