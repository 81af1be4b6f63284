/**
 * Outcomes (issue 19 item 2): every error code has an outcome and a class, derived from the
 * code and the stop reason (never from a message), and results carry them.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import type { ToolErrorCode } from 'toolgate';
import { ERROR_CLASSES, outcomeOf } from '../../src/closeout/outcomes.js';
import { completedResult, failedResult, withNote } from '../../src/closeout/results.js';
import type { StopReason } from '../../src/types/result.js';
import { REPO_ROOT } from '../helpers.js';

/** The codes of the `ToolErrorCode` union, read from its source. */
function declaredCodes(): string[] {
  const text = fs.readFileSync(path.join(REPO_ROOT, 'src/errors/error-codes.ts'), 'utf8');
  const union = text.slice(text.indexOf('export type ToolErrorCode'));
  return [...union.matchAll(/\|\s*'([A-Z_]+)'/g)].map((m) => m[1]!);
}

const STOP_REASONS: StopReason[] = ['completed', 'reported_error', 'error', 'timeout', 'interrupted', 'not_run'];

describe('outcome classification', () => {
  it('classifies every declared error code, and nothing else (a new code fails here until it is classified)', () => {
    const codes = declaredCodes();
    assert.ok(codes.length >= 28, `read ${codes.length} codes from error-codes.ts`);
    assert.deepEqual(Object.keys(ERROR_CLASSES).sort(), [...codes].sort());
  });

  it('gives every code and stop reason an outcome, a class and side effects', () => {
    for (const code of declaredCodes() as ToolErrorCode[]) {
      for (const stopReason of STOP_REASONS) {
        for (const readOnly of [true, false, undefined]) {
          const o = outcomeOf(code, stopReason, readOnly);
          assert.equal(o.errorClass, ERROR_CLASSES[code].errorClass, `${code}/${stopReason}`);
          assert.equal(o.outcome, stopReason === 'reported_error' ? 'partial' : ERROR_CLASSES[code].outcome, `${code}/${stopReason}`);
          assert.equal(o.sideEffects, stopReason === 'not_run' || readOnly === true ? 'none' : 'possible', `${code}/${stopReason}/${readOnly}`);
        }
      }
    }
    assert.deepEqual(outcomeOf(undefined, 'completed', false), { outcome: 'success', sideEffects: 'possible' });
    assert.deepEqual(outcomeOf(undefined, 'completed', true), { outcome: 'success', sideEffects: 'none' });
  });

  it('gate denials are fatal; rate limits, overload, transient failures and a stopped server are recoverable', () => {
    for (const code of ['MODE_DENIED', 'POLICY_DENIED', 'CONFIRMATION_REQUIRED', 'CONFIRMATION_DENIED', 'PATH_TRAVERSAL'] as const) {
      assert.deepEqual(ERROR_CLASSES[code], { outcome: 'fatal', errorClass: 'denied' }, code);
    }
    assert.deepEqual(ERROR_CLASSES.RATE_LIMITED, { outcome: 'recoverable', errorClass: 'rate_limited' });
    assert.deepEqual(ERROR_CLASSES.OVERLOADED, { outcome: 'recoverable', errorClass: 'overloaded' });
    assert.deepEqual(ERROR_CLASSES.TRANSIENT, { outcome: 'recoverable', errorClass: 'transient' });
    assert.deepEqual(ERROR_CLASSES.SERVER_UNAVAILABLE, { outcome: 'recoverable', errorClass: 'unavailable' });
    assert.deepEqual(ERROR_CLASSES.TOOL_ERROR, { outcome: 'fatal', errorClass: 'tool_error' });
    assert.deepEqual(ERROR_CLASSES.INVALID_ARGUMENTS, { outcome: 'fatal', errorClass: 'invalid_arguments' });
  });

  it('reads the code, never the message: a message that says "rate limited, retry" does not make a tool error recoverable', () => {
    const r = failedResult('TOOL_ERROR', 'rate limited: temporarily unavailable, please retry (429)', { tool: 't', callId: 'c', stopReason: 'error', readOnly: true });
    assert.equal(r.outcome, 'fatal');
    assert.equal(r.errorClass, 'tool_error');
  });

  it('results built by results.ts carry the fields: failures, retryAfterMs, answers, notes', () => {
    const limited = failedResult('RATE_LIMITED', 'Rate limited', { tool: 't', callId: 'c', retryAfterMs: 1234.2 });
    assert.equal(limited.outcome, 'recoverable');
    assert.equal(limited.errorClass, 'rate_limited');
    assert.equal(limited.retryAfterMs, 1235);
    assert.equal(limited.sideEffects, 'none');
    const ran = failedResult('TIMEOUT', 'timed out', { tool: 't', callId: 'c', stopReason: 'timeout' });
    assert.equal(ran.sideEffects, 'possible', 'a tool of unknown kind that started may have had effects');
    const answer = completedResult('blue', { tool: 'ask_user', callId: 'q' });
    assert.equal(answer.outcome, 'success');
    assert.equal(answer.errorClass, undefined);
    const noted = withNote(limited, '[a note]');
    assert.equal(noted.output, 'Error: Rate limited\n[a note]');
    assert.equal(limited.output, 'Error: Rate limited', 'withNote copies');
  });
});
