/**
 * Loading tools: import compiled modules, find the `@tool` classes they export, join them
 * with their generated schemas, and register them. This is the explicit "build" step after
 * the decorators have only recorded.
 *
 * @module
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { getToolMetadata, type ToolDescriptor } from '../decorators/metadata.js';
import { ToolDefinitionError } from '../errors/errors.js';
import { readSchemaFile, type SchemaFile } from '../schema/schema-file.js';
import { moduleFiles, readManifest } from './manifest.js';
import { setSchemaFile } from './schema-origin.js';
import type { RegisteredTool, RegisterOptions } from './registered-tool.js';
import { ToolRegistry } from './registry.js';

/** Options of {@link loadTools}. */
export interface LoadToolsOptions {
  /**
   * Folders of compiled tool modules (`.js`/`.mjs`, searched recursively; `node_modules` skipped).
   * A folder holding a fresh tool manifest (`tool-manifest.json`, see `manifest.ts`) is
   * registered from it without importing its modules; otherwise every module is imported.
   */
  directories?: string[];
  /** Module specifiers or file URLs of tool modules (always imported). */
  modules?: Array<string | URL>;
  /** The generated schema file (path or `file:` URL) or its parsed content. Required. */
  schemas: string | URL | SchemaFile;
  /** Registry to add to. Default: a new one. */
  registry?: ToolRegistry;
  /** Read the folders' tool manifests when fresh. Default true; false imports every module. */
  manifests?: boolean;
  /**
   * Which tools to register, and how: `false` leaves a tool out, else its register options
   * (a toolset's overrides, see `toolset.ts`). Default: every tool, as declared.
   */
  select?: (descriptor: ToolDescriptor) => RegisterOptions | false;
}

/** What {@link loadTools} returns. */
export interface LoadedTools {
  registry: ToolRegistry;
  /** The tools this call registered. */
  loaded: RegisteredTool[];
  /**
   * The manifests found stale (a module file added, removed or changed since the build made
   * them), with why: their folders' modules were imported instead. Empty when none.
   */
  staleManifests: Array<{ file: string; reason: string }>;
}

/**
 * Register every `@tool` class of the given folders and modules with its schema. A folder
 * with a fresh tool manifest is registered from it: its modules load on each tool's first
 * call (in the worker or child process that runs it, or on the main thread for the main
 * runner), and its schemas are compiled by ajv on first use. Every other `.js`/`.mjs` file
 * under `directories` is imported (its top-level code runs), so point it at folders that hold
 * tool modules only.
 * @throws ToolDefinitionError when a tool has no generated schema (the message names the
 *   command to run), is registered twice, or a module fails to import.
 */
export async function loadTools(options: LoadToolsOptions): Promise<LoadedTools> {
  const registry = options.registry ?? new ToolRegistry();
  const given = typeof options.schemas === 'object' && !(options.schemas instanceof URL);
  const schemaFile = given ? (options.schemas as SchemaFile) : readSchemaFile(options.schemas as string | URL);
  const schemaSource = given ? 'the given schemas' : String(options.schemas);
  const entryOf = (key: string) => {
    const entry = schemaFile.tools[key];
    if (entry === undefined) throw ToolDefinitionError.fromMissingSchema(key, schemaSource);
    return entry;
  };
  const loaded: RegisteredTool[] = [];
  const staleManifests: LoadedTools['staleManifests'] = [];
  const urls: string[] = [];
  for (const dir of options.directories ?? []) {
    const found = options.manifests === false ? { kind: 'none' as const } : readManifest(dir);
    if (found.kind === 'fresh') {
      for (const { file, exportName, descriptor } of found.manifest.tools) {
        const located: ToolDescriptor = { ...descriptor, moduleUrl: pathToFileURL(path.resolve(dir, file)).href, exportName };
        const picked = options.select === undefined ? {} : options.select(located);
        if (picked === false) continue;
        loaded.push(registry.register(located, entryOf(`${descriptor.name}@${descriptor.version}`), { compile: 'first-use', ...picked }));
      }
      continue;
    }
    if (found.kind === 'stale') staleManifests.push({ file: found.file, reason: found.reason });
    const root = path.resolve(dir);
    if (fs.existsSync(root)) for (const file of moduleFiles(root)) urls.push(pathToFileURL(path.join(root, file)).href);
  }
  for (const spec of options.modules ?? []) urls.push(spec instanceof URL ? spec.href : spec);

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
      const located: ToolDescriptor = { ...meta, moduleUrl: moduleUrlOf(url, meta), exportName };
      const picked = options.select === undefined ? undefined : options.select(located);
      if (picked === false) continue;
      loaded.push(registry.register(located, entryOf(`${meta.name}@${meta.version}`), picked));
    }
  }
  // A user's generated schema file is named in argument errors (a stale one shows there first).
  if (!given) {
    const spec = options.schemas as string | URL;
    const file = spec instanceof URL || spec.startsWith('file:') ? fileURLToPath(spec) : path.resolve(spec);
    for (const tool of loaded) if (!isShippedModule(tool.moduleUrl)) setSchemaFile(tool, file);
  }
  return { registry, loaded, staleManifests };
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
 * @param select - see {@link LoadToolsOptions.select}; default every tool.
 * @throws ToolDefinitionError when the package is damaged (a builtin without its schema, say).
 */
export async function loadBuiltinTools(registry?: ToolRegistry, select?: LoadToolsOptions['select']): Promise<LoadedTools> {
  return loadTools({ directories: [fileURLToPath(BUILTIN_DIR)], schemas: BUILTIN_SCHEMAS, registry, select });
}

/** Folder of the compiled ported tools and their schema file. */
const PORTED_DIR = new URL('../../tools-ported/', import.meta.url);
const PORTED_SCHEMAS = new URL('../../../tools-ported/tool-schemas.json', import.meta.url);

/**
 * Is `moduleUrl` one of the tool modules toolgate ships (`tools/`, `tools-ported/`)? Their
 * top-level code only declares (no effects), so importing one before its call is decided is
 * safe; a user's module may do anything when imported.
 */
export function isShippedModule(moduleUrl: string | undefined): boolean {
  return moduleUrl !== undefined && (moduleUrl.startsWith(BUILTIN_DIR.href) || moduleUrl.startsWith(PORTED_DIR.href));
}

/**
 * Load toolgate's ported tool library (`tools-ported/`: file editing, snapshots, inspection,
 * shell sessions and more) into a registry.
 * @param registry - registry to add to; default a new one.
 * @param select - see {@link LoadToolsOptions.select}; default every tool.
 * @throws ToolDefinitionError when the package is damaged.
 */
export async function loadPortedTools(registry?: ToolRegistry, select?: LoadToolsOptions['select']): Promise<LoadedTools> {
  return loadTools({ directories: [fileURLToPath(PORTED_DIR)], schemas: PORTED_SCHEMAS, registry, select });
}
