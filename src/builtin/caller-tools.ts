/**
 * The caller tools: toolgate's four caller-side builtins (`ask_user`, `request_tools`,
 * `run_subagent`, `input_subagent`) as tools of the registry, run by the executor on the
 * `main` runner like every other tool, so that each call is decided (a policy can deny
 * `run_subagent`), recorded in the ledger, audited and bounded by its schema.
 *
 * What they answer with belongs to their caller (an agent's question handler, a session's
 * lazy visibility, an agent's children): it reaches them through the call as
 * {@link CallerServices} (`caller-services.ts`), and a call whose caller lent no such service
 * is denied by the visibility decider (`callerToolUnavailable` in `src/decisions/visibility.decider.ts`).
 *
 * - Registered by {@link registerCallerTools} (idempotent) into the registry the caller's calls
 *   resolve in: the `ToolCallHandler` does it for every turn, the MCP server for a session with
 *   lazy domains. A registry that already has a tool of one of these names keeps it.
 * - Never in a selection: the caller offers each (which ones: `offeredCallerTools` in the
 *   visibility decider) with its own spec (`askUserSpec`, `requestToolsSpec`, `subagentSpecs`), whose enums are
 *   the caller's; the registered schemas are the same without those enums.
 * - `readOnly` and of kind `internal`: the call itself changes nothing (a subagent's own calls
 *   are decided one by one), so read-only modes run them; each runs alone in a model turn
 *   ({@link CALLER_TOOL_NAMES}).
 *
 * @module
 */
import type { ToolDescriptor } from '../decorators/metadata.js';
import { buildToolDescriptor, type ToolOptions } from '../decorators/tool.decorator.js';
import { ToolExecutionError } from '../errors/errors.js';
import { REQUEST_TOOLS_NAME } from '../registry/lazy-visibility.js';
import type { ToolRegistry } from '../registry/registry.js';
import { CALLER_TOOL_SOURCE } from '../registry/visibility.js';
import type { SchemaFileEntry } from '../schema/schema-file.js';
import type { JsonSchema, Tool, ToolClass, ToolContext } from '../types/tool.js';
import { isSuspension } from '../util/suspension.js';
import { ASK_USER_INPUT_SCHEMA, ASK_USER_TOOL, askUserOutput, checkAskUserArguments, type AskUserInput, type UserQuestion } from './ask-user.js';
import { servicesOf, type CallerServices } from './caller-services.js';
import { REQUEST_TOOLS_INPUT_SCHEMA, type RequestToolsInput } from './request-tools.js';
import {
  INPUT_SUBAGENT, RUN_SUBAGENT, registeredSubagentSchemas, subagentTools, type InputSubagentInput, type RunSubagentInput, type SubagentDriver, type SubagentReport,
} from './subagent.js';

/** The version every caller tool is registered with. */
const VERSION = '1.0.0';

/**
 * Names of the caller tools. Each waits for every earlier call of a model turn and runs alone,
 * as a write does: `ask_user` (it reaches one person), `request_tools` (it changes what the
 * next calls may see), the subagent tools (a child may write).
 */
export const CALLER_TOOL_NAMES: ReadonlySet<string> = new Set([ASK_USER_TOOL.name, REQUEST_TOOLS_NAME, RUN_SUBAGENT, INPUT_SUBAGENT]);


/**
 * The services a caller tool needs (`fields` of the call's {@link CallerServices}), or the
 * `CLIENT_UNAVAILABLE` error: the visibility decider denies such calls first, saying why.
 */
function lent(name: string, ctx: ToolContext, ...fields: Array<keyof CallerServices>): CallerServices {
  const services = servicesOf(ctx.client);
  if (services === undefined || fields.some((f) => services[f] === undefined)) throw new ToolExecutionError(`${name} is unavailable: its caller lent nothing to answer it with`, 'CLIENT_UNAVAILABLE');
  return services;
}

/** `ask_user`: the question goes to the caller's question handler; the answer is the output. */
class AskUserTool implements Tool<AskUserInput, string> {
  async run(args: AskUserInput, ctx: ToolContext): Promise<string> {
    const ask = lent(ASK_USER_TOOL.name, ctx, 'askUser').askUser!;
    const problem = checkAskUserArguments(args);
    if (problem !== undefined) throw new ToolExecutionError(`Invalid arguments for ask_user: ${problem}.`, 'INVALID_ARGUMENTS');
    const question: UserQuestion = { callId: ctx.callId, question: args.question };
    if (Array.isArray(args.choices)) question.choices = args.choices;
    if (args.multi === true) question.multi = true;
    let answer: string | string[];
    try {
      answer = await ask(question, ctx.signal);
    } catch (error) {
      // Aborted, or suspended: the handler asks in a later request (MCP 2026-07-28), and the call waits for it.
      if (ctx.signal.aborted || isSuspension(error)) throw error;
      throw new ToolExecutionError(`the question could not be put to the user (${String((error as Error)?.message ?? error).slice(0, 500)}).`);
    }
    return askUserOutput(answer);
  }
}

/** `request_tools`: the session's lazy visibility grows; the answer says what became visible (JSON). */
class RequestToolsTool implements Tool<RequestToolsInput, string> {
  run(args: RequestToolsInput, ctx: ToolContext): string {
    const { visibility, domains } = lent(REQUEST_TOOLS_NAME, ctx, 'visibility', 'domains');
    return JSON.stringify(visibility!.request(args.domains, domains!.selected(), domains!.offered()));
  }
}

/** What a subagent tool returns: the status as data, with the text the model reads (`message`). */
type SubagentOutput = Readonly<Record<string, unknown>> & { message: string };

function subagentTool(name: string, drive: (driver: SubagentDriver, args: never, call: Parameters<SubagentDriver['run']>[1]) => Promise<SubagentReport>): ToolClass {
  return class SubagentTool implements Tool<Record<string, unknown>, SubagentOutput> {
    async run(args: Record<string, unknown>, ctx: ToolContext): Promise<SubagentOutput> {
      const services = lent(name, ctx, 'subagents');
      const report = await drive(services.subagents!, args as never, { callId: ctx.callId, session: services.session, turnId: services.turnId, signal: ctx.signal });
      return { ...report.structured, message: report.text };
    }
  };
}

/** The model reads a subagent tool's `message`; `result.structured` keeps the whole status. */
function subagentMessage(output: string): string {
  try {
    const message = (JSON.parse(output) as { message?: unknown }).message;
    return typeof message === 'string' ? message : output;
  } catch {
    return output;
  }
}

interface CallerToolSpec {
  options: ToolOptions;
  target: ToolClass;
  inputSchema: JsonSchema;
}

let registrations: Array<{ descriptor: ToolDescriptor; entry: SchemaFileEntry }> | undefined;

/** The four registrations, built once. */
function callerToolRegistrations(): Array<{ descriptor: ToolDescriptor; entry: SchemaFileEntry }> {
  if (registrations !== undefined) return registrations;
  const [run, input] = subagentTools({ agents: ['parent'], models: [] });
  const [runSchema, inputSchema] = registeredSubagentSchemas();
  const common: Pick<ToolOptions, 'version' | 'kind' | 'readOnly' | 'runner' | 'tags'> = { version: VERSION, kind: 'internal', readOnly: true, runner: 'main', tags: ['builtin', 'agent'] };
  const specs: CallerToolSpec[] = [
    // A person may take long to answer: the caller's signal bounds the wait, not a timeout.
    { options: { ...common, name: ASK_USER_TOOL.name, description: ASK_USER_TOOL.description, timeoutMs: 0 }, target: AskUserTool, inputSchema: ASK_USER_INPUT_SCHEMA },
    {
      options: { ...common, name: REQUEST_TOOLS_NAME, description: 'Make more tools available: call this with the tool domains you need, and their tools are offered from your next step on.', timeoutMs: 10_000 },
      target: RequestToolsTool, inputSchema: REQUEST_TOOLS_INPUT_SCHEMA,
    },
    // The driver bounds each wait by yield_time_ms (at most 10 minutes); the child's answer is
    // the model's to read whole, and its status is kept as data.
    {
      options: { ...common, name: RUN_SUBAGENT, description: run.description, timeoutMs: 0, maxOutputLength: 0, output: { model: subagentMessage } },
      target: subagentTool(RUN_SUBAGENT, (driver, args: RunSubagentInput, call) => driver.run(args, call)), inputSchema: runSchema,
    },
    {
      options: { ...common, name: INPUT_SUBAGENT, description: input.description, timeoutMs: 0, maxOutputLength: 0, output: { model: subagentMessage } },
      target: subagentTool(INPUT_SUBAGENT, (driver, args: InputSubagentInput, call) => driver.input(args, call)), inputSchema,
    },
  ];
  registrations = specs.map(({ options, target, inputSchema: schema }) => {
    const descriptor = buildToolDescriptor(options, target);
    const entry: SchemaFileEntry = {
      name: descriptor.name, version: descriptor.version, description: options.description!, className: target.name,
      source: CALLER_TOOL_SOURCE, inputSchema: schema, outputSchema: null,
    };
    return { descriptor, entry };
  });
  return registrations;
}

/**
 * Register the caller tools in `registry`, each unless a tool of its name is there already
 * (so calling it again, or with a registry where the caller defined its own `ask_user`,
 * changes nothing). Their revisions are stable across processes, so remembered approvals of
 * them carry over.
 */
export function registerCallerTools(registry: ToolRegistry): void {
  for (const { descriptor, entry } of callerToolRegistrations()) {
    if (registry.has(descriptor.name)) continue;
    registry.register(descriptor, entry, { revisionSalt: `${CALLER_TOOL_SOURCE}:${descriptor.name}@${VERSION}` });
  }
}
