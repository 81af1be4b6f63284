/**
 * Every {@link ToolExecutionResult} is built here: failed results of calls that did not run
 * ({@link failedResult}), and the result of a call that ran, from its runner's outcome
 * ({@link resultOf}: output validation, truncation with notes, the whole output kept, images,
 * reported failures). The executor, the tool system, the tool-call handler, the MCP server
 * and the CLI all build results through this module.
 *
 * @module
 */
import { DEFAULT_MAX_OUTPUT_LENGTH } from '../decorators/tool.decorator.js';
import type { ToolErrorCode } from '../errors/errors.js';
import type { RegisteredTool } from '../registry/registered-tool.js';
import { errorCodeOf, rebuildPathTraversal, type RunOutcome } from '../runner/runner.js';
import type { StopReason, ToolExecutionResult } from '../types/result.js';
import { clip } from '../util/values.js';
import { outputText, truncate } from './closeout.js';
import { outcomeOf } from './outcomes.js';
import { keepsFullOutput, modelView } from './projection.js';
import type { OutputStore, StoredOutput } from './output-store.js';

/** The fields of a result that say which call it answers. */
export interface ResultFields {
  /** Tool name as requested (or resolved). */
  tool: string;
  callId: string;
  /** Version that ran or would have run; leave out when no tool was found. */
  version?: string;
  /** Repairs made to the arguments, if any. */
  repairs?: string[] | undefined;
  /** False only when the confirmation step refused the call. Default true. */
  confirmed?: boolean;
  /** Default `not_run`. */
  stopReason?: StopReason;
  /** Whether the tool is read-only (a call of it has no side effects); leave out when unknown. */
  readOnly?: boolean;
  /** Milliseconds until the same call may succeed (a rate-limit refusal's estimate). */
  retryAfterMs?: number | undefined;
}

/**
 * A failed result: `output` is `Error: <message>`, the message cut at `cap` characters (at
 * most {@link DEFAULT_MAX_OUTPUT_LENGTH}). `durationMs` is 0; the executor sets it.
 */
export function failedResult(code: ToolErrorCode, message: string, fields: ResultFields, cap = DEFAULT_MAX_OUTPUT_LENGTH): ToolExecutionResult {
  const text = truncate(message, Math.min(cap, DEFAULT_MAX_OUTPUT_LENGTH));
  const result: ToolExecutionResult = {
    success: false, output: `Error: ${text}`, error: text, errorCode: code, durationMs: 0, confirmed: fields.confirmed ?? true, tool: fields.tool, callId: fields.callId,
    stopReason: fields.stopReason ?? 'not_run', ...outcomeOf(code, fields.stopReason ?? 'not_run', fields.readOnly),
  };
  if (fields.version !== undefined) result.version = fields.version;
  if (fields.repairs !== undefined) result.repairs = fields.repairs;
  if (fields.retryAfterMs !== undefined) result.retryAfterMs = Math.max(0, Math.ceil(fields.retryAfterMs));
  return result;
}

/** A successful result with `output` as it is (an answer given outside a tool run, such as a user's answer to `ask_user`). */
export function completedResult(output: string, fields: Pick<ResultFields, 'tool' | 'callId' | 'version'>): ToolExecutionResult {
  const result: ToolExecutionResult = { success: true, output, durationMs: 0, confirmed: true, tool: fields.tool, callId: fields.callId, stopReason: 'completed', outcome: 'success', sideEffects: 'none' };
  if (fields.version !== undefined) result.version = fields.version;
  return result;
}

/** `result` with `note` on a line of its own after its output (a note for the model, such as an agent's retry decision). */
export function withNote(result: ToolExecutionResult, note: string): ToolExecutionResult {
  return { ...result, output: `${result.output}${result.output.endsWith('\n') ? '' : '\n'}${note}` };
}

/** A failed result of a resolved tool: the message is cut at the tool's own output cap too. */
export function toolFailure(tool: RegisteredTool, code: ToolErrorCode, message: string, fields: Omit<ResultFields, 'tool' | 'version'>): ToolExecutionResult {
  const cap = tool.maxOutputLength > 0 ? tool.maxOutputLength : Number.POSITIVE_INFINITY;
  return failedResult(code, message, { ...fields, tool: tool.name, version: tool.version, readOnly: tool.readOnly }, cap);
}

/** The tool name of a call as given, for results of calls that cannot be resolved (clipped; `?` when not a string). */
export function requestedName(call: unknown): string {
  const name = (call as { name?: unknown } | null)?.name;
  return typeof name === 'string' ? clip(name, 200) : '?';
}

/** The call id of a call as given (clipped; empty when not a string). */
export function requestedCallId(call: unknown): string {
  const id = (call as { callId?: unknown } | null)?.callId;
  return typeof id === 'string' ? clip(id, 200) : '';
}

/** Results whose JSON text passes this many characters carry no `structured` copy. */
const MAX_STRUCTURED_TEXT = 1_000_000;

/** What {@link resultOf} needs of the call. */
export interface RanCall {
  tool: RegisteredTool;
  callId: string;
  repairs: string[] | undefined;
}

/**
 * The result of a call that reached its runner.
 * @param outcome - how the run ended (apply {@link byStopPriority} first).
 * @param outputs - where a long output is kept whole; `undefined` to keep nothing.
 * @param closed - whether the executor was closing (an abort or crash then says so).
 * @throws PathTraversalError when the tool found that a path leaves the workspace.
 */
export function resultOf(call: RanCall, outcome: RunOutcome, outputs: OutputStore | undefined, closed: boolean): ToolExecutionResult {
  const { tool, callId, repairs } = call;
  const fail = (code: ToolErrorCode, message: string, stopReason: StopReason = 'error') => toolFailure(tool, code, message, { callId, repairs, stopReason });
  switch (outcome.kind) {
    case 'ok': {
      // A string always matches an output schema that says no more than "string" (cutInWorker).
      const invalid = typeof outcome.value === 'string' && tool.cutInWorker ? undefined : tool.validateOutput(outcome.value);
      if (invalid !== undefined) {
        if (outcome.full !== undefined) outputs?.discard(outcome.full.path);
        return fail('INVALID_OUTPUT', `${tool.name} returned output that does not match its output schema: ${invalid}. This is a bug in the tool, not in the call.`);
      }
      const text = outputText(outcome.value);
      // What the model sees, and whether the whole output is kept: the tool's output projection.
      const view = modelView(tool, text, outcome.notes, outcome.cut === true);
      let output = view.output;
      let full: StoredOutput | undefined;
      if (outputs !== undefined) {
        if (outcome.full !== undefined && !keepsFullOutput(tool)) outputs.discard(outcome.full.path);
        else if (outcome.full !== undefined) full = outputs.account(outcome.full.path, outcome.full.characters);
        else if (view.partial && keepsFullOutput(tool)) full = outputs.write(outputs.reserve(callId), text);
      }
      const images = outcome.images;
      if (images?.length) {
        output += images.map((image, i) => `\n[image ${i + 1} of ${images.length} attached: ${image.slice(5, image.indexOf(';'))}, ${image.length} characters as a data URL]`).join('');
      }
      const attachments = outcome.attachments;
      if (attachments?.length) {
        output += attachments.map((a, i) => `\n[${a.type === 'audio' ? `audio (${a.mimeType})` : `resource ${a.resource.uri}`} attached (${i + 1} of ${attachments.length})]`).join('');
      }
      const reported = outcome.reported;
      if (reported !== undefined) output += `\n[${tool.name} reported a failure: ${reported}]`;
      const result: ToolExecutionResult = {
        success: reported === undefined, output, durationMs: 0, confirmed: true, tool: tool.name, version: tool.version, callId,
        stopReason: reported === undefined ? 'completed' : 'reported_error',
        ...outcomeOf(reported === undefined ? undefined : 'TOOL_ERROR', reported === undefined ? 'completed' : 'reported_error', tool.readOnly),
      };
      if (reported !== undefined) {
        result.error = reported;
        result.errorCode = 'TOOL_ERROR';
      }
      if (typeof outcome.value !== 'string' && outcome.value !== undefined && outcome.value !== null) {
        // Keep the value for callers (MCP structuredContent), unless it is too large to carry.
        if (text.length < MAX_STRUCTURED_TEXT || tool.maxOutputLength <= 0) result.structured = outcome.value;
      }
      if (images?.length) result.images = images;
      if (attachments?.length) result.attachments = attachments;
      if (full !== undefined) result.fullOutput = full;
      if (repairs) result.repairs = repairs;
      return result;
    }
    case 'error': {
      const traversal = rebuildPathTraversal(outcome.error);
      if (traversal !== undefined) throw traversal;
      const notes = outcome.notes.length ? `\n${outcome.notes.join('\n')}` : '';
      const code = errorCodeOf(outcome.error);
      const stopReason = code === 'TIMEOUT' ? 'timeout' : code === 'ABORTED' ? 'interrupted' : 'error';
      return fail(code, `${tool.name} failed: ${outcome.error.message}${notes}`, stopReason);
    }
    case 'timeout':
      return fail('TIMEOUT', `${tool.name} timed out after ${formatSeconds(outcome.timeoutMs)} s (limit ${outcome.timeoutMs} ms, counted from when the call arrived) and was stopped; try a smaller request.`, 'timeout');
    case 'aborted':
      return fail('ABORTED', `${tool.name} was ${closed ? 'stopped by the executor closing' : 'aborted by the caller'} before it finished; it may have had partial effects.`, 'interrupted');
    case 'memory':
      return fail('MEMORY_LIMIT', `${tool.name} was stopped: the worker running it exceeded its memory cap of ${outcome.memoryMb} MB; try a smaller request.`);
    case 'crashed':
      return fail('WORKER_CRASHED', `${tool.name} crashed: ${outcome.message}.`, closed ? 'interrupted' : 'error');
    case 'unavailable':
      return fail(outcome.code, `${tool.name} did not run: ${outcome.message}.`, 'not_run');
    case 'invalid-output':
      return fail('INVALID_OUTPUT', `${tool.name} failed: ${outcome.message}. This is a bug in the tool, not in the call.`);
    case 'suspended':
      // The executor leaves such a call waiting before it asks for a result; a caller that cannot resume it gets this.
      return fail('TOOL_ERROR', `${tool.name} did not finish: it asked a question that only a later request of its caller answers, and nothing here can resume it.`);
  }
}

/**
 * Apply the stop-reason priority (user interrupt > timeout > thrown error > reported error)
 * to a runner's outcome: when the caller's signal has aborted, an outcome that ended the call
 * some other way after the tool started (a timeout, a thrown error, a crash, memory, invalid
 * output) is reported as the interrupt. A workspace escape stays an escape, and outcomes of
 * calls that never ran or finished (`ok`, `unavailable`) are left as they are.
 */
export function byStopPriority(outcome: RunOutcome, interrupted: boolean): RunOutcome {
  if (!interrupted) return outcome;
  switch (outcome.kind) {
    case 'timeout':
    case 'memory':
    case 'crashed':
    case 'invalid-output':
      return { kind: 'aborted' };
    case 'error':
      return outcome.error.code === 'PATH_TRAVERSAL' ? outcome : { kind: 'aborted' };
    default:
      return outcome;
  }
}

function formatSeconds(ms: number): string {
  const s = ms / 1000;
  return Number.isInteger(s) ? String(s) : s.toFixed(s < 1 ? 3 : 1);
}
