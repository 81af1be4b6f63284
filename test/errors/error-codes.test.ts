/**
 * The one error-code table (issue 31 item 5): every code has exactly one row, every other set
 * of codes is derived from it, and what docs/outcomes.md says matches it. A code added to the
 * union, used in the source, or listed in the docs without a row fails here.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { codesWhere, ERROR_CODES, errorCodeEntry, type ToolErrorCode } from '../../src/errors/error-codes.js';
import { ERROR_CLASSES } from '../../src/closeout/outcomes.js';
import { DEFAULT_RETRY_ON } from '../../src/agents/retry.js';
import { errorCodeOf } from '../../src/runner/runner.js';
import { failedResult } from '../../src/closeout/results.js';
import { REPO_ROOT } from '../helpers.js';

const TABLE = Object.keys(ERROR_CODES).sort();

/** The codes of the `ToolErrorCode` union, read from its source. */
function declaredCodes(): string[] {
  const text = fs.readFileSync(path.join(REPO_ROOT, 'src/errors/error-codes.ts'), 'utf8');
  const union = text.slice(text.indexOf('export type ToolErrorCode'), text.indexOf(';', text.indexOf('export type ToolErrorCode')));
  return [...union.matchAll(/\|\s*'([A-Z_]+)'/g)].map((m) => m[1]!);
}

/** Every TypeScript file under a folder of the repository. */
function sources(dir: string): string[] {
  return fs.readdirSync(path.join(REPO_ROOT, dir), { recursive: true, encoding: 'utf8' })
    .filter((f) => /\.(c|m)?ts$/.test(f) && !f.endsWith('.d.ts'))
    .map((f) => path.join(REPO_ROOT, dir, f));
}

describe('ERROR_CODES', () => {
  it('has a row for every code of the ToolErrorCode union, and no other', () => {
    const declared = declaredCodes();
    assert.ok(declared.length >= 30, `read ${declared.length} codes from error-codes.ts`);
    assert.deepEqual(TABLE, [...declared].sort());
  });

  it('has a row for every error code the source gives a result, a decision or an error (a code used without a row fails here)', () => {
    // Where a code is named: made into a result, a denial or an error, compared with or assigned to a result's code.
    const uses = /(?:failedResult|toolFailure|notRun|deny|fail|ToolExecutionError|ToolgateError|super)\(\s*(?:[\w.]+,\s*)?'([A-Z][A-Z_]+)'|errorCode\s*(?:===|!==|=|:)\s*'([A-Z][A-Z_]+)'|\bcode\s*(?:===|!==|:)\s*'([A-Z][A-Z_]+)'/g;
    const seen = new Map<string, string>();
    for (const file of sources('src')) {
      for (const m of fs.readFileSync(file, 'utf8').matchAll(uses)) {
        const code = m[1] ?? m[2] ?? m[3]!;
        // `error.code === 'ENOENT'`: Node's own codes (errno, ERR_*) and process warning codes (TOOLGATE_*) are not result codes.
        if (m[3] !== undefined && /^(E[A-Z0-9]+|ERR_[A-Z0-9_]+|TOOLGATE_[A-Z0-9_]+)$/.test(code)) continue;
        if (!seen.has(code)) seen.set(code, path.relative(REPO_ROOT, file));
      }
    }
    assert.ok(seen.size >= 15, `found ${seen.size} codes named in the source`);
    for (const [code, file] of seen) assert.ok(errorCodeEntry(code) !== undefined, `${code} (named in ${file}) has no row in ERROR_CODES`);
  });

  it('gives every row a class, a retryability, a stage, an MCP mapping and a summary', () => {
    for (const code of TABLE as ToolErrorCode[]) {
      const e = ERROR_CODES[code];
      assert.ok(['auto', 'manual', 'never'].includes(e.retry), code);
      assert.ok(['request', 'ledger', 'gate', 'run', 'load'].includes(e.stage), code);
      assert.ok(['result', 'invalid_params'].includes(e.mcp), code);
      assert.equal(typeof e.reportable, 'boolean', code);
      assert.ok(e.summary.length > 20 && e.summary.endsWith('.'), `${code}: ${e.summary}`);
      assert.ok(Object.isFrozen(e), code);
    }
    assert.equal(errorCodeEntry('toString'), undefined, 'an inherited name is no code');
    assert.equal(errorCodeEntry('NOT_A_CODE'), undefined);
  });

  it('decides the codes the parallel tables disagreed on: RATE_LIMITED and TOOL_REPLACED are gate refusals', () => {
    assert.deepEqual({ ...ERROR_CODES.RATE_LIMITED, summary: '' }, { errorClass: 'rate_limited', retry: 'auto', stage: 'gate', reportable: false, mcp: 'result', summary: '' });
    assert.deepEqual({ ...ERROR_CODES.TOOL_REPLACED, summary: '' }, { errorClass: 'denied', retry: 'never', stage: 'gate', reportable: false, mcp: 'result', summary: '' });
    assert.deepEqual([...codesWhere((e) => e.stage === 'gate')].sort(), ['CONFIRMATION_DENIED', 'CONFIRMATION_REQUIRED', 'INVALID_POLICY_FILE', 'MODE_DENIED', 'PATH_TRAVERSAL', 'POLICY_DENIED', 'RATE_LIMITED', 'TOOL_HIDDEN', 'TOOL_REPLACED']);
  });

  it('derives ERROR_CLASSES: fatal exactly for the codes a retry does not help', () => {
    assert.deepEqual(Object.keys(ERROR_CLASSES).sort(), TABLE);
    for (const code of TABLE as ToolErrorCode[]) {
      assert.deepEqual(ERROR_CLASSES[code], { outcome: ERROR_CODES[code].retry === 'never' ? 'fatal' : 'recoverable', errorClass: ERROR_CODES[code].errorClass }, code);
      assert.equal(failedResult(code, 'm', { tool: 't', callId: 'c' }).outcome, ERROR_CLASSES[code].outcome, code);
    }
  });

  it("agents retry by default the classes of exactly the codes a loop may retry by itself ('auto')", () => {
    const auto = new Set([...codesWhere((e) => e.retry === 'auto')].map((c) => ERROR_CODES[c].errorClass));
    assert.deepEqual([...auto].sort(), [...DEFAULT_RETRY_ON].sort());
  });

  it('lets a tool report exactly the reportable codes; any other code it throws is TOOL_ERROR', () => {
    for (const code of TABLE as ToolErrorCode[]) {
      const got = errorCodeOf({ name: 'ToolgateError', message: 'm', code });
      assert.equal(got, ERROR_CODES[code].reportable ? code : 'TOOL_ERROR', code);
    }
    assert.equal(errorCodeOf({ name: 'Error', message: 'm', code: 'ENOENT' }), 'TOOL_ERROR');
  });

  it('maps only UNKNOWN_TOOL to an MCP protocol error', () => {
    assert.deepEqual([...codesWhere((e) => e.mcp === 'invalid_params')], ['UNKNOWN_TOOL']);
  });

  it('is what docs/outcomes.md shows: each code once, with its outcome, class, retry and stage', () => {
    const text = fs.readFileSync(path.join(REPO_ROOT, 'docs/outcomes.md'), 'utf8');
    const rows = [...text.matchAll(/^\| ((?:`[A-Z_]+`(?:, )?)+) \| (\w+)[^|]* \| `(\w+)` \| (\w+) \| (\w+) \|$/gm)];
    const documented = new Map<string, { outcome: string; errorClass: string; retry: string; stage: string }>();
    for (const [, codes, outcome, errorClass, retry, stage] of rows) {
      for (const code of codes!.match(/[A-Z_]+/g)!) {
        assert.ok(!documented.has(code), `${code} is documented twice`);
        documented.set(code, { outcome: outcome!, errorClass: errorClass!, retry: retry!, stage: stage! });
      }
    }
    assert.deepEqual([...documented.keys()].sort(), TABLE, 'docs/outcomes.md lists every code of the table');
    for (const [code, d] of documented) {
      const e = ERROR_CODES[code as ToolErrorCode];
      assert.deepEqual(d, { outcome: ERROR_CLASSES[code as ToolErrorCode].outcome, errorClass: e.errorClass, retry: e.retry, stage: e.stage }, code);
    }
  });
});
