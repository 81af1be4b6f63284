import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ACTION_KINDS, loadBuiltinTools, loadPortedTools, loadTools, ToolDefinitionError, ToolRegistry, type JsonSchema } from 'toolgate';
import { JSON_SCHEMA_2020_12 } from '../../src/formats/json-schema-2020.js';
import { kindFitsReadOnly } from '../../src/decorators/tool.decorator.js';
import { toStrictSchema } from '../../src/formats/openai.js';
import type { SchemaFileEntry } from '../../src/schema/schema-file.js';
import { getToolMetadata } from '../../src/decorators/metadata.js';
import { registrationRevision } from '../../src/registry/registered-tool.js';
import { readSchemaFile } from '../../src/schema/schema-file.js';
import { checkSchema } from '../../src/schema/validator.js';
import { FIXTURE_SCHEMAS, FIXTURES_DIR, fixtureRegistry, portedRegistry } from '../helpers.js';
import { GreetV1Tool } from '../fixtures/versions.tool.js';

describe('ToolRegistry', async () => {
  const registry = await fixtureRegistry();

  it('keeps every version and resolves the highest, or the highest in a range', () => {
    assert.deepEqual(registry.versions('greet'), ['1.0.0', '1.2.0', '2.0.0']);
    assert.equal(registry.get('greet')?.version, '2.0.0');
    assert.equal(registry.get('greet', '^1')?.version, '1.2.0');
    assert.equal(registry.get('greet', '~1.0')?.version, '1.0.0');
    assert.equal(registry.get('greet', '>=3'), undefined);
    assert.equal(registry.get('greet', 'not a range'), undefined);
    assert.equal(registry.get('nope'), undefined);
    const failure = registry.resolve('greet', '>=3');
    assert.ok('found' in failure && failure.code === 'VERSION_NOT_FOUND');
    assert.match(failure.message, /1\.0\.0, 1\.2\.0, 2\.0\.0/);
    const unknown = registry.resolve('read_fil');
    assert.ok('found' in unknown && unknown.code === 'UNKNOWN_TOOL');
    assert.match(unknown.message, /Did you mean read_file/);
  });

  it('an unknown name that shares a word with tools suggests them first, also in a long registry', async () => {
    const { registry: all } = await loadPortedTools(await loadBuiltinTools().then((l) => l.registry));
    const unknown = all.resolve('delete_everything');
    assert.ok('found' in unknown && unknown.code === 'UNKNOWN_TOOL');
    assert.match(unknown.message, /^Unknown tool "delete_everything"\. Did you mean delete_file\? Available tools: delete_file, /);
    const listed = /Available tools: (.*)\.$/.exec(unknown.message)![1]!.split(', ');
    assert.ok(listed.length <= 61, 'at most 60 names and the count');
  });

  it('rejects a duplicate name@version', () => {
    const entry = readSchemaFile(FIXTURE_SCHEMAS).tools['greet@1.0.0']!;
    assert.throws(() => registry.register(GreetV1Tool, entry), (e: unknown) => e instanceof ToolDefinitionError && /already registered/.test(e.message));
  });

  it('a tool without a generated schema fails to register, naming the command to run', async () => {
    const file = readSchemaFile(FIXTURE_SCHEMAS);
    const { ['greet@1.2.0']: _dropped, ...rest } = file.tools;
    await assert.rejects(
      loadTools({ directories: [FIXTURES_DIR], schemas: { ...file, tools: rest } }),
      (e: unknown) => e instanceof ToolDefinitionError && /greet@1\.2\.0/.test(e.message) && /npm run schemas|toolgate schemas/.test(e.message),
    );
  });

  it('lists and filters by tags, read-only and names', () => {
    const names = (tools: { name: string }[]) => tools.map((t) => t.name);
    assert.ok(names(registry.list({ tags: ['builtin'] })).includes('write_file'));
    assert.ok(!names(registry.list({ readOnly: true })).includes('write_file'));
    assert.deepEqual(names(registry.list({ names: ['greet'], allVersions: true })), ['greet', 'greet', 'greet']);
    assert.equal(registry.list({ names: ['greet'] })[0]!.version, '2.0.0');
  });

  it('registration revision is a stable hash of name, version and schemas', () => {
    const tool = registry.get('read_file')!;
    assert.match(tool.revision, /^[0-9a-f]{64}$/);
    const reordered = Object.fromEntries(Object.entries(tool.inputSchema).reverse()) as JsonSchema;
    assert.equal(registrationRevision(tool.name, tool.version, reordered, tool.outputSchema, tool), tool.revision);
    assert.notEqual(registrationRevision(tool.name, '9.9.9', tool.inputSchema, tool.outputSchema, tool), tool.revision);
    assert.notEqual(registrationRevision(tool.name, tool.version, tool.inputSchema, tool.outputSchema, { ...tool, readOnly: false, requiresConfirmation: false, scopedWrite: false }), tool.revision, 'a change of safety class is a new revision');
    assert.notEqual(registrationRevision(tool.name, tool.version, tool.inputSchema, tool.outputSchema, { ...tool, kind: 'network' }), tool.revision, 'a change of kind is a new revision');
    assert.notEqual(registry.get('greet', '1.0.0')!.revision, registry.get('greet', '1.2.0')!.revision);
  });

  it('finds path arguments from the schema', () => {
    assert.deepEqual(registry.get('read_file')!.pathArguments, [{ name: 'filepath', isArray: false }]);
    assert.deepEqual(registry.get('echo_arguments')!.pathArguments, [{ name: 'target', isArray: false }]);
    assert.deepEqual(registry.get('greet')!.pathArguments, []);
  });

  it('finds command arguments (@format shell-command) from the schema', async () => {
    const all = await portedRegistry();
    assert.deepEqual(all.get('run_command')!.commandArguments, ['command']);
    assert.deepEqual(all.get('exec_command')!.commandArguments, ['cmd']);
    assert.deepEqual(all.get('input_command')!.commandArguments, []);
    assert.deepEqual(all.get('read_file')!.commandArguments, []);
    assert.equal(all.get('run_command')!.validateInput({ command: 'echo hi | wc -c' }), undefined, 'any string is a valid shell-command');
  });

  it('rejects scopedWrite on a tool without path arguments', () => {
    const entry = readSchemaFile(FIXTURE_SCHEMAS).tools['greet@1.0.0'] as SchemaFileEntry;
    const descriptor = { ...getToolMetadata(GreetV1Tool)!, scopedWrite: true };
    assert.throws(() => new ToolRegistry().register(descriptor, entry), /declares scopedWrite but has no argument marked @format workspace-path/);
  });

  it('rejects a descriptor made by hand without a kind, or with one that does not fit readOnly', () => {
    const entry = readSchemaFile(FIXTURE_SCHEMAS).tools['greet@1.0.0'] as SchemaFileEntry;
    const { kind: _k, ...noKind } = getToolMetadata(GreetV1Tool)!;
    for (const descriptor of [noKind, { ...noKind, kind: 'delete' }, { ...noKind, kind: 'file_write' }]) {
      assert.throws(() => new ToolRegistry().register(descriptor as never, entry), (error: unknown) => {
        assert.ok(error instanceof ToolDefinitionError);
        assert.match(error.message, /^@tool greet: options\.kind /);
        return true;
      });
    }
  });

  it('rejects a schema entry of another tool', () => {
    const entry = readSchemaFile(FIXTURE_SCHEMAS).tools['greet@1.2.0'] as SchemaFileEntry;
    assert.throws(() => new ToolRegistry().register(GreetV1Tool, entry), /schema entry is for greet@1\.2\.0/);
  });
});

describe('exports (T1, T3)', async () => {
  const registry = await fixtureRegistry();

  it('T1: OpenAI strict export lists every property as required, optional ones nullable, all objects closed', () => {
    for (const spec of registry.toOpenAIStrict()) {
      const fn = spec.function;
      if (fn.strict === false) continue;
      assert.equal(fn.strict, true);
      const walk = (schema: JsonSchema, where: string) => {
        const types = Array.isArray(schema.type) ? schema.type : [schema.type];
        if (types.includes('object')) {
          assert.equal(schema.additionalProperties, false, `${fn.name} ${where}: closed object`);
          const props = Object.keys((schema.properties ?? {}) as object);
          assert.deepEqual([...(schema.required as string[])].sort(), props.sort(), `${fn.name} ${where}: all required`);
          for (const [k, v] of Object.entries((schema.properties ?? {}) as Record<string, JsonSchema>)) walk(v, `${where}.${k}`);
        }
        if (schema.items) walk(schema.items as JsonSchema, `${where}[]`);
        for (const v of (schema.anyOf as JsonSchema[] | undefined) ?? []) walk(v, `${where}|`);
        for (const key of ['default', 'minLength', 'maxLength', '$schema', 'definitions']) assert.ok(!(key in schema), `${fn.name} ${where}: no ${key}`);
        if (schema.format !== undefined) assert.notEqual(schema.format, 'workspace-path');
      };
      walk(fn.parameters, fn.name);
      assert.equal(checkSchema(fn.parameters), undefined, `${fn.name}: strict schema is valid JSON Schema`);
    }
    const readFile = registry.toOpenAIStrict({ names: ['read_file'] })[0]!.function;
    const maxLines = (readFile.parameters.properties as Record<string, JsonSchema>).max_lines!;
    assert.deepEqual(maxLines.type, ['integer', 'null']);
    const listFiles = registry.toOpenAIStrict({ names: ['list_files'] })[0]!.function;
    assert.match(String((listFiles.parameters.properties as Record<string, JsonSchema>).directory!.description), /default: "\."/);
  });

  it('T1: a schema that cannot be strict (an open map) is exported with strict: false, and a non-strict export exists', () => {
    const sink = registry.toOpenAIStrict({ names: ['echo_arguments'] })[0]!.function;
    assert.equal(sink.strict, false);
    assert.equal(toStrictSchema({ type: 'object', additionalProperties: { type: 'string' } }), undefined);
    const plain = registry.toOpenAI({ names: ['echo_arguments'] })[0]!.function;
    assert.equal(plain.strict, undefined);
    assert.deepEqual((plain.parameters.properties as Record<string, JsonSchema>).env!.additionalProperties, { type: 'string' });
  });

  it('T3: OpenAI, Anthropic and MCP exports describe the same arguments', () => {
    const openai = registry.toOpenAI();
    const anthropic = registry.toAnthropic();
    const mcp = registry.toMcp();
    assert.equal(openai.length, anthropic.length);
    assert.equal(openai.length, mcp.length);
    for (let i = 0; i < openai.length; i++) {
      const o = openai[i]!.function;
      const a = anthropic[i]!;
      const m = mcp[i]!;
      assert.equal(o.name, a.name);
      assert.equal(o.name, m.name);
      assert.equal(o.description, a.description);
      assert.equal(o.description, m.description);
      assert.deepEqual(o.parameters, a.input_schema);
      // MCP gets JSON Schema 2020-12 and says so (issue 18); the same schema otherwise: the
      // fixtures use no draft-07 form that 2020-12 spells differently, except definitions.
      const { $schema, $defs, ...mcpRest } = m.inputSchema as Record<string, unknown>;
      assert.equal($schema, JSON_SCHEMA_2020_12);
      const { definitions, $defs: defs, ...openaiRest } = o.parameters as Record<string, unknown>;
      assert.deepEqual(JSON.stringify(openaiRest).replaceAll('#/definitions/', '#/$defs/'), JSON.stringify(mcpRest));
      assert.deepEqual(defs ?? (definitions === undefined ? undefined : JSON.parse(JSON.stringify(definitions).replaceAll('#/definitions/', '#/$defs/'))), $defs);
      const strict = registry.toOpenAIStrict({ names: [o.name] })[0]!.function;
      assert.deepEqual(Object.keys((strict.parameters.properties ?? {}) as object).sort(), Object.keys((o.parameters.properties ?? {}) as object).sort());
    }
  });

  it('exports carry no custom format: path and command arguments say so in words', async () => {
    for (const spec of [...registry.toOpenAI(), ...registry.toAnthropic(), ...registry.toMcp()]) {
      assert.ok(!JSON.stringify(spec).includes('workspace-path'));
    }
    const all = await portedRegistry();
    for (const spec of [...all.toOpenAI(), ...all.toOpenAIStrict(), ...all.toAnthropic(), ...all.toMcp()]) {
      assert.ok(!JSON.stringify(spec).includes('shell-command'));
    }
    // One description per field: the hint is added only where the field's own words do not say it.
    const [run] = all.toAnthropic({ names: ['run_command'] });
    const command = all.get('run_command')!.inputSchema.properties as Record<string, JsonSchema>;
    assert.equal((run!.input_schema.properties as Record<string, JsonSchema>).command!.description, command.command!.description, 'its own words say "command line"');
    assert.equal(command.command!.format, 'shell-command', 'the registry keeps the marker');
    const filepath = (registry.toAnthropic({ names: ['read_file'] })[0]!.input_schema.properties as Record<string, JsonSchema>).filepath!;
    assert.equal(filepath.description, 'Path of the file, relative to the workspace root (or absolute inside the workspace).');
    assert.equal((registry.get('read_file')!.inputSchema.properties as Record<string, JsonSchema>).filepath!.format, 'workspace-path', 'the registry keeps the marker');
    const destination = (all.toAnthropic({ names: ['copy_file'] })[0]!.input_schema.properties as Record<string, JsonSchema>).destination!;
    assert.equal(destination.description, 'The path of the copy (the full new name). Missing parent folders are created. A path inside the workspace, relative to its root.', 'words that do not name the workspace get the hint');
  });

  it('MCP annotations and output schemas follow our flags', () => {
    const [read] = registry.toMcp({ names: ['read_file'] });
    assert.deepEqual(read!.annotations, { readOnlyHint: true, destructiveHint: false, openWorldHint: false });
    assert.equal(read!.outputSchema, undefined, 'string results have no MCP output schema');
    const [write] = registry.toMcp({ names: ['write_file'] });
    assert.equal(write!.annotations.destructiveHint, true);
    const [sink] = registry.toMcp({ names: ['echo_arguments'] });
    assert.equal(sink!.outputSchema?.type, 'object');
    assert.deepEqual(read!._meta, { 'toolgate/kind': 'file_read' }, 'the action kind rides in _meta');
    assert.deepEqual(write!._meta, { 'toolgate/kind': 'file_write' });
  });
});

describe('action kinds of every tool (issue 15, item 6)', async () => {
  const registry = await portedRegistry();

  it('every registered tool (builtin, ported, fixture) has a kind that fits its readOnly flag', () => {
    const tools = registry.list({ allVersions: true });
    assert.ok(tools.length > 100, `the whole library is loaded (${tools.length} tools)`);
    for (const tool of tools) {
      assert.ok((ACTION_KINDS as readonly string[]).includes(tool.kind), `${tool.key} has no action kind (got ${JSON.stringify(tool.kind)})`);
      assert.ok(kindFitsReadOnly(tool.kind, tool.readOnly), `${tool.key}: kind ${tool.kind} does not fit readOnly ${tool.readOnly}`);
    }
  });

  it('the shipped tools keep the kinds chosen for them', () => {
    const expected: Record<string, string> = {
      append_to_file: 'file_write',
      apply_diff: 'file_write',
      artifact_prepare: 'file_write',
      artifact_register: 'file_write',
      calculate: 'internal',
      computer_use: 'computer_use',
      convert_data: 'file_read',
      convert_data_to_file: 'file_write',
      copy_file: 'file_write',
      create_archive: 'file_write',
      csv_query: 'file_read',
      current_time: 'internal',
      delete_file: 'file_write',
      describe_image: 'network',
      detect_file_type: 'file_read',
      diff_files: 'file_read',
      download_url: 'network',
      edit_file_line: 'file_write',
      exec_command: 'shell_command',
      execute_python: 'shell_command',
      extract_archive: 'file_write',
      file_info: 'file_read',
      find_files: 'file_read',
      generate_image: 'network',
      git_add: 'file_write',
      git_blame: 'file_read',
      git_branch: 'file_write',
      git_checkout: 'file_write',
      git_commit: 'file_write',
      git_diff: 'file_read',
      git_log: 'file_read',
      git_show: 'file_read',
      git_status: 'file_read',
      grep_files: 'file_read',
      hash_file: 'file_read',
      http_request: 'network',
      image_info: 'file_read',
      input_command: 'shell_command',
      insert_lines: 'file_write',
      json_query: 'file_read',
      list_archive: 'file_read',
      list_commands: 'internal',
      list_files: 'file_read',
      list_skills: 'file_read',
      list_snapshots: 'file_read',
      make_directory: 'file_write',
      memory_forget: 'file_write',
      memory_get: 'file_read',
      memory_list: 'file_read',
      memory_remember: 'file_write',
      memory_search: 'file_read',
      move_file: 'file_write',
      read_file: 'file_read',
      read_image: 'network',
      read_lines: 'file_read',
      read_pdf: 'file_read',
      read_skill: 'file_read',
      remove_line_range: 'file_write',
      replace_in_file: 'file_write',
      resize_image: 'file_write',
      restore_snapshot: 'file_write',
      run_command: 'shell_command',
      snapshot_file: 'file_write',
      stop_command: 'shell_command',
      task_create: 'task_subagent', task_cancel: 'task_subagent', task_update: 'task_subagent', task_detach: 'task_subagent', task_reschedule: 'task_subagent', task_pause: 'task_subagent', task_resume: 'task_subagent', task_wait: 'internal', task_get: 'internal', task_list: 'internal',
      tree: 'file_read',
      validate_json: 'file_read',
      web_fetch: 'network',
      web_search: 'network',
      write_file: 'file_write',
    };
    const shipped = registry.list().filter((tool) => tool.tags.includes('builtin') || tool.tags.includes('ported'));
    assert.deepEqual(Object.fromEntries(shipped.map((tool) => [tool.name, tool.kind]).sort()), Object.fromEntries(Object.entries(expected).sort()));
  });
});
