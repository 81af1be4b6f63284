/**
 * The conversation shapes the agents and the {@link ToolCallHandler} read and write: the
 * subset of the OpenAI Chat Completions and the Anthropic Messages formats that carries tool
 * calls and their results. Plain types, so that the `openai` package stays in the model
 * client alone.
 *
 * Sources: OpenAI Chat Completions API reference (`messages[]`, `tool_calls`, `role: "tool"`
 * with `tool_call_id`); Anthropic Messages API, "Tool use" (`tool_use` blocks in the
 * assistant's content, `tool_result` blocks with `tool_use_id` and `is_error` in the next
 * user message, image blocks with a base64 `source`).
 *
 * @module
 */

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
export type OpenAIContentPart = { type: 'text'; text: string } | { type: 'image_url'; image_url: { url: string } };

/** An OpenAI Chat Completions message, as far as agents use them. */
export type OpenAIChatMessage =
  | { role: 'system'; content: string }
  | { role: 'user'; content: string | OpenAIContentPart[] }
  | { role: 'assistant'; content: string | null; tool_calls?: OpenAIToolCall[] }
  | { role: 'tool'; tool_call_id: string; content: string };

/** An OpenAI assistant message. */
export type OpenAIAssistantMessage = Extract<OpenAIChatMessage, { role: 'assistant' }>;

/** An Anthropic image block (base64 source). */
export interface AnthropicImageBlock {
  type: 'image';
  source: { type: 'base64'; media_type: string; data: string };
}

/** An Anthropic text block. */
export interface AnthropicTextBlock {
  type: 'text';
  text: string;
}

/** An Anthropic `tool_use` block (in an assistant message). */
export interface AnthropicToolUseBlock {
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
export type AnthropicContentBlock = AnthropicTextBlock | AnthropicImageBlock | AnthropicToolUseBlock | AnthropicToolResultBlock;

/** An Anthropic Messages API message. */
export interface AnthropicMessage {
  role: 'user' | 'assistant';
  content: string | AnthropicContentBlock[];
}
