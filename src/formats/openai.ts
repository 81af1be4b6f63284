/**
 * OpenAI shapes: the function-calling tool spec (Chat Completions `tools[]`:
 * `{ type: "function", function: { name, description, parameters } }`), its strict mode
 * (Structured Outputs for function calling: `strict: true` and a schema in the supported
 * subset: every object closed with `additionalProperties: false`, every property listed in
 * `required`, optional ones made nullable, unsupported keywords removed with their hints moved
 * into the description), and the messages that carry tool calls and their results.
 *
 * Plain types, so that the `openai` package stays in the model client alone. Source: OpenAI
 * Chat Completions API reference (`messages[]`, `tool_calls`, `role: "tool"` with
 * `tool_call_id`).
 *
 * @module
 */
import type { JsonSchema } from '../types/tool.js';
import type { ToolExecutionResult } from '../types/result.js';
import { clean, type ExportableTool, type PendingToolCall } from './common.js';

/** OpenAI function-calling tool (Chat Completions `tools[]` entry). */
export interface OpenAITool {
  /** Always `"function"`. */
  type: 'function';
  /** `name`, `description`, `parameters` (JSON Schema) and, for strict exports, `strict`. */
  function: { name: string; description: string; parameters: JsonSchema; strict?: boolean };
}

/** A tool call in an OpenAI assistant message. */
export interface OpenAIToolCall {
  /** Provider call id, threaded into the `role: "tool"` message that answers it. */
  id: string;
  /** Always `"function"`. */
  type: 'function';
  /** Tool name and the arguments as JSON text (possibly malformed: models make mistakes). */
  function: { name: string; arguments: string };
}

/** A content part of an OpenAI user message. */
type OpenAIContentPart = { type: 'text'; text: string } | { type: 'image_url'; image_url: { url: string } };

/** An OpenAI Chat Completions message, as far as agents use them. */
export type OpenAIChatMessage =
  | { role: 'system'; content: string }
  | { role: 'user'; content: string | OpenAIContentPart[] }
  | { role: 'assistant'; content: string | null; tool_calls?: OpenAIToolCall[] }
  | { role: 'tool'; tool_call_id: string; content: string };

/** An OpenAI assistant message. */
export type OpenAIAssistantMessage = Extract<OpenAIChatMessage, { role: 'assistant' }>;

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

/** The tool calls of an OpenAI assistant message, as {@link PendingToolCall}s. */
export function openAIToolCalls(message: OpenAIAssistantMessage): PendingToolCall[] {
  const calls = Array.isArray(message.tool_calls) ? message.tool_calls : [];
  return calls.map((c) => ({ id: String(c?.id ?? ''), name: String(c?.function?.name ?? ''), arguments: c?.function?.arguments }));
}

/** OpenAI messages answering `calls`: one `role: "tool"` message each, then a user message with any images. */
export function toOpenAIToolMessages(calls: readonly PendingToolCall[], results: readonly ToolExecutionResult[]): OpenAIChatMessage[] {
  const out: OpenAIChatMessage[] = calls.map((call, i) => ({ role: 'tool', tool_call_id: call.id, content: results[i]!.output }));
  const parts: OpenAIContentPart[] = [];
  calls.forEach((call, i) => {
    const images = results[i]!.images ?? [];
    if (images.length === 0) return;
    parts.push({ type: 'text', text: `Images attached by tool call ${call.id} (${call.name}):` });
    for (const url of images) parts.push({ type: 'image_url', image_url: { url } });
  });
  if (parts.length) out.push({ role: 'user', content: parts });
  return out;
}

/**
 * For a model that reads text only: when the conversation's last message is the user message
 * of attached images ({@link toOpenAIToolMessages}), replace it by its text and a line saying
 * how many images were left out (the tools' text results describe what they can, such as
 * computer_use's windows), so a text-only endpoint is not sent image parts it refuses.
 */
export function dropTrailingImages(messages: OpenAIChatMessage[]): void {
  const last = messages[messages.length - 1];
  if (last?.role !== 'user' || !Array.isArray(last.content)) return;
  const images = last.content.filter((p) => p.type === 'image_url').length;
  if (images === 0) return;
  const text = last.content.flatMap((p) => (p.type === 'text' ? [p.text] : [])).join('\n');
  messages[messages.length - 1] = { role: 'user', content: `${text}\n[${images} image(s) not shown: this model reads text only; the tool results above say in words what they can]` };
}

/** Keywords OpenAI strict mode accepts (Structured Outputs "supported schemas"). */
const STRICT_KEYWORDS = new Set([
  'type', 'properties', 'required', 'additionalProperties', 'items', 'enum', 'const', 'anyOf', '$ref',
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
 * the description. Recursive types stay recursive: `$defs` at the root and local `$ref`s
 * (`#/$defs/Name`, `#`) are in the subset (Structured Outputs, "Supported schemas":
 * definitions and recursive schemas), each definition converted like the rest.
 * @returns the strict schema, or `undefined` when it cannot be expressed strictly (open maps,
 *   untyped values, tuples, `allOf`, `not`, a `$ref` that is not local).
 */
export function toStrictSchema(schema: JsonSchema): JsonSchema | undefined {
  const { $defs, ...root } = schema;
  const out = strictNode(root);
  if (out === undefined || $defs === undefined) return out;
  if ($defs === null || typeof $defs !== 'object') return undefined;
  const defs: Record<string, JsonSchema> = {};
  for (const [name, definition] of Object.entries($defs as Record<string, JsonSchema>)) {
    const s = strictNode(definition);
    if (s === undefined) return undefined;
    defs[name] = s;
  }
  out.$defs = defs;
  return out;
}

function strictNode(schema: JsonSchema): JsonSchema | undefined {
  if (schema === null || typeof schema !== 'object') return undefined;
  if (typeof schema.$ref === 'string') {
    // A reference with annotations only (what the generator writes): keep its description.
    if (schema.$ref !== '#' && !schema.$ref.startsWith('#/$defs/')) return undefined;
    const ref: JsonSchema = { $ref: schema.$ref };
    if (typeof schema.description === 'string') ref.description = schema.description;
    return ref;
  }
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
  if (schema.$ref !== undefined) {
    const { description, ...ref } = schema;
    return description === undefined ? { anyOf: [ref, { type: 'null' }] } : { anyOf: [ref, { type: 'null' }], description };
  }
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
