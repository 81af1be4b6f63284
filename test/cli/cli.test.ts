/**
 * The `toolgate` command, run in process (`runCli` with its own streams, no TTY, stdin empty
 * unless a test gives input); the last suite spawns `bin/toolgate.js` for what is about the
 * process: the bin itself, exit codes, stdin and signals. Exit codes: 0 success, 1 tool
 * failure or gate denial, 2 usage error, 3 a path left the workspace.
 *
 * Case ids (A2, P1, P4, P8) refer to the argument and path-safety cases of the security checklist.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { ToolExecutionResult } from 'toolgate';
import { cliInProcess } from './in-process.js';
import { BIN, REPO_ROOT, runCli, tempWorkspace, type CliRun } from '../helpers.js';

/** Everything the CLI printed, for assertion messages. */
function shown(run: CliRun): string {
  return `exit ${run.code}\n--- stdout ---\n${run.stdout}\n--- stderr ---\n${run.stderr}`;
}

/** Lines of a text file as read_file counts them (a final newline ends the last line). */
function linesOf(text: string): string[] {
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  return lines;
}

describe('toolgate call on this repository', () => {
  test('read_file with max_lines prints the first five lines of docs/architecture.md and a "... (N more lines)" note', async () => {
    // A file under read_file's 64 KB read, so that the count of lines is exact.
    const run = await cliInProcess(['call', 'read_file', '{"filepath":"docs/architecture.md","max_lines":5}', '--workspace', REPO_ROOT]);
    const lines = linesOf(fs.readFileSync(path.join(REPO_ROOT, 'docs/architecture.md'), 'utf8'));
    assert.ok(lines.length > 5, 'docs/architecture.md has more than five lines');
    assert.equal(run.code, 0, shown(run));
    assert.equal(run.stdout, `${lines.slice(0, 5).join('\n')}\n... (${lines.length - 5} more lines)\n`, shown(run));
    assert.equal(run.stderr, '');
  });

  test('list_files lists src with [dir]/[file] markers and sizes that match fs.statSync', async () => {
    const run = await cliInProcess(['call', 'list_files', '{"directory":"src"}', '--workspace', REPO_ROOT]);
    assert.equal(run.code, 0, shown(run));
    const src = path.join(REPO_ROOT, 'src');
    const entries = fs.readdirSync(src, { withFileTypes: true });
    const expected = entries
      .map((e) => ({ key: e.isDirectory() ? `${e.name}/` : e.name, e }))
      .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
      .map(({ e }) =>
        e.isSymbolicLink() ? `[link] src/${e.name} -> ${fs.readlinkSync(path.join(src, e.name))}`
        : e.isDirectory() ? `[dir]  src/${e.name}/`
        : `[file] src/${e.name} (${fs.statSync(path.join(src, e.name)).size} bytes)`,
      );
    assert.ok(expected.some((l) => l.startsWith('[dir]')) && expected.some((l) => l.startsWith('[file]')));
    assert.equal(run.stdout, `${expected.join('\n')}\n`, shown(run));
    assert.equal(run.stderr, '');
  });
});

describe('toolgate call in a temporary workspace', () => {
  let tmp: ReturnType<typeof tempWorkspace>;
  let ws: string;
  before(() => {
    tmp = tempWorkspace();
    ws = tmp.ws;
    fs.writeFileSync(path.join(ws, 'hello.txt'), 'hello\nworld\n');
  });
  after(() => tmp.cleanup());

  const call = (args: string[], options?: { input?: string }) => cliInProcess(['call', ...args, '--workspace', ws], options);

  test('write_file in explore mode is denied by the mode gate and writes nothing', async () => {
    const run = await call(['write_file', '{"filepath":"notes.md","content":"x"}', '--mode', 'explore']);
    assert.equal(run.code, 1, shown(run));
    assert.equal(run.stdout, '');
    assert.match(run.stderr, /write_file is not allowed in explore mode/, shown(run));
    assert.equal(fs.existsSync(path.join(ws, 'notes.md')), false, 'nothing written');

    const withYes = await call(['write_file', '{"filepath":"notes.md","content":"x"}', '--mode', 'explore', '--yes']);
    assert.equal(withYes.code, 1, shown(withYes));
    assert.match(withYes.stderr, /not allowed in explore mode/);
    assert.equal(fs.existsSync(path.join(ws, 'notes.md')), false, '--yes does not lift the mode gate');

    const plan = await call(['write_file', '{"filepath":"notes.md","content":"x"}', '--mode', 'plan', '--yes']);
    assert.equal(plan.code, 1, shown(plan));
    assert.match(plan.stderr, /not allowed in plan mode/);
    assert.equal(fs.existsSync(path.join(ws, 'notes.md')), false);
  });

  test('explore mode with --scoped-write out --yes writes inside out/', async () => {
    const run = await call(['write_file', '{"filepath":"out/a.txt","content":"scoped\\n"}', '--mode', 'explore', '--scoped-write', 'out', '--yes']);
    assert.equal(run.code, 0, shown(run));
    assert.equal(run.stdout, 'Wrote 7 bytes to out/a.txt\n');
    assert.equal(fs.readFileSync(path.join(ws, 'out/a.txt'), 'utf8'), 'scoped\n');
  });

  test('P8: a sibling folder out-evil is not inside the scoped write folder out', async () => {
    const run = await call(['write_file', '{"filepath":"out-evil/a.txt","content":"evil"}', '--mode', 'explore', '--scoped-write', 'out', '--yes']);
    assert.equal(run.code, 1, shown(run));
    assert.equal(run.stdout, '');
    assert.match(run.stderr, /"out-evil\/a\.txt" is outside the scoped write folders "out"/, shown(run));
    assert.equal(fs.existsSync(path.join(ws, 'out-evil')), false, 'nothing created');

    const root = await call(['write_file', '{"filepath":"out","content":"x"}', '--mode', 'explore', '--scoped-write', 'out', '--yes']);
    assert.equal(root.code, 1, `the scoped folder itself is not a file to write\n${shown(root)}`);
  });

  test('without --yes and without a terminal, write_file needs confirmation and names --yes', async () => {
    const run = await call(['write_file', '{"filepath":"unconfirmed.txt","content":"x"}']);
    assert.equal(run.code, 1, shown(run));
    assert.equal(run.stdout, '');
    assert.match(run.stderr, /Confirmation required/, shown(run));
    assert.match(run.stderr, /--yes/, shown(run));
    assert.equal(fs.existsSync(path.join(ws, 'unconfirmed.txt')), false, 'nothing written');

    const yes = await call(['write_file', '{"filepath":"confirmed.txt","content":"x"}', '--yes']);
    assert.equal(yes.code, 0, shown(yes));
    assert.equal(yes.stdout, 'Wrote 1 byte to confirmed.txt\n');
    assert.equal(fs.readFileSync(path.join(ws, 'confirmed.txt'), 'utf8'), 'x');
  });

  test('--json prints a parseable ToolExecutionResult', async () => {
    const run = await call(['read_file', '{"filepath":"hello.txt"}', '--json']);
    assert.equal(run.code, 0, shown(run));
    const result = JSON.parse(run.stdout) as ToolExecutionResult;
    assert.equal(result.success, true);
    assert.equal(result.output, 'hello\nworld\n');
    assert.equal(result.tool, 'read_file');
    assert.equal(result.version, '1.0.0');
    assert.equal(typeof result.callId, 'string');
    assert.ok(result.callId.length > 0);
    assert.equal(typeof result.durationMs, 'number');
    assert.ok(result.durationMs >= 0);
    assert.equal(result.confirmed, true);
    assert.equal(result.errorCode, undefined);

    const denied = await call(['write_file', '{"filepath":"json.txt","content":"x"}', '--json']);
    assert.equal(denied.code, 1, shown(denied));
    const failure = JSON.parse(denied.stdout) as ToolExecutionResult;
    assert.equal(failure.success, false);
    assert.equal(failure.errorCode, 'CONFIRMATION_REQUIRED');
    assert.equal(failure.confirmed, false);
    assert.equal(failure.tool, 'write_file');
    assert.match(failure.output, /Confirmation required/);
    assert.equal(fs.existsSync(path.join(ws, 'json.txt')), false);
  });

  test('P1/P4: paths outside the workspace exit 3 and print no file content', async () => {
    const outsidePaths = [
      '../outside/sentinel.txt',
      tmp.sentinel,
      '../proj-evil/x',
      path.join(tmp.root, 'proj_backup', 'x'),
      'sub/../../outside/sentinel.txt',
      '~/.ssh/id_rsa',
    ];
    for (const filepath of outsidePaths) {
      const run = await call(['read_file', JSON.stringify({ filepath })]);
      assert.equal(run.code, 3, `${filepath}\n${shown(run)}`);
      assert.equal(run.stdout, '', `${filepath}: nothing on stdout`);
      assert.match(run.stderr, /refused: .*outside the workspace|refused: .*home directory/, `${filepath}\n${shown(run)}`);
      for (const secret of ['SENTINEL CONTENT', 'evil sibling', 'backup sibling']) {
        assert.ok(!run.stdout.includes(secret) && !run.stderr.includes(secret), `${filepath}: printed file content ${JSON.stringify(secret)}`);
      }
    }

    const json = await call(['read_file', '{"filepath":"../outside/sentinel.txt"}', '--json']);
    assert.equal(json.code, 3, shown(json));
    const parsed = JSON.parse(json.stdout) as { success: boolean; errorCode: string; tool: string };
    assert.equal(parsed.success, false);
    assert.equal(parsed.errorCode, 'PATH_TRAVERSAL');
    assert.equal(parsed.tool, 'read_file');
    assert.ok(!json.stdout.includes('SENTINEL CONTENT'));

    const write = await call(['write_file', '{"filepath":"../outside/sentinel.txt","content":"pwned"}', '--yes']);
    assert.equal(write.code, 3, shown(write));
    assert.equal(fs.readFileSync(tmp.sentinel, 'utf8'), 'SENTINEL CONTENT\n', 'the sentinel is unchanged');
  });

  test('T7: --output-dir keeps the whole output of a cut call and says where; without it nothing is kept', async () => {
    const out = path.join(tmp.root, 'kept-outputs');
    const fixtures = ['--tools', path.join(REPO_ROOT, 'dist/test/fixtures'), '--schemas', path.join(REPO_ROOT, 'test/fixtures/tool-schemas.json')];
    const kept = await call(['print_long_output', '{"chars":50000}', '--output-dir', out, ...fixtures]);
    assert.equal(kept.code, 0, shown(kept));
    const where = /the whole output \(50000 characters\) is in (\S+)/.exec(kept.stderr);
    assert.ok(where, shown(kept));
    assert.equal(fs.readFileSync(where[1]!, 'utf8').length, 50000);
    const json = await call(['print_long_output', '{"chars":50000}', '--json', ...fixtures]);
    assert.equal((JSON.parse(json.stdout) as ToolExecutionResult).fullOutput, undefined);
  });

  test('A2: malformed ARGS_JSON exits 1 with an error saying the arguments are not valid JSON', async () => {
    const run = await call(['read_file', '{"filepath":']);
    assert.equal(run.code, 1, shown(run));
    assert.equal(run.stdout, '');
    assert.match(run.stderr, /arguments are not valid JSON/, shown(run));

    const notObject = await call(['read_file', '["hello.txt"]']);
    assert.equal(notObject.code, 1, shown(notObject));
    assert.match(notObject.stderr, /arguments must be a JSON object; got array/, shown(notObject));
  });

  test('"-" reads the arguments from stdin', async () => {
    const run = await call(['read_file', '-'], { input: '{"filepath":"hello.txt","max_lines":1}' });
    assert.equal(run.code, 0, shown(run));
    assert.equal(run.stdout, 'hello\n... (1 more lines)\n');

    const bad = await call(['read_file', '-'], { input: '{"filepath":' });
    assert.equal(bad.code, 1, shown(bad));
    assert.match(bad.stderr, /arguments are not valid JSON/);
  });

  test('a tool failure exits 1', async () => {
    const run = await call(['read_file', '{"filepath":"missing.txt"}']);
    assert.equal(run.code, 1, shown(run));
    assert.equal(run.stdout, '');
    assert.match(run.stderr, /missing\.txt does not exist/);
  });
});

describe('usage errors exit 2', { concurrency: true }, () => {
  const cases: Array<{ title: string; args: string[]; message: RegExp }> = [
    { title: 'unknown command', args: ['frobnicate'], message: /unknown command "frobnicate"/ },
    { title: 'unknown tool', args: ['call', 'no_such_tool', '{}'], message: /Unknown tool "no_such_tool"/ },
    { title: 'bad --mode', args: ['call', 'read_file', '{"filepath":"README.md"}', '--mode', 'yolo'], message: /--mode must be default, explore or plan; got yolo/ },
    { title: '--scoped-write .git (case G1: refused at start)', args: ['call', 'write_file', '{"filepath":"plans/x"}', '--mode', 'plan', '--scoped-write', 'plans/.GIT'], message: /--scoped-write plans\/\.GIT is refused: \.GIT is protected/ },
    { title: '--timeout-ms abc', args: ['call', 'read_file', '{"filepath":"README.md"}', '--timeout-ms', 'abc'], message: /--timeout-ms must be a number/ },
    { title: 'missing NAME', args: ['call'], message: /call needs a tool NAME/ },
    { title: 'unknown flag', args: ['call', 'read_file', '{}', '--bogus'], message: /bogus/ },
    { title: 'unknown version range', args: ['schema', 'read_file', '--version', '^9'], message: /read_file/ },
    { title: 'bad --format', args: ['schema', 'read_file', '--format', 'xml'], message: /--format must be one of/ },
    { title: 'no command', args: [], message: /^/ },
  ];
  for (const c of cases) {
    test(c.title, async () => {
      const run = await cliInProcess(c.args);
      assert.equal(run.code, 2, shown(run));
      assert.match(run.stderr + run.stdout, c.message, shown(run));
      assert.match(run.stderr + run.stdout, /Usage:|toolgate: /, shown(run));
    });
  }
});

describe('toolgate list and schema', { concurrency: true }, () => {
  test('list prints the six builtin tools with their versions, kinds and flags (ask_user is a spec only, never listed)', async () => {
    const run = await cliInProcess(['list', '--tag', 'builtin']);
    assert.equal(run.code, 0, shown(run));
    const lines = run.stdout.trimEnd().split('\n');
    assert.match(lines[0] ?? '', /^NAME\s+VERSION\s+KIND\s+ACCESS\s+CONFIRM\s+DOMAIN\s+TAGS\s+DESCRIPTION$/);
    assert.deepEqual(lines.slice(1).map((l) => l.split(/\s+/).slice(0, 5)), [
      ['execute_python', '1.0.0', 'shell_command', 'write', 'yes'],
      ['list_files', '1.0.0', 'file_read', 'read', 'no'],
      ['read_file', '1.0.0', 'file_read', 'read', 'no'],
      ['read_pdf', '1.0.0', 'file_read', 'read', 'no'],
      ['web_search', '1.0.0', 'network', 'read', 'no'],
      ['write_file', '1.0.0', 'file_write', 'write', 'yes'],
    ]);
  });

  test('list --domain shows a domain\'s tools with their domain (memory, artifact); an unknown domain is a usage error', async () => {
    const run = await cliInProcess(['list', '--domain', 'memory', '--domain', 'artifact']);
    assert.equal(run.code, 0, shown(run));
    assert.deepEqual(run.stdout.trimEnd().split('\n').slice(1).map((l) => { const c = l.split(/\s+/); return [c[0], c[5]]; }), [
      ['artifact_prepare', 'artifact'], ['artifact_register', 'artifact'],
      ['memory_forget', 'memory'], ['memory_get', 'memory'], ['memory_list', 'memory'], ['memory_remember', 'memory'], ['memory_search', 'memory'],
    ]);
    const bad = await cliInProcess(['list', '--domain', 'no_such_domain']);
    assert.equal(bad.code, 2, shown(bad));
    assert.match(bad.stderr, /domains in use: .*memory/);
  });

  test('list with a tag no tool has is a usage error that names the tags in use', async () => {
    const run = await cliInProcess(['list', '--tag', 'builtin', '--tag', 'no-such-tag']);
    assert.equal(run.code, 2, shown(run));
    assert.equal(run.stdout, '');
    assert.match(run.stderr, /no tool has the tag no-such-tag; tags in use: .*builtin/);
  });

  test('list --json parses', async () => {
    const run = await cliInProcess(['list', '--json', '--tag', 'builtin']);
    assert.equal(run.code, 0, shown(run));
    const rows = JSON.parse(run.stdout) as Array<{ name: string; version: string; kind: string; readOnly: boolean; requiresConfirmation: boolean; versions: string[]; description: string }>;
    assert.deepEqual(rows.map((r) => r.name), ['execute_python', 'list_files', 'read_file', 'read_pdf', 'web_search', 'write_file']);
    for (const row of rows) {
      assert.equal(row.version, '1.0.0');
      assert.deepEqual(row.versions, ['1.0.0']);
      assert.ok(row.description.length > 20);
    }
    assert.deepEqual(rows.map((r) => [r.readOnly, r.requiresConfirmation]), [[false, true], [true, false], [true, false], [true, false], [true, false], [false, true]]);
    assert.deepEqual(rows.map((r) => r.kind), ['shell_command', 'file_read', 'file_read', 'file_read', 'network', 'file_write']);
  });

  test('schema read_file --format openai', async () => {
    const run = await cliInProcess(['schema', 'read_file', '--format', 'openai']);
    assert.equal(run.code, 0, shown(run));
    const spec = JSON.parse(run.stdout);
    assert.equal(spec.type, 'function');
    assert.equal(spec.function.name, 'read_file');
    assert.match(spec.function.description, /^Read a UTF-8 text file/);
    assert.equal(spec.function.parameters.type, 'object');
    assert.deepEqual(Object.keys(spec.function.parameters.properties).sort(), ['filepath', 'max_lines']);
    assert.deepEqual(spec.function.parameters.required, ['filepath']);
    assert.equal(spec.function.strict, undefined);

    const byDefault = await cliInProcess(['schema', 'read_file']);
    assert.equal(byDefault.code, 0, shown(byDefault));
    assert.deepEqual(JSON.parse(byDefault.stdout), spec, 'openai is the default format');
  });

  test('schema read_file --format openai-strict', async () => {
    const run = await cliInProcess(['schema', 'read_file', '--format', 'openai-strict']);
    assert.equal(run.code, 0, shown(run));
    const spec = JSON.parse(run.stdout);
    assert.equal(spec.type, 'function');
    assert.equal(spec.function.strict, true);
    const params = spec.function.parameters;
    assert.equal(params.additionalProperties, false);
    assert.deepEqual([...params.required].sort(), Object.keys(params.properties).sort(), 'every property is required in strict mode');
    assert.deepEqual(params.properties.max_lines.type, ['integer', 'null'], 'optional fields become nullable');
  });

  test('schema read_file --format anthropic', async () => {
    const run = await cliInProcess(['schema', 'read_file', '--format', 'anthropic']);
    assert.equal(run.code, 0, shown(run));
    const spec = JSON.parse(run.stdout);
    assert.equal(spec.name, 'read_file');
    assert.equal(typeof spec.description, 'string');
    assert.equal(spec.input_schema.type, 'object');
    assert.deepEqual(spec.input_schema.required, ['filepath']);
    assert.equal(spec.type, undefined);
    assert.equal(spec.function, undefined);
  });

  test('schema read_file --format mcp', async () => {
    const run = await cliInProcess(['schema', 'read_file', '--format', 'mcp']);
    assert.equal(run.code, 0, shown(run));
    const spec = JSON.parse(run.stdout);
    assert.equal(spec.name, 'read_file');
    assert.equal(spec.inputSchema.type, 'object');
    assert.equal(spec.annotations.readOnlyHint, true);
    assert.equal(spec.annotations.destructiveHint, false);

    const write = await cliInProcess(['schema', 'write_file', '--format', 'mcp']);
    assert.equal(write.code, 0, shown(write));
    assert.equal(JSON.parse(write.stdout).annotations.readOnlyHint, false);
  });
});

describe('toolgate schemas for a user project', () => {
  let dir: string;
  let tmp: ReturnType<typeof tempWorkspace>;
  before(() => {
    tmp = tempWorkspace();
    dir = path.join(tmp.root, 'user-project');
    fs.mkdirSync(path.join(dir, 'src/tools'), { recursive: true });
    fs.mkdirSync(path.join(dir, 'node_modules'));
    fs.symlinkSync(REPO_ROOT, path.join(dir, 'node_modules/toolgate'), 'dir');
    fs.writeFileSync(path.join(dir, 'package.json'), '{"type":"module"}\n');
    fs.writeFileSync(
      path.join(dir, 'tsconfig.json'),
      `${JSON.stringify({
        compilerOptions: {
          module: 'NodeNext', moduleResolution: 'NodeNext', target: 'ES2022', strict: true,
          experimentalDecorators: true, emitDecoratorMetadata: true, outDir: 'dist', rootDir: 'src',
        },
      }, null, 2)}\n`,
    );
  });
  after(() => tmp.cleanup());

  const greetSource = (withWord: boolean) => `import { tool, type Tool } from 'toolgate/tool';

/** Arguments of greet_user. */
export interface GreetInput {
  /** Name of the person to greet. */
  name: string;${withWord ? `
  /**
   * Greeting word.
   * @default "Hello"
   */
  word?: string;` : ''}
}

/** Greet a user by name. Use it to say hello; not for farewells. */
@tool({ name: 'greet_user', version: '1.0.0', kind: 'internal', readOnly: true })
export class GreetUserTool implements Tool<GreetInput, string> {
  run(args: GreetInput): string {
    return \`\${${withWord ? "args.word ?? 'Hello'" : "'Hello'"}}, \${args.name}!\`;
  }
}
`;

  test('generate, --check, stale after an edit, compile, and call the tool', { timeout: 240_000 }, async () => {
    const source = path.join(dir, 'src/tools/greet.ts');
    const out = path.join(dir, 'tool-schemas.json');
    fs.writeFileSync(source, greetSource(false));
    const schemas = (extra: string[] = []) => cliInProcess(['schemas', 'src/tools/**/*.ts', '--out', 'tool-schemas.json', ...extra], { cwd: dir });

    const typo = await cliInProcess(['schemas', 'src/toolz/**/*.ts', '--out', 'tool-schemas.json'], { cwd: dir });
    assert.equal(typo.code, 2, shown(typo));
    assert.match(typo.stderr, /src\/toolz\/\*\*\/\*\.ts matches no TypeScript file/);
    assert.ok(!fs.existsSync(out), 'no empty schema file written');

    const generated = await schemas();
    assert.equal(generated.code, 0, shown(generated));
    assert.equal(generated.stdout, 'tool-schemas.json: written (1 tool)\n');
    const file = JSON.parse(fs.readFileSync(out, 'utf8'));
    assert.equal(file.format, 'toolgate-schemas/1');
    assert.deepEqual(Object.keys(file.tools), ['greet_user@1.0.0']);
    const entry = file.tools['greet_user@1.0.0'];
    assert.equal(entry.name, 'greet_user');
    assert.equal(entry.version, '1.0.0');
    assert.equal(entry.description, 'Greet a user by name. Use it to say hello; not for farewells.');
    assert.equal(entry.source, 'src/tools/greet.ts');
    assert.deepEqual(entry.inputSchema, {
      description: 'Arguments of greet_user.',
      type: 'object',
      properties: { name: { description: 'Name of the person to greet.', type: 'string' } },
      additionalProperties: false,
      required: ['name'],
    });
    assert.deepEqual(entry.outputSchema, { type: 'string' });

    const check = await schemas(['--check']);
    assert.equal(check.code, 0, shown(check));
    assert.equal(check.stdout, 'tool-schemas.json: up to date (1 tool)\n');

    fs.writeFileSync(source, greetSource(true));
    const stale = await schemas(['--check']);
    assert.equal(stale.code, 1, shown(stale));
    assert.match(stale.stderr, /tool-schemas\.json is stale \(greet_user@1\.0\.0\)/, shown(stale));
    assert.deepEqual(JSON.parse(fs.readFileSync(out, 'utf8')), file, '--check writes nothing');

    const regenerated = await schemas();
    assert.equal(regenerated.code, 0, shown(regenerated));
    const updated = JSON.parse(fs.readFileSync(out, 'utf8')).tools['greet_user@1.0.0'];
    assert.deepEqual(updated.inputSchema.properties.word, { description: 'Greeting word.', default: 'Hello', type: 'string' });
    assert.deepEqual(updated.inputSchema.required, ['name']);
    assert.equal((await schemas(['--check'])).code, 0);

    const tsc = await new Promise<CliRun>((resolve) => {
      execFile(process.execPath, [path.join(REPO_ROOT, 'node_modules/typescript/bin/tsc'), '-p', dir], { cwd: dir }, (error, stdout, stderr) => {
        resolve({ code: error ? (typeof error.code === 'number' ? error.code : -1) : 0, stdout, stderr });
      });
    });
    assert.equal(tsc.code, 0, `tsc failed\n${shown(tsc)}`);
    assert.ok(fs.existsSync(path.join(dir, 'dist/tools/greet.js')));

    const toolArgs = ['--tools', path.join(dir, 'dist/tools'), '--schemas', out, '--workspace', dir];
    const greeted = await cliInProcess(['call', 'greet_user', '{"name":"Ada","word":"Hi"}', ...toolArgs]);
    assert.equal(greeted.code, 0, shown(greeted));
    assert.equal(greeted.stdout, 'Hi, Ada!\n');

    const defaulted = await cliInProcess(['call', 'greet_user', '{"name":"Grace"}', ...toolArgs]);
    assert.equal(defaulted.code, 0, shown(defaulted));
    assert.equal(defaulted.stdout, 'Hello, Grace!\n');

    const invalid = await cliInProcess(['call', 'greet_user', '{"name":"Ada","extra":1}', ...toolArgs]);
    assert.equal(invalid.code, 1, shown(invalid));
    assert.match(invalid.stderr, /Invalid arguments for greet_user/);

    const listed = await cliInProcess(['list', ...toolArgs.slice(0, 4)]);
    assert.equal(listed.code, 0, shown(listed));
    assert.match(listed.stdout, /^greet_user\s+1\.0\.0\s+internal\s+read\s+no\s+/m);

    const noSchemas = await cliInProcess(['list', '--tools', path.join(dir, 'dist/tools')]);
    assert.equal(noSchemas.code, 2, shown(noSchemas));
    assert.match(noSchemas.stderr, /--tools needs --schemas FILE/);

    // A mistyped, missing or uncompiled folder is named, not loaded as no tools at all.
    const schemaArgs = ['--schemas', path.join(dir, 'tool-schemas.json')];
    const missing = await cliInProcess(['call', 'greet_user', '{}', '--tools', path.join(dir, 'dist/toolz'), ...schemaArgs]);
    assert.equal(missing.code, 2, shown(missing));
    assert.match(missing.stderr, /--tools .*dist\/toolz: no such folder/);
    fs.mkdirSync(path.join(dir, 'uncompiled'), { recursive: true });
    fs.writeFileSync(path.join(dir, 'uncompiled', 'greet.tool.ts'), 'export {};\n');
    const uncompiled = await cliInProcess(['list', '--tools', path.join(dir, 'uncompiled'), ...schemaArgs]);
    assert.equal(uncompiled.code, 2, shown(uncompiled));
    assert.match(uncompiled.stderr, /no compiled tool modules .* compile your tools first/);
    const schemasAlone = await cliInProcess(['list', ...schemaArgs]);
    assert.equal(schemasAlone.code, 2, shown(schemasAlone));
    assert.match(schemasAlone.stderr, /--schemas names the schema file of --tools folders/);
  });
});

describe('the bin, spawned: exit codes, stdin, signals', { concurrency: true }, () => {
  let tmp: ReturnType<typeof tempWorkspace>;
  before(() => {
    tmp = tempWorkspace();
    fs.writeFileSync(path.join(tmp.ws, 'hello.txt'), 'hello\nworld\n');
  });
  after(() => tmp.cleanup());

  test('exit 0: the output on stdout, nothing on stderr', async () => {
    const run = await runCli(['call', 'read_file', '{"filepath":"hello.txt","max_lines":1}', '--workspace', tmp.ws]);
    assert.equal(run.code, 0, shown(run));
    assert.equal(run.stdout, 'hello\n... (1 more lines)\n');
    assert.equal(run.stderr, '');
  });

  test('exit 1: a tool failure, on stderr', async () => {
    const run = await runCli(['call', 'read_file', '{"filepath":"missing.txt"}', '--workspace', tmp.ws]);
    assert.equal(run.code, 1, shown(run));
    assert.match(run.stderr, /missing\.txt does not exist/);
  });

  test('exit 2: a usage error; exit 2 and the usage with no command', async () => {
    const run = await runCli(['frobnicate']);
    assert.equal(run.code, 2, shown(run));
    assert.match(run.stderr, /unknown command "frobnicate"/);
    const none = await runCli([]);
    assert.equal(none.code, 2, shown(none));
    assert.match(none.stdout, /^Usage:/);
  });

  test('exit 3: a path outside the workspace, nothing of it printed', async () => {
    const run = await runCli(['call', 'read_file', '{"filepath":"../outside/sentinel.txt"}', '--workspace', tmp.ws]);
    assert.equal(run.code, 3, shown(run));
    assert.equal(run.stdout, '');
    assert.ok(!run.stderr.includes('SENTINEL CONTENT'));
  });

  test('"-" reads the arguments from the process\'s stdin', async () => {
    const run = await runCli(['call', 'read_file', '-', '--workspace', tmp.ws], { input: '{"filepath":"hello.txt"}' });
    assert.equal(run.code, 0, shown(run));
    assert.equal(run.stdout, 'hello\nworld\n');
  });

  test('a reader that closes the pipe early (toolgate list | head) ends the output quietly', async () => {
    const child = spawn(process.execPath, [BIN, 'list'], { stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.destroy(); // closed before the command writes: its first write meets EPIPE
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    assert.equal(code, 0, stderr);
    assert.doesNotMatch(stderr, /EPIPE|Error/);
  });

  test('--version prints the package version', async () => {
    const run = await runCli(['--version']);
    assert.equal(run.code, 0, shown(run));
    assert.equal(run.stdout, `${JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')).version}\n`);
  });

  test('SIGTERM stops `toolgate mcp --http`, which exits 0', async () => {
    const child = spawn(process.execPath, [BIN, 'mcp', '--http', '--port', '0', '--workspace', tmp.ws], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
    await new Promise<void>((resolve, reject) => {
      child.stderr!.on('data', (d) => {
        stderr += d;
        if (stderr.includes('serving')) resolve();
      });
      child.on('close', () => reject(new Error(`exited before serving: ${stderr}`)));
    });
    child.kill('SIGTERM');
    assert.equal(await exited, 0, stderr);
  });
});
