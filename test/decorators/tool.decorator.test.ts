import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { tool, ToolDefinitionError, type Tool } from 'toolgate';
import { getToolMetadata } from '../../src/decorators/metadata.js';
import { buildToolDescriptor } from '../../src/decorators/tool.decorator.js';

class Runnable implements Tool {
  run(): string {
    return 'ok';
  }
}

describe('@tool decorator', () => {
  it('records a frozen descriptor with defaults', () => {
    @tool({ name: 'sample_tool', version: '1.2.3', tags: ['a'] })
    class SampleTool implements Tool {
      run(): string {
        return 'x';
      }
    }
    const meta = getToolMetadata(SampleTool);
    assert.ok(meta);
    assert.equal(meta.name, 'sample_tool');
    assert.equal(meta.version, '1.2.3');
    assert.deepEqual(meta.tags, ['a']);
    assert.equal(meta.readOnly, false);
    assert.equal(meta.requiresConfirmation, false);
    assert.equal(meta.timeoutMs, 120_000);
    assert.equal(meta.maxOutputLength, 16_000);
    assert.equal(meta.truncation, 'head');
    assert.equal(meta.runner, 'process');
    assert.equal(meta.exportName, 'SampleTool');
    assert.ok(meta.moduleUrl?.startsWith('file:'), 'module URL detected from the call site');
    assert.ok(meta.moduleUrl?.endsWith('decorator.test.js'));
    assert.ok(Object.isFrozen(meta));
  });

  it('leaves undecorated classes and subclasses without metadata', () => {
    @tool({ name: 'parent_tool', version: '1.0.0' })
    class ParentTool extends Runnable {}
    class ChildTool extends ParentTool {}
    assert.equal(getToolMetadata(Runnable), undefined);
    assert.equal(getToolMetadata(ChildTool), undefined);
    assert.equal(getToolMetadata('not a class'), undefined);
  });

  const bad: Array<[string, Record<string, unknown>, string]> = [
    ['name', { name: 'Bad-Name', version: '1.0.0' }, 'options.name'],
    ['name too long', { name: `a${'b'.repeat(64)}`, version: '1.0.0' }, 'options.name'],
    ['name starting with a digit', { name: '1tool', version: '1.0.0' }, 'options.name'],
    ['missing version', { name: 'ok_tool' }, 'options.version'],
    ['bad semver', { name: 'ok_tool', version: '1.0' }, 'options.version'],
    ['timeoutMs', { name: 'ok_tool', version: '1.0.0', timeoutMs: Number.NaN }, 'options.timeoutMs'],
    ['rateLimitRpm', { name: 'ok_tool', version: '1.0.0', rateLimitRpm: 0 }, 'options.rateLimitRpm'],
    ['memoryMb', { name: 'ok_tool', version: '1.0.0', memoryMb: 4 }, 'options.memoryMb'],
    ['maxOutputLength', { name: 'ok_tool', version: '1.0.0', maxOutputLength: 1.5 }, 'options.maxOutputLength'],
    ['runner', { name: 'ok_tool', version: '1.0.0', runner: 'thread' }, 'options.runner'],
    ['truncation', { name: 'ok_tool', version: '1.0.0', truncation: 'tail' }, 'options.truncation'],
    ['tags', { name: 'ok_tool', version: '1.0.0', tags: [''] }, 'options.tags'],
    ['readOnly', { name: 'ok_tool', version: '1.0.0', readOnly: 'yes' }, 'options.readOnly'],
    ['unknown option', { name: 'ok_tool', version: '1.0.0', readonly: true }, 'options.readonly'],
    ['module', { name: 'ok_tool', version: '1.0.0', module: '/not/a/url' }, 'options.module'],
    ['scopedWrite on a read-only tool', { name: 'ok_tool', version: '1.0.0', readOnly: true, scopedWrite: true }, 'options.scopedWrite'],
  ];
  for (const [what, options, mention] of bad) {
    it(`rejects a bad ${what} with a definition error naming the tool and option`, () => {
      assert.throws(
        () => buildToolDescriptor(options as never, Runnable),
        (error: unknown) => {
          assert.ok(error instanceof ToolDefinitionError);
          assert.equal(error.code, 'DEFINITION');
          assert.match(error.message, new RegExp(mention.replace('.', '\\.')));
          assert.match(error.message, /@tool /);
          const named = typeof options.name === 'string' && options.name ? options.name : 'Runnable';
          assert.ok(error.message.startsWith(`@tool ${named}: options.`), `names the tool: ${error.message}`);
          assert.equal(error.toolName, named);
          return true;
        },
      );
    });
  }

  it('throws when the decorated class is applied (module load time)', () => {
    assert.throws(() => {
      @tool({ name: 'ok_tool', version: 'one' })
      class Broken extends Runnable {}
      return Broken;
    }, ToolDefinitionError);
  });

  it('rejects a class without run()', () => {
    class NoRun {}
    assert.throws(() => buildToolDescriptor({ name: 'no_run', version: '1.0.0' }, NoRun as never), /without a run/);
  });

  it('accepts every valid name form, up to 64 characters', () => {
    for (const name of ['a', 'read_file', 'x1_2', `a${'b'.repeat(63)}`]) {
      assert.equal(buildToolDescriptor({ name, version: '0.0.1-beta.1' }, Runnable).name, name);
    }
  });
});
