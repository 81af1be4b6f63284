/**
 * What a user gets (issue 17): the project packed with `npm pack`, the tarball installed into
 * a fresh ESM project with its own TypeScript, and the README's five-minute path run there
 * word for word: its tsconfig, its example tool, `toolgate schemas`, `tsc`, the installed
 * `npx toolgate call` (and its refusal of a path outside the workspace), the `ToolSystem`
 * snippet, the OpenAI request loop against a loopback stand-in, and the MCP client config.
 * Without the optional packages, their features name them (the MCP bridge without
 * `@modelcontextprotocol/client` included), and the package's types compile with
 * `skipLibCheck: false`; with the client SDK added, the bridge works.
 *
 * The install is offline: the project's lock file is derived from ours (the tarball plus our
 * runtime dependencies, whose tarballs `npm ci` left in npm's cache), so nothing but loopback
 * is reached. It compiles better-sqlite3 from source, about two minutes of one core: the test
 * runs only with TOOLGATE_PACK=1 (`.ci/run` sets it).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { startOpenAIFixture, turn, type OpenAIFixture } from '../openai-fixture.js';
import { compileAgainstPackage, du, exec, installPacked, packEnabled, readmeBlocks, type PackedProject } from './packed-project.js';

const skip = packEnabled ? false : 'installs a packed tarball (about two minutes); set TOOLGATE_PACK=1';

/** Installed size of toolgate without optional packages, the issue 34 target (MiB, as `du` counts). */
const MAX_CORE_MIB = 100;

/** The optional packages the README's five-minute path installs: the schema generator and its compiler (dev), and openai for its request loop. */
const README_PACKAGES = { dependencies: ['openai'], devDependencies: ['typescript', 'typescript-json-schema'] };

describe('the packed package, installed as a user installs it', { skip }, () => {
  let packed: PackedProject | undefined;
  let tmp = '';
  let project = '';

  before(async () => {
    packed = await installPacked('toolgate-pack-');
    ({ tmp, project } = packed);
  });

  after(() => packed?.cleanup());

  it('installs the built files only, and builds nothing of ours in the user tree', () => {
    const installed = path.join(project, 'node_modules/toolgate');
    assert.ok(fs.existsSync(path.join(installed, 'dist/src/index.js')));
    assert.ok(fs.existsSync(path.join(installed, 'tools/tool-schemas.json')));
    for (const absent of ['test', 'dist/test', 'tsconfig.json', '.ci']) {
      assert.equal(fs.existsSync(path.join(installed, absent)), false, `${absent} should not be in the package`);
    }
    // Of src/, only the cockpit's page and the sandbox's launch scripts (used as they are, no
    // build step), and no TypeScript source.
    const shipped = fs.readdirSync(path.join(installed, 'src'), { recursive: true, encoding: 'utf8' });
    assert.deepEqual(shipped.filter((f) => !f.startsWith('cockpit') && !/^sandbox(\/scripts(\/[a-z-]+\.sh)?)?$/.test(f)), []);
    assert.ok(shipped.includes('sandbox/scripts/lifeline.sh'), 'the launch scripts are shipped');
    const sources = fs.readdirSync(installed, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts') && !f.startsWith('node_modules'));
    assert.deepEqual(sources, [], 'no TypeScript source in the package');
    // Nothing to build from: no sources, no tsconfig (so no prepare script can have run a
    // build in the user's tree); and the package has no install scripts of its own.
    const pkg = JSON.parse(fs.readFileSync(path.join(installed, 'package.json'), 'utf8')) as { scripts?: Record<string, string> };
    for (const hook of ['preinstall', 'install', 'postinstall']) assert.equal(pkg.scripts?.[hook], undefined, hook);
  });

  it(`installs at most ${MAX_CORE_MIB} MiB without the optional packages, whose features then name them`, async (t) => {
    const modules = path.join(project, 'node_modules');
    const [total] = await du([modules]);
    const names = fs.readdirSync(modules).flatMap((name) => (name.startsWith('@') ? fs.readdirSync(path.join(modules, name)).map((inner) => `${name}/${inner}`) : name.startsWith('.') ? [] : [name]));
    const sizes = await du(names.map((name) => path.join(modules, name)));
    const largest = names.map((name, i) => [name, sizes[i]!] as const).sort((a, b) => b[1] - a[1]).slice(0, 15);
    t.diagnostic(`installed: ${(total! / 1024).toFixed(1)} MiB in ${names.length} packages; largest: ${largest.map(([name, kib]) => `${name} ${(kib / 1024).toFixed(1)}`).join(', ')}`);
    assert.ok(total! <= MAX_CORE_MIB * 1024, `the install is ${(total! / 1024).toFixed(1)} MiB, over ${MAX_CORE_MIB} MiB`);
    for (const absent of ['typescript', 'typescript-json-schema', 'openai', 'sharp', 'pdfjs-dist', 'pyodide', 'mathjs', 'tree-sitter-bash', '@modelcontextprotocol/client']) {
      assert.equal(fs.existsSync(path.join(modules, absent)), false, `${absent} is installed with toolgate`);
    }
    // SDK v1 is a dev dependency (test fixtures): the server and the bridge run on v2 (issue 33).
    assert.equal(fs.existsSync(path.join(modules, '@modelcontextprotocol/sdk')), false, 'SDK v1 is installed with toolgate');

    // The shipped tools run (their schemas are prebuilt; a shell command is parsed with the grammar shipped in the package).
    fs.writeFileSync(path.join(project, 'notes.txt'), 'one\ntwo\n');
    const read = await exec('npx', ['toolgate', 'call', 'read_file', '{"filepath":"notes.txt"}', '--workspace', '.'], project);
    assert.equal(read.code, 0, read.stderr);
    assert.match(read.stdout, /one/);
    const explain = await exec('npx', ['toolgate', 'policy', 'check', '--explain', '{"name":"run_command","arguments":{"command":"ls -la | head -3"}}'], project);
    assert.equal(explain.code, 0, explain.stderr);
    assert.match(explain.stdout, /command ls -la: shell_command\n\s*command head -3: shell_command/);
    // A feature whose package is missing names it.
    const calculate = await exec('npx', ['toolgate', 'call', 'calculate', '{"expression":"1 + 1"}', '--workspace', '.'], project);
    assert.notEqual(calculate.code, 0);
    assert.match(calculate.stderr, /unavailable: calculate needs the package `mathjs`.*npm install mathjs/);
    const schemas = await exec('npx', ['toolgate', 'schemas', 'notes.txt', '--out', 'tool-schemas.json'], project);
    assert.notEqual(schemas.code, 0);
    assert.match(schemas.stderr, /npm install typescript typescript-json-schema/);
    // The MCP bridge needs the client SDK (an optional peer): a config that names a server says so, and nothing starts.
    fs.writeFileSync(path.join(project, 'bridge.config.json'), JSON.stringify({ mcpServers: { inner: { command: process.execPath, args: [path.join(modules, 'toolgate/bin/toolgate.js'), 'mcp', '--workspace', '.', '--no-ledger'], trusted: true } } }));
    const bridged = await exec('npx', ['toolgate', 'call', 'inner__read_file', '{"filepath":"notes.txt"}', '--workspace', '.', '--config', 'bridge.config.json', '--no-ledger'], project);
    assert.equal(bridged.code, 1, bridged.stdout + bridged.stderr);
    assert.match(bridged.stderr, /unavailable: the MCP bridge .* needs the package `@modelcontextprotocol\/client`.*npm install @modelcontextprotocol\/client/);
    // `toolgate mcp` serves without it (the MCP client config at the end of this file starts it).
  });

  it('its types compile with skipLibCheck false before any optional peer is added (the MCP bridge\'s options included)', async () => {
    for (const absent of ['@modelcontextprotocol/client', '@opentelemetry/api', 'ai', '@openai/agents', '@langchain/core', '@types/better-sqlite3']) {
      assert.equal(fs.existsSync(path.join(project, 'node_modules', absent)), false, `${absent} is installed`);
    }
    // In the user's project (its node_modules), removed after: the README's tsconfig compiles every file there.
    const folder = path.join(project, 'types-check');
    try {
      const { code, out } = await compileAgainstPackage(folder);
      assert.equal(code, 0, out);
    } finally {
      fs.rmSync(folder, { recursive: true, force: true });
    }
  });

  it('bridges another MCP server once @modelcontextprotocol/client is added', async () => {
    await packed!.add({ dependencies: ['@modelcontextprotocol/client'] });
    const bridged = await exec('npx', ['toolgate', 'call', 'inner__read_file', '{"filepath":"notes.txt"}', '--workspace', '.', '--config', 'bridge.config.json', '--no-ledger'], project);
    assert.equal(bridged.code, 0, bridged.stderr);
    assert.match(bridged.stdout, /one/);
  });

  it('installs the optional packages the README names for the five-minute path', async () => {
    await packed!.add(README_PACKAGES);
    for (const name of ['typescript', 'typescript-json-schema', 'openai']) assert.ok(fs.existsSync(path.join(project, 'node_modules', name)), name);
  });

  it("runs the README's five-minute path: tool, schemas, tsc, the installed CLI", async () => {
    const [tsconfig] = readmeBlocks('json');
    const [toolSource] = readmeBlocks('ts');
    fs.writeFileSync(path.join(project, 'tsconfig.json'), tsconfig!);
    fs.mkdirSync(path.join(project, 'src/tools'), { recursive: true });
    fs.writeFileSync(path.join(project, 'src/tools/count-lines.tool.ts'), toolSource!);
    fs.writeFileSync(path.join(project, 'README.md'), '# my agent\nline two\nline three\n');

    const schemas = await exec('npx', ['toolgate', 'schemas', 'src/tools/**/*.ts', '--out', 'tool-schemas.json'], project);
    assert.equal(schemas.code, 0, schemas.stderr);
    const file = JSON.parse(fs.readFileSync(path.join(project, 'tool-schemas.json'), 'utf8')) as { tools: Record<string, unknown> };
    assert.ok('count_lines@1.0.0' in file.tools, Object.keys(file.tools).join(', '));
    const check = await exec('npx', ['toolgate', 'schemas', 'src/tools/**/*.ts', '--out', 'tool-schemas.json', '--check'], project);
    assert.equal(check.code, 0, check.stderr);

    const tsc = await exec('npx', ['tsc', '-p', '.'], project);
    assert.equal(tsc.code, 0, tsc.stdout + tsc.stderr);

    const version = await exec('npx', ['toolgate', '--version'], project);
    assert.equal(version.code, 0, version.stderr);
    assert.match(version.stdout, /\d+\.\d+\.\d+/);

    const mine = ['--tools', 'dist/tools', '--schemas', 'tool-schemas.json'];
    const call = await exec('npx', ['toolgate', 'call', 'count_lines', '{"filepath":"README.md"}', ...mine], project);
    assert.equal(call.code, 0, call.stderr);
    assert.deepEqual(JSON.parse(call.stdout), { lines: 3 });
    const escape = await exec('npx', ['toolgate', 'call', 'count_lines', '{"filepath":"../../etc/passwd"}', ...mine], project);
    assert.equal(escape.code, 3, escape.stdout + escape.stderr);
    assert.match(escape.stderr, /outside the workspace/);
  });

  it("runs the README's ToolSystem snippet and its OpenAI request loop", async () => {
    const [, system, loop] = readmeBlocks('ts');
    fs.writeFileSync(path.join(project, 'src/use.ts'), system!);
    // The loop continues the snippet before it (which closes the system last).
    const opened = system!.replace(/await tools\.close\(\);\s*$/, '');
    fs.writeFileSync(path.join(project, 'src/loop.ts'), `${opened}\n${loop}\nawait tools.close();\n`);
    const tsc = await exec('npx', ['tsc', '-p', '.'], project);
    assert.equal(tsc.code, 0, tsc.stdout + tsc.stderr);

    const use = await exec('node', ['dist/use.js'], project);
    assert.equal(use.code, 0, use.stderr);
    assert.match(use.stdout, /^true \{\s*"lines": 3\s*\}/);

    let fixture: OpenAIFixture | undefined;
    try {
      fixture = await startOpenAIFixture([
        turn(null, [{ id: 'call_1', name: 'count_lines', arguments: '{"filepath":"README.md"}' }]),
        turn('README.md has 3 lines.'),
      ]);
      const loopRun = await exec('node', ['dist/loop.js'], project, { OPENAI_BASE_URL: fixture.baseUrl, OPENAI_API_KEY: 'sk-test' });
      assert.equal(loopRun.code, 0, loopRun.stderr);
      assert.match(loopRun.stdout, /README\.md has 3 lines\./);
      assert.equal(fixture.requests.length, 2);
      assert.ok(fixture.requests[0]!.tools?.some((t) => t.function.name === 'count_lines'));
      const answer = fixture.requests[1]!.messages.find((m) => m.role === 'tool');
      assert.equal(answer?.tool_call_id, 'call_1');
      assert.deepEqual(JSON.parse(String(answer?.content)), { lines: 3 });
    } finally {
      await fixture?.close();
    }
  });

  it("serves the tool to an MCP client started from the README's config", async () => {
    const [, config] = readmeBlocks('json');
    const server = (JSON.parse(config!.replaceAll('/path/to/your-project', project)) as { mcpServers: { toolgate: { command: string; args: string[] } } }).mcpServers.toolgate;
    const client = new Client({ name: 'packed-install-test', version: '1.0.0' });
    await client.connect(new StdioClientTransport({ command: server.command, args: server.args, cwd: tmp, stderr: 'pipe' }));
    try {
      const { tools } = await client.listTools();
      assert.ok(tools.some((t) => t.name === 'count_lines'));
      const result = await client.callTool({ name: 'count_lines', arguments: { filepath: 'README.md' } });
      assert.notEqual(result.isError, true, JSON.stringify(result));
      assert.deepEqual(result.structuredContent, { lines: 3 });
    } finally {
      await client.close();
    }
  });
});
