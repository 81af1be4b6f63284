/**
 * `toolgate mcp login SERVER --config FILE`: the interactive step of a
 * bridged server's OAuth authorization. Prints the authorization URL on stderr, waits (up to 5
 * minutes) for the browser's redirect on a loopback listener, exchanges the code (PKCE) and
 * keeps the tokens in the state folder's token file (mode 0600; `--state-dir DIR`, else
 * `$XDG_STATE_HOME/toolgate`, else `~/.local/state/toolgate`), where `toolgate mcp` and the
 * other commands that bridge the server with the same `--state-dir` find and refresh them. Tokens are never printed.
 *
 * @module
 */
import path from 'node:path';
import { defaultStateDir } from '../ledger/paths.js';
import { loadConfig, type McpHttpServerConfig } from '../mcp/config.js';
import { ToolRegistry } from '../registry/registry.js';
import { EXIT, parse, UsageError, workspaceOption, type CliContext } from './context.js';

/** How long the login waits for the person to approve, in ms. */
const LOGIN_WAIT_MS = 300_000;

/** Run `toolgate mcp login`; `argv` are the arguments after `login`. */
export async function mcpLoginCommand(argv: string[], ctx: CliContext): Promise<number> {
  const { values, positionals } = parse(argv, { workspace: { type: 'string' }, 'state-dir': { type: 'string' } });
  if (positionals.length !== 1) throw new UsageError('mcp login needs the server\'s name: toolgate mcp login SERVER --config FILE');
  const name = positionals[0]!;
  if (values.config === undefined) throw new UsageError('mcp login needs --config FILE, the config file that lists the server');
  let loaded;
  try {
    loaded = loadConfig(path.resolve(ctx.cwd, values.config as string), workspaceOption(values, ctx));
  } catch (error) {
    throw new UsageError((error as Error).message.replace(/^options\./, ''));
  }
  const server = loaded.config.mcpServers[name];
  if (server === undefined) throw new UsageError(`${loaded.file} lists no MCP server ${JSON.stringify(name)}; it lists: ${Object.keys(loaded.config.mcpServers).join(', ') || 'none'}`);
  if (!('url' in server) || (server as McpHttpServerConfig).oauth === undefined) throw new UsageError(`the MCP server ${JSON.stringify(name)} has no "oauth" section in ${loaded.file}; nothing to log in to`);
  const stateDir = values['state-dir'] === undefined ? defaultStateDir(ctx.env) : path.resolve(ctx.cwd, values['state-dir'] as string);
  const { McpBridge } = await import('../mcp/bridge.js');
  const bridge = await McpBridge.connect(new ToolRegistry(), { [name]: { ...server, disabled: false, startTimeoutMs: Math.max(server.startTimeoutMs ?? 0, LOGIN_WAIT_MS + 30_000) } }, {
    oauthStateDir: stateDir,
    oauthAuthorizer: async (_server, url) => {
      ctx.stderr.write(`toolgate: to let toolgate use the MCP server ${name}, open this URL in a browser and approve (waiting up to ${LOGIN_WAIT_MS / 60_000} minutes):\n\n  ${url.href}\n\n`);
    },
  });
  try {
    const [status] = bridge.status();
    if (status?.state !== 'connected') {
      ctx.stderr.write(`toolgate: the login to MCP server ${name} failed: ${status?.error ?? 'unknown error'}\n`);
      return EXIT.failed;
    }
    ctx.stderr.write(`toolgate: logged in to MCP server ${name} (${status.tools.length} tools); its tokens are kept in ${path.join(stateDir, 'mcp-oauth')} and refreshed when they expire\n`);
    return EXIT.ok;
  } finally {
    await bridge.close();
  }
}
