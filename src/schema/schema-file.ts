/**
 * The generated schema file: its shape, and reading it at runtime (no TypeScript compiler).
 *
 * @module
 */
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { ToolDefinitionError } from '../errors/errors.js';
import type { JsonSchema } from '../types/tool.js';

/** Identifies the format of a schema file; bumped when the shape changes. */
export const SCHEMA_FILE_FORMAT = 'toolgate-schemas/1';

/** One tool's generated schemas, keyed in {@link SchemaFile.tools} by `name@version`. */
export interface SchemaFileEntry {
  /** Tool name. */
  name: string;
  /** Semver version. */
  version: string;
  /** Class TSDoc summary (or the decorator's description), for the model. */
  description: string;
  /** Class name in the source. */
  className: string;
  /** Source file, relative to the generator's working directory, `/` separators. */
  source: string;
  /** JSON Schema (draft-07) of `run`'s first parameter; always `type: "object"`. */
  inputSchema: JsonSchema;
  /** JSON Schema of `run`'s resolved return value, or `null` when it returns nothing. */
  outputSchema: JsonSchema | null;
}

/** A generated schema file (`tool-schemas.json`). */
export interface SchemaFile {
  /** Always {@link SCHEMA_FILE_FORMAT}. */
  format: string;
  /** Human note: generated, do not edit. */
  $comment?: string;
  /** Entries keyed by `name@version`. */
  tools: Record<string, SchemaFileEntry>;
}

/**
 * Read and check a schema file.
 * @param location - a file path or `file:` URL.
 * @throws ToolDefinitionError when the file is missing, not JSON, or of another format.
 */
export function readSchemaFile(location: string | URL): SchemaFile {
  const file = typeof location === 'string' && !location.startsWith('file:') ? location : fileURLToPath(location);
  let parsed: unknown;
  try {
    parsed = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (error) {
    throw ToolDefinitionError.other('?', `Cannot read schema file ${file}: ${(error as Error).message}. Generate it with \`toolgate schemas\`.`, error);
  }
  const data = parsed as Partial<SchemaFile>;
  if (data === null || typeof data !== 'object' || data.format !== SCHEMA_FILE_FORMAT || typeof data.tools !== 'object' || data.tools === null) {
    throw ToolDefinitionError.other('?', `Schema file ${file} is not a ${SCHEMA_FILE_FORMAT} file; regenerate it with \`toolgate schemas\`.`);
  }
  return data as SchemaFile;
}
