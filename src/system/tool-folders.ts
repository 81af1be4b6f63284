/**
 * Loading the tools a {@link ToolSystem} starts with (the builtin and ported tools and the
 * caller's folders) into a registry, apart from the tool system itself: commands that only
 * read the registry (`toolgate list`, `toolgate schema`) load it this way without the
 * executor's module graph.
 *
 * @module
 */
import fs from 'node:fs';
import path from 'node:path';
import { ToolgateOptionError } from '../errors/errors.js';
import type { Logger } from '../logging/logger.js';
import { moduleFiles } from '../registry/manifest.js';
import { loadBuiltinTools, loadPortedTools, loadTools, type LoadedTools } from '../registry/loader.js';
import type { ToolDefinition } from '../registry/programmatic.js';
import type { ToolRegistry } from '../registry/registry.js';
import { toolsetSelector, type ToolsetEntryConfig } from '../registry/toolset.js';
import { skillFoldersPresent } from './skill-folders.js';

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
  /**
   * The workspace whose skills (`.toolgate/skills/`, when trusted) add their tools, beside the
   * user's skills (docs/skills.md). Default `process.cwd()`.
   */
  workspace?: string;
  /**
   * The environment the user's config folder is found from (`XDG_CONFIG_HOME`, `HOME`): the
   * user's skills and `skills-trust.json`. Default `process.env`.
   */
  configEnv?: NodeJS.ProcessEnv;
  /**
   * Register the tools the skills declare (only when `read_skill` was loaded). Default true;
   * the build's scripts say false, so that what they make does not depend on the machine's skills.
   */
  skills?: boolean;
}

/**
 * Register the builtin, ported and given folders' tools in `registry`; `logger` is asked for
 * only when there is something to log. Folders with a fresh
 * tool manifest are registered without importing their modules; a stale manifest is logged
 * (warn, event `tool_manifest_stale`) and its folder's modules imported instead.
 * @throws ToolDefinitionError when a tool folder or schema file does not load.
 * @throws ToolgateOptionError when the toolset is wrong (the message names the entry), or a
 *   `toolFolders` entry is (a missing or misspelled folder, one without compiled modules, no
 *   schema file): the message names the entry and the path.
 */
export async function loadToolFolders(registry: ToolRegistry, options: ToolFoldersOptions, logger: () => Logger): Promise<void> {
  const folders = checkedToolFolders(options.toolFolders);
  const builtins = options.builtins ?? true;
  const loads: LoadedTools[] = [];
  const toolset = options.toolset === undefined ? undefined : toolsetSelector(options.toolset, options.toolsetSource ?? 'toolset');
  if (builtins) loads.push(await loadBuiltinTools(registry, toolset?.select));
  if (options.ported ?? builtins) loads.push(await loadPortedTools(registry, toolset?.select));
  toolset?.finish();
  // The skills' tools come with the ported library's read_skill (a toolset without it has none).
  if (options.skills !== false && (options.ported ?? builtins) && registry.get('read_skill') !== undefined) {
    try {
      await registerSkillTools(registry, path.resolve(options.workspace ?? process.cwd()), options.configEnv ?? process.env, logger);
    } catch (error) {
      // Skills add tools; failing to read them leaves the rest of the tool system as it is.
      logger().warn({ event: 'skill_not_loaded', err: (error as Error)?.message }, `the skills' tools were not registered: ${(error as Error)?.message}`);
    }
  }
  for (const folder of folders) {
    loads.push(await loadTools({ directories: [folder.directory], schemas: folder.schemas, registry }));
  }
  for (const { file, reason } of loads.flatMap((l) => l.staleManifests)) {
    logger().warn({ event: 'tool_manifest_stale', manifest: file, reason }, `the tool manifest ${file} is stale (${reason}): its tool modules were imported instead; rebuild (npm run build) to start fast again`);
  }
}

/**
 * Why `directory` cannot be a folder of tools, or `undefined` when it can: missing (or not a
 * folder), or holding no compiled tool modules. The CLI's `--tools` and the SDK's
 * `toolFolders` share it, so a misspelled folder is refused by both.
 */
export function toolFolderProblem(directory: string): string | undefined {
  if (!fs.statSync(directory, { throwIfNoEntry: false })?.isDirectory()) return 'no such folder';
  if (moduleFiles(directory).length === 0) return 'no compiled tool modules (.js or .mjs files) in it; compile your tools first (npx tsc) and give the folder of the compiled files';
  return undefined;
}

/**
 * The `toolFolders` option with absolute paths, each checked ({@link toolFolderProblem}, and
 * the schema file must be a file).
 * @throws ToolgateOptionError naming the entry (`toolFolders[i]`) and its path.
 */
function checkedToolFolders(given: readonly ToolFolder[] | undefined): ToolFolder[] {
  if (given === undefined) return [];
  if (!Array.isArray(given)) throw ToolgateOptionError.fromBadOption('toolFolders', 'must be an array of { directory, schemas }');
  return given.map((folder: ToolFolder, i) => {
    const at = `toolFolders[${i}]`;
    if (folder === null || typeof folder !== 'object' || typeof folder.directory !== 'string' || typeof folder.schemas !== 'string') {
      throw ToolgateOptionError.fromBadOption(at, 'must be { directory, schemas }, two paths: the folder of compiled tools and its schema file (`toolgate schemas ... --out FILE`)');
    }
    const directory = path.resolve(folder.directory);
    const schemas = path.resolve(folder.schemas);
    const problem = toolFolderProblem(directory);
    if (problem !== undefined) throw ToolgateOptionError.fromBadOption(`${at}.directory`, `${JSON.stringify(folder.directory)} (${directory}): ${problem}`);
    if (!fs.statSync(schemas, { throwIfNoEntry: false })?.isFile()) {
      throw ToolgateOptionError.fromBadOption(`${at}.schemas`, `${JSON.stringify(folder.schemas)} (${schemas}): no such file; generate it from the tools' sources with \`toolgate schemas 'src/tools/**/*.ts' --out FILE\``);
    }
    return { directory, schemas };
  });
}

/** The module of the ported tools that reads the skills' tool declarations (loaded by URL, as the ported tools are). */
const SKILL_TOOLS_MODULE = new URL('../../tools-ported/skills/skill-tools.js', import.meta.url);

/** What `skillToolDefinitions` of {@link SKILL_TOOLS_MODULE} returns. */
interface SkillTools {
  sets: Array<{ file: string; definitions: ToolDefinition[] }>;
  problems: Array<{ file: string; message: string }>;
}

/**
 * Register the tools the trusted skills declare (kind `dynamic_skill_tool`, domain `skills`),
 * each skill's all or none: a skill whose tool has a schema that does not compile, or the
 * name of a tool already registered, adds none. Skills that were not loaded, and untrusted
 * workspace skills' tools, are logged at warn (event `skill_not_loaded`, naming the file).
 * `env` places the user's config folder (the CLI's context's environment, not the process's).
 */
async function registerSkillTools(registry: ToolRegistry, workspace: string, env: NodeJS.ProcessEnv, logger: () => Logger): Promise<void> {
  // Fast start: no skill folder (nor a link in its place), nothing to import. The skills'
  // modules bring the shell and HTTP tools' modules, which commands that only read the tool
  // list must not load (test/cli/fast-start.test.ts).
  if (!skillFoldersPresent(workspace, env)) return;
  const { skillToolDefinitions } = (await import(SKILL_TOOLS_MODULE.href)) as { skillToolDefinitions(options: { workspaceRoot: string; env: NodeJS.ProcessEnv }): SkillTools };
  const found = skillToolDefinitions({ workspaceRoot: workspace, env });
  const problems = [...found.problems];
  for (const set of found.sets) {
    const done: string[] = [];
    try {
      for (const definition of set.definitions) {
        if (registry.get(definition.name) !== undefined) throw new Error(`the tool name ${definition.name} is taken by another tool`);
        registry.register(definition);
        done.push(definition.name);
      }
    } catch (error) {
      for (const name of done) registry.unregister(name);
      problems.push({ file: set.file, message: `${set.file}: ${(error as Error).message}; none of the skill's tools was registered (the other skills are not affected)` });
    }
  }
  for (const { file, message } of problems) logger().warn({ event: 'skill_not_loaded', file }, message);
}
