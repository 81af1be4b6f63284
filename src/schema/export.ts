/**
 * Exporting tool specs in the shapes providers and MCP expect.
 *
 * - OpenAI function calling (Chat Completions `tools[]`):
 *   `{ type: "function", function: { name, description, parameters } }`.
 * - OpenAI strict mode (Structured Outputs for function calling): the same with
 *   `strict: true` and a schema in the supported subset: every object closed with
 *   `additionalProperties: false`, every property listed in `required`, optional ones made
 *   nullable, unsupported keywords removed (their hints moved into the description).
 * - Anthropic Messages API `tools[]`: `{ name, description, input_schema }`.
 * - MCP `tools/list` (specification 2025-11-25): `{ name, title?, description, inputSchema,
 *   outputSchema?, annotations }`; `outputSchema` only for object results, as the spec requires.
 *
 * Every export drops `$schema` and replaces our `format: "workspace-path"` marker with a
 * sentence in the description ({@link WORKSPACE_PATH_HINT}); the registry keeps the marker.
 *
 * @module
 */
import type { JsonSchema } from '../types.js';
import { WORKSPACE_PATH_FORMAT } from './validator.js';

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

/** OpenAI function-calling tool (Chat Completions `tools[]` entry). */
export interface OpenAITool {
  /** Always `"function"`. */
  type: 'function';
  /** `name`, `description`, `parameters` (JSON Schema) and, for strict exports, `strict`. */
  function: { name: string; description: string; parameters: JsonSchema; strict?: boolean };
}

/** Anthropic Messages API tool (`tools[]` entry). */
export interface AnthropicTool {
  /** Tool name. */
  name: string;
  /** Description for the model. */
  description: string;
  /** JSON Schema of the arguments. */
  input_schema: JsonSchema;
}

/** MCP `tools/list` entry (specification 2025-11-25). */
export interface McpTool {
  /** Tool name. */
  name: string;
  /** Description for the model. */
  description: string;
  /** JSON Schema of the arguments. */
  inputSchema: JsonSchema;
  /** JSON Schema of `structuredContent`; only for tools returning objects. */
  outputSchema?: JsonSchema;
  /** Hints from our flags: read-only, destructive (= not read-only), open world (network tags). */
  annotations: { readOnlyHint: boolean; destructiveHint: boolean; openWorldHint: boolean };
}

/** Export formats understood by {@link exportTool}. */
export type ExportFormat = 'openai' | 'openai-strict' | 'anthropic' | 'mcp';

/** Export formats as a list (for CLIs and validation). */
export const EXPORT_FORMATS: readonly ExportFormat[] = ['openai', 'openai-strict', 'anthropic', 'mcp'];

/**
 * The schema as providers get it: no `$schema`, and our own `workspace-path` format (which
 * providers do not know, and some reject) turned into words in the description.
 */
function clean(schema: JsonSchema): JsonSchema {
  const { $schema: _drop, ...rest } = schema;
  return withoutCustomFormats(rest) as JsonSchema;
}

/** Sentence added to the description of a path argument in exports. */
export const WORKSPACE_PATH_HINT = 'A path inside the workspace, relative to its root.';

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

/** OpenAI function-calling shape (non-strict; the schema as generated). */
export function toOpenAITool(tool: ExportableTool): OpenAITool {
  return { type: 'function', function: { name: tool.name, description: tool.description, parameters: clean(tool.inputSchema) } };
}

/**
 * OpenAI strict-mode shape. When a schema cannot be expressed in the strict subset (open
 * maps such as `Record<string, string>`, untyped values), the tool is exported with
 * `strict: false` and the plain schema instead, so the export never fails.
 */
export function toOpenAIStrictTool(tool: ExportableTool): OpenAITool {
  const strict = toStrictSchema(clean(tool.inputSchema));
  if (strict === undefined) {
    return { type: 'function', function: { name: tool.name, description: tool.description, parameters: clean(tool.inputSchema), strict: false } };
  }
  return { type: 'function', function: { name: tool.name, description: tool.description, parameters: strict, strict: true } };
}

/** Anthropic tool shape. */
export function toAnthropicTool(tool: ExportableTool): AnthropicTool {
  return { name: tool.name, description: tool.description, input_schema: clean(tool.inputSchema) };
}

/** Tags that mark a tool as reaching outside the machine (MCP `openWorldHint`). */
const OPEN_WORLD_TAGS = new Set(['web', 'network', 'http', 'mcp']);

/** MCP `tools/list` entry; annotations derive from our flags and tags. */
export function toMcpTool(tool: ExportableTool): McpTool {
  const out: McpTool = {
    name: tool.name,
    description: tool.description,
    inputSchema: clean(tool.inputSchema),
    annotations: {
      readOnlyHint: tool.readOnly,
      destructiveHint: !tool.readOnly,
      openWorldHint: tool.tags.some((t) => OPEN_WORLD_TAGS.has(t)),
    },
  };
  if (tool.outputSchema && tool.outputSchema.type === 'object') out.outputSchema = clean(tool.outputSchema);
  return out;
}

/** Export one tool in a named format. */
export function exportTool(tool: ExportableTool, format: ExportFormat): OpenAITool | AnthropicTool | McpTool {
  switch (format) {
    case 'openai':
      return toOpenAITool(tool);
    case 'openai-strict':
      return toOpenAIStrictTool(tool);
    case 'anthropic':
      return toAnthropicTool(tool);
    case 'mcp':
      return toMcpTool(tool);
  }
}

/** Keywords OpenAI strict mode accepts (Structured Outputs "supported schemas"). */
const STRICT_KEYWORDS = new Set([
  'type', 'properties', 'required', 'additionalProperties', 'items', 'enum', 'const', 'anyOf',
  'description', 'title', 'pattern', 'format', 'minimum', 'maximum', 'exclusiveMinimum',
  'exclusiveMaximum', 'multipleOf', 'minItems', 'maxItems',
]);

/** String formats OpenAI strict mode accepts; others (such as `workspace-path`) are moved to the description. */
const STRICT_FORMATS = new Set(['date-time', 'time', 'date', 'duration', 'email', 'hostname', 'ipv4', 'ipv6', 'uuid']);

/** Keywords whose value is worth keeping as a hint in the description when removed. */
const HINT_KEYWORDS: Record<string, string> = {
  default: 'default', minLength: 'minimum length', maxLength: 'maximum length', format: 'format',
  uniqueItems: 'unique items',
};

/**
 * Convert a schema to OpenAI's strict subset: every object closed and every property
 * required, optional ones nullable, unsupported keywords removed with their hints moved to
 * the description.
 * @returns the strict schema, or `undefined` when it cannot be expressed strictly (open maps,
 *   untyped values, tuples, `$ref`, `allOf`, `not`).
 */
export function toStrictSchema(schema: JsonSchema): JsonSchema | undefined {
  return strictNode(schema);
}

function strictNode(schema: JsonSchema): JsonSchema | undefined {
  if (schema === null || typeof schema !== 'object') return undefined;
  const out: JsonSchema = {};
  const hints: string[] = [];
  for (const [key, value] of Object.entries(schema)) {
    if (key === 'format' && typeof value === 'string' && STRICT_FORMATS.has(value)) {
      out.format = value;
      continue;
    }
    if (STRICT_KEYWORDS.has(key) && key !== 'format') {
      out[key] = value;
      continue;
    }
    if (key in HINT_KEYWORDS) hints.push(`${HINT_KEYWORDS[key]}: ${JSON.stringify(value)}`);
    else if (key === 'oneOf') out.anyOf = value; // same meaning for disjoint variants
    else if (key === 'definitions' || key === '$ref' || key === 'allOf' || key === 'not' || key === 'patternProperties') return undefined;
  }
  if (hints.length) out.description = [out.description, `(${hints.join('; ')})`].filter(Boolean).join(' ');
  if (out.type === undefined && out.anyOf === undefined && out.enum === undefined && out.const === undefined) return undefined;

  if (Array.isArray(out.anyOf)) {
    const variants: JsonSchema[] = [];
    for (const v of out.anyOf as JsonSchema[]) {
      const s = strictNode(v);
      if (s === undefined) return undefined;
      variants.push(s);
    }
    out.anyOf = variants;
  }
  const types = Array.isArray(out.type) ? (out.type as string[]) : [out.type as string];
  if (types.includes('object')) {
    if (out.additionalProperties !== undefined && out.additionalProperties !== false) return undefined;
    const props = (out.properties ?? {}) as Record<string, JsonSchema>;
    const required = new Set((out.required as string[] | undefined) ?? []);
    const nextProps: Record<string, JsonSchema> = {};
    for (const [name, prop] of Object.entries(props)) {
      let s = strictNode(prop);
      if (s === undefined) return undefined;
      if (!required.has(name)) s = nullable(s);
      nextProps[name] = s;
    }
    out.properties = nextProps;
    out.required = Object.keys(nextProps);
    out.additionalProperties = false;
  }
  if (types.includes('array') && out.items !== undefined) {
    if (Array.isArray(out.items)) return undefined; // tuples are not in the subset
    const s = strictNode(out.items as JsonSchema);
    if (s === undefined) return undefined;
    out.items = s;
  }
  return out;
}

function nullable(schema: JsonSchema): JsonSchema {
  if (Array.isArray(schema.anyOf)) {
    if ((schema.anyOf as JsonSchema[]).some((v) => v.type === 'null')) return schema;
    return { ...schema, anyOf: [...(schema.anyOf as JsonSchema[]), { type: 'null' }] };
  }
  const out: JsonSchema = { ...schema };
  if (Array.isArray(out.enum) && !out.enum.includes(null)) out.enum = [...out.enum, null];
  if (out.const !== undefined) return { anyOf: [out, { type: 'null' }] };
  if (typeof out.type === 'string') out.type = out.type === 'null' ? 'null' : [out.type, 'null'];
  else if (Array.isArray(out.type) && !out.type.includes('null')) out.type = [...out.type, 'null'];
  return out;
}
