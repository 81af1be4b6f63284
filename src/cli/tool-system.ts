/**
 * The CLI's {@link ToolSystem}: the builtin and ported tools, the `--tools` folders, and the
 * MCP servers of the config file the command line names (`--config FILE`; a workspace's own
 * `toolgate.config.json` is only noted, never read by itself). Every command reaches tools
 * through it.
 *
 * @module
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Logger, LevelWithSilent } from '../logging/logger.js';
import { McpBridge } from '../mcp/bridge.js';
import { loadConfig } from '../mcp/config.js';
import type { ToolRegistry } from '../registry/registry.js';
import { ToolSystem, type ToolSystemOptions } from '../system/tool-system.js';
import { UsageError, type CliContext } from './context.js';

/**
 * Environment variable listing (by `path.delimiter`) the config files whose servers the
 * toolgates above this process bridge; a toolgate started as a bridged server does not bridge
 * those again.
 */
const BRIDGED_CONFIGS_ENV = 'TOOLGATE_BRIDGED_CONFIGS';

/** Options of {@link cliToolSystem}. */
export interface CliToolSystemOptions {
  /** Workspace root (absolute). */
  workspace: string;
  /** Level of the logger on stderr. */
  logLevel: LevelWithSilent;
  /** More executor options (confirmation handler, output store). */
  executor?: ToolSystemOptions['executor'];
  /** Called when a bridged server's tools change (`toolgate mcp` tells its clients). */
  onToolsChanged?: () => void;
}

/**
 * The tool system of a command: `values` are its parsed options (`--tools`, `--schemas`,
 * `--config`). Not started: `await system.start()`, and `close()` it when done.
 * @throws UsageError when `--tools` comes without `--schemas`.
 */
export function cliToolSystem(values: Record<string, unknown>, ctx: CliContext, options: CliToolSystemOptions): ToolSystem {
  const dirs = (values.tools as string[] | undefined) ?? [];
  if (dirs.length && typeof values.schemas !== 'string') throw new UsageError('--tools needs --schemas FILE (generate it with `toolgate schemas`)');
  const config = values.config === undefined ? undefined : path.resolve(ctx.cwd, values.config as string);
  return new ToolSystem({
    workspace: options.workspace,
    logLevel: options.logLevel,
    toolFolders: dirs.map((directory) => ({ directory: path.resolve(ctx.cwd, directory), schemas: path.resolve(ctx.cwd, values.schemas as string) })),
    executor: options.executor,
    connectors: [async (system) => {
      const bridge = await bridgeConfigured(system.registry, config, options.workspace, system.logger, ctx, options.onToolsChanged);
      return bridge === undefined ? undefined : () => bridge.close();
    }],
  });
}

/**
 * Bridge the MCP servers of the config file into `registry` (nothing when there is no config
 * file or it names no servers). Servers that fail to start are logged and skipped.
 * @param config - the config file named on the command line (absolute), if any.
 * @throws UsageError when the config file is missing (when named) or malformed.
 */
async function bridgeConfigured(
  registry: ToolRegistry, config: string | undefined, workspace: string, logger: Logger, ctx: CliContext, onToolsChanged?: () => void,
): Promise<McpBridge | undefined> {
  let loaded;
  try {
    loaded = loadConfig(config, workspace);
  } catch (error) {
    throw new UsageError((error as Error).message.replace(/^options\./, ''));
  }
  if (loaded.unread !== undefined) {
    logger.warn({ event: 'mcp_config_not_named', config: loaded.unread }, `${loaded.unread} was not read: toolgate starts the MCP servers of a config file only when it is named with --config`);
    ctx.stderr.write(`toolgate: note: ${loaded.unread} was not read; to bridge its MCP servers, name it: --config ${loaded.unread}\n`);
  }
  if (Object.keys(loaded.config.mcpServers).length === 0 || loaded.file === undefined) return undefined;
  // A config whose server is a toolgate reading the same config would start toolgates without
  // end: each toolgate tells its stdio servers which config files are being bridged above it.
  const above = (ctx.env[BRIDGED_CONFIGS_ENV] ?? '').split(path.delimiter).filter(Boolean);
  const file = fs.realpathSync(loaded.file);
  if (above.includes(file)) {
    logger.warn({ event: 'mcp_config_cycle', config: file }, 'not bridging the servers of a config file that a toolgate above this one already bridges (a cycle)');
    return undefined;
  }
  // A toolgate bridged in keeps its call ledger in this one's state folder.
  const stateHome: Record<string, string> = ctx.env.XDG_STATE_HOME === undefined ? {} : { XDG_STATE_HOME: ctx.env.XDG_STATE_HOME };
  const bridge = await McpBridge.connect(registry, loaded.config.mcpServers, {
    logger, onToolsChanged: () => onToolsChanged?.(), childEnv: { [BRIDGED_CONFIGS_ENV]: [...above, file].join(path.delimiter), ...stateHome },
  });
  // The log's level is `error` by default; a server that did not start must not vanish silently.
  for (const status of bridge.status()) {
    if (status.state === 'failed') ctx.stderr.write(`toolgate: MCP server ${status.name} did not start (${status.error ?? 'unknown error'}); its tools are left out.\n`);
  }
  return bridge;
}
