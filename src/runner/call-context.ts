/**
 * The {@link ToolContext} implementation shared by the main runner and the pool worker.
 *
 * @module
 */
import { ToolExecutionError } from '../errors/errors.js';
import { DEFAULT_SANDBOX, type SandboxPolicy } from '../sandbox/bubblewrap.js';
import {
  MAX_CLIENT_LOG_LENGTH, MAX_IMAGE_DATA_URL_LENGTH, MAX_IMAGES, TOOL_LOG_LEVELS, type ElicitAnswer, type JsonSchema, type SampleAnswer, type SampleRequest, type ToolClient, type ToolAttachment, type ToolContext, type ToolLogLevel,
} from '../types/tool.js';
import { policyPathFilter } from '../decisions/policy-path-filter.js';
import type { PathFilterSpec } from '../workspace/path-filter.js';
import { workspaceFor, type Workspace } from '../workspace/workspace.js';

const NEVER_ABORTED = new AbortController().signal;
/** Notes of a call that made none (shared; frozen). */
const NO_NOTES: readonly string[] = Object.freeze([]);
const IMAGE_DATA_URL = /^data:image\/(png|jpeg|gif|webp);base64,/;

/** Notes are for short markers (an exit status): at most this many per call... */
export const MAX_NOTES = 20;
/** ...of at most this many characters each. */
export const MAX_NOTE_LENGTH = 2000;

/**
 * Context of one call. The abort signal is created on first access, because creating an
 * `AbortController` costs more than the rest of a call's bookkeeping together.
 */
export class CallContext implements ToolContext {
  readonly callId: string;
  readonly toolName: string;
  readonly version: string;
  readonly maxOutputLength: number;
  private noteList: string[] | undefined;
  /** Images attached with attachImage(), if any. */
  images: string[] | undefined;
  /** Audio and resources attached with attach(), if any. */
  attachments: ToolAttachment[] | undefined;
  /** The failure reported with reportError(), if any. */
  reportedError: string | undefined;
  /** The caller's handlers for progress, logs, elicitation and sampling, if any (set by the runner). */
  client: ToolClient | undefined;
  private readonly root: string;
  private controller: AbortController | undefined;
  private abortReason: unknown;
  private aborted = false;
  private readonly abortable: boolean;

  /**
   * @param abortable - false in workers, where a stopped call ends the worker instead.
   */
  private readonly writeRoots: readonly string[] | undefined;

  readonly deadline: number | undefined;

  readonly sandbox: SandboxPolicy;

  /** The call's W3C trace context, when traced (set by the runner after construction). */
  traceparent: string | undefined = undefined;

  /**
   * The call's path rules (set by the runner after construction, before the tool runs), when
   * policy files count: `workspace.withholds()` answers from them.
   */
  pathFilter: PathFilterSpec | undefined = undefined;
  private filtered: Workspace | undefined;

  constructor(callId: string, toolName: string, version: string, root: string, abortable: boolean, maxOutputLength: number, writeRoots?: readonly string[], deadline?: number, sandbox: SandboxPolicy = DEFAULT_SANDBOX) {
    this.deadline = deadline;
    this.sandbox = sandbox;
    this.writeRoots = writeRoots;
    this.callId = callId;
    this.maxOutputLength = maxOutputLength;
    this.toolName = toolName;
    this.version = version;
    this.root = root;
    this.abortable = abortable;
  }

  /** Notes to append after the output (a shared empty list until the first note). */
  get notes(): readonly string[] {
    const withheld = this.filtered?.withheld ?? 0;
    if (withheld === 0) return this.noteList ?? NO_NOTES;
    return [...(this.noteList ?? NO_NOTES), `${withheld} ${withheld === 1 ? 'entry was' : 'entries were'} withheld by the policy's path rules (not shown, not read)`];
  }

  get workspace(): Workspace {
    const shared = workspaceFor(this.root, this.writeRoots);
    if (this.pathFilter === undefined) return shared;
    return (this.filtered ??= shared.withPathFilter(policyPathFilter(this.pathFilter)));
  }

  get signal(): AbortSignal {
    if (!this.abortable) return NEVER_ABORTED;
    if (this.controller === undefined) {
      this.controller = new AbortController();
      if (this.aborted) this.controller.abort(this.abortReason);
    }
    return this.controller.signal;
  }

  note(text: string): void {
    if (typeof text !== 'string' || !text) return;
    const notes = (this.noteList ??= []);
    if (notes.length >= MAX_NOTES) return;
    notes.push(text.length > MAX_NOTE_LENGTH ? `${text.slice(0, MAX_NOTE_LENGTH)}...[note cut: ${text.length} characters]` : text);
  }

  attachImage(dataUrl: string): void {
    if (typeof dataUrl !== 'string' || !IMAGE_DATA_URL.test(dataUrl.slice(0, 40))) {
      throw new ToolExecutionError(`${this.toolName}: attachImage() takes a base64 data URL of a PNG, JPEG, GIF or WebP image ("data:image/png;base64,...")`);
    }
    if (dataUrl.length > MAX_IMAGE_DATA_URL_LENGTH) {
      throw new ToolExecutionError(`${this.toolName}: an attached image is ${dataUrl.length} characters as a data URL; the limit is ${MAX_IMAGE_DATA_URL_LENGTH}`);
    }
    const images = (this.images ??= []);
    if (images.length >= MAX_IMAGES) throw new ToolExecutionError(`${this.toolName}: at most ${MAX_IMAGES} images can be attached to one call`);
    images.push(dataUrl);
  }

  attach(content: ToolAttachment): void {
    const bad = (problem: string) => new ToolExecutionError(`${this.toolName}: attach() ${problem}`);
    if (content === null || typeof content !== 'object') throw bad('takes { type: "audio", data, mimeType } or { type: "resource", resource: { uri, text | blob } }');
    let copy: ToolAttachment;
    if (content.type === 'audio') {
      if (typeof content.data !== 'string' || !/^[A-Za-z0-9+/=\s]*$/.test(content.data.slice(0, 200)) || typeof content.mimeType !== 'string' || !content.mimeType.startsWith('audio/')) {
        throw bad('of audio takes base64 data and an audio/* mimeType');
      }
      copy = { type: 'audio', data: content.data, mimeType: content.mimeType };
    } else if (content.type === 'resource') {
      const r = content.resource as { uri?: unknown; mimeType?: unknown; text?: unknown; blob?: unknown } | undefined;
      if (r === undefined || typeof r.uri !== 'string' || r.uri === '' || (typeof r.text === 'string') === (typeof r.blob === 'string')) {
        throw bad('of a resource takes { uri, mimeType?, and either text or base64 blob }');
      }
      const base = { uri: r.uri, ...(typeof r.mimeType === 'string' ? { mimeType: r.mimeType } : {}) };
      copy = { type: 'resource', resource: typeof r.text === 'string' ? { ...base, text: r.text } : { ...base, blob: r.blob as string } };
    } else {
      throw bad(`takes audio or a resource; got type ${JSON.stringify((content as { type?: unknown }).type)} (images: attachImage)`);
    }
    const size = copy.type === 'audio' ? copy.data.length : 'text' in copy.resource ? copy.resource.text.length : copy.resource.blob.length;
    if (size > MAX_IMAGE_DATA_URL_LENGTH) throw bad(`got ${size} characters of data; the limit is ${MAX_IMAGE_DATA_URL_LENGTH}`);
    const list = (this.attachments ??= []);
    if (list.length >= MAX_IMAGES) throw bad(`takes at most ${MAX_IMAGES} attachments per call`);
    list.push(copy);
  }

  reportError(message: string): void {
    this.reportedError = typeof message === 'string' && message !== '' ? message.slice(0, MAX_NOTE_LENGTH) : 'the tool reported a failure';
  }

  progress(done: number, total?: number, message?: string): void {
    if (this.client?.progress === undefined || typeof done !== 'number' || !Number.isFinite(done)) return;
    const ofTotal = typeof total === 'number' && Number.isFinite(total) ? total : undefined;
    const text = typeof message === 'string' ? message.slice(0, MAX_NOTE_LENGTH) : undefined;
    try {
      this.client.progress(done, ofTotal, text);
    } catch {
      // a listener's failure is not the tool's
    }
  }

  log(level: ToolLogLevel, data: unknown): void {
    if (this.client?.log === undefined) return;
    const known = (TOOL_LOG_LEVELS as readonly string[]).includes(level) ? level : 'info';
    let sent = data;
    try {
      const json = JSON.stringify(data) ?? 'null';
      if (json.length > MAX_CLIENT_LOG_LENGTH) sent = `${json.slice(0, MAX_CLIENT_LOG_LENGTH)}...[log data cut: ${json.length} characters]`;
      else sent = JSON.parse(json) as unknown;
    } catch {
      sent = String(data);
    }
    try {
      this.client.log(known, sent, this.toolName);
    } catch {
      // a listener's failure is not the tool's
    }
  }

  elicit(message: string, requestedSchema: JsonSchema): Promise<ElicitAnswer> {
    const client = this.client;
    if (client?.elicit === undefined) return Promise.reject(this.unavailable('elicit', 'ask a person for input (an MCP client with the elicitation capability, or an SDK client.elicit handler)'));
    if (typeof message !== 'string' || requestedSchema === null || typeof requestedSchema !== 'object' || requestedSchema.type !== 'object') {
      return Promise.reject(new ToolExecutionError(`${this.toolName}: ctx.elicit() takes a message and an object schema of the fields to ask for`));
    }
    return client.elicit(message, requestedSchema, this.signal);
  }

  sample(request: SampleRequest): Promise<SampleAnswer> {
    const client = this.client;
    if (client?.sample === undefined) return Promise.reject(this.unavailable('sample', 'ask a model for a completion (an MCP client with the sampling capability, or an SDK client.sample handler)'));
    if (request === null || typeof request !== 'object' || !Array.isArray(request.messages) || typeof request.maxTokens !== 'number') {
      return Promise.reject(new ToolExecutionError(`${this.toolName}: ctx.sample() takes { messages, maxTokens }`));
    }
    return client.sample(request, this.signal);
  }

  private unavailable(method: string, what: string): ToolExecutionError {
    return new ToolExecutionError(`${this.toolName}: ctx.${method}() needs a caller that can ${what}; the caller of this call has none, so the tool cannot ${method === 'elicit' ? 'ask' : 'sample'} here`, 'CLIENT_UNAVAILABLE');
  }

  /** Abort the call (timeout or caller abort); a no-op after the first time. */
  abort(reason: unknown): void {
    if (this.aborted) return;
    this.aborted = true;
    this.abortReason = reason;
    this.controller?.abort(reason);
  }
}
