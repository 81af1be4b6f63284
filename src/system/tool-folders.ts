/**
 * Loading the tools a {@link ToolSystem} starts with (the builtin and ported tools and the
 * caller's folders) into a registry, apart from the tool system itself: commands that only
 * read the registry (`toolgate list`, `toolgate schema`) load it this way without the
 * executor's module graph.
 *
 * @module
 */
import path from 'node:path';
import type { Logger } from '../logging/logger.js';
import { loadBuiltinTools, loadPortedTools, loadTools, type LoadedTools } from '../registry/loader.js';
import type { ToolRegistry } from '../registry/registry.js';
import { toolsetSelector, type ToolsetEntryConfig } from '../registry/toolset.js';

/** A folder of compiled tools with its generated schema file. */
export interface ToolFolder {
  /** Folder of compiled tool modules (`.js`), searched recursively. */
  directory: string;
  /** Its generated schema file (`toolgate schemas ... --out FILE`). */
  schemas: string;
}

/** Which tools {@link loadToolFolders} loads; every option documents its default. */
export interface ToolFoldersOptions {
  /** Load the builtin tools (`tools/`). Default true. */
  builtins?: boolean;
  /** Load the ported tool library (`tools-ported/`). Default: the value of `builtins`. */
  ported?: boolean;
  /** More folders of compiled tools, each with its schema file. Default none. */
  toolFolders?: readonly ToolFolder[];
  /**
   * The toolset: when given, it REPLACES the default set (the builtin and ported tools)
   * wholesale, each entry a tool name or `{ name, description?, readOnly?,
   * requiresConfirmation?, timeoutMs?, maxOutputLength? }` (see `src/registry/toolset.ts`).
   * Default: every default tool, as declared.
   */
  toolset?: readonly ToolsetEntryConfig[];
  /** What to call the toolset in messages. Default `toolset`. */
  toolsetSource?: string;
}

/**
 * Register the builtin, ported and given folders' tools in `registry`; `logger` is asked for
 * only when there is something to log. Folders with a fresh
 * tool manifest are registered without importing their modules; a stale manifest is logged
 * (warn, event `tool_manifest_stale`) and its folder's modules imported instead.
 * @throws ToolDefinitionError when a tool folder or schema file does not load.
 * @throws ToolgateOptionError when the toolset is wrong (the message names the entry).
 */
export async function loadToolFolders(registry: ToolRegistry, options: ToolFoldersOptions, logger: () => Logger): Promise<void> {
  const builtins = options.builtins ?? true;
  const loads: LoadedTools[] = [];
  const toolset = options.toolset === undefined ? undefined : toolsetSelector(options.toolset, options.toolsetSource ?? 'toolset');
  if (builtins) loads.push(await loadBuiltinTools(registry, toolset?.select));
  if (options.ported ?? builtins) loads.push(await loadPortedTools(registry, toolset?.select));
  toolset?.finish();
  for (const folder of options.toolFolders ?? []) {
    loads.push(await loadTools({ directories: [path.resolve(folder.directory)], schemas: path.resolve(folder.schemas), registry }));
  }
  for (const { file, reason } of loads.flatMap((l) => l.staleManifests)) {
    logger().warn({ event: 'tool_manifest_stale', manifest: file, reason }, `the tool manifest ${file} is stale (${reason}): its tool modules were imported instead; rebuild (npm run build) to start fast again`);
  }
}
