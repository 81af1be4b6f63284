/**
 * Anthropic shapes: the Messages API tool spec (`tools[]`: `{ name, description,
 * input_schema }`) and the messages that carry tool calls and their results.
 *
 * Source: Anthropic Messages API, "Tool use" (`tool_use` blocks in the assistant's content,
 * `tool_result` blocks with `tool_use_id` and `is_error` in the next user message, image
 * blocks with a base64 `source`).
 *
 * @module
 */
import type { JsonSchema } from '../types/tool.js';
import type { ToolExecutionResult } from '../types/result.js';
import { clean, type ExportableTool, type PendingToolCall } from './common.js';

/** Anthropic Messages API tool (`tools[]` entry). */
export interface AnthropicTool {
  /** Tool name. */
  name: string;
  /** Description for the model. */
  description: string;
  /** JSON Schema of the arguments. */
  input_schema: JsonSchema;
}

/** An Anthropic image block (base64 source). */
interface AnthropicImageBlock {
  type: 'image';
  source: { type: 'base64'; media_type: string; data: string };
}

/** An Anthropic text block. */
interface AnthropicTextBlock {
  type: 'text';
  text: string;
}

/** An Anthropic `tool_use` block (in an assistant message). */
interface AnthropicToolUseBlock {
  type: 'tool_use';
  /** Provider call id (`toolu_...`), threaded into the `tool_result` that answers it. */
  id: string;
  name: string;
  /** The arguments, already an object (or whatever the model produced). */
  input: unknown;
}

/** An Anthropic `tool_result` block (in a user message). */
export interface AnthropicToolResultBlock {
  type: 'tool_result';
  tool_use_id: string;
  /** The output text, then any images the tool attached. */
  content: Array<AnthropicTextBlock | AnthropicImageBlock>;
  /** True when the call failed (unknown tool, bad arguments, a gate, a tool error). */
  is_error?: boolean;
}

/** An Anthropic content block, as far as agents use them. */
type AnthropicContentBlock = AnthropicTextBlock | AnthropicImageBlock | AnthropicToolUseBlock | AnthropicToolResultBlock;

/** An Anthropic Messages API message. */
export interface AnthropicMessage {
  role: 'user' | 'assistant';
  content: string | AnthropicContentBlock[];
}

/** Anthropic tool shape. */
export function toAnthropicTool(tool: ExportableTool): AnthropicTool {
  return { name: tool.name, description: tool.description, input_schema: clean(tool.inputSchema) };
}

/** The `tool_use` blocks of an Anthropic assistant message, as {@link PendingToolCall}s. */
export function anthropicToolUses(message: AnthropicMessage): PendingToolCall[] {
  if (!Array.isArray(message.content)) return [];
  return message.content
    .filter((b): b is Extract<AnthropicContentBlock, { type: 'tool_use' }> => b?.type === 'tool_use')
    .map((b) => ({ id: String(b.id ?? ''), name: String(b.name ?? ''), arguments: b.input }));
}

/** The Anthropic user message answering `calls`: one `tool_result` block each. */
export function toAnthropicToolResults(calls: readonly PendingToolCall[], results: readonly ToolExecutionResult[]): AnthropicMessage {
  const blocks: AnthropicToolResultBlock[] = calls.map((call, i) => {
    const result = results[i]!;
    const content: Array<AnthropicTextBlock | AnthropicImageBlock> = [{ type: 'text', text: result.output }];
    for (const url of result.images ?? []) {
      const image = imageBlock(url);
      if (image !== undefined) content.push(image);
    }
    const block: AnthropicToolResultBlock = { type: 'tool_result', tool_use_id: call.id, content };
    if (!result.success) block.is_error = true;
    return block;
  });
  return { role: 'user', content: blocks };
}

/** `data:image/png;base64,...` as an Anthropic image block, or `undefined` for another shape. */
function imageBlock(dataUrl: string): AnthropicImageBlock | undefined {
  const m = /^data:(image\/[a-z0-9.+-]+);base64,(.*)$/is.exec(dataUrl);
  return m ? { type: 'image', source: { type: 'base64', media_type: m[1]!.toLowerCase(), data: m[2]! } } : undefined;
}
