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
 * toolgate skills [list | trust NAME | untrust NAME] [--workspace DIR] [--yes]
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
import { PackageUnavailableError, ToolDefinitionError, ToolgateError, ToolgateOptionError } from '../errors/errors.js';
import { cliContext, EXIT, UsageError, type CliContext, type CliOptions } from './context.js';
import { commandUsage, USAGE } from './usage.js';
import { nearName } from './near-name.js';

export type { CliOptions };

function packageVersion(): string {
  const pkg = JSON.parse(fs.readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version: string };
  return pkg.version;
}

type Command = (argv: string[], ctx: CliContext) => Promise<number>;

/**
 * The commands, by name, each loaded on use: a command imports only its own module graph
 * (`--version` and `help` none, `list` no executor, `agent` alone the model client).
 */
const COMMANDS: Record<string, () => Promise<Command>> = {
  list: async () => (await import('./list-command.js')).listCommand,
  schema: async () => (await import('./schema-command.js')).schemaCommand,
  call: async () => {
    // Most tools run in a child process of the default memory cap: runCli started it before
    // anything else; the runner adopts it (the command closes the runner if unused).
    const prestarted = import('../runner/process/process-runner.js').then(({ ProcessRunner }) => {
      const runner = new ProcessRunner({ poolSize: 1 });
      runner.warmUp();
      return runner;
    });
    // Spawned first: loading both at once would delay the spawn behind the command's modules.
    await prestarted.catch(() => undefined);
    const { callCommand } = await import('./call-command.js');
    return (argv, ctx) => callCommand(argv, ctx, prestarted);
  },
  schemas: async () => (await import('./schemas-command.js')).schemasCommand,
  agent: async () => (await import('./agent-command.js')).agentCommand,
  mcp: async () => (await import('./mcp-command.js')).mcpCommand,
  policy: async () => (await import('./policy-command.js')).policyCommand,
  approvals: async () => (await import('./approvals-command.js')).approvalsCommand,
  result: async () => (await import('./result-command.js')).resultCommand,
  trace: async () => (await import('./trace-command.js')).traceCommand,
  cockpit: async () => (await import('./cockpit-command.js')).cockpitCommand,
  worker: async () => (await import('./worker-command.js')).workerCommand,
  skills: async () => (await import('./skills-command.js')).skillsCommand,
};

/**
 * Run the CLI in this process.
 * @param argv - arguments after the program name.
 * @param options - streams, environment, folder and abort signal; each defaults to the process's own.
 * @returns the exit code (the caller sets `process.exitCode`; nothing here exits the process).
 */
export async function runCli(argv: string[], options: CliOptions = {}): Promise<number> {
  const [command, ...rest] = argv;
  // Before anything else: the child process most calls run in boots while the rest loads.
  if (command === 'call') (await import('./early.js')).startEarly(argv);
  const ctx = cliContext(options);
  try {
    if (command === '--version' || command === '-v') {
      ctx.stdout.write(`${packageVersion()}\n`);
      return EXIT.ok;
    }
    if (command === undefined || command === 'help' || command === '-h' || command === '--help' || rest.includes('--help') || rest.includes('-h')) {
      // `toolgate call --help` and `toolgate help call`: that command's help; else all of it.
      // `agent` writes its own (its model endpoint, its exit codes).
      const named = command === 'help' ? rest[0] : command;
      if (named === 'agent') return await (await COMMANDS.agent!())(['--help'], ctx);
      ctx.stdout.write(`${(named === undefined ? undefined : commandUsage(named)) ?? USAGE}\n`);
      return command === undefined ? EXIT.usage : EXIT.ok;
    }
    const load = Object.hasOwn(COMMANDS, command) ? COMMANDS[command] : undefined;
    if (load === undefined) {
      const near = nearName(command, Object.keys(COMMANDS));
      throw new UsageError(`unknown command ${JSON.stringify(command)}${near === undefined ? '' : ` (did you mean ${near}?)`}`);
    }
    return await (await load())(rest, ctx);
  } catch (error) {
    if (error instanceof UsageError) {
      // The message alone: thirty lines of usage after it would bury what to fix.
      const help = command !== undefined && commandUsage(command) !== undefined ? `toolgate ${command} --help\` for its options` : 'toolgate help` for the commands and options';
      ctx.stderr.write(`toolgate: ${error.message}\nRun \`${help}.\n`);
      return EXIT.usage;
    }
    if (error instanceof ToolDefinitionError) {
      ctx.stderr.write(`toolgate: ${error.message}\n`);
      return EXIT.usage;
    }
    if (error instanceof ToolgateOptionError) {
      // A config file's mistake found while loading tools (a toolset entry naming no tool).
      ctx.stderr.write(`toolgate: ${error.message.replace(/^options\./, '')}\n`);
      return EXIT.usage;
    }
    if (error instanceof ToolgateError && error.code === 'QUEUE_UNAVAILABLE') {
      // `mcp|agent --queue`: the queue's server did not answer within --queue-wait-ms.
      ctx.stderr.write(`toolgate: ${error.message}\n`);
      return EXIT.failed;
    }
    if (error instanceof PackageUnavailableError) {
      // An optional package the command needs (`toolgate schemas` without the schema generator).
      ctx.stderr.write(`toolgate: ${error.message}\n`);
      return EXIT.failed;
    }
    throw error;
  }
}
