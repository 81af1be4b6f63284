/**
 * Fast start: `toolgate --version`, `help`, `list`, `schema` and an MCP client's
 * `initialize` + `tools/list` import no tool module (builtin, ported, or a `--tools` folder
 * with a manifest) and load no ajv; `toolgate call` loads the called tool's module and runs
 * it. Each command runs as a real process with a module-load recorder (`--import` of a
 * register hook that logs every ES module loaded, and the CommonJS cache at exit).
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { writeManifest } from '../../src/registry/manifest.js';
import { BIN, tempWorkspace, type TempWorkspace } from '../helpers.js';
import { writeMarkerTool, type MarkerTool } from '../registry/marker-tool.js';

/** What a recorded run loaded. */
interface Recorded {
  code: number | null;
  stdout: string;
  stderr: string;
  /** URLs of ES modules and paths of CommonJS modules loaded. */
  loaded: string[];
}

describe('fast start: commands that only read tools import none of them', () => {
  let t: TempWorkspace;
  let folder: MarkerTool;
  let register: string;
  let log: string;

  before(async () => {
    t = tempWorkspace();
    folder = writeMarkerTool(t.root);
    await writeManifest(folder.dir);
    log = path.join(t.root, 'loads.log');
    const hooks = path.join(t.root, 'hooks.mjs');
    fs.writeFileSync(hooks, [
      "import fs from 'node:fs';",
      `export async function load(url, context, next) { fs.appendFileSync(${JSON.stringify(log)}, url + '\\n'); return next(url, context); }`,
      '',
    ].join('\n'));
    register = path.join(t.root, 'register.mjs');
    fs.writeFileSync(register, [
      "import fs from 'node:fs';",
      "import { createRequire, register } from 'node:module';",
      `register(${JSON.stringify(pathToFileURL(hooks).href)});`,
      'const cache = createRequire(import.meta.url).cache;',
      `process.on('exit', () => fs.appendFileSync(${JSON.stringify(log)}, Object.keys(cache).join('\\n') + '\\n'));`,
      '',
    ].join('\n'));
  });
  after(() => t.cleanup());

  /** Run `toolgate ARGS` with the recorder; `input` lines go to stdin, `until` ends stdin once stdout matches. */
  function recorded(args: string[], options: { input?: string[]; until?: RegExp } = {}): Promise<Recorded> {
    fs.writeFileSync(log, '');
    fs.writeFileSync(folder.marker, '');
    return new Promise((resolve, reject) => {
      const child = spawn(process.execPath, ['--import', pathToFileURL(register).href, BIN, ...args], { cwd: t.ws, stdio: ['pipe', 'pipe', 'pipe'] });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d) => {
        stdout += d;
        if (options.until?.test(stdout)) child.stdin.end();
      });
      child.stderr.on('data', (d) => (stderr += d));
      child.on('error', reject);
      child.on('close', (code) => resolve({ code, stdout, stderr, loaded: fs.readFileSync(log, 'utf8').split('\n').filter(Boolean) }));
      for (const line of options.input ?? []) child.stdin.write(`${line}\n`);
      if (options.until === undefined) child.stdin.end();
    });
  }

  const toolsFlags = () => ['--tools', folder.dir, '--schemas', folder.schemas];
  const toolModules = (run: Recorded) => run.loaded.filter((u) => /\/dist\/tools(-ported)?\/|marker-tools\//.test(u));
  const ajv = (run: Recorded) => run.loaded.filter((u) => /node_modules\/ajv\//.test(u));

  for (const args of [['--version'], ['help'], ['list'], ['list', '--json'], ['schema', 'echo_mark', '--format', 'mcp'], ['schema', 'read_file']]) {
    it(`toolgate ${args.join(' ')} imports no tool module and no ajv`, async () => {
      const run = await recorded([...args, ...(args[0]!.startsWith('-') || args[0] === 'help' ? [] : toolsFlags())]);
      assert.equal(run.code, 0, run.stderr);
      assert.ok(run.loaded.some((u) => u.includes('/dist/bundle/main.js')), 'the recorder saw the CLI load');
      assert.deepEqual(toolModules(run), []);
      assert.deepEqual(ajv(run), []);
      assert.equal(fs.readFileSync(folder.marker, 'utf8'), '', "the marker tool's top-level code did not run");
      if (args[0] === 'list' && args.length === 1) {
        assert.match(run.stdout, /^echo_mark\s+1\.0\.0\s+internal\s+read/m);
        assert.match(run.stdout, /^read_file\s/m);
      }
      if (args[0] === '--version') {
        assert.match(run.stdout, /^\d+\.\d+\.\d+/);
        assert.ok(!run.loaded.some((u) => u.includes('/dist/src/registry/')), '--version does not load the registry');
      }
    });
  }

  it('an MCP client gets initialize and tools/list with no tool module imported', async () => {
    const messages = [
      { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'test', version: '1.0.0' } } },
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      { jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} },
    ].map((m) => JSON.stringify(m));
    const run = await recorded(['mcp', '--no-ledger', ...toolsFlags()], { input: messages, until: /"id":2/ });
    assert.equal(run.code, 0, run.stderr);
    const replies = run.stdout.split('\n').filter(Boolean).map((l) => JSON.parse(l) as { id?: number; result?: { tools?: Array<{ name: string }> } });
    const names = replies.find((r) => r.id === 2)?.result?.tools?.map((tool) => tool.name) ?? [];
    assert.ok(names.includes('echo_mark') && names.includes('read_file'), names.join(', '));
    assert.deepEqual(toolModules(run), []);
    assert.equal(fs.readFileSync(folder.marker, 'utf8'), '');
  });

  it("toolgate call loads the called tool's module (once) and runs it; a bad argument is refused before", async () => {
    const bad = await recorded(['call', 'echo_mark', '{"text":5}', '--no-ledger', ...toolsFlags()]);
    assert.equal(bad.code, 1);
    assert.match(bad.stderr, /Invalid arguments for echo_mark: argument 'text' must be string/);
    assert.equal(fs.readFileSync(folder.marker, 'utf8'), '', 'refused before the module loaded');
    const run = await recorded(['call', 'echo_mark', '{"text":"hi"}', '--no-ledger', ...toolsFlags()]);
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stdout, 'echo hi\n');
    assert.equal(fs.readFileSync(folder.marker, 'utf8').split('\n').filter(Boolean).length, 1);
    assert.deepEqual(toolModules(run).filter((u) => u.includes('/dist/tools')), [], 'no other tool module');
  });

  it('a process-runner builtin runs from its manifest: toolgate call read_file', async () => {
    fs.writeFileSync(path.join(t.ws, 'notes.txt'), 'from the workspace\n');
    const run = await recorded(['call', 'read_file', '{"filepath":"notes.txt"}', '--no-ledger']);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /from the workspace/);
    // The tool ran in a child process: the main process never imported it.
    assert.deepEqual(toolModules(run), []);
  });

  it('a stale manifest is reported (at warn) and its folder imported instead', async () => {
    const copy = path.join(t.root, 'stale-tools');
    fs.cpSync(folder.dir, copy, { recursive: true });
    fs.appendFileSync(path.join(copy, 'echo-mark.tool.mjs'), '\n// changed after the manifest was made\n');
    const run = await recorded(['list', '--tools', copy, '--schemas', folder.schemas, '--log-level', 'warn']);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stderr, /tool_manifest_stale/);
    assert.match(run.stderr, /echo-mark\.tool\.mjs changed since it was made/);
    assert.match(run.stdout, /^echo_mark\s/m);
    assert.equal(fs.readFileSync(folder.marker, 'utf8').split('\n').filter(Boolean).length, 1, 'imported instead');
  });
});
