/**
 * The {@link ToolContext} implementation shared by the main runner and the pool worker.
 *
 * @module
 */
import { ToolExecutionError } from '../errors/errors.js';
import { DEFAULT_SANDBOX, type SandboxPolicy } from '../sandbox/bubblewrap.js';
import { MAX_IMAGE_DATA_URL_LENGTH, MAX_IMAGES, type ToolContext } from '../types/tool.js';
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
  /** The failure reported with reportError(), if any. */
  reportedError: string | undefined;
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
    return this.noteList ?? NO_NOTES;
  }

  get workspace(): Workspace {
    return workspaceFor(this.root, this.writeRoots);
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

  reportError(message: string): void {
    this.reportedError = typeof message === 'string' && message !== '' ? message.slice(0, MAX_NOTE_LENGTH) : 'the tool reported a failure';
  }

  /** Abort the call (timeout or caller abort); a no-op after the first time. */
  abort(reason: unknown): void {
    if (this.aborted) return;
    this.aborted = true;
    this.abortReason = reason;
    this.controller?.abort(reason);
  }
}
