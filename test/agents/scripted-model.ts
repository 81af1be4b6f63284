/**
 * A chat model for agent tests that answers from a script and keeps a snapshot of every
 * request it was sent, with helpers to write the script.
 */
import type { ChatModel, ChatRequest } from '../../src/agents/model-client.js';
import type { OpenAIAssistantMessage } from '../../src/formats/openai.js';
import type { ModelClass } from '../../src/types/model-class.js';

/** One scripted answer: a message, or a function of the request it answers. */
export type ScriptStep = OpenAIAssistantMessage | ((request: ChatRequest) => OpenAIAssistantMessage | Promise<OpenAIAssistantMessage>);

/** Answers each request with the next step of its script; a request past the end is an error. */
export class ScriptedModel implements ChatModel {
  /** Every request, as sent (messages and tools copied, so later rounds do not change them). */
  readonly requests: ChatRequest[] = [];
  constructor(private readonly script: ScriptStep[], readonly modelClass?: ModelClass) {}

  async complete(request: ChatRequest): Promise<OpenAIAssistantMessage> {
    this.requests.push({ ...request, messages: structuredClone([...request.messages]), tools: [...request.tools] });
    const step = this.script.shift();
    if (step === undefined) throw new Error(`the model was asked ${this.requests.length} times, more often than scripted`);
    return typeof step === 'function' ? step(request) : step;
  }
}

/** An assistant message with these tool calls, `[call id, tool name, arguments]`. */
export function toolCalls(...list: Array<[id: string, name: string, args: Record<string, unknown>]>): OpenAIAssistantMessage {
  return { role: 'assistant', content: null, tool_calls: list.map(([id, name, args]) => ({ id, type: 'function' as const, function: { name, arguments: JSON.stringify(args) } })) };
}

/** A final answer without tool calls. */
export const finalAnswer = (text: string): OpenAIAssistantMessage => ({ role: 'assistant', content: text });

/** The tool names a request offered. */
export const offeredTools = (request: ChatRequest | undefined): string[] => (request?.tools ?? []).map((t) => t.function.name);

/** The tool messages of a request's conversation, by call id. */
export function toolMessages(request: ChatRequest): Map<string, string> {
  const out = new Map<string, string>();
  for (const m of request.messages) if (m.role === 'tool') out.set(m.tool_call_id, String(m.content));
  return out;
}
