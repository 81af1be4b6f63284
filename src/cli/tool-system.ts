/**
 * The CLI's {@link ToolSystem}: the builtin and ported tools (or the config file's toolset,
 * `tools.builtin`), the `--tools` folders, and the
 * MCP servers of the config file the command line names (`--config FILE`; a workspace's own
 * `toolgate.config.json` is only noted, never read by itself). Every command reaches tools
 * through it.
 *
 * @module
 */
import path from 'node:path';
import type { LevelWithSilent } from '../logging/logger.js';
import type { ToolRegistry } from '../registry/registry.js';
import { ToolSystem, type ToolSystemOptions } from '../system/tool-system.js';
import { queueWaitOption, UsageError, type CliContext } from './context.js';
import { defaultStateDir } from '../ledger/paths.js';
import { bridgeConfigured, configToolset, toolFoldersOption } from './tool-registry.js';

/** Options of {@link cliToolSystem}. */
export interface CliToolSystemOptions {
  /** Workspace root (absolute). */
  workspace: string;
  /** Level of the logger on stderr. */
  logLevel: LevelWithSilent;
  /** More executor options (confirmation handler, output store). */
  executor?: ToolSystemOptions['executor'];
  /** The shared call store's URL (`--store postgres://...`), instead of `executor.ledger`. */
  store?: string;
  /** Called when a bridged server's tools change (`toolgate mcp` tells its clients). */
  onToolsChanged?: () => void;
  /**
   * A registry with the command's tools already loaded (`loadToolFolders` with
   * `toolFoldersOption`): the tool system uses it and adds only the bridged servers' tools.
   * Default: the tool system loads them.
   */
  registry?: ToolRegistry;
  /** Run the workspace's due tasks (`toolgate mcp`, `toolgate agent`: processes that stay); one-shot commands do not, so their exit cuts no task short. Default false. */
  runTasks?: boolean;
}

/**
 * The tool system of a command: `values` are its parsed options (`--tools`, `--schemas`,
 * `--config`). Not started: `await system.start()`, and `close()` it when done.
 * @throws UsageError when `--tools` comes without `--schemas`.
 */
export function cliToolSystem(values: Record<string, unknown>, ctx: CliContext, options: CliToolSystemOptions): ToolSystem {
  const toolFolders = options.registry === undefined ? toolFoldersOption(values, ctx) : [];
  const config = values.config === undefined ? undefined : path.resolve(ctx.cwd, values.config as string);
  const ledger = options.executor?.ledger;
  return new ToolSystem({
    workspace: options.workspace,
    // The user's skills and their trust: where the command's environment puts its config folder.
    configEnv: ctx.env,
    // `--state-dir` (the ledger's `dir`), the folder of a `--store FILE`, else the context's default.
    ...(ledger !== undefined && ledger !== false && typeof ledger === 'object' && ('dir' in ledger || 'file' in ledger) ? {} : { stateDir: defaultStateDir(ctx.env) }),
    ...(typeof values['memory-workspace'] === 'string' ? { memoryWorkspace: values['memory-workspace'] } : {}),
    logLevel: options.logLevel,
    toolFolders,
    ...(options.registry === undefined ? configToolset(values, ctx) : { registry: options.registry, builtins: false }),
    executor: options.executor,
    // The commands choose their ledger (`--state-dir`, `--no-ledger`); none unless they do.
    ...(options.store !== undefined ? { store: options.store } : options.executor?.ledger === undefined ? { ledger: false } : {}),
    // `toolgate call` exits with its own status for a workspace escape, and `toolgate mcp` answers it itself.
    pathTraversal: 'throw',
    runTasks: options.runTasks === true,
    ...(values.queue === undefined ? {} : { queue: { url: values.queue as string, ...(values.pool === undefined ? {} : { pool: values.pool as string }), ...(values['queue-wait-ms'] === undefined ? {} : { waitMs: queueWaitOption(values) }) } }),
    connectors: [async (system) => {
      const bridge = await bridgeConfigured(system.registry, config, options.workspace, () => system.logger, ctx, options.onToolsChanged, system.stateDir);
      return bridge === undefined ? undefined : () => bridge.close();
    }],
  });
}
