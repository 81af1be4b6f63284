/**
 * The model client: chat completions with tools against any OpenAI-compatible endpoint
 * (OpenAI, llama.cpp's `llama-server`, vLLM, Ollama's `/v1`, gateways), on the official
 * `openai` package. The only module that imports `openai`, and only when the first request
 * is made, so importing toolgate does not load it (about 0.2 s). `openai` is an optional peer
 * dependency: without it the first request throws a `PackageUnavailableError` naming it.
 *
 * @module
 */
import type OpenAI from 'openai';
import type { OpenAIAssistantMessage, OpenAIChatMessage, OpenAITool, OpenAIToolCall } from '../formats/openai.js';
import type { ModelClass } from '../types/model-class.js';
import { loadOptional } from '../util/optional-package.js';

/** One request to a chat model. */
export interface ChatRequest {
  /** The conversation so far (system message first). */
  messages: readonly OpenAIChatMessage[];
  /** Tools offered, in the OpenAI function-calling shape; none when empty. */
  tools: readonly OpenAITool[];
  /** Aborts the request. */
  signal?: AbortSignal;
}

/** A chat model an agent talks to. Implement it to plug in another client. */
export interface ChatModel {
  /**
   * The model's next assistant message for `request`.
   * @throws when the endpoint fails or answers with no message; when `signal` aborts, with
   *   the client's abort error.
   */
  complete(request: ChatRequest): Promise<OpenAIAssistantMessage>;
  /**
   * Whether the model can look at images (`vision`) or reads text only (`text-only`); agents
   * offer tools by it (see `AgentOptions.modelClass`). Optional: unknown when absent.
   */
  readonly modelClass?: ModelClass;
}

/** Where the model is and what it is called. */
export interface ModelEndpoint {
  /** Base URL of the API, including `/v1` (`http://127.0.0.1:8080/v1`). Default: OpenAI's. */
  baseURL?: string;
  /** API key; local servers usually ignore it. Default: `"not-needed"` when `baseURL` is set. */
  apiKey?: string;
  /** Model name as the endpoint knows it. */
  model: string;
}

/** Options of an {@link OpenAIChatModel}. */
export interface OpenAIChatModelOptions extends ModelEndpoint {
  /** Retries of failed requests (429, 5xx, connection errors), with the client's backoff. Default 2. */
  maxRetries?: number;
  /** Timeout of one request, in ms. Default 600000 (10 minutes; local models can be slow). */
  timeoutMs?: number;
  /** Sampling temperature; omitted (the endpoint's default) when not set. */
  temperature?: number;
  /** What the model takes in: `vision` (images and text) or `text-only`. Default: unknown (agents then assume `vision`). */
  modelClass?: ModelClass;
}

/** The endpoint answered without an assistant message. */
export class ModelResponseError extends Error {
  override readonly name = 'ModelResponseError';
}

/**
 * {@link ChatModel} on the `openai` package's Chat Completions (`POST {baseURL}/chat/completions`).
 * Tool calls come back as {@link OpenAIToolCall}s (function calls only); everything else the
 * endpoint adds to the message (reasoning text, refusals, logprobs) is left out of the
 * conversation.
 */
export class OpenAIChatModel implements ChatModel {
  /** The model name sent with every request. */
  readonly model: string;
  /** The model class given in the options, if any. */
  readonly modelClass: ModelClass | undefined;
  private client: Promise<OpenAI> | undefined;
  private readonly options: OpenAIChatModelOptions;
  private readonly temperature: number | undefined;

  constructor(options: OpenAIChatModelOptions) {
    if (typeof options.model !== 'string' || options.model.trim() === '') throw new RangeError('options.model must name the model (for example gpt-4o-mini, or the name your local server serves)');
    this.model = options.model;
    this.modelClass = options.modelClass;
    this.temperature = options.temperature;
    this.options = { ...options };
  }

  private openai(): Promise<OpenAI> {
    const options = this.options;
    return (this.client ??= loadOptional<typeof import('openai')>('openai', 'the model client (toolgate agent, subagents, OpenAIChatModel)').then(({ default: Client }) => new Client({
      baseURL: options.baseURL,
      apiKey: options.apiKey ?? (options.baseURL !== undefined ? 'not-needed' : undefined),
      maxRetries: options.maxRetries ?? 2,
      timeout: options.timeoutMs ?? 600_000,
    })));
  }

  async complete(request: ChatRequest): Promise<OpenAIAssistantMessage> {
    const body: OpenAI.Chat.Completions.ChatCompletionCreateParamsNonStreaming = {
      model: this.model,
      messages: request.messages as OpenAI.Chat.Completions.ChatCompletionMessageParam[],
    };
    if (request.tools.length) body.tools = request.tools as OpenAI.Chat.Completions.ChatCompletionTool[];
    if (this.temperature !== undefined) body.temperature = this.temperature;
    const client = await this.openai();
    const completion = await client.chat.completions.create(body, { signal: request.signal });
    const message = completion?.choices?.[0]?.message;
    if (message === undefined || message === null) throw new ModelResponseError(`the model endpoint answered without a message (model ${this.model})`);
    const out: OpenAIAssistantMessage = { role: 'assistant', content: typeof message.content === 'string' ? message.content : null };
    const calls: OpenAIToolCall[] = [];
    for (const call of message.tool_calls ?? []) {
      if (call.type !== 'function') continue;
      calls.push({ id: call.id, type: 'function', function: { name: call.function.name, arguments: call.function.arguments ?? '' } });
    }
    if (calls.length) out.tool_calls = calls;
    return out;
  }
}

/**
 * The endpoint from flags and the environment: `baseURL` from the flag or `OPENAI_BASE_URL`,
 * the key from `OPENAI_API_KEY`, the model from the flag, `TOOLGATE_MODEL` or `OPENAI_MODEL`.
 * @returns the endpoint, or the list of what is missing (in words to show the user).
 */
export function modelEndpointFromEnv(
  env: NodeJS.ProcessEnv,
  flags: { baseURL?: string; model?: string } = {},
): { ok: true; endpoint: ModelEndpoint } | { ok: false; missing: string[] } {
  const baseURL = nonEmpty(flags.baseURL) ?? nonEmpty(env.OPENAI_BASE_URL);
  const apiKey = nonEmpty(env.OPENAI_API_KEY);
  const model = nonEmpty(flags.model) ?? nonEmpty(env.TOOLGATE_MODEL) ?? nonEmpty(env.OPENAI_MODEL);
  const missing: string[] = [];
  if (baseURL === undefined && apiKey === undefined) {
    missing.push('a model endpoint: set OPENAI_BASE_URL (or --base-url) to an OpenAI-compatible server such as http://127.0.0.1:8080/v1, or OPENAI_API_KEY for api.openai.com');
  }
  if (model === undefined) missing.push('a model name: set --model or OPENAI_MODEL (or TOOLGATE_MODEL)');
  if (missing.length) return { ok: false, missing };
  const endpoint: ModelEndpoint = { model: model! };
  if (baseURL !== undefined) endpoint.baseURL = baseURL;
  if (apiKey !== undefined) endpoint.apiKey = apiKey;
  return { ok: true, endpoint };
}

function nonEmpty(value: string | undefined): string | undefined {
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
}
