/**
 * `ask_user`: the tool through which a model asks the person it works for a question. It is a
 * caller-side builtin (`caller-tools.ts`): registered on the `main` runner and run by the
 * executor like every tool (decided, recorded, audited), but answered with what the caller
 * lends it, the question handler of an agent (`CallerServices.askUser`). An agent that has a
 * handler offers this spec to its model; without one it leaves the spec out, and a call to it
 * anyway is denied by the visibility decider ({@link ASK_USER_UNAVAILABLE}).
 *
 * @module
 */
import type { JsonSchema } from '../types/tool.js';
import type { AnthropicTool } from '../formats/anthropic.js';
import type { ExportableTool } from '../formats/common.js';
import { exportTool, type ExportFormat } from '../formats/export.js';
import type { McpTool } from '../formats/mcp.js';
import type { OpenAITool } from '../formats/openai.js';
import { compileValidator } from '../schema/validator.js';

/** Arguments of an `ask_user` call. */
export interface AskUserInput {
  /** The question, in one or two sentences the user can answer without more context. */
  question: string;
  /** Answers to offer (2 to 10); omit for a free-text answer. */
  choices?: string[];
  /** With `choices`: the user may pick more than one. Default false. */
  multi?: boolean;
}

/** The JSON Schema (draft-07) of {@link AskUserInput} (what the model is offered and the executor checks). */
export const ASK_USER_INPUT_SCHEMA: JsonSchema = Object.freeze({
  $schema: 'http://json-schema.org/draft-07/schema#',
  type: 'object',
  properties: {
    question: { type: 'string', minLength: 1, maxLength: 2000, description: 'The question, in one or two sentences the user can answer without more context.' },
    choices: {
      type: 'array',
      items: { type: 'string', minLength: 1, maxLength: 200 },
      minItems: 2,
      maxItems: 10,
      uniqueItems: true,
      description: 'Answers to offer (2 to 10); omit for a free-text answer.',
    },
    multi: { type: 'boolean', default: false, description: 'With choices: the user may pick more than one.' },
  },
  required: ['question'],
  additionalProperties: false,
});

/** The spec of `ask_user`, ready for {@link exportTool}. */
export const ASK_USER_TOOL: ExportableTool = Object.freeze({
  name: 'ask_user',
  description:
    'Ask the user a question and wait for the answer. Use it only when you cannot go on without a decision or a fact that only the user has; ' +
    'do not use it to ask for permission (tools that need approval ask by themselves) or for things you can find out with other tools.',
  inputSchema: ASK_USER_INPUT_SCHEMA,
  outputSchema: null,
  readOnly: true,
  kind: 'internal',
  tags: Object.freeze(['builtin', 'agent']) as readonly string[],
});

/**
 * The `ask_user` spec in a provider's or MCP's shape.
 * @param format - `openai`, `openai-strict`, `anthropic` or `mcp` (see `exportTool`).
 */
export function askUserSpec(format: ExportFormat): OpenAITool | AnthropicTool | McpTool {
  return exportTool(ASK_USER_TOOL, format);
}

// Compiled on the first check: importing this module (every tool system does) loads no ajv.
let validate: ReturnType<typeof compileValidator> | undefined;

/**
 * Check the arguments of an `ask_user` call the model made (`null` for an optional field
 * counts as absent, as OpenAI strict mode sends it).
 * @returns `undefined` when valid, else a message naming the problem (for the model).
 */
export function checkAskUserArguments(args: unknown): string | undefined {
  // OpenAI strict mode sends optional fields as null: null counts as absent, as in the executor.
  if (args !== null && typeof args === 'object' && !Array.isArray(args)) {
    args = Object.fromEntries(Object.entries(args).filter(([key, value]) => !(value === null && key !== 'question')));
  }
  const problem = (validate ??= compileValidator(ASK_USER_INPUT_SCHEMA, 'argument'))(args);
  if (problem !== undefined) return problem;
  const { choices, multi } = args as AskUserInput;
  if (multi === true && choices === undefined) return 'multi is only meaningful with choices';
  return undefined;
}

/** A question the model put through `ask_user`, with the id of its call. */
export interface UserQuestion extends AskUserInput {
  /** Call id of the `ask_user` call. */
  callId: string;
}

/**
 * Answers an `ask_user` question: the user's answer as text, or the chosen choices (an array
 * for `multi`). A handler that throws makes the call a `TOOL_ERROR` result, except with a
 * suspension (`isSuspension`: the answer comes in a later request of the caller), which
 * leaves the call waiting, to be run again when the caller resumes it.
 */
export type QuestionHandler = (question: UserQuestion, signal: AbortSignal | undefined) => string | string[] | Promise<string | string[]>;

/** The output of an `ask_user` call for `answer`: the text, or the chosen choices one a line; a note for an empty answer. */
export function askUserOutput(answer: string | readonly string[]): string {
  const text = Array.isArray(answer) ? answer.map(String).join('\n') : String(answer ?? '');
  return text.trim() === '' ? '(the user gave an empty answer)' : text;
}

/** Message of an `ask_user` call when nobody can be asked. */
export const ASK_USER_UNAVAILABLE =
  'ask_user is unavailable: nobody can be asked during this run. Decide with what you have, and say in your final answer what you would need from the user.';
