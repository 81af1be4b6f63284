/**
 * `request_tools`: the builtin through which a model asks for a domain of tools that lazy
 * visibility hides (`src/registry/lazy-visibility.ts`). It is a caller-side builtin
 * (`caller-tools.ts`): registered on the `main` runner and run by the executor like every
 * tool, answered with the session's lazy visibility the caller lends it
 * (`CallerServices.lazy`, an agent's run or an MCP session), whose tools are offered from the
 * next model round on. The spec the model is offered names the selection's domains in an
 * `enum` ({@link requestToolsSpec}); the registered schema leaves it out ({@link REQUEST_TOOLS_INPUT_SCHEMA}).
 *
 * @module
 */
import type { JsonSchema } from '../types/tool.js';
import type { ExportableTool } from '../formats/common.js';
import { completedResult, failedResult } from '../closeout/results.js';
import { REQUEST_TOOLS_NAME, type DomainTool, type DomainVisibility } from '../registry/lazy-visibility.js';
import { compileValidator } from '../schema/validator.js';
import type { ToolExecutionResult } from '../types/result.js';

/** Arguments of a `request_tools` call. */
export interface RequestToolsInput {
  /** Domains whose tools are needed (one or more of the schema's `enum`). */
  domains: string[];
  /** Why these tools are needed, in a sentence (kept with the call for the trace). */
  reason: string;
}

/** The input schema, without the `enum` (added per selection by {@link requestToolsSpec}). */
function inputSchema(domains: readonly string[] | undefined): JsonSchema {
  return {
    $schema: 'http://json-schema.org/draft-07/schema#',
    type: 'object',
    properties: {
      domains: {
        type: 'array',
        items: domains === undefined ? { type: 'string', minLength: 1, maxLength: 64 } : { type: 'string', enum: [...domains] },
        minItems: 1,
        maxItems: 32,
        uniqueItems: true,
        description: 'Domains whose tools you need.',
      },
      reason: { type: 'string', minLength: 1, maxLength: 1000, description: 'Why you need these tools, in one sentence.' },
    },
    required: ['domains', 'reason'],
    additionalProperties: false,
  };
}

/**
 * The spec of `request_tools` for a selection whose domains are `domains` (its `enum`), ready
 * for `exportTool`. `domains` must not be empty (offer no `request_tools` then).
 * @param tools - the hidden tools, by domain, named in the description so the model knows what each domain holds.
 */
export function requestToolsSpec(domains: readonly string[], tools: Readonly<Record<string, readonly string[]>> = {}): ExportableTool {
  const listing = domains.map((d) => (tools[d]?.length ? `${d} (${tools[d]!.join(', ')})` : d)).join('; ');
  return {
    name: REQUEST_TOOLS_NAME,
    description:
      'Make more tools available. Some tools are grouped in domains and not offered until you ask for them; ' +
      `call this with the domains you need, and their tools are offered from your next step on. Domains: ${listing}. ` +
      'Ask only for what the task needs. Being offered a tool does not approve its calls.',
    inputSchema: inputSchema(domains),
    outputSchema: null,
    readOnly: true,
    kind: 'internal',
    tags: ['builtin', 'agent'],
  };
}

/**
 * The schema `request_tools` is registered with (the executor checks calls against it):
 * without the `enum`, so unknown domains are answered as unavailable rather than refused. The
 * enum is for the model; the lenient check lets one call name a known and an unknown domain
 * and still get the known.
 */
export const REQUEST_TOOLS_INPUT_SCHEMA: JsonSchema = Object.freeze(inputSchema(undefined));

// Compiled on the first check: importing this module (every executor does) loads no ajv.
let validate: ReturnType<typeof compileValidator> | undefined;

/**
 * Answer a `request_tools` call: check the arguments, make the domains visible in
 * `visibility`, and say (as JSON text) what became visible, what already was, and what is
 * unavailable.
 * @param args - the call's arguments, parsed (the object the model sent).
 * @param selected - every tool of the caller's selection (see `DomainVisibility.request`).
 * @param offered - the selected tools the mode would run.
 * @returns a completed result, or `INVALID_ARGUMENTS` (not run) for malformed arguments. Never throws.
 */
export function answerRequestTools(
  visibility: DomainVisibility, args: unknown, callId: string, selected: readonly DomainTool[], offered: readonly DomainTool[],
): ToolExecutionResult {
  const fields = { tool: REQUEST_TOOLS_NAME, callId };
  const problem = (validate ??= compileValidator(REQUEST_TOOLS_INPUT_SCHEMA, 'argument'))(args);
  if (problem !== undefined) return failedResult('INVALID_ARGUMENTS', `Invalid arguments for ${REQUEST_TOOLS_NAME}: ${problem}.`, fields);
  const input = args as RequestToolsInput;
  const answer = visibility.request(input.domains, selected, offered);
  return completedResult(JSON.stringify(answer), fields);
}
