/**
 * What every provider format shares: the tool an export needs, the provider-neutral tool
 * call, and the schema as providers get it (no `$schema`, and our `format: "workspace-path"`
 * marker replaced by a sentence in the description, {@link WORKSPACE_PATH_HINT}; the
 * registry keeps the marker).
 *
 * @module
 */
import type { JsonSchema } from '../types/tool.js';
import { WORKSPACE_PATH_FORMAT } from '../schema/validator.js';

/** What every export needs of a tool. */
export interface ExportableTool {
  /** Tool name (snake_case). */
  readonly name: string;
  /** Description for the model. */
  readonly description: string;
  /** JSON Schema (draft-07) of the arguments, `type: "object"`. */
  readonly inputSchema: JsonSchema;
  /** JSON Schema of the result, or `null` when the tool returns nothing. */
  readonly outputSchema: JsonSchema | null;
  /** No side effects. */
  readonly readOnly: boolean;
  /** Tags; `web`, `network`, `http` and `mcp` mark tools that reach outside the machine. */
  readonly tags: readonly string[];
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
 * The schema as providers get it: no `$schema`, and our own `workspace-path` format (which
 * providers do not know, and some reject) turned into words in the description.
 */
export function clean(schema: JsonSchema): JsonSchema {
  const { $schema: _drop, ...rest } = schema;
  return withoutCustomFormats(rest) as JsonSchema;
}

/** Sentence added to the description of a path argument in exports. */
const WORKSPACE_PATH_HINT = 'A path inside the workspace, relative to its root.';

function withoutCustomFormats(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(withoutCustomFormats);
  if (node === null || typeof node !== 'object') return node;
  const out: JsonSchema = {};
  for (const [key, value] of Object.entries(node)) out[key] = withoutCustomFormats(value);
  if (out.format === WORKSPACE_PATH_FORMAT) {
    delete out.format;
    out.description = [out.description, WORKSPACE_PATH_HINT].filter(Boolean).join(' ');
  }
  return out;
}
