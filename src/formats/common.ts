/**
 * What every provider format shares: the tool an export needs, the provider-neutral tool
 * call, and the schema as providers get it (no `$schema`, and our `format: "workspace-path"`
 * and `format: "shell-command"` markers replaced by a sentence in the description,
 * {@link CUSTOM_FORMAT_HINTS}; the registry keeps the markers).
 *
 * @module
 */
import type { JsonSchema } from '../types/tool.js';
import type { ActionKind } from '../policy/action-kinds.js';
import { SHELL_COMMAND_FORMAT, SHELL_INPUT_FORMAT, WORKSPACE_PATH_FORMAT, WORKSPACE_PATH_OR_URL_FORMAT } from '../schema/validator.js';

/** What every export needs of a tool. */
export interface ExportableTool {
  /** Tool name (snake_case). */
  readonly name: string;
  /** Description for the model. */
  readonly description: string;
  /** JSON Schema (draft-07) of the arguments, `type: "object"`; recursive types in `$defs`. */
  readonly inputSchema: JsonSchema;
  /** JSON Schema of the result, or `null` when the tool returns nothing. */
  readonly outputSchema: JsonSchema | null;
  /** No side effects. */
  readonly readOnly: boolean;
  /** What a call does to the world (see `ToolOptions.kind`); MCP exports carry it in `_meta`. */
  readonly kind: ActionKind;
  /** Tags; `web`, `network`, `http` and `mcp` mark tools that reach outside the machine. */
  readonly tags: readonly string[];
  /** A bridged tool's title and annotations from its MCP server, kept as hints in MCP exports. */
  readonly upstream?: { title?: string; annotations?: Record<string, unknown> } | undefined;
}

/** One tool call of a model turn, whatever the provider. */
export interface PendingToolCall {
  /** Provider call id (OpenAI `tool_calls[].id`, Anthropic `tool_use.id`). */
  id: string;
  /** Tool name as the model sent it. */
  name: string;
  /** JSON text (OpenAI) or an object (Anthropic `input`); parsed and checked by the executor. */
  arguments: unknown;
}

/**
 * The schema as providers get it: no `$schema`, and our own `workspace-path` and
 * `shell-command` formats (which providers do not know, and some reject) turned into words in
 * the description.
 */
export function clean(schema: JsonSchema): JsonSchema {
  const { $schema: _drop, ...rest } = schema;
  return withoutCustomFormats(rest) as JsonSchema;
}

/** Sentence added to the description of an argument with one of our own formats, in exports. */
const CUSTOM_FORMAT_HINTS: Readonly<Record<string, string>> = Object.freeze({
  [WORKSPACE_PATH_FORMAT]: 'A path inside the workspace, relative to its root.',
  [WORKSPACE_PATH_OR_URL_FORMAT]: 'A path inside the workspace (relative to its root), or an http(s) URL.',
  [SHELL_COMMAND_FORMAT]: 'A shell command line.',
  [SHELL_INPUT_FORMAT]: "Text written to a running program's standard input.",
});

/**
 * When a field's own description already says what the hint says, the hint is left out: one
 * description per field ("Path of the file, relative to the workspace root." needs no second
 * sentence about the workspace).
 */
const HINT_ALREADY_SAID: Readonly<Record<string, RegExp>> = Object.freeze({
  [WORKSPACE_PATH_FORMAT]: /\bworkspace\b/i,
  [WORKSPACE_PATH_OR_URL_FORMAT]: /\bworkspace\b.*\bURL\b|\bURL\b.*\bworkspace\b/is,
  [SHELL_COMMAND_FORMAT]: /\bcommand\b/i,
  [SHELL_INPUT_FORMAT]: /\b(input|typed?)\b/i,
});

function withoutCustomFormats(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(withoutCustomFormats);
  if (node === null || typeof node !== 'object') return node;
  const out: JsonSchema = {};
  for (const [key, value] of Object.entries(node)) out[key] = withoutCustomFormats(value);
  const hint = typeof out.format === 'string' && Object.hasOwn(CUSTOM_FORMAT_HINTS, out.format) ? CUSTOM_FORMAT_HINTS[out.format] : undefined;
  if (hint !== undefined) {
    const said = typeof out.description === 'string' && HINT_ALREADY_SAID[out.format as string]!.test(out.description);
    delete out.format;
    if (!said) out.description = [out.description, hint].filter(Boolean).join(' ');
  }
  return out;
}
