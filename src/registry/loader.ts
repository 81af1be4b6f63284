/**
 * Loading tools: import compiled modules, find the `@tool` classes they export, join them
 * with their generated schemas, and register them. This is the explicit "build" step after
 * the decorators have only recorded.
 *
 * @module
 */
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { findFiles } from '../util/glob.js';
import { getToolMetadata, type ToolDescriptor } from '../decorators/metadata.js';
import { ToolDefinitionError } from '../errors/errors.js';
import { readSchemaFile, type SchemaFile } from '../schema/schema-file.js';
import type { RegisteredTool } from './registered-tool.js';
import { ToolRegistry } from './registry.js';

/** Options of {@link loadTools}. */
export interface LoadToolsOptions {
  /** Folders of compiled tool modules (`.js`/`.mjs`, searched recursively; `node_modules` skipped). */
  directories?: string[];
  /** Module specifiers or file URLs of tool modules. */
  modules?: Array<string | URL>;
  /** The generated schema file (path or `file:` URL) or its parsed content. Required. */
  schemas: string | URL | SchemaFile;
  /** Registry to add to. Default: a new one. */
  registry?: ToolRegistry;
}

/** What {@link loadTools} returns. */
export interface LoadedTools {
  registry: ToolRegistry;
  /** The tools this call registered. */
  loaded: RegisteredTool[];
}

/**
 * Import tool modules, and register every `@tool` class they export with its schema. Every
 * `.js`/`.mjs` file under `directories` is imported (its top-level code runs), so point it at
 * folders that hold tool modules only.
 * @throws ToolDefinitionError when a tool has no generated schema (the message names the
 *   command to run), is registered twice, or a module fails to import.
 */
export async function loadTools(options: LoadToolsOptions): Promise<LoadedTools> {
  const registry = options.registry ?? new ToolRegistry();
  const given = typeof options.schemas === 'object' && !(options.schemas instanceof URL);
  const schemaFile = given ? (options.schemas as SchemaFile) : readSchemaFile(options.schemas as string | URL);
  const schemaSource = given ? 'the given schemas' : String(options.schemas);
  const urls: string[] = [];
  for (const dir of options.directories ?? []) {
    for (const file of await findFiles(['**/*.js', '**/*.mjs'], dir)) urls.push(pathToFileURL(path.resolve(file)).href);
  }
  for (const spec of options.modules ?? []) urls.push(spec instanceof URL ? spec.href : spec);

  const loaded: RegisteredTool[] = [];
  const seen = new Set<unknown>();
  for (const url of urls) {
    let mod: Record<string, unknown>;
    try {
      mod = (await import(url)) as Record<string, unknown>;
    } catch (error) {
      if (error instanceof ToolDefinitionError) throw error;
      throw ToolDefinitionError.other('?', `Cannot import tool module ${url}: ${(error as Error).message}`, error);
    }
    for (const [exportName, value] of Object.entries(mod)) {
      const meta = getToolMetadata(value);
      if (meta === undefined || seen.has(value)) continue;
      seen.add(value);
      const key = `${meta.name}@${meta.version}`;
      const entry = schemaFile.tools[key];
      if (entry === undefined) throw ToolDefinitionError.fromMissingSchema(key, schemaSource);
      const located: ToolDescriptor = { ...meta, moduleUrl: moduleUrlOf(url, meta), exportName };
      loaded.push(registry.register(located, entry));
    }
  }
  return { registry, loaded };
}

function moduleUrlOf(url: string, meta: ToolDescriptor): string {
  // A bare specifier cannot be imported from the worker's location; the decorator's
  // detected URL is the file itself.
  return url.startsWith('file:') || url.startsWith('data:') ? url : meta.moduleUrl ?? url;
}

/** Folder of the compiled builtin tools and their schema file. */
const BUILTIN_DIR = new URL('../../tools/', import.meta.url);
const BUILTIN_SCHEMAS = new URL('../../../tools/tool-schemas.json', import.meta.url);

/**
 * Load toolgate's builtin tools (`tools/`) into a registry.
 * @param registry - registry to add to; default a new one.
 * @throws ToolDefinitionError when the package is damaged (a builtin without its schema, say).
 */
export async function loadBuiltinTools(registry?: ToolRegistry): Promise<LoadedTools> {
  return loadTools({ directories: [fileURLToPath(BUILTIN_DIR)], schemas: BUILTIN_SCHEMAS, registry });
}

/** Folder of the compiled ported tools and their schema file. */
const PORTED_DIR = new URL('../../tools-ported/', import.meta.url);
const PORTED_SCHEMAS = new URL('../../../tools-ported/tool-schemas.json', import.meta.url);

/**
 * Load toolgate's ported tool library (`tools-ported/`: file editing, snapshots, inspection,
 * shell sessions and more) into a registry.
 * @param registry - registry to add to; default a new one.
 * @throws ToolDefinitionError when the package is damaged.
 */
export async function loadPortedTools(registry?: ToolRegistry): Promise<LoadedTools> {
  return loadTools({ directories: [fileURLToPath(PORTED_DIR)], schemas: PORTED_SCHEMAS, registry });
}
