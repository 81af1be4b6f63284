/**
 * Writing a generated schema file, or checking it against the file on disk (`toolgate schemas
 * --check`, `npm run schemas -- --check`): stable serialisation and the tool keys that changed.
 *
 * @module
 */
import fs from 'node:fs';
import path from 'node:path';
import type { SchemaFile } from '../schema/schema-file.js';
import { makeFolders } from '../util/folders.js';

/** Serialised form of a schema file, as written to disk (stable: two-space JSON, trailing newline). */
function serializeSchemaFile(file: SchemaFile): string {
  return `${JSON.stringify(file, null, 2)}\n`;
}

/** Outcome of {@link writeOrCheckSchemaFile}. */
export interface SchemaFileStatus {
  /** True when the file on disk differs from the generated content. */
  stale: boolean;
  /** Tool keys added, removed or changed compared with the file on disk. */
  changed: string[];
  /** True when the file was (re)written. */
  written: boolean;
}

/**
 * Compare generated content with the file at `out`; write it unless `check` is set.
 * @param check - only compare (for CI): nothing is written.
 */
export function writeOrCheckSchemaFile(out: string, file: SchemaFile, check: boolean): SchemaFileStatus {
  const next = serializeSchemaFile(file);
  let current: string | undefined;
  try {
    current = fs.readFileSync(out, 'utf8');
  } catch {
    current = undefined;
  }
  const stale = current !== next;
  const changed: string[] = [];
  if (stale) {
    let old: Record<string, unknown> = {};
    try {
      old = (JSON.parse(current ?? '{}') as SchemaFile).tools ?? {};
    } catch {
      old = {};
    }
    for (const key of new Set([...Object.keys(old), ...Object.keys(file.tools)])) {
      if (JSON.stringify(old[key]) !== JSON.stringify(file.tools[key])) changed.push(key);
    }
  }
  if (stale && !check) {
    makeFolders(path.dirname(path.resolve(out)));
    const tmp = `${out}.${process.pid}.tmp`;
    fs.writeFileSync(tmp, next);
    fs.renameSync(tmp, out);
  }
  return { stale, changed: changed.sort(), written: stale && !check };
}
