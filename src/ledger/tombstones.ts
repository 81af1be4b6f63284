/**
 * What every call store answers for a call its retention deleted: the hash a tombstone keeps
 * of its arguments, and the `RESULT_PRUNED` result a retry of it gets.
 *
 * @module
 */
import { failedResult } from '../closeout/results.js';
import type { ToolExecutionResult } from '../types/result.js';
import { canonicalSha256 } from '../util/canonical-hash.js';
import type { TombstoneRecord } from './call-store.js';

/**
 * SHA-256 (hex) of the RFC 8785 canonical JSON of a call's arguments: what a tombstone keeps
 * of them, so that a retry can be told apart from another request under the same call id.
 */
export function argumentsSha256(args: unknown): string {
  return canonicalSha256(args);
}

/**
 * The result a retry of a pruned call gets: failed, `RESULT_PRUNED`, `not_run`, saying how the
 * call ended (its tombstone's state) and that its output is no longer kept.
 */
export function prunedResult(t: TombstoneRecord): ToolExecutionResult {
  const code = t.errorCode === undefined ? '' : ` (${t.errorCode})`;
  const how = t.state === 'done' ? 'it succeeded' : t.state === 'interrupted' ? 'it was interrupted: the tool may have run' : t.state === 'denied' ? `it was denied${code}: it never ran` : `it failed${code}`;
  const when = t.endedAt === undefined ? '' : ` at ${new Date(t.endedAt).toISOString()}`;
  const message = `call ${t.callId} of session ${t.session} already ran (${t.state}${when}: ${how}); its output is no longer kept (ledger retention) and it was not run again. A new call needs a new call id.`;
  return failedResult('RESULT_PRUNED', message, { tool: t.tool, version: t.version, callId: t.callId, stopReason: 'not_run' });
}
