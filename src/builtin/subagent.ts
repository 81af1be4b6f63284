/**
 * `run_subagent` and `input_subagent`: the tools through which a model delegates a subtask to
 * a child agent and drives it afterwards. They are caller-side builtins (`caller-tools.ts`):
 * registered on the `main` runner and run by the executor like every tool (decided, recorded,
 * audited), and answered by the {@link SubagentDriver} the calling agent lends them
 * (`CallerServices.subagents`: an agent given a `subagents` option, `src/agents/subagents.ts`).
 * The child's own tool calls go through the executor as every other call does.
 *
 * The schemas the model is offered depend on what the parent allows (the agent kinds and
 * models a child may use), so they are built per agent by {@link subagentSpecs}; the
 * registered schemas ({@link subagentTools} with no choices) leave the enums out, and the
 * driver checks the call against its own choices.
 *
 * @module
 */
import type { JsonSchema } from '../types/tool.js';
import type { ExportableTool } from '../formats/common.js';
import { exportTool } from '../formats/export.js';
import type { OpenAITool } from '../formats/openai.js';
import { compileValidator } from '../schema/validator.js';

/** Name of the tool that starts a subagent. */
export const RUN_SUBAGENT = 'run_subagent';
/** Name of the tool that polls a subagent or sends it a follow-up prompt. */
export const INPUT_SUBAGENT = 'input_subagent';

/** Message of a subagent's call to `run_subagent` or `input_subagent` (after the tool's name and "is"). */
export const SUBAGENT_DEPTH_MESSAGE = 'not available to a subagent: subagents cannot start or drive subagents (depth is capped at 1). Do the work yourself with your other tools.';

/** Longest foreground wait a call may ask for, in milliseconds (10 minutes). */
export const MAX_SUBAGENT_YIELD_MS = 600_000;

/** Arguments of a `run_subagent` call. */
export interface RunSubagentInput {
  /** The complete subtask: all the context the child needs and the exact final answer expected. */
  prompt: string;
  /** The child's agent kind, one the parent allows. Default: the parent's own kind. */
  agent_id?: string;
  /** The child's model, one the parent allows. Default: the parent's model. */
  model_id?: string;
  /** Foreground wait in milliseconds, 0 to 600000; past it the child goes on in the background. Default: the parent's window. */
  yield_time_ms?: number;
}

/** Arguments of an `input_subagent` call. */
export interface InputSubagentInput {
  /** The id `run_subagent` returned (`sa-1`, ...). */
  subagent_id: string;
  /** A follow-up task, accepted only while the child is idle; empty or absent: poll only. */
  prompt?: string;
  /** Wait in milliseconds, 0 to 600000. Default: the window with a prompt, the poll window without. */
  yield_time_ms?: number;
}

/** What a parent allows its children: the names the schemas offer. */
export interface SubagentChoices {
  /** Agent kinds a child may be (the `agent_id` enum); the first is the default. */
  agents: readonly string[];
  /** Models a child may use besides the parent's (the `model_id` enum); empty: no `model_id` argument. */
  models: readonly string[];
}

const YIELD = { type: 'integer', minimum: 0, maximum: MAX_SUBAGENT_YIELD_MS } as const;

/** The JSON Schema of {@link RunSubagentInput} for what `choices` allows. */
function runSubagentSchema(choices: SubagentChoices): JsonSchema {
  const agentIds = choices.agents.length ? { enum: [...choices.agents] } : { minLength: 1, maxLength: 200 };
  const properties: Record<string, unknown> = {
    prompt: { type: 'string', minLength: 1, maxLength: 100_000, description: 'The complete subtask: all the context the child needs (it does not see this conversation) and the exact final answer you expect.' },
    agent_id: { type: 'string', ...agentIds, description: `The child's agent kind. Default: ${choices.agents[0] ?? "the parent's own"}.` },
    yield_time_ms: { ...YIELD, description: 'How long to wait for the child in the foreground, in milliseconds (0 to 600000); past it the child goes on in the background and you get its subagent_id.' },
  };
  if (choices.models.length) properties.model_id = { type: 'string', enum: [...choices.models], description: "The child's model. Default: the same model as yours." };
  return { $schema: 'http://json-schema.org/draft-07/schema#', type: 'object', properties, required: ['prompt'], additionalProperties: false };
}

const INPUT_SUBAGENT_SCHEMA: JsonSchema = Object.freeze({
  $schema: 'http://json-schema.org/draft-07/schema#',
  type: 'object',
  properties: {
    subagent_id: { type: 'string', minLength: 1, maxLength: 200, description: 'The subagent_id that run_subagent returned.' },
    prompt: { type: 'string', maxLength: 100_000, description: 'A follow-up task for the child, accepted only once it is idle (finished its last task); leave it out to poll.' },
    yield_time_ms: { ...YIELD, description: 'How long to wait for the child, in milliseconds (0 to 600000).' },
  },
  required: ['subagent_id'],
  additionalProperties: false,
});

/** The specs of both tools for what `choices` allows, ready for {@link exportTool}. */
export function subagentTools(choices: SubagentChoices): [ExportableTool, ExportableTool] {
  const common = { outputSchema: null, readOnly: false, kind: 'internal', tags: Object.freeze(['builtin', 'agent']) as readonly string[] } as const;
  return [
    {
      ...common,
      name: RUN_SUBAGENT,
      description:
        'Delegate a self-contained subtask to a child agent working in the same workspace, with the same permissions as you or fewer. ' +
        'Use it for a subtask you can fully specify in one prompt (the child does not see this conversation). ' +
        'If the child finishes within yield_time_ms you get its final answer; otherwise it goes on in the background and you get a subagent_id to poll with input_subagent. ' +
        'Subagents cannot start subagents.',
      inputSchema: runSubagentSchema(choices),
    },
    {
      ...common,
      name: INPUT_SUBAGENT,
      description:
        'Poll a background subagent by its subagent_id (wait for it to finish), or send it a follow-up task once it is idle. ' +
        'Answers with its status and, once it finished, its final answer.',
      inputSchema: INPUT_SUBAGENT_SCHEMA,
    },
  ];
}

/**
 * The schemas both tools are registered with (what the executor checks every call against):
 * those of {@link subagentTools} without the enums of one agent's choices (`agent_id` any
 * name, `model_id` accepted), which the {@link SubagentDriver} checks.
 */
export function registeredSubagentSchemas(): [JsonSchema, JsonSchema] {
  const [run, input] = subagentTools({ agents: [], models: [] });
  const runSchema = run.inputSchema as { properties: Record<string, unknown> };
  const properties = { ...runSchema.properties, model_id: { type: 'string', minLength: 1, maxLength: 200, description: "The child's model. Default: the same model as yours." } };
  return [{ ...run.inputSchema, properties }, input.inputSchema];
}

/** The parent's call of `run_subagent` / `input_subagent`, as its driver sees it. */
export interface SubagentCall {
  /** The call id (it names the child's turn: `subagentTurnId`). */
  callId: string;
  /** The session of the parent's call (an agent's `<turn id>:<round>`), if the caller named one. */
  session: string | undefined;
  /** The parent's turn id, if the caller named one. */
  turnId: string | undefined;
  /** Aborts with the call (the parent's run aborted, the executor closing). */
  signal: AbortSignal;
}

/** What a driver answers a call with: the text the model reads and the status as data (`result.structured`). */
export interface SubagentReport {
  text: string;
  structured: Readonly<Record<string, unknown>>;
}

/**
 * The children of one agent, as the subagent tools reach them through the call
 * (`CallerServices.subagents`; `SubagentSessions` in `src/agents/subagents.ts` is the one
 * implementation). Arguments reach it checked against the registered schemas, `null` fields
 * dropped; it checks them against its own choices.
 */
export interface SubagentDriver {
  /** 0 for a parent; 1 for a child, which cannot start or drive subagents (the visibility decider then denies both tools). */
  readonly depth: 0 | 1;
  /**
   * Start a child on `input.prompt` and wait for it up to its window.
   * @throws ToolExecutionError `INVALID_ARGUMENTS` (an agent or model it does not allow),
   *   `OVERLOADED` (every kept child running), `ABORTED`, or `TOOL_ERROR` (the child failed).
   */
  run(input: RunSubagentInput, call: SubagentCall): Promise<SubagentReport>;
  /** Poll a child or send it a follow-up prompt; throws as {@link SubagentDriver.run} does. */
  input(input: InputSubagentInput, call: SubagentCall): Promise<SubagentReport>;
}

/** Both specs in the OpenAI function-calling shape (what agents send their model). */
export function subagentSpecs(choices: SubagentChoices): OpenAITool[] {
  return subagentTools(choices).map((tool) => exportTool(tool, 'openai') as OpenAITool);
}

/**
 * Argument checkers of both tools for what `choices` allows (each schema compiled once).
 * A checker returns `undefined` when the arguments are valid, else a message naming the
 * problem (for the model). `null` for an optional field counts as absent, as OpenAI strict
 * mode sends it.
 */
export function subagentArgumentCheckers(choices: SubagentChoices): { run(args: unknown): string | undefined; input(args: unknown): string | undefined } {
  const [run, input] = subagentTools(choices).map((tool) => compileValidator(tool.inputSchema, 'argument'));
  return { run: (args) => run!(withoutNulls(args)), input: (args) => input!(withoutNulls(args)) };
}

/** `args` without its `null` fields (a copy), when it is an object. */
export function withoutNulls(args: unknown): unknown {
  if (args === null || typeof args !== 'object' || Array.isArray(args)) return args;
  return Object.fromEntries(Object.entries(args).filter(([, value]) => value !== null));
}

/** The parts of a subagent run's turn id ({@link subagentTurnId}). */
export interface SubagentTurn {
  /** The session of the parent's call that started the run (an agent's `<turn id>:<round>`). */
  parentSession: string;
  /** The parent's turn id: `parentSession` without its `:<round>`. */
  parentTurnId: string;
  /** The call id of the parent's `run_subagent` / `input_subagent` call. */
  parentCallId: string;
  /** The child's id (`sa-1`, ...). */
  subagentId: string;
}

const SUBAGENT_TURN = /^([^/]+)\/([^/]+)\/subagent:(sa-[1-9][0-9]*)$/;

/** A turn id component with `%` and `/` escaped (`%25`, `%2F`): `/` only separates components. */
function escapeComponent(value: string): string {
  return value.replaceAll('%', '%25').replaceAll('/', '%2F');
}

/** The component {@link escapeComponent} escaped. */
function unescapeComponent(value: string): string {
  return value.replace(/%(?:25|2F)/gi, (escaped) => (escaped === '%25' ? '%' : '/'));
}

/**
 * The turn id of a subagent's run: `<parent session>/<parent call id>/subagent:<id>`, so that
 * the child's calls (stored with it as their `turn`) name the parent call that started them.
 * In the parent session and call id, `%` is written `%25` and `/` is written `%2F` (an agent
 * named `team/general` gives `team%2Fgeneral:<uuid>:1/<call id>/subagent:sa-1`), so the
 * parts read back exactly ({@link parseSubagentTurnId}).
 */
export function subagentTurnId(parentSession: string, parentCallId: string, subagentId: string): string {
  return `${escapeComponent(parentSession)}/${escapeComponent(parentCallId)}/subagent:${subagentId}`;
}

/** The parts of a turn id made by {@link subagentTurnId} (unescaped), or `undefined` for any other turn id. */
export function parseSubagentTurnId(turnId: string): SubagentTurn | undefined {
  const match = SUBAGENT_TURN.exec(turnId);
  if (match === null) return undefined;
  const parentSession = unescapeComponent(match[1]!);
  return { parentSession, parentTurnId: parentSession.replace(/:[0-9]+$/, ''), parentCallId: unescapeComponent(match[2]!), subagentId: match[3]! };
}
