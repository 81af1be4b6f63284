/**
 * `toolgate mcp`: serve the registry as an MCP server, over stdio (default) or streamable
 * HTTP; and the CLI's use of the config file's `mcpServers` (bridged into every command's
 * registry).
 *
 * ```
 * toolgate mcp [--http [--port N] [--host ADDR]] [--workspace DIR] [--mode default|explore|plan]
 *              [--scoped-write DIR]... [--tool NAME]... [--tag T]... [--yes] [--config FILE]
 * ```
 *
 * @module
 */
import fs from 'node:fs';
import path from 'node:path';
import { ToolExecutor } from '../executor/executor.js';
import { createLogger, type Logger } from '../logging/logger.js';
import { McpBridge } from '../mcp/bridge.js';
import { loadConfig } from '../mcp/config.js';
import { isLoopbackAddress, serveHttp, serveStdio, type McpServeOptions } from '../mcp/server.js';
import { ToolgateOptionError } from '../errors.js';
import type { ToolRegistry } from '../registry/registry.js';
import { EXIT, logLevel, parse, registryFor, UsageError, type Io } from './main.js';

/** Usage lines of `toolgate mcp`, for the CLI's help. */
export const MCP_USAGE = `  toolgate mcp [--http [--port N] [--host ADDR]] [--workspace DIR]
               [--mode default|explore|plan] [--scoped-write DIR]... [--tool NAME]...
               [--tag T]... [--yes]
               serve the tools as an MCP server over stdio, or streamable HTTP on
               http://127.0.0.1:N/mcp (loopback unless --host); --yes approves calls
               that need confirmation, else the client is asked (elicitation) or they
               are denied
`;

/**
 * Environment variable listing (by `path.delimiter`) the config files whose servers the
 * toolgates above this process bridge; a toolgate started as a bridged server does not bridge
 * those again.
 */
export const BRIDGED_CONFIGS_ENV = 'TOOLGATE_BRIDGED_CONFIGS';

const open = new Set<McpBridge>();
/** Where the CLI tells the user that a workspace config file was left unread (stderr). */
const unreadNotice = (file: string): void => {
  process.stderr.write(`toolgate: note: ${file} was not read; to bridge its MCP servers, name it: --config ${file}\n`);
};

/** Set by `toolgate mcp` so that bridged tool changes reach its clients. */
let onToolsChanged: (() => void) | undefined;

/**
 * Bridge the MCP servers of the config file into `registry` (nothing when there is no config
 * file or it names no servers). Servers that fail to start are logged and skipped.
 * @throws UsageError when the config file is missing (when named) or malformed.
 */
export async function bridgeConfigured(registry: ToolRegistry, values: Record<string, unknown>, workspace: string, logger: Logger): Promise<McpBridge | undefined> {
  let loaded;
  try {
    loaded = loadConfig(values.config as string | undefined, workspace);
  } catch (error) {
    throw new UsageError((error as Error).message.replace(/^options\./, ''));
  }
  if (loaded.unread !== undefined) {
    logger.warn({ event: 'mcp_config_not_named', config: loaded.unread }, `${loaded.unread} was not read: toolgate starts the MCP servers of a config file only when it is named with --config`);
    unreadNotice(loaded.unread);
  }
  if (Object.keys(loaded.config.mcpServers).length === 0 || loaded.file === undefined) return undefined;
  // A config whose server is a toolgate reading the same config would start toolgates without
  // end: each toolgate tells its stdio servers which config files are being bridged above it.
  const above = (process.env[BRIDGED_CONFIGS_ENV] ?? '').split(path.delimiter).filter(Boolean);
  const file = fs.realpathSync(loaded.file);
  if (above.includes(file)) {
    logger.warn({ event: 'mcp_config_cycle', config: file }, 'not bridging the servers of a config file that a toolgate above this one already bridges (a cycle)');
    return undefined;
  }
  const bridge = await McpBridge.connect(registry, loaded.config.mcpServers, {
    logger, onToolsChanged: () => onToolsChanged?.(), childEnv: { [BRIDGED_CONFIGS_ENV]: [...above, file].join(path.delimiter) },
  });
  open.add(bridge);
  // The log's level is `error` by default; a server that did not start must not vanish silently.
  for (const status of bridge.status()) {
    if (status.state === 'failed') process.stderr.write(`toolgate: MCP server ${status.name} did not start (${status.error ?? 'unknown error'}); its tools are left out.\n`);
  }
  return bridge;
}

/** Close every bridge the CLI opened (stops their stdio servers). */
export async function closeBridges(): Promise<void> {
  const bridges = [...open];
  open.clear();
  await Promise.all(bridges.map((b) => b.close()));
}

/** `toolgate mcp`. Runs until stdin closes (stdio) or SIGINT/SIGTERM arrives. */
export async function cmdMcp(argv: string[], io: Io): Promise<number> {
  const { values, positionals } = parse(argv, {
    http: { type: 'boolean' },
    port: { type: 'string' },
    host: { type: 'string' },
    workspace: { type: 'string' },
    mode: { type: 'string' },
    'scoped-write': { type: 'string', multiple: true },
    tool: { type: 'string', multiple: true },
    tag: { type: 'string', multiple: true },
    yes: { type: 'boolean', short: 'y' },
  });
  if (positionals.length) throw new UsageError(`mcp takes no positional arguments; got ${positionals.join(' ')}`);
  const workspace = path.resolve((values.workspace as string | undefined) ?? '.');
  if (!fs.existsSync(workspace) || !fs.statSync(workspace).isDirectory()) throw new UsageError(`--workspace ${workspace} is not a folder`);
  const mode = (values.mode as string | undefined) ?? 'default';
  if (!['default', 'explore', 'plan'].includes(mode)) throw new UsageError(`--mode must be default, explore or plan; got ${mode}`);
  let port = 0;
  if (values.port !== undefined) {
    if (!values.http) throw new UsageError('--port needs --http');
    port = Number(values.port);
    if (!/^\d+$/.test(String(values.port)) || port > 65535) throw new UsageError(`--port must be a TCP port number (0 picks a free one); got ${JSON.stringify(values.port)}`);
  }
  if (values.host !== undefined && !values.http) throw new UsageError('--host needs --http');
  // A token from the environment (never a flag: command lines are visible to other users).
  const token = process.env.TOOLGATE_MCP_TOKEN || undefined;
  if (values.http && values.host !== undefined && token === undefined && !isLoopbackAddress(values.host as string)) {
    throw new UsageError(`--host ${values.host} serves the tools to the network: set TOOLGATE_MCP_TOKEN to a secret of 16+ characters, which every request must send as "Authorization: Bearer <token>"`);
  }
  // Logs go to stderr: over stdio, stdout carries the protocol.
  const logger = createLogger(logLevel(values));
  const registry = await registryFor(values, workspace);
  for (const name of (values.tool as string[] | undefined) ?? []) {
    if (!registry.has(name)) throw new UsageError(`--tool ${name}: no such tool (toolgate list shows them)`);
  }
  const executor = new ToolExecutor(registry, { workspaceRoot: workspace, logger, outputStore: false });
  const serve: McpServeOptions = {
    executor, workspaceRoot: workspace, mode, scopedWriteDirs: (values['scoped-write'] as string[] | undefined) ?? [],
    tools: values.tool as string[] | undefined, tags: values.tag as string[] | undefined, yes: values.yes === true, logger,
  };
  let stop!: () => void;
  const stopped = new Promise<void>((resolve) => (stop = resolve));
  const onSignal = () => stop();
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    if (values.http) {
      let handle;
      try {
        handle = await serveHttp({ ...serve, port, host: values.host as string | undefined, token });
      } catch (error) {
        if (error instanceof ToolgateOptionError) throw new UsageError(error.message.replace(/^options\./, ''));
        throw error;
      }
      onToolsChanged = () => handle.notifyToolsChanged();
      io.stderr.write(`toolgate mcp: serving ${registry.list({ names: serve.tools, tags: serve.tags }).length} tools on ${handle.url}\n`);
      await stopped;
      await handle.close();
    } else {
      const handle = await serveStdio(serve, { stdin: io.stdin, stdout: io.stdout });
      onToolsChanged = () => handle.notifyToolsChanged();
      await Promise.race([handle.closed, stopped]);
      await handle.close();
    }
    return EXIT.ok;
  } finally {
    onToolsChanged = undefined;
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    await executor.close();
  }
}
