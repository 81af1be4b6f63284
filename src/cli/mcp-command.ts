/**
 * `toolgate mcp`: serve the tool system as an MCP server, over stdio (default) or streamable
 * HTTP.
 *
 * ```
 * toolgate mcp login SERVER --config FILE   (a bridged server's OAuth login: src/cli/mcp-login-command.ts)
 * toolgate mcp [--http [--port N] [--host ADDR] [--no-token] [--max-sessions N] [--session-idle-ms MS] [--poll-after-ms MS]]
 *              [--workspace DIR] [--mode default|explore|plan]
 *              [--scoped-write DIR]... [--tool NAME]... [--tag T]... [--yes] [--config FILE]
 *              [--lazy-domains [--tag-domain TAG=DOMAIN]...]
 *              [--sandbox workspace-write|read-only] [--sandbox-network] [--dangerously-disable-sandbox]
 * ```
 *
 * Over HTTP every request must carry a bearer token: `TOOLGATE_MCP_TOKEN` when set, else one
 * made at every start and printed on stderr (never a flag: command lines are visible to other
 * users). `--no-token` serves without one, on loopback only.
 *
 * @module
 */
import { ToolgateOptionError } from '../errors/errors.js';
import type { McpServeOptions } from '../mcp/server.js';
import { isLoopbackAddress } from '../util/loopback.js';
import { approvalsWhere, questionsOnStderr } from './mcp-questions.js';
import { answerInitialize, readFirstMessage, serverIdentity, type FirstMessage } from '../mcp/early-initialize.js';
import { skillFoldersPresent } from '../system/skill-folders.js';
import { APPROVE_FLAGS, approvalOption, COCKPIT_FLAGS, LEDGER_FLAGS, storeOrLedgerOption, policyOption, EXIT, logLevel, modeOption, parse, refuseLocalFlags, SANDBOX_FLAGS, sandboxOptions, UsageError, workspaceOption, type CliContext } from './context.js';


/**
 * Run `toolgate mcp`; `argv` are the arguments after `mcp`. Runs until stdin closes (stdio),
 * SIGINT or SIGTERM arrives, or the context's signal aborts.
 */
export async function mcpCommand(argv: string[], ctx: CliContext): Promise<number> {
  if (argv[0] === 'login') return (await import('./mcp-login-command.js')).mcpLoginCommand(argv.slice(1), ctx);
  const { values, positionals } = parse(argv, {
    http: { type: 'boolean' },
    port: { type: 'string' },
    host: { type: 'string' },
    'max-sessions': { type: 'string' },
    'session-idle-ms': { type: 'string' },
    'poll-after-ms': { type: 'string' },
    'no-token': { type: 'boolean' },
    workspace: { type: 'string' },
    mode: { type: 'string' },
    'scoped-write': { type: 'string', multiple: true },
    tool: { type: 'string', multiple: true },
    tag: { type: 'string', multiple: true },
    yes: { type: 'boolean', short: 'y' },
    'lazy-domains': { type: 'boolean' },
    'tag-domain': { type: 'string', multiple: true },
    ...LEDGER_FLAGS,
    ...SANDBOX_FLAGS,
    ...APPROVE_FLAGS,
    ...COCKPIT_FLAGS,
  });
  if (positionals.length) throw new UsageError(`mcp takes no positional arguments; got ${positionals.join(' ')}`);
  refuseLocalFlags(values, 'mcp');
  const workspace = workspaceOption(values, ctx);
  const mode = modeOption(values);
  const sandbox = sandboxOptions(values, ctx);
  const approvalMode = approvalOption(values);
  const ledger = storeOrLedgerOption(values, ctx, workspace);
  let port = 0;
  if (values.port !== undefined) {
    if (!values.http) throw new UsageError('--port needs --http');
    port = Number(values.port);
    if (!/^\d+$/.test(String(values.port)) || port > 65535) throw new UsageError(`--port must be a TCP port number (0 picks a free one); got ${JSON.stringify(values.port)}`);
  }
  if (values.host !== undefined && !values.http) throw new UsageError('--host needs --http');
  const tagDomains: Record<string, string> = {};
  for (const given of (values['tag-domain'] as string[] | undefined) ?? []) {
    if (values['lazy-domains'] !== true) throw new UsageError('--tag-domain needs --lazy-domains');
    const m = /^([^=]+)=([a-z][a-z0-9_]{0,63})$/.exec(given);
    if (m === null) throw new UsageError(`--tag-domain must be TAG=DOMAIN with a snake_case domain (git=git); got ${JSON.stringify(given)}`);
    tagDomains[m[1]!] = m[2]!;
  }
  const httpLimits: { maxSessions?: number; sessionIdleMs?: number; pollAfterMs?: number } = {};
  for (const [flag, key, min] of [['max-sessions', 'maxSessions', 1], ['session-idle-ms', 'sessionIdleMs', 1000], ['poll-after-ms', 'pollAfterMs', 0]] as const) {
    const given = values[flag] as string | undefined;
    if (given === undefined) continue;
    if (!values.http) throw new UsageError(`--${flag} needs --http`);
    if (!/^\d+$/.test(given) || Number(given) < min) throw new UsageError(`--${flag} must be a whole number of at least ${min}; got ${JSON.stringify(given)}`);
    httpLimits[key] = Number(given);
  }
  // A token from the environment (never a flag: command lines are visible to other users);
  // without one, serveHttp makes one at every start; --no-token: none (loopback only).
  const given = ctx.env.TOOLGATE_MCP_TOKEN || undefined;
  if (values['no-token'] === true && !values.http) throw new UsageError('--no-token needs --http');
  if (values['no-token'] === true && given !== undefined) throw new UsageError('--no-token and TOOLGATE_MCP_TOKEN contradict each other: unset one');
  if (values.http && values.host !== undefined && given === undefined && !isLoopbackAddress(values.host as string)) {
    throw new UsageError(`--host ${values.host} serves the tools to the network: set TOOLGATE_MCP_TOKEN to a secret of 16+ characters, which every request must send as "Authorization: Bearer <token>"`);
  }
  const token = values['no-token'] === true ? false : given;
  // Logs go to stderr: over stdio, stdout carries the protocol.
  // stdio: answer `initialize` before the MCP SDK and the executor load (they take several
  // times Node's own start; clients wait only seconds), then hand the request to the SDK.
  let first: FirstMessage | undefined;
  if (!values.http) {
    first = await readFirstMessage(ctx.stdin, ctx.signal);
    if (first.initialize !== undefined) answerInitialize(ctx.stdout, first.initialize, serverIdentity(ledger !== false, undefined, skillFoldersPresent(workspace, ctx.env)));
  }
  try {
    return await serve(values, ctx, { workspace, mode, ledger, sandbox, approvalMode, tagDomains, httpLimits, port, token, first });
  } catch (error) {
    // A server that failed to start (a tool folder that does not load, say) after answering
    // `initialize` must not wait on stdin: the client would wait for it for ever. Closing
    // stdin lets the process exit with the error.
    if (first !== undefined) (first.rest as NodeJS.ReadableStream & { destroy?: () => void }).destroy?.();
    throw error;
  }
}

/** The checked options {@link mcpCommand} serves with. */
interface ServeSetup {
  workspace: string;
  mode: ReturnType<typeof modeOption>;
  ledger: ReturnType<typeof storeOrLedgerOption>;
  sandbox: ReturnType<typeof sandboxOptions>;
  approvalMode: ReturnType<typeof approvalOption>;
  tagDomains: Record<string, string>;
  httpLimits: Record<string, number>;
  port: number | undefined;
  /** The token of TOOLGATE_MCP_TOKEN; `false` for --no-token; `undefined`: one made at start. */
  token: string | false | undefined;
  first: FirstMessage | undefined;
}

/** Start the tool system and serve it until the client goes or a signal comes. */
async function serve(values: Record<string, unknown>, ctx: CliContext, setup: ServeSetup): Promise<number> {
  const { workspace, mode, ledger, sandbox, approvalMode, tagDomains, httpLimits, port, token, first } = setup;
  const [{ cliToolSystem }, { serveHttp }, { serveStdio }, { toolsListed }] = await Promise.all([import('./tool-system.js'), import('../mcp/http-server.js'), import('../mcp/stdio-server.js'), import('../mcp/server.js')]);
  let onToolsChanged: (() => void) | undefined;
  const system = cliToolSystem(values, ctx, { workspace, logLevel: logLevel(values), executor: { ...sandbox, approvalMode, policy: policyOption(values, ctx), outputStore: ledger === false ? false : {}, ...(typeof ledger === 'string' ? {} : { ledger }) }, ...(typeof ledger === 'string' ? { store: ledger } : {}), runTasks: true, onToolsChanged: () => onToolsChanged?.() });
  let stop!: () => void;
  const stopped = new Promise<void>((resolve) => (stop = resolve));
  const onSignal = () => stop();
  let stopCockpit: (() => Promise<void>) | undefined;
  let cockpitUrl: string | undefined;
  try {
    await system.start();
    stopCockpit = values.cockpit === true || values['cockpit-port'] !== undefined || values['cockpit-host'] !== undefined ? await (await import('./cockpit-command.js')).cockpitAlongside(values, ctx, ledger, system.logger, (url) => (cockpitUrl = url)) : undefined;
    const { registry } = system;
    for (const name of (values.tool as string[] | undefined) ?? []) {
      if (!registry.has(name)) throw new UsageError(`--tool ${name}: no such tool (toolgate list shows them)`);
    }
    process.once('SIGINT', onSignal);
    process.once('SIGTERM', onSignal);
    ctx.signal?.addEventListener('abort', onSignal, { once: true });
    if (ctx.signal?.aborted) stop();
    const serve: McpServeOptions = {
      system, workspaceRoot: workspace, mode, scopedWriteDirs: (values['scoped-write'] as string[] | undefined) ?? [],
      tools: values.tool as string[] | undefined, tags: values.tag as string[] | undefined, yes: values.yes === true, logger: questionsOnStderr(system.logger, (line) => ctx.stderr.write(line), approvalsWhere(values, ctx.cwd, workspace)),
      // With the cockpit, a question the client cannot be asked waits for an answer there.
      waitForAnswers: stopCockpit !== undefined,
      cockpitUrl,
      lazyDomains: values['lazy-domains'] === true ? { tagDomains } : undefined,
      // A config file's toolset serves the tools it names, and ask_user is not one of them.
      askUser: values.config === undefined || (await import('./tool-registry.js')).configToolset(values, ctx).toolset === undefined,
    };
    if (values.http) {
      let handle;
      try {
        handle = await serveHttp({ ...serve, ...httpLimits, port, host: values.host as string | undefined, token });
      } catch (error) {
        if (error instanceof ToolgateOptionError) throw new UsageError(error.message.replace(/^options\./, ''));
        throw error;
      }
      onToolsChanged = () => handle.notifyToolsChanged();
      // The count of the list tools/list serves (ask_user and the other caller tools included).
      ctx.stderr.write(`toolgate mcp: serving ${toolsListed(serve).length} tools on ${handle.url}\n`);
      ctx.stderr.write(tokenNotice(token, handle.token));
      await stopped;
      await handle.close();
    } else {
      const handle = await serveStdio({ ...serve, answered: first?.initialize }, { stdin: first?.rest ?? ctx.stdin, stdout: ctx.stdout });
      onToolsChanged = () => handle.notifyToolsChanged();
      const how = await Promise.race([handle.closed.then(() => 'closed'), stopped.then(() => 'stopped')]);
      // The client went away: tasks it started still finish (their results stay in the
      // ledger); a signal stops at once.
      if (how === 'closed') await Promise.race([handle.tasksIdle(), stopped]);
      await handle.close();
    }
    return EXIT.ok;
  } finally {
    onToolsChanged = undefined;
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    ctx.signal?.removeEventListener('abort', onSignal);
    await stopCockpit?.();
    await system.close();
  }
}

/**
 * What MCP users are told about the token (on stderr, which a sandboxed command cannot read):
 * the header to send, with the token itself when it was made here.
 */
function tokenNotice(given: string | false | undefined, used: string | undefined): string {
  if (used === undefined) return 'toolgate mcp: no token (--no-token): every local process can call these tools\n';
  if (given === used) return 'toolgate mcp: every request must send "Authorization: Bearer <the token of TOOLGATE_MCP_TOKEN>"\n';
  return `toolgate mcp: every request must send "Authorization: Bearer ${used}" (a new token at every start; set TOOLGATE_MCP_TOKEN for a fixed one)\n`;
}
