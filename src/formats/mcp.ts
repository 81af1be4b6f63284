/**
 * MCP shapes (specification 2025-11-25): the `tools/list` entry (`{ name, title?,
 * description, inputSchema, outputSchema?, annotations, _meta }`; `outputSchema` only for object
 * results, as the spec requires) and the `tools/call` result.
 *
 * @module
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { ActionKind } from '../policy/action-kinds.js';
import type { JsonSchema } from '../types/tool.js';
import type { ToolExecutionResult } from '../types/result.js';
import { clean, type ExportableTool } from './common.js';

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
  /**
   * toolgate's own metadata: `toolgate/kind`, the tool's action kind (a prefixed key, as the
   * specification's `_meta` naming rules allow; clients that do not know it ignore it).
   */
  _meta: { 'toolgate/kind': ActionKind };
}

/** Tags that mark a tool as reaching outside the machine (MCP `openWorldHint`). */
const OPEN_WORLD_TAGS = new Set(['web', 'network', 'http', 'mcp']);

/**
 * A generated (draft-07) schema in JSON Schema 2020-12, the dialect MCP assumes for a schema
 * without `$schema` (specification 2025-11-25, "JSON Schema usage"): a tuple's `items` array
 * becomes `prefixItems` and its `additionalItems` becomes `items`. Definitions are already in
 * `$defs` (see the schema generator), so nothing else differs for the schemas we generate.
 */
function toJsonSchema2020(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(toJsonSchema2020);
  if (node === null || typeof node !== 'object') return node;
  const out: JsonSchema = {};
  for (const [key, value] of Object.entries(node)) {
    // literal payloads are values, not schemas
    out[key] = key === 'enum' || key === 'const' || key === 'default' || key === 'examples' ? value : toJsonSchema2020(value);
  }
  if (Array.isArray(out.items)) {
    const { items, additionalItems, ...rest } = out;
    const converted: JsonSchema = { ...rest, prefixItems: items };
    if (additionalItems !== undefined) converted.items = additionalItems;
    return converted;
  }
  return out;
}

/** MCP `tools/list` entry; annotations derive from our flags and tags; schemas in JSON Schema 2020-12. */
export function toMcpTool(tool: ExportableTool): McpTool {
  const out: McpTool = {
    name: tool.name,
    description: tool.description,
    inputSchema: toJsonSchema2020(clean(tool.inputSchema)) as JsonSchema,
    annotations: {
      readOnlyHint: tool.readOnly,
      destructiveHint: !tool.readOnly,
      openWorldHint: tool.tags.some((t) => OPEN_WORLD_TAGS.has(t)),
    },
    _meta: { 'toolgate/kind': tool.kind },
  };
  if (tool.outputSchema && tool.outputSchema.type === 'object') out.outputSchema = toJsonSchema2020(clean(tool.outputSchema)) as JsonSchema;
  return out;
}

/** Our result as an MCP `CallToolResult`. */
export function toCallToolResult(tool: Pick<ExportableTool, 'outputSchema'>, result: ToolExecutionResult): CallToolResult {
  const content: CallToolResult['content'] = [{ type: 'text', text: result.output }];
  for (const image of result.images ?? []) {
    const m = /^data:([^;,]+);base64,(.*)$/s.exec(image);
    if (m) content.push({ type: 'image', mimeType: m[1]!, data: m[2]! });
  }
  const out: CallToolResult = { content };
  if (!result.success) {
    out.isError = true;
    if (result.errorCode !== undefined) out._meta = { 'toolgate/errorCode': result.errorCode };
    return out;
  }
  const structured = result.structured;
  if (tool.outputSchema?.type === 'object' && structured !== null && typeof structured === 'object' && !Array.isArray(structured)) {
    out.structuredContent = structured as Record<string, unknown>;
  }
  return out;
}
