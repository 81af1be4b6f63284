/**
 * MCP shapes (specification 2025-11-25): the `tools/list` entry (`{ name, title?,
 * description, inputSchema, outputSchema?, annotations, _meta }`; `outputSchema` only for object
 * results, as the spec requires) and the `tools/call` result.
 *
 * @module
 */
import type { CallToolResult } from '@modelcontextprotocol/server';
import type { ActionKind } from '../policy/action-kinds.js';
import type { JsonSchema } from '../types/tool.js';
import type { ToolExecutionResult } from '../types/result.js';
import { clean, type ExportableTool } from './common.js';
import { toJsonSchema2020 } from './json-schema-2020.js';

/** MCP `tools/list` entry (specification 2025-11-25). */
export interface McpTool {
  /** Tool name. */
  name: string;
  /** Description for the model. */
  description: string;
  /** JSON Schema 2020-12 of the arguments (`$schema` says so; draft-07 forms converted, {@link toJsonSchema2020}). */
  inputSchema: JsonSchema;
  /** JSON Schema 2020-12 of `structuredContent`; only for tools returning objects. */
  outputSchema?: JsonSchema;
  /** Display name: a bridged tool's title from its server. */
  title?: string;
  /**
   * Hints. `readOnlyHint` is ours (whether our gates treat the tool as read-only); for our own
   * tools `destructiveHint` is "not read-only" and `openWorldHint` comes from network tags; a
   * bridged tool keeps its server's other hints (`title`, `destructiveHint`, `idempotentHint`,
   * `openWorldHint`, ...).
   */
  annotations: { readOnlyHint: boolean; destructiveHint: boolean; openWorldHint: boolean; idempotentHint?: boolean; title?: string; [hint: string]: unknown };
  /**
   * toolgate's own metadata: `toolgate/kind`, the tool's action kind (a prefixed key, as the
   * specification's `_meta` naming rules allow; clients that do not know it ignore it).
   */
  _meta: { 'toolgate/kind': ActionKind };
}

/** Tags that mark a tool as reaching outside the machine (MCP `openWorldHint`). */
const OPEN_WORLD_TAGS = new Set(['web', 'network', 'http', 'mcp']);

/**
 * MCP `tools/list` entry; annotations derive from our flags and tags, and for a bridged tool
 * from its server's (only `readOnlyHint` is always ours: it is what our gates believe).
 */
export function toMcpTool(tool: ExportableTool): McpTool {
  const upstream = tool.upstream?.annotations ?? {};
  const annotations: McpTool['annotations'] = {
    ...upstream,
    readOnlyHint: tool.readOnly,
    destructiveHint: tool.readOnly ? false : typeof upstream.destructiveHint === 'boolean' ? upstream.destructiveHint : true,
    openWorldHint: typeof upstream.openWorldHint === 'boolean' ? upstream.openWorldHint : tool.tags.some((t) => OPEN_WORLD_TAGS.has(t)),
  };
  const out: McpTool = {
    name: tool.name,
    description: tool.description,
    inputSchema: exported(tool.inputSchema),
    annotations,
    _meta: { 'toolgate/kind': tool.kind },
  };
  const title = tool.upstream?.title;
  if (title !== undefined) out.title = title;
  if (tool.outputSchema && tool.outputSchema.type === 'object') out.outputSchema = exported(tool.outputSchema);
  return out;
}

/** A schema as `tools/list` sends it: our formats turned into descriptions, then 2020-12 (a schema's own `$schema` decides what it is read as). */
function exported(schema: JsonSchema): JsonSchema {
  const cleaned = clean(schema);
  return toJsonSchema2020(schema.$schema === undefined ? cleaned : { ...cleaned, $schema: schema.$schema });
}

/** What {@link toCallToolResult} needs of the tool. */
export interface CallResultTool {
  /** The tool's output schema; `structuredContent` is sent only for object schemas. */
  outputSchema: JsonSchema | null;
  /** Characters of output the model sees (`<= 0`: no limit); `structuredContent` is held to it too. Default: no limit. */
  maxOutputLength?: number;
  /** Checks a value against the output schema (a message when it fails); a bounded `structuredContent` must pass. Default: not checked. */
  validateOutput?(value: unknown): string | undefined;
}

/**
 * Our result as an MCP `CallToolResult`: the output text, attached images as image blocks,
 * `isError` and `_meta['toolgate/errorCode']` on failures, and `structuredContent` for object
 * results of tools with an object output schema. Every result carries its outcome in `_meta`
 * (`toolgate/outcome`, `toolgate/sideEffects`, and on failures `toolgate/errorClass` and
 * `toolgate/retryAfterMs` when known): `_meta` is where the MCP specification (2025-11-25)
 * puts metadata about a result, while `structuredContent` must match the tool's output schema.
 *
 * `structuredContent` is held to the same limit as the text (`maxOutputLength` characters of
 * JSON): a larger value has its longest strings and arrays halved until it fits, and is sent
 * only when it still passes the output schema (with a note saying it was shortened); otherwise
 * it is left out, with a note. The model never gets more through the structured copy than
 * through the text.
 */
export function toCallToolResult(tool: CallResultTool, result: ToolExecutionResult): CallToolResult {
  const content: CallToolResult['content'] = [{ type: 'text', text: result.output }];
  for (const image of result.images ?? []) {
    const m = /^data:([^;,]+);base64,(.*)$/s.exec(image);
    if (m) content.push({ type: 'image', mimeType: m[1]!, data: m[2]! });
  }
  for (const attachment of result.attachments ?? []) content.push(attachment);
  const out: CallToolResult = { content, _meta: outcomeMeta(result) };
  if (!result.success) {
    out.isError = true;
    out._meta = { 'toolgate/errorCode': result.errorCode ?? 'TOOL_ERROR', ...out._meta };
    return out;
  }
  const structured = result.structured;
  if (tool.outputSchema?.type === 'object' && structured !== null && typeof structured === 'object' && !Array.isArray(structured)) {
    const limit = tool.maxOutputLength ?? 0;
    const whole = limit > 0 ? JSON.stringify(structured).length : 0;
    if (limit <= 0 || whole <= limit) {
      out.structuredContent = structured as Record<string, unknown>;
    } else {
      const bounded = boundValue(structured, limit);
      const invalid = bounded === undefined ? 'it cannot be shortened enough' : tool.validateOutput?.(bounded);
      if (bounded !== undefined && invalid === undefined) {
        out.structuredContent = bounded as Record<string, unknown>;
        content.push({ type: 'text', text: `[structuredContent shortened: the whole value is ${whole} characters of JSON, over this tool's limit of ${limit}; long strings and lists were cut]` });
      } else {
        content.push({ type: 'text', text: `[structuredContent left out: the value is ${whole} characters of JSON, over this tool's limit of ${limit}, and a shortened copy would not match the output schema (${invalid}); the text above shows the output]` });
      }
    }
  }
  return out;
}

/** The outcome fields of a result as `_meta` entries (see docs/outcomes.md). */
function outcomeMeta(result: ToolExecutionResult): Record<string, unknown> {
  const meta: Record<string, unknown> = { 'toolgate/outcome': result.outcome, 'toolgate/sideEffects': result.sideEffects };
  if (result.errorClass !== undefined) meta['toolgate/errorClass'] = result.errorClass;
  if (result.retryAfterMs !== undefined) meta['toolgate/retryAfterMs'] = result.retryAfterMs;
  return meta;
}

/** Most halvings {@link boundValue} tries. */
const MAX_CUTS = 200;

/**
 * A copy of `value` whose JSON is at most `limit` characters: the longest string or array is
 * halved (strings get a marker) until it fits. `undefined` when it cannot be made to fit.
 */
function boundValue(value: unknown, limit: number): unknown {
  const copy = JSON.parse(JSON.stringify(value)) as unknown;
  for (let i = 0; i < MAX_CUTS; i++) {
    if (JSON.stringify(copy).length <= limit) return copy;
    const biggest = largestPart(copy);
    if (biggest === undefined) return undefined;
    const { holder, key, size } = biggest;
    const current = holder[key as never] as unknown;
    if (typeof current === 'string') {
      const keep = Math.floor(current.length / 2);
      (holder as Record<string, unknown>)[key] = `${current.slice(0, keep)}...[cut]`;
    } else if (Array.isArray(current)) {
      current.length = Math.floor(current.length / 2);
    }
    if (size <= 1) return undefined;
  }
  return undefined;
}

/** The longest string (in characters) or array (in JSON characters) inside `root`, with where it sits. */
function largestPart(root: unknown): { holder: Record<string, unknown> | unknown[]; key: string | number; size: number } | undefined {
  let best: { holder: Record<string, unknown> | unknown[]; key: string | number; size: number } | undefined;
  const visit = (node: unknown): void => {
    if (node === null || typeof node !== 'object') return;
    for (const [key, child] of Object.entries(node)) {
      let size = 0;
      if (typeof child === 'string' && child.length > 16) size = child.length;
      else if (Array.isArray(child) && child.length > 0) size = JSON.stringify(child).length;
      if (size > 0 && (best === undefined || size > best.size)) best = { holder: node as Record<string, unknown>, key: Array.isArray(node) ? Number(key) : key, size };
      visit(child);
    }
  };
  visit(root);
  return best;
}
