import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, it } from 'node:test';
import { ACTION_KINDS, tool, ToolDefinitionError, ToolExecutor, ToolRegistry, type Tool, type ToolClass } from 'toolgate';
import { REPO_ROOT } from '../helpers.js';
import { kindFitsReadOnly } from '../../src/decorators/tool.decorator.js';
import { getToolMetadata } from '../../src/decorators/metadata.js';
import { buildToolDescriptor } from '../../src/decorators/tool.decorator.js';

class Runnable implements Tool {
  run(): string {
    return 'ok';
  }
}

describe('@tool decorator', () => {
  it('records a frozen descriptor with defaults', () => {
    @tool({ name: 'sample_tool', version: '1.2.3', kind: 'file_write', tags: ['a'] })
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
    assert.equal(meta.kind, 'file_write');
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
    @tool({ name: 'parent_tool', version: '1.0.0', kind: 'internal', readOnly: true })
    class ParentTool extends Runnable {}
    class ChildTool extends ParentTool {}
    assert.equal(getToolMetadata(Runnable), undefined);
    assert.equal(getToolMetadata(ChildTool), undefined);
    assert.equal(getToolMetadata('not a class'), undefined);
  });

  const bad: Array<[string, Record<string, unknown>, string]> = [
    ['name', { name: 'Bad-Name', version: '1.0.0', kind: 'file_write' }, 'options.name'],
    ['name too long', { name: `a${'b'.repeat(64)}`, version: '1.0.0', kind: 'file_write' }, 'options.name'],
    ['name starting with a digit', { name: '1tool', version: '1.0.0', kind: 'file_write' }, 'options.name'],
    ['missing version', { name: 'ok_tool', kind: 'file_write' }, 'options.version'],
    ['bad semver', { name: 'ok_tool', kind: 'file_write', version: '1.0' }, 'options.version'],
    ['timeoutMs', { name: 'ok_tool', version: '1.0.0', kind: 'file_write', timeoutMs: Number.NaN }, 'options.timeoutMs'],
    ['rateLimitRpm', { name: 'ok_tool', version: '1.0.0', kind: 'file_write', rateLimitRpm: 0 }, 'options.rateLimitRpm'],
    ['memoryMb', { name: 'ok_tool', version: '1.0.0', kind: 'file_write', memoryMb: 4 }, 'options.memoryMb'],
    ['maxOutputLength', { name: 'ok_tool', version: '1.0.0', kind: 'file_write', maxOutputLength: 1.5 }, 'options.maxOutputLength'],
    ['runner', { name: 'ok_tool', version: '1.0.0', kind: 'file_write', runner: 'thread' }, 'options.runner'],
    ['truncation', { name: 'ok_tool', version: '1.0.0', kind: 'file_write', truncation: 'tail' }, 'options.truncation'],
    ['tags', { name: 'ok_tool', version: '1.0.0', kind: 'file_write', tags: [''] }, 'options.tags'],
    ['readOnly', { name: 'ok_tool', version: '1.0.0', kind: 'file_write', readOnly: 'yes' }, 'options.readOnly'],
    ['unknown option', { name: 'ok_tool', version: '1.0.0', kind: 'file_write', readonly: true }, 'options.readonly'],
    ['module', { name: 'ok_tool', version: '1.0.0', kind: 'file_write', module: '/not/a/url' }, 'options.module'],
    ['scopedWrite on a read-only tool', { name: 'ok_tool', version: '1.0.0', kind: 'file_write', readOnly: true, scopedWrite: true }, 'options.scopedWrite'],
    ['missing kind', { name: 'ok_tool', version: '1.0.0' }, 'options.kind'],
    ['unknown kind', { name: 'ok_tool', version: '1.0.0', kind: 'file_delete' }, 'options.kind'],
    ['kind that is not a string', { name: 'ok_tool', version: '1.0.0', kind: 3 }, 'options.kind'],
    ['writing kind on a read-only tool', { name: 'ok_tool', version: '1.0.0', kind: 'shell_command', readOnly: true }, 'options.kind'],
    ['reading kind on a tool that is not read-only', { name: 'ok_tool', version: '1.0.0', kind: 'file_read' }, 'options.kind'],
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
      @tool({ name: 'ok_tool', version: 'one', kind: 'internal', readOnly: true })
      class Broken extends Runnable {}
      return Broken;
    }, ToolDefinitionError);
  });

  it('rejects a class without run()', () => {
    class NoRun {}
    assert.throws(() => buildToolDescriptor({ name: 'no_run', version: '1.0.0', kind: 'file_write' }, NoRun as never), /without a run/);
  });

  it('accepts every valid name form, up to 64 characters', () => {
    for (const name of ['a', 'read_file', 'x1_2', `a${'b'.repeat(63)}`]) {
      assert.equal(buildToolDescriptor({ name, version: '0.0.1-beta.1', kind: 'file_write' }, Runnable).name, name);
    }
  });

  it('refuses a tool without a kind when the class is decorated (JavaScript users), naming the tool and every kind', () => {
    assert.throws(
      () => {
        // What a JavaScript module (no type check) can write.
        const options = { name: 'js_tool', version: '1.0.0' } as unknown as Parameters<typeof tool>[0];
        @tool(options)
        class JsTool extends Runnable {}
        return JsTool;
      },
      (error: unknown) => {
        assert.ok(error instanceof ToolDefinitionError);
        assert.equal(error.code, 'DEFINITION');
        assert.equal(error.toolName, 'js_tool');
        assert.match(error.message, /^@tool js_tool: options\.kind is required/);
        for (const kind of ACTION_KINDS) assert.ok(error.message.includes(`"${kind}"`), `lists ${kind}: ${error.message}`);
        return true;
      },
    );
  });

  it('records every kind that fits the readOnly flag', () => {
    for (const kind of ACTION_KINDS) {
      const readOnly = kind === 'internal' || kind === 'file_read' || kind === 'mcp_read' || kind === 'network';
      assert.equal(buildToolDescriptor({ name: 'kind_tool', version: '1.0.0', kind, readOnly }, Runnable).kind, kind);
    }
  });

  it('kindFitsReadOnly: read-only tools read or reach the network; reading kinds need readOnly', () => {
    const fits = (readOnly: boolean) => ACTION_KINDS.filter((kind) => kindFitsReadOnly(kind, readOnly));
    assert.deepEqual(fits(true), ['internal', 'file_read', 'mcp_read', 'network']);
    assert.deepEqual(fits(false), ['file_write', 'mcp_write_or_unknown', 'task_subagent', 'dynamic_skill_tool', 'shell_command', 'network', 'computer_use', 'unknown']);
  });

  // The tests above are compiled as this repository compiles (experimentalDecorators: the
  // legacy form). (s21) A project compiled without it gets TC39 standard decorators, which
  // tsc lowers for Node 20: @tool (a class decorator; toolgate reads no emitted type metadata,
  // the schemas come from `toolgate schemas`) records the same descriptor and the tool runs.
  it('works as a TC39 standard decorator (compiled without experimentalDecorators)', async () => {
    const ts = (await import('typescript')).default;
    const index = pathToFileURL(path.join(REPO_ROOT, 'dist/src/index.js')).href;
    const source = `import { tool } from ${JSON.stringify(index)};\n`
      + `@tool({ name: 'standard_tool', version: '1.0.0', kind: 'internal', readOnly: true, runner: 'main' })\n`
      + `export class StandardTool { run(input: { who: string }): string { return 'hi ' + input.who; } }\n`;
    const compiled = ts.transpileModule(source, { compilerOptions: { target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.ESNext, experimentalDecorators: false } });
    assert.match(compiled.outputText, /__esDecorate/, 'compiled as a standard decorator');
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'toolgate-standard-decorator-'));
    const file = path.join(dir, 'standard.tool.mjs');
    fs.writeFileSync(file, compiled.outputText);
    try {
      const mod = (await import(pathToFileURL(file).href)) as { StandardTool: ToolClass };
      const meta = getToolMetadata(mod.StandardTool);
      assert.equal(meta?.name, 'standard_tool');
      assert.equal(meta?.exportName, 'StandardTool');
      assert.equal(meta?.moduleUrl, pathToFileURL(file).href, 'module URL detected from the call site');
      const registry = new ToolRegistry();
      const inputSchema = { type: 'object', properties: { who: { type: 'string' } }, required: ['who'], additionalProperties: false };
      registry.register(mod.StandardTool, { name: 'standard_tool', version: '1.0.0', description: 'Greets.', className: 'StandardTool', source: 'standard.tool.ts', inputSchema, outputSchema: null });
      const executor = new ToolExecutor(registry, { workspaceRoot: dir, outputStore: false });
      try {
        const r = await executor.execute({ name: 'standard_tool', arguments: { who: 'a' } });
        assert.equal(r.output, 'hi a', r.error);
      } finally {
        await executor.close();
      }
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
