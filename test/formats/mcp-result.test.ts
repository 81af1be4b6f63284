/**
 * The MCP `CallToolResult` of a call (issue 18): `structuredContent` held to the tool's
 * `maxOutputLength` (shortened and still valid against the output schema, or left out with a
 * note), `_meta['toolgate/errorCode']` on every error result, attachments as content blocks.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { ToolExecutionResult } from 'toolgate';
import { toCallToolResult } from '../../src/formats/mcp.js';
import { compileValidator } from '../../src/schema/validator.js';

function result(extra: Partial<ToolExecutionResult>): ToolExecutionResult {
  return { success: true, output: 'text', durationMs: 1, confirmed: true, tool: 't', callId: 'c', stopReason: 'completed', outcome: 'success', sideEffects: 'none', ...extra } as ToolExecutionResult;
}

const schema = {
  type: 'object',
  properties: { title: { type: 'string' }, lines: { type: 'array', items: { type: 'string' } } },
  required: ['title', 'lines'],
  additionalProperties: false,
};

describe('toCallToolResult', () => {
  test('structuredContent within the limit is sent whole', () => {
    const value = { title: 'short', lines: ['a', 'b'] };
    const out = toCallToolResult({ outputSchema: schema, maxOutputLength: 1000, validateOutput: compileValidator(schema, 'output') }, result({ structured: value }));
    assert.deepEqual(out.structuredContent, value);
    assert.equal(out.content.length, 1);
  });

  test('structuredContent over the limit is shortened to it, still valid against the output schema, with a note', () => {
    const value = { title: 'x'.repeat(3000), lines: Array.from({ length: 500 }, (_, i) => `line ${i} ${'y'.repeat(40)}`) };
    const validate = compileValidator(schema, 'output');
    const out = toCallToolResult({ outputSchema: schema, maxOutputLength: 2000, validateOutput: validate }, result({ structured: value }));
    assert.ok(out.structuredContent !== undefined);
    assert.ok(JSON.stringify(out.structuredContent).length <= 2000, `${JSON.stringify(out.structuredContent).length} characters`);
    assert.equal(validate(out.structuredContent), undefined);
    assert.match(JSON.stringify(out.content), /structuredContent shortened/);
    assert.equal(value.lines.length, 500, 'the result itself is not changed');
  });

  test('structuredContent that cannot be shortened validly is left out, with a note', () => {
    const strict = { type: 'object', properties: { lines: { type: 'array', minItems: 400, items: { type: 'string' } } }, required: ['lines'] };
    const value = { lines: Array.from({ length: 400 }, (_, i) => `line ${i}`) };
    const out = toCallToolResult({ outputSchema: strict, maxOutputLength: 1000, validateOutput: compileValidator(strict, 'output') }, result({ structured: value }));
    assert.equal(out.structuredContent, undefined);
    assert.match(JSON.stringify(out.content), /structuredContent left out/);
  });

  test('every error result carries its code in _meta, TOOL_ERROR when the result names none', () => {
    const coded = toCallToolResult({ outputSchema: null }, result({ success: false, error: 'x', errorCode: 'MODE_DENIED', stopReason: 'not_run' }));
    assert.equal(coded.isError, true);
    assert.equal(coded._meta?.['toolgate/errorCode'], 'MODE_DENIED');
    const bare = toCallToolResult({ outputSchema: null }, result({ success: false, error: 'x', stopReason: 'error' }));
    assert.equal(bare._meta?.['toolgate/errorCode'], 'TOOL_ERROR');
  });

  test('audio and resources attached with ctx.attach become content blocks', () => {
    const out = toCallToolResult({ outputSchema: null }, result({
      attachments: [{ type: 'audio', data: 'UklGRg==', mimeType: 'audio/wav' }, { type: 'resource', resource: { uri: 'test://r', mimeType: 'text/plain', text: 'hi' } }],
    }));
    assert.deepEqual(out.content.slice(1), [{ type: 'audio', data: 'UklGRg==', mimeType: 'audio/wav' }, { type: 'resource', resource: { uri: 'test://r', mimeType: 'text/plain', text: 'hi' } }]);
  });
});
