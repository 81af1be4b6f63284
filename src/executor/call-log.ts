/**
 * The executor's log of calls: one `tool_call` event per call (with the step that refused it
 * and, at debug level, its arguments, redacted), one `decision` event per decision (the
 * audit), and the events of a workspace escape and of an internal error.
 *
 * @module
 */
import { performance } from 'node:perf_hooks';
import type { Decision } from '../decisions/decision.js';
import { codesWhere } from '../errors/error-codes.js';
import type { PathTraversalError } from '../errors/errors.js';
import { redactSecrets, type Logger } from '../logging/logger.js';
import type { DecisionRecord, ToolExecutionResult } from '../types/result.js';

/** Error codes of a call that was wrong or named nothing callable (`stage: 'request'`): logged with the gate `validation`. */
const INVALID_REQUESTS = codesWhere((e) => e.stage === 'request');

/** Logs the calls of one executor. */
export class CallLog {
  private readonly logInfo: boolean;
  private readonly logDebug: boolean;

  constructor(readonly logger: Logger) {
    this.logInfo = logger.isLevelEnabled('info');
    this.logDebug = logger.isLevelEnabled('debug');
  }

  /**
   * Set the result's duration and decisions, and log the `tool_call` event: `gate` names the
   * step that refused the call, `decisions` the pipeline's trail (`decider:verdict`, with the
   * rule when there is one) when any decider had an opinion.
   * @param started - `performance.now()` when the call arrived.
   * @param args - logged at debug level (redacted; unparsed text by its size only).
   * @returns `result`.
   */
  finish(started: number, result: ToolExecutionResult, gate?: string, args?: unknown, decisions?: readonly Decision[]): ToolExecutionResult {
    result.durationMs = performance.now() - started;
    if (decisions !== undefined) {
      result.decisions = decisions.map(recordOf);
      // The audit: one event per decision, naming the decider, the rule, its file and line.
      if (this.logInfo) {
        for (const d of result.decisions) this.logger.info({ event: 'decision', tool: result.tool, version: result.version, callId: result.callId, ...d }, `decision: ${d.decider} ${d.verdict}`);
      }
    }
    if (this.logInfo) {
      const event: Record<string, unknown> = {
        event: 'tool_call', tool: result.tool, version: result.version, callId: result.callId, gate: gate ?? (result.errorCode !== undefined && INVALID_REQUESTS.has(result.errorCode) ? 'validation' : 'passed'),
        durationMs: Math.round(result.durationMs * 1000) / 1000, success: result.success, errorCode: result.errorCode,
      };
      if (decisions !== undefined) event.decisions = decisions.map((d) => `${d.decider}:${d.verdict}${d.rule === undefined ? '' : `:${d.rule}`}`);
      if (this.logDebug && args !== undefined) {
        // Raw JSON text that failed to parse cannot be redacted key by key: log its size only.
        event.arguments = typeof args === 'string' ? `[unparsed arguments, ${args.length} characters]` : redactSecrets(args);
      }
      if (result.success) this.logger.info(event, 'tool call');
      else this.logger.info(event, 'tool call failed');
    }
    return result;
  }

  /** Log a workspace escape refused at the gate `workspace`. @returns `error`. */
  traversal(error: PathTraversalError, tool: { name: string; version: string }, callId: string): PathTraversalError {
    this.logger.warn({ event: 'tool_call', tool: tool.name, version: tool.version, callId, gate: 'workspace', success: false, errorCode: 'PATH_TRAVERSAL', path: error.path }, 'path traversal refused');
    return error;
  }

  /** Log an internal error on a call's path (a bug in toolgate or in a caller's hook). */
  internalError(error: unknown, name: string, callId: string): void {
    this.logger.error({ event: 'tool_call_internal_error', tool: name, callId, err: (error as Error)?.stack ?? String(error) }, 'internal error');
  }

  /** Log tool instances whose own `close()` failed. */
  closeFailures(failures: ReadonlyArray<{ key: string; error: unknown }>): void {
    for (const { key, error } of failures) this.logger.warn({ event: 'tool_close_failed', tool: key, err: error }, 'a tool instance failed to close');
  }

  /** Log what the once-per-process sweep of leftovers removed, if anything. */
  swept(swept: { temporaries: number; journals: number; outputFolders: number; cgroups: number }): void {
    if (swept.temporaries + swept.journals + swept.outputFolders + swept.cgroups !== 0) this.logger.info({ event: 'leftovers_removed', ...swept }, 'removed what stopped toolgate processes left');
  }
}

/**
 * A decision as results and audit events carry it: of the pipeline's flags only whether a
 * question is one a person alone answers (`person` or `fresh`: no advance approval settles it),
 * which tells a caller not to offer `--yes` for it.
 */
export function recordOf(d: Decision): DecisionRecord {
  const record: DecisionRecord = { decider: d.decider, verdict: d.verdict, reason: d.reason };
  if (d.rule !== undefined) record.rule = d.rule;
  if (d.source !== undefined) {
    record.file = d.source.file;
    record.line = d.source.line;
  }
  if (d.verdict === 'ask' && (d.person === true || d.fresh === true)) record.person = true;
  return record;
}
