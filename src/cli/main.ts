/**
 * The `toolgate` command: {@link runCli} parses the command name and hands the rest to the
 * command's module (one file per command; shared helpers in `context.ts`, `terminal.ts` and
 * `tool-system.ts`). `bin/toolgate.js` calls it with the process's streams; tests call it in
 * process with their own.
 *
 * ```
 * toolgate list [--tag T]... [--json]
 * toolgate schema NAME [--version RANGE] [--format openai|openai-strict|anthropic|mcp]
 * toolgate call NAME [ARGS_JSON|-] [--version RANGE] [--workspace DIR] [--mode default|explore|plan]
 *               [--scoped-write DIR]... [--yes] [--timeout-ms N] [--output-dir DIR] [--json]
 * toolgate schemas PATTERN... --out FILE [--check] [--tsconfig FILE]
 * toolgate agent "TASK" [--agent general|explore|plan] [--model M] [--base-url U] ...
 * toolgate mcp [--http [--port N] [--host ADDR]] [--workspace DIR] [--mode M] [--tool NAME]... [--tag T]... [--yes]
 * toolgate policy check [--workspace DIR] [--explain CALL_JSON]
 * toolgate approvals [list | allow ID | deny ID]
 * toolgate result CALL_ID [--session S] [--json]
 * toolgate trace [--session S] [--call ID] [--json]
 * toolgate cockpit [--port N] [--host ADDR]
 * ```
 * `--config FILE` names MCP servers to bridge in (see `src/cli/tool-system.ts`); a
 * `toolgate.config.json` in the workspace is used only when named so.
 * Every command also takes `--tools DIR... --schemas FILE` (load your own compiled tools with
 * their schema file, beside the builtins) and `--log-level LEVEL` (default `error`, on stderr).
 *
 * Exit codes: 0 success; 1 the tool failed or a gate stopped the call (or schemas are stale);
 * 2 usage error (bad flags, unknown tool or version, a tool folder or schema file that does
 * not load); 3 a path left the workspace.
 *
 * @module
 */
import fs from 'node:fs';
import { ToolDefinitionError } from '../errors/errors.js';
import { CALL_USAGE, callCommand } from './call-command.js';
import { APPROVALS_USAGE, approvalsCommand } from './approvals-command.js';
import { RESULT_USAGE, resultCommand } from './result-command.js';
import { TRACE_USAGE, traceCommand } from './trace-command.js';
import { COCKPIT_FLAGS_USAGE, COCKPIT_USAGE, cockpitCommand } from './cockpit-command.js';
import { APPROVE_USAGE, cliContext, EXIT, LEDGER_USAGE, SANDBOX_USAGE, UsageError, type CliContext, type CliOptions } from './context.js';
import { LIST_USAGE, listCommand } from './list-command.js';
import { MCP_USAGE, mcpCommand } from './mcp-command.js';
import { POLICY_USAGE, policyCommand } from './policy-command.js';
import { SCHEMA_USAGE, schemaCommand } from './schema-command.js';
import { SCHEMAS_USAGE, schemasCommand } from './schemas-command.js';

export type { CliOptions };

function packageVersion(): string {
  const pkg = JSON.parse(fs.readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version: string };
  return pkg.version;
}

const USAGE = `Usage:
${LIST_USAGE}
${SCHEMA_USAGE}
${CALL_USAGE}
${SCHEMAS_USAGE}
  toolgate agent "TASK" [--agent general|explore|plan] [--model M] [--base-url U]
                 [--workspace DIR] [--yes] [--max-rounds N] [--plan-dir DIR]
                 (model endpoint: OPENAI_BASE_URL, OPENAI_API_KEY, OPENAI_MODEL)

${MCP_USAGE}
${POLICY_USAGE}
${APPROVALS_USAGE}
${RESULT_USAGE}
${TRACE_USAGE}
${COCKPIT_USAGE}

Common options:
  --tools DIR        load compiled tools from DIR too (repeatable; needs --schemas)
  --schemas FILE     generated schema file of the --tools folders
  --log-level LEVEL  pino level on stderr (default error)
  --config FILE      toolgate config file whose mcpServers are bridged in as {server}__{tool};
                     only a file named here is read (a workspace's own toolgate.config.json
                     must not start programs by itself)
  -h, --help         this help (also: toolgate help)
  --version          print toolgate's version

Sandbox options of call, mcp and agent:
${SANDBOX_USAGE}

Approval options of call, mcp and agent:
${APPROVE_USAGE}

Ledger options of call, mcp and agent (approvals, result and trace take --state-dir):
${LEDGER_USAGE}

Cockpit options of mcp and agent:
${COCKPIT_FLAGS_USAGE}

ARGS_JSON is one JSON object (quote it as one word), or - to read it from stdin; default {}.
The workspace defaults to the current folder.

Exit codes: 0 success, 1 tool failure or gate denial, 2 usage error, 3 path outside the workspace.`;

/** The commands, by name. `agent` is loaded on use: the model client stays out of the others. */
const COMMANDS: Record<string, (argv: string[], ctx: CliContext) => Promise<number>> = {
  list: listCommand,
  schema: schemaCommand,
  call: callCommand,
  schemas: schemasCommand,
  agent: async (argv, ctx) => (await import('./agent-command.js')).agentCommand(argv, ctx),
  mcp: mcpCommand,
  policy: policyCommand,
  approvals: approvalsCommand,
  result: resultCommand,
  trace: traceCommand,
  cockpit: cockpitCommand,
};

/**
 * Run the CLI in this process.
 * @param argv - arguments after the program name.
 * @param options - streams, environment, folder and abort signal; each defaults to the process's own.
 * @returns the exit code (the caller sets `process.exitCode`; nothing here exits the process).
 */
export async function runCli(argv: string[], options: CliOptions = {}): Promise<number> {
  const ctx = cliContext(options);
  const [command, ...rest] = argv;
  try {
    if (command === '--version' || command === '-v') {
      ctx.stdout.write(`${packageVersion()}\n`);
      return EXIT.ok;
    }
    if (command === undefined || command === 'help' || command === '-h' || command === '--help' || rest.includes('--help') || rest.includes('-h')) {
      ctx.stdout.write(`${USAGE}\n`);
      return command === undefined ? EXIT.usage : EXIT.ok;
    }
    const run = Object.hasOwn(COMMANDS, command) ? COMMANDS[command] : undefined;
    if (run === undefined) throw new UsageError(`unknown command ${JSON.stringify(command)}`);
    return await run(rest, ctx);
  } catch (error) {
    if (error instanceof UsageError) {
      // The message alone: thirty lines of usage after it would bury what to fix.
      ctx.stderr.write(`toolgate: ${error.message}\nRun \`toolgate help\` for the commands and options.\n`);
      return EXIT.usage;
    }
    if (error instanceof ToolDefinitionError) {
      ctx.stderr.write(`toolgate: ${error.message}\n`);
      return EXIT.usage;
    }
    throw error;
  }
}
