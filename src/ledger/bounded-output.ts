/**
 * What every call store keeps of a call's output: at most a number of bytes, cut at a
 * character's start, with a note saying so ({@link boundedOutput}); and the result of a call
 * found interrupted ({@link interruptedResult}).
 *
 * @module
 */
import { failedResult } from '../closeout/results.js';
import type { ToolExecutionResult } from '../types/result.js';
import { INTERRUPTED_MESSAGE } from './call-store.js';

/**
 * `text` as UTF-8, at most `max` bytes: cut at a character's start, ending with a note that
 * says how much was kept of how much (the note counts in `max`).
 */
export function boundedOutput(text: string, max: number): Buffer {
  const whole = Buffer.from(text, 'utf8');
  if (whole.length <= max) return whole;
  const note = Buffer.from(`\n[toolgate: the ledger keeps the first bytes of this output only (maxOutputBytes ${max}); it was ${whole.length} bytes]\n`, 'utf8');
  let end = Math.max(0, max - note.length);
  while (end > 0 && (whole[end]! & 0xc0) === 0x80) end--;
  return Buffer.concat([whole.subarray(0, end), note]);
}

/** The result of a `running` call whose owner is gone (`INTERRUPTED`, stop reason `interrupted`), its duration counted from `startedAt`. */
export function interruptedResult(call: { tool: string; version: string; callId: string; startedAt: number | null | undefined }, now: number): ToolExecutionResult {
  const result = failedResult('INTERRUPTED', INTERRUPTED_MESSAGE, { tool: call.tool, version: call.version, callId: call.callId, stopReason: 'interrupted' });
  result.durationMs = Math.max(0, now - (call.startedAt ?? now));
  return result;
}
