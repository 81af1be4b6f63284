/**
 * The CLI's tool registry without a tool system, for the commands that only read it
 * (`toolgate list`, `toolgate schema`): the same tools as {@link cliToolSystem} (builtin and
 * ported tools or the toolset of `--config FILE`, the `--tools` folders, the MCP servers of
 * `--config FILE`), without the
 * executor's module graph. Also the pieces both share: the `--tools` option and the bridge.
 *
 * @module
 */
import fs from 'node:fs';
import path from 'node:path';
import { createLogger, type Logger, type LevelWithSilent } from '../logging/logger.js';
import type { McpBridge } from '../mcp/bridge.js';
import { loadConfig } from '../mcp/config.js';
import { defaultStateDir } from '../ledger/paths.js';
import { ToolRegistry } from '../registry/registry.js';
import { loadToolFolders, toolFolderProblem, type ToolFolder, type ToolFoldersOptions } from '../system/tool-folders.js';
import { UsageError, type CliContext } from './context.js';

/**
 * Environment variable listing (by `path.delimiter`) the config files whose servers the
 * toolgates above this process bridge; a toolgate started as a bridged server does not bridge
 * those again.
 */
const BRIDGED_CONFIGS_ENV = 'TOOLGATE_BRIDGED_CONFIGS';

/**
 * The `--tools DIR... --schemas FILE` options as tool folders (absolute).
 * @throws UsageError when `--tools` comes without `--schemas` or the other way round, or a
 *   `--tools` folder is missing or holds no compiled module (a mistyped or uncompiled folder
 *   would otherwise load no tool, silently).
 */
export function toolFoldersOption(values: Record<string, unknown>, ctx: CliContext): ToolFolder[] {
  const dirs = (values.tools as string[] | undefined) ?? [];
  if (dirs.length && typeof values.schemas !== 'string') throw new UsageError('--tools needs --schemas FILE (generate it with `toolgate schemas`)');
  if (!dirs.length && values.schemas !== undefined) throw new UsageError('--schemas names the schema file of --tools folders: give --tools DIR too');
  return dirs.map((given) => {
    const directory = path.resolve(ctx.cwd, given);
    const problem = toolFolderProblem(directory);
    if (problem !== undefined) throw new UsageError(`--tools ${given}: ${problem}`);
    return { directory, schemas: path.resolve(ctx.cwd, values.schemas as string) };
  });
}

/**
 * The toolset of the config file named with `--config` (its `tools.builtin`), as
 * `loadToolFolders` options; none without a named file or without the section.
 * @throws UsageError when the config file is missing or malformed (naming the entry).
 */
export function configToolset(values: Record<string, unknown>, ctx: CliContext): Pick<ToolFoldersOptions, 'toolset' | 'toolsetSource'> {
  if (values.config === undefined) return {};
  let loaded;
  try {
    loaded = loadConfig(path.resolve(ctx.cwd, values.config as string));
  } catch (error) {
    throw new UsageError((error as Error).message.replace(/^options\./, ''));
  }
  const builtin = loaded.config.tools?.builtin;
  return builtin === undefined ? {} : { toolset: builtin, toolsetSource: `${path.basename(loaded.file!)}: tools.builtin` };
}

/** A loaded registry of {@link cliToolRegistry}; `close()` ends the bridged servers. */
export interface CliToolRegistry {
  registry: ToolRegistry;
  close(): Promise<void>;
}

/**
 * The registry of a command that only reads it, loaded: `values` are its parsed options
 * (`--tools`, `--schemas`, `--config`). Tools with a fresh manifest are registered without
 * importing their modules. `close()` it when done.
 * @throws UsageError when `--tools` comes without `--schemas` or the config file is wrong.
 */
export async function cliToolRegistry(values: Record<string, unknown>, ctx: CliContext, options: { workspace: string; logLevel: LevelWithSilent }): Promise<CliToolRegistry> {
  const toolFolders = toolFoldersOption(values, ctx);
  const config = values.config === undefined ? undefined : path.resolve(ctx.cwd, values.config as string);
  const registry = new ToolRegistry();
  let logger: Logger | undefined;
  const log = () => (logger ??= createLogger(options.logLevel));
  await loadToolFolders(registry, { toolFolders, ...configToolset(values, ctx), workspace: options.workspace, configEnv: ctx.env }, log);
  const stateDir = typeof values['state-dir'] === 'string' ? path.resolve(ctx.cwd, values['state-dir']) : undefined;
  const bridge = await bridgeConfigured(registry, config, options.workspace, log, ctx, undefined, stateDir);
  return { registry, close: async () => bridge?.close() };
}

/**
 * Bridge the MCP servers of the config file into `registry` (nothing when there is no config
 * file or it names no servers). Servers that fail to start are logged and skipped.
 * @param config - the config file named on the command line (absolute), if any.
 * @throws UsageError when the config file is missing (when named) or malformed.
 */
export async function bridgeConfigured(
  registry: ToolRegistry, config: string | undefined, workspace: string, log: () => Logger, ctx: CliContext, onToolsChanged?: () => void, stateDir = defaultStateDir(ctx.env),
): Promise<McpBridge | undefined> {
  let loaded;
  try {
    loaded = loadConfig(config, workspace);
  } catch (error) {
    throw new UsageError((error as Error).message.replace(/^options\./, ''));
  }
  if (loaded.unread !== undefined) {
    log().warn({ event: 'mcp_config_not_named', config: loaded.unread }, `${loaded.unread} was not read: toolgate starts the MCP servers of a config file only when it is named with --config`);
    ctx.stderr.write(`toolgate: note: ${loaded.unread} was not read; to bridge its MCP servers, name it: --config ${loaded.unread}\n`);
  }
  if (Object.keys(loaded.config.mcpServers).length === 0 || loaded.file === undefined) return undefined;
  // A config whose server is a toolgate reading the same config would start toolgates without
  // end: each toolgate tells its stdio servers which config files are being bridged above it.
  const above = (ctx.env[BRIDGED_CONFIGS_ENV] ?? '').split(path.delimiter).filter(Boolean);
  const file = fs.realpathSync(loaded.file);
  if (above.includes(file)) {
    log().warn({ event: 'mcp_config_cycle', config: file }, 'not bridging the servers of a config file that a toolgate above this one already bridges (a cycle)');
    return undefined;
  }
  // A toolgate bridged in keeps its call ledger in this one's state folder.
  const stateHome: Record<string, string> = ctx.env.XDG_STATE_HOME === undefined ? {} : { XDG_STATE_HOME: ctx.env.XDG_STATE_HOME };
  // The MCP client SDK loads only when a config names servers.
  const { McpBridge } = await import('../mcp/bridge.js');
  const bridge = await McpBridge.connect(registry, loaded.config.mcpServers, {
    logger: log(), onToolsChanged: () => onToolsChanged?.(), childEnv: { [BRIDGED_CONFIGS_ENV]: [...above, file].join(path.delimiter), ...stateHome },
    // Servers with `oauth` keep their tokens here; no authorizer: one that needs the person
    // fails to start with an error naming `toolgate mcp login` (src/mcp/oauth.ts).
    oauthStateDir: stateDir,
  });
  // The log's level is `error` by default; a server that did not start must not vanish silently.
  for (const status of bridge.status()) {
    if (status.state === 'failed') ctx.stderr.write(`toolgate: MCP server ${status.name} did not start (${status.error ?? 'unknown error'}); its tools are left out.\n`);
  }
  return bridge;
}
