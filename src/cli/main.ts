/**
 * The `toolgate` command.
 *
 * ```
 * toolgate list [--tag T]... [--json]
 * toolgate schema NAME [--version RANGE] [--format openai|openai-strict|anthropic|mcp]
 * toolgate call NAME [ARGS_JSON|-] [--version RANGE] [--workspace DIR] [--mode default|explore|plan]
 *               [--scoped-write DIR]... [--yes] [--timeout-ms N] [--output-dir DIR] [--json]
 * toolgate schemas PATTERN... --out FILE [--check] [--tsconfig FILE]
 * toolgate mcp [--http [--port N] [--host ADDR]] [--workspace DIR] [--mode M] [--tool NAME]... [--tag T]... [--yes]
 * ```
 * `--config FILE` names MCP servers to bridge in (see `src/cli/mcp-command.ts`); a
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
import path from 'node:path';
import readline from 'node:readline/promises';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import type { LevelWithSilent } from 'pino';
import { PathTraversalError, ToolDefinitionError, ToolgateError } from '../errors.js';
import { MAX_TIMEOUT_MS } from '../decorators/tool.decorator.js';
import { ToolExecutor } from '../executor/executor.js';
import { createLogger } from '../logging/logger.js';
import { loadBuiltinTools, loadPortedTools, loadTools } from '../registry/loader.js';
import type { ToolRegistry } from '../registry/registry.js';
import { EXPORT_FORMATS, exportTool, type ExportFormat } from '../schema/export.js';
import type { ConfirmationRequest } from '../decisions/approval.js';
import type { ToolExecutionResult } from '../types.js';
import { bridgeConfigured, closeBridges, cmdMcp, MCP_USAGE } from './mcp-command.js';

function packageVersion(): string {
  const pkg = JSON.parse(fs.readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version: string };
  return pkg.version;
}

/** Exit codes of the CLI. */
export const EXIT = { ok: 0, failed: 1, usage: 2, escape: 3 } as const;

const USAGE = `Usage:
  toolgate list [--tag T]... [--json]
  toolgate schema NAME [--version RANGE] [--format openai|openai-strict|anthropic|mcp]
  toolgate call NAME [ARGS_JSON|-] [--version RANGE] [--workspace DIR]
                [--mode default|explore|plan] [--scoped-write DIR]... [--yes]
                [--timeout-ms N] [--output-dir DIR] [--json]
  toolgate schemas PATTERN... --out FILE [--check] [--tsconfig FILE]
  toolgate agent "TASK" [--agent general|explore|plan] [--model M] [--base-url U]
                 [--workspace DIR] [--yes] [--max-rounds N] [--plan-dir DIR]
                 (model endpoint: OPENAI_BASE_URL, OPENAI_API_KEY, OPENAI_MODEL)

${MCP_USAGE}
Common options:
  --tools DIR        load compiled tools from DIR too (repeatable; needs --schemas)
  --schemas FILE     generated schema file of the --tools folders
  --log-level LEVEL  pino level on stderr (default error)
  --config FILE      toolgate config file whose mcpServers are bridged in as {server}__{tool};
                     only a file named here is read (a workspace's own toolgate.config.json
                     must not start programs by itself)
  -h, --help         this help (also: toolgate help)
  --version          print toolgate's version

ARGS_JSON is one JSON object (quote it as one word), or - to read it from stdin; default {}.
The workspace defaults to the current folder.

Exit codes: 0 success, 1 tool failure or gate denial, 2 usage error, 3 path outside the workspace.`;

/** A command line that cannot be run as written (exit 2). */
export class UsageError extends ToolgateError {
  constructor(message: string) {
    super('INVALID_OPTIONS', message);
  }
}

const COMMON: ParseArgsConfig['options'] = {
  tools: { type: 'string', multiple: true },
  schemas: { type: 'string' },
  'log-level': { type: 'string' },
  config: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
};

const LEVELS = new Set(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']);

export interface Io {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  stdin: NodeJS.ReadableStream & { isTTY?: boolean };
}

export function parse(argv: string[], options: ParseArgsConfig['options']) {
  try {
    return parseArgs({ args: argv, options: { ...COMMON, ...options }, allowPositionals: true, strict: true });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

/**
 * The builtin and ported tools, the `--tools` folders, and the tools of the MCP servers the
 * config file names (`--config FILE`; a workspace's own file is only noted, not read).
 */
export async function registryFor(values: Record<string, unknown>, workspace = process.cwd()): Promise<ToolRegistry> {
  const { registry } = await loadBuiltinTools();
  await loadPortedTools(registry);
  const dirs = (values.tools as string[] | undefined) ?? [];
  if (dirs.length) {
    if (typeof values.schemas !== 'string') throw new UsageError('--tools needs --schemas FILE (generate it with `toolgate schemas`)');
    await loadTools({ directories: dirs.map((d) => path.resolve(d)), schemas: path.resolve(values.schemas), registry });
  }
  await bridgeConfigured(registry, values, workspace, createLogger(logLevel(values)));
  return registry;
}

export function logLevel(values: Record<string, unknown>): LevelWithSilent {
  const level = (values['log-level'] as string | undefined) ?? 'error';
  if (!LEVELS.has(level)) throw new UsageError(`--log-level must be one of ${[...LEVELS].join(', ')}; got ${level}`);
  return level as LevelWithSilent;
}

function firstSentence(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  const m = /^(.+?[.!?])(\s|$)/.exec(flat);
  return m ? m[1]! : flat;
}

async function cmdList(argv: string[], io: Io): Promise<number> {
  const { values } = parse(argv, { tag: { type: 'string', multiple: true }, json: { type: 'boolean' } });
  logLevel(values);
  const registry = await registryFor(values);
  const tags = values.tag as string[] | undefined;
  const known = new Set(registry.list().flatMap((t) => t.tags));
  const unknown = (tags ?? []).filter((t) => !known.has(t));
  if (unknown.length) throw new UsageError(`no tool has the tag ${unknown.join(', ')}; tags in use: ${[...known].sort().join(', ')}`);
  const tools = registry.list({ tags });
  if (values.json) {
    const rows = tools.map((t) => ({
      name: t.name, version: t.version, description: t.description, tags: t.tags, readOnly: t.readOnly,
      requiresConfirmation: t.requiresConfirmation, timeoutMs: t.timeoutMs, rateLimitRpm: t.rateLimitRpm ?? null,
      memoryMb: t.memoryMb ?? null, maxOutputLength: t.maxOutputLength, runner: t.runner, revision: t.revision,
      versions: registry.versions(t.name),
    }));
    io.stdout.write(`${JSON.stringify(rows, null, 2)}\n`);
    return EXIT.ok;
  }
  const header = ['NAME', 'VERSION', 'ACCESS', 'CONFIRM', 'TAGS', 'DESCRIPTION'];
  const rows = tools.map((t) => [t.name, t.version, t.readOnly ? 'read' : 'write', t.requiresConfirmation ? 'yes' : 'no', t.tags.join(','), firstSentence(t.description)]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  for (const row of [header, ...rows]) {
    io.stdout.write(`${row.map((c, i) => (i === row.length - 1 ? c : c.padEnd(widths[i]!))).join('  ')}\n`);
  }
  return EXIT.ok;
}

async function cmdSchema(argv: string[], io: Io): Promise<number> {
  const { values, positionals } = parse(argv, { version: { type: 'string' }, format: { type: 'string' } });
  logLevel(values);
  const name = positionals[0];
  if (!name || positionals.length > 1) throw new UsageError('schema takes one tool NAME');
  const format = (values.format as string | undefined) ?? 'openai';
  if (!EXPORT_FORMATS.includes(format as ExportFormat)) throw new UsageError(`--format must be one of ${EXPORT_FORMATS.join(', ')}; got ${format}`);
  const registry = await registryFor(values);
  const found = registry.resolve(name, values.version as string | undefined);
  if ('found' in found) throw new UsageError(found.message);
  io.stdout.write(`${JSON.stringify(exportTool(found, format as ExportFormat), null, 2)}\n`);
  return EXIT.ok;
}

async function readStdin(stdin: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stdin) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk)));
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * Text safe to print on a terminal: control characters (escape sequences), and the bidi and
 * zero-width characters that can make text read differently than it is, shown as `\u{...}`.
 */
export function terminalSafe(text: string, keepNewlines = true): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200b-\u200f\u202a-\u202e\u2066-\u2069\ufeff]|\n|\t/g, (c) => {
    if ((c === '\n' && keepNewlines) || c === '\t') return c;
    return `\\u{${c.codePointAt(0)!.toString(16)}}`;
  });
}

/** The confirmation question: the target paths first and whole, then each argument, long values cut. */
export function confirmationPrompt(request: ConfirmationRequest): string {
  const lines = [`${request.tool} ${request.version} asks to run.`];
  for (const p of request.paths) lines.push(`  target: ${terminalSafe(p, false)}`);
  for (const [key, value] of Object.entries(request.arguments)) {
    const text = typeof value === 'string' ? value : JSON.stringify(value) ?? String(value);
    const shown = text.length > 300 ? `${text.slice(0, 300)}... (${text.length} characters)` : text;
    lines.push(`  ${terminalSafe(key, false)}: ${terminalSafe(shown, false)}`);
  }
  return `${lines.join('\n')}\nAllow? [y/N] `;
}

async function askOnTty(io: Io, request: ConfirmationRequest): Promise<boolean> {
  const rl = readline.createInterface({ input: io.stdin, output: io.stderr, terminal: true });
  try {
    const answer = await rl.question(confirmationPrompt(request));
    return /^y(es)?$/i.test(answer.trim());
  } finally {
    rl.close();
  }
}

async function cmdCall(argv: string[], io: Io): Promise<number> {
  const { values, positionals } = parse(argv, {
    version: { type: 'string' },
    workspace: { type: 'string' },
    mode: { type: 'string' },
    'scoped-write': { type: 'string', multiple: true },
    yes: { type: 'boolean', short: 'y' },
    'timeout-ms': { type: 'string' },
    'output-dir': { type: 'string' },
    json: { type: 'boolean' },
  });
  const [name, rawArgs, ...rest] = positionals;
  if (!name) throw new UsageError('call needs a tool NAME');
  if (rest.length) throw new UsageError(`unexpected arguments: ${rest.join(' ')} (quote the JSON arguments as one word)`);
  let timeoutMs: number | undefined;
  if (values['timeout-ms'] !== undefined) {
    const text = String(values['timeout-ms']).trim();
    timeoutMs = Number(text);
    if (text === '' || !Number.isFinite(timeoutMs) || timeoutMs > MAX_TIMEOUT_MS) {
      throw new UsageError(`--timeout-ms must be a number of milliseconds up to ${MAX_TIMEOUT_MS} (0 disables the timeout); got ${JSON.stringify(values['timeout-ms'])}`);
    }
  }
  const workspace = path.resolve((values.workspace as string | undefined) ?? '.');
  if (!fs.existsSync(workspace) || !fs.statSync(workspace).isDirectory()) throw new UsageError(`--workspace ${workspace} is not a folder`);
  const mode = (values.mode as string | undefined) ?? 'default';
  if (!['default', 'explore', 'plan'].includes(mode)) throw new UsageError(`--mode must be default, explore or plan; got ${mode}`);
  const args = rawArgs === '-' ? await readStdin(io.stdin) : rawArgs ?? '{}';

  const registry = await registryFor(values, workspace);
  const interactive = io.stdin.isTTY === true && !values.yes;
  const callId = `cli_${process.pid}_${Date.now().toString(36)}`;
  const started = Date.now();
  const executor = new ToolExecutor(registry, {
    workspaceRoot: workspace,
    logger: createLogger(logLevel(values)),
    confirmationHandler: interactive ? (request) => askOnTty(io, request) : undefined,
    // A temporary folder would be gone when this process exits: keep whole outputs only where asked.
    outputStore: values['output-dir'] === undefined ? false : { dir: path.resolve(values['output-dir'] as string) },
  });
  try {
    const result = await executor.execute({ name, arguments: args, callId, version: values.version as string | undefined }, {
      mode,
      scopedWriteDirs: (values['scoped-write'] as string[] | undefined) ?? [],
      confirm: values.yes === true,
      timeoutMs,
    });
    if (values.json) io.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
    if (result.errorCode === 'UNKNOWN_TOOL' || result.errorCode === 'VERSION_NOT_FOUND') {
      if (!values.json) {
        io.stderr.write(`toolgate: ${result.error}\n`);
        if (result.errorCode === 'UNKNOWN_TOOL') io.stderr.write('toolgate: `toolgate list` shows the tools; load your own with --tools DIR --schemas FILE.\n');
      }
      return EXIT.usage;
    }
    if (!values.json) {
      if (result.fullOutput) io.stderr.write(`toolgate: the whole output (${result.fullOutput.characters} characters) is in ${result.fullOutput.path}\n`);
      if (result.success) {
        // On a terminal, escape sequences in tool output are shown, not obeyed.
        const text = (io.stdout as { isTTY?: boolean }).isTTY ? terminalSafe(result.output) : result.output;
        io.stdout.write(text.endsWith('\n') ? text : `${text}\n`);
      } else {
        io.stderr.write(`${(io.stderr as { isTTY?: boolean }).isTTY ? terminalSafe(result.output) : result.output}\n`);
        if (result.errorCode === 'CONFIRMATION_REQUIRED') io.stderr.write('toolgate: re-run with --yes to approve this call (no terminal to ask on).\n');
        // The hint only where it can help: tools that may write inside scoped folders.
        const scoped = result.tool !== undefined && registry.get(result.tool, result.version)?.scopedWrite === true;
        if (result.errorCode === 'MODE_DENIED' && mode !== 'default' && scoped && !((values['scoped-write'] as string[] | undefined)?.length)) io.stderr.write('toolgate: --scoped-write DIR lets file-writing tools write inside DIR in this mode.\n');
      }
    }
    return result.success ? EXIT.ok : EXIT.failed;
  } catch (error) {
    if (error instanceof PathTraversalError) {
      if (values.json) {
        const result: ToolExecutionResult = {
          success: false, output: `Error: ${error.message}`, error: error.message, errorCode: 'PATH_TRAVERSAL',
          durationMs: Date.now() - started, confirmed: true, tool: name, version: registry.get(name, values.version as string | undefined)?.version, callId, stopReason: 'not_run',
        };
        io.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
      } else {
        io.stderr.write(`toolgate: refused: ${terminalSafe(error.message, false)}\n`);
      }
      return EXIT.escape;
    }
    throw error;
  } finally {
    await executor.close();
  }
}

async function cmdSchemas(argv: string[], io: Io): Promise<number> {
  const { values, positionals } = parse(argv, { out: { type: 'string' }, check: { type: 'boolean' }, tsconfig: { type: 'string' } });
  if (positionals.length === 0) throw new UsageError('schemas needs at least one PATTERN of TypeScript files');
  if (typeof values.out !== 'string') throw new UsageError('schemas needs --out FILE');
  // Loaded only here: the TypeScript compiler stays out of every other command.
  const { generateSchemas, writeOrCheckSchemaFile } = await import('../schema-gen/generate.js');
  const file = await generateSchemas({ patterns: positionals, tsconfig: values.tsconfig as string | undefined });
  const status = writeOrCheckSchemaFile(values.out, file, values.check === true);
  const count = Object.keys(file.tools).length;
  if (values.check) {
    if (status.stale) {
      io.stderr.write(`toolgate: ${values.out} is stale (${status.changed.join(', ') || 'formatting'}); run toolgate schemas without --check (npm run schemas) and commit it.\n`);
      return EXIT.failed;
    }
    io.stdout.write(`${values.out}: up to date (${count} ${count === 1 ? 'tool' : 'tools'})\n`);
    return EXIT.ok;
  }
  io.stdout.write(`${values.out}: ${status.written ? 'written' : 'unchanged'} (${count} ${count === 1 ? 'tool' : 'tools'})\n`);
  return EXIT.ok;
}

/**
 * Run the CLI.
 * @param argv - arguments after the program name.
 * @returns the exit code.
 */
export async function main(argv: string[], io: Io = { stdout: process.stdout, stderr: process.stderr, stdin: process.stdin }): Promise<number> {
  const [command, ...rest] = argv;
  try {
    if (command === '--version' || command === '-v') {
      io.stdout.write(`${packageVersion()}\n`);
      return EXIT.ok;
    }
    if (command === undefined || command === 'help' || command === '-h' || command === '--help' || rest.includes('--help') || rest.includes('-h')) {
      io.stdout.write(`${USAGE}\n`);
      return command === undefined ? EXIT.usage : EXIT.ok;
    }
    switch (command) {
      case 'list':
        return await cmdList(rest, io);
      case 'schema':
        return await cmdSchema(rest, io);
      case 'call':
        return await cmdCall(rest, io);
      case 'schemas':
        return await cmdSchemas(rest, io);
      case 'agent':
        return await (await import('./agent-command.js')).agentCommand(rest, io);
      case 'mcp':
        return await cmdMcp(rest, io);
      default:
        throw new UsageError(`unknown command ${JSON.stringify(command)}`);
    }
  } catch (error) {
    if (error instanceof UsageError) {
      // The message alone: thirty lines of usage after it would bury what to fix.
      io.stderr.write(`toolgate: ${error.message}\nRun \`toolgate help\` for the commands and options.\n`);
      return EXIT.usage;
    }
    if (error instanceof ToolDefinitionError) {
      io.stderr.write(`toolgate: ${error.message}\n`);
      return EXIT.usage;
    }
    throw error;
  } finally {
    await closeBridges();
  }
}
