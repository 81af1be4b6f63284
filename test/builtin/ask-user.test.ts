/**
 * ask_user: valid JSON Schema, exported in every format with the same arguments, not a tool of
 * the builtin folder (a caller registers it: test/builtin/caller-tools.test.ts), and its
 * arguments checked.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { loadBuiltinTools, ToolExecutor } from 'toolgate';
import { ASK_USER_TOOL, askUserSpec } from '../../src/builtin/ask-user.js';
import { checkAskUserArguments } from '../../src/builtin/ask-user.js';
import { checkSchema } from '../../src/schema/validator.js';

describe('ask_user', () => {
  test('its schema is valid draft-07 JSON Schema and strict', () => {
    assert.equal(checkSchema(ASK_USER_TOOL.inputSchema), undefined);
    assert.equal(ASK_USER_TOOL.inputSchema.additionalProperties, false);
  });

  test('the OpenAI, strict OpenAI, Anthropic and MCP exports describe the same arguments', () => {
    const openai = askUserSpec('openai') as unknown as { function: { name: string; parameters: { properties: object } } };
    const strict = askUserSpec('openai-strict') as unknown as { strict?: boolean; function: { strict?: boolean; parameters: { required: string[]; properties: object } } };
    const anthropic = askUserSpec('anthropic') as unknown as { name: string; input_schema: { properties: object } };
    const mcp = askUserSpec('mcp') as unknown as { name: string; inputSchema: { properties: object } };
    const keys = (o: object) => Object.keys(o).sort();
    assert.equal(openai.function.name, 'ask_user');
    assert.equal(anthropic.name, 'ask_user');
    assert.equal(mcp.name, 'ask_user');
    assert.deepEqual(keys(openai.function.parameters.properties), ['choices', 'multi', 'question']);
    assert.deepEqual(keys(anthropic.input_schema.properties), ['choices', 'multi', 'question']);
    assert.deepEqual(keys(mcp.inputSchema.properties), ['choices', 'multi', 'question']);
    assert.deepEqual([...strict.function.parameters.required].sort(), ['choices', 'multi', 'question']);
  });

  test('arguments are checked: a question is required, choices need two or more, multi needs choices', () => {
    assert.equal(checkAskUserArguments({ question: 'Which branch?' }), undefined);
    assert.equal(checkAskUserArguments({ question: 'Which?', choices: ['main', 'dev'], multi: true }), undefined);
    assert.equal(checkAskUserArguments({ question: 'Which?', choices: null, multi: null }), undefined, 'what the strict export makes a model send');
    assert.match(checkAskUserArguments({}) ?? '', /question/);
    assert.match(checkAskUserArguments({ question: 'Which?', choices: ['only'] }) ?? '', /choices/);
    assert.match(checkAskUserArguments({ question: 'Which?', multi: true }) ?? '', /multi is only meaningful with choices/);
    assert.match(checkAskUserArguments({ question: 'Which?', extra: 1 }) ?? '', /extra/);
  });

  test('it is not a tool of the builtin folder: an executor nobody registered it in does not know it', async () => {
    const { registry } = await loadBuiltinTools();
    assert.equal(registry.get('ask_user'), undefined);
    const executor = new ToolExecutor(registry);
    const result = await executor.execute({ name: 'ask_user', arguments: { question: 'x' } });
    assert.equal(result.errorCode, 'UNKNOWN_TOOL');
    await executor.close();
  });
});
