/**
 * What `npm run build` bundles (scripts/bundle.ts) is the same program as the files it was
 * made of: the authoring modules exist once (however they are imported), the CLI's and the
 * child's bundles hold no copy of them, the root entry's modules (dist/bundle/root.js and
 * runtime.js) exist once too, the pool worker's modules are in runtime.js only, and a second run on already
 * bundled output refuses.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFile } from 'node:child_process';
import { pathToFileURL } from 'node:url';
import { REPO_ROOT } from '../helpers.js';

const dist = (file: string): string => path.join(REPO_ROOT, 'dist', file);
const load = async (file: string): Promise<Record<string, unknown>> => (await import(pathToFileURL(dist(file)).href)) as Record<string, unknown>;

/** How esbuild writes a few of the authoring modules' definitions. */
const DEFINITIONS = [/\bPathTraversalError = class\b|\bclass PathTraversalError\b/, /\bWorkspace = class\b|\bclass Workspace\b/, /\bfunction tool\(/, /\bfunction pinFolder\(/];

describe('dist/bundle', () => {
  test('an authoring class is one class through toolgate, toolgate/tool and its own module', async () => {
    const [root, authoring, own, home] = await Promise.all([import('toolgate'), import('toolgate/tool'), load('src/errors/errors.js'), load('bundle/errors.js')]);
    assert.equal(typeof own.PathTraversalError, 'function');
    assert.equal(root.PathTraversalError, own.PathTraversalError);
    assert.equal(authoring.PathTraversalError, own.PathTraversalError);
    assert.equal(home.PathTraversalError, own.PathTraversalError);
    const [workspace, core] = await Promise.all([load('src/workspace/workspace.js'), load('bundle/core.js')]);
    assert.equal(authoring.Workspace, workspace.Workspace);
    assert.equal(core.Workspace, workspace.Workspace);
  });

  test('each authoring definition is in one file of dist/bundle (core.js, errors.js), which the others import', () => {
    const files = fs.readdirSync(dist('bundle')).filter((file) => file.endsWith('.js'));
    assert.ok(files.includes('main.js') && files.includes('child.js'), files.join(' '));
    for (const definition of DEFINITIONS) {
      const defining = files.filter((file) => definition.test(fs.readFileSync(dist(`bundle/${file}`), 'utf8')));
      assert.equal(defining.length, 1, `${definition}: ${defining.join(', ')}`);
      assert.ok(defining[0] === 'core.js' || defining[0] === 'errors.js', defining[0]);
    }
    for (const file of files) assert.doesNotMatch(fs.readFileSync(dist(`bundle/${file}`), 'utf8'), /from "\.\.\/src\//, `${file} imports a module of dist/src`);
  });

  test('a class of the root entry is one class through toolgate and its own module (dist/bundle/root.js)', async () => {
    const [root, store, executor, bundle] = await Promise.all([import('toolgate'), load('src/ledger/store.js'), load('src/executor/executor.js'), load('bundle/root.js')]);
    assert.equal(typeof store.Ledger, 'function');
    assert.equal(root.Ledger, store.Ledger);
    assert.equal(root.ToolExecutor, executor.ToolExecutor);
    assert.ok(Object.values(bundle).includes(root.ToolSystem));
    assert.match(fs.readFileSync(dist('src/ledger/store.js'), 'utf8'), /from "\.\.\/\.\.\/bundle\/root\.js"/);
    const [runner, runtime] = await Promise.all([load('src/runner/runner.js'), load('bundle/runtime.js')]);
    assert.equal(typeof runner.serializeError, 'function');
    assert.ok(Object.values(runtime).includes(runner.serializeError));
  });

  test("the modules of the pool's worker load as runtime.js, not root.js", async () => {
    // What runner/pool/worker.js imports (it cannot load outside a worker thread: it reads workerData).
    const modules = ['src/runner/tool-host.js', 'src/runner/client-relay.js', 'src/runner/pool/shared-lines.js'].map((file) => pathToFileURL(dist(file)).href);
    const hooks = `data:text/javascript,${encodeURIComponent('export async function load(url, context, next) { process._rawDebug("LOADED " + url); return next(url, context); }')}`;
    const register = `data:text/javascript,${encodeURIComponent(`import { register } from 'node:module'; register(${JSON.stringify(hooks)});`)}`;
    const run = await new Promise<{ code: number | null; stderr: string }>((resolve) => {
      execFile(process.execPath, ['--import', register, '--input-type=module', '-e', `for (const m of ${JSON.stringify(modules)}) await import(m);`], (error, _stdout, stderr) => resolve({ code: error ? (error.code as number) : 0, stderr }));
    });
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stderr, /LOADED .*\/dist\/bundle\/runtime\.js/);
    assert.doesNotMatch(run.stderr, /LOADED .*\/dist\/bundle\/root\.js/);
  });

  test('toolgate --version loads errors.js and not core.js', async () => {
    const run = await new Promise<{ code: number | null; stderr: string }>((resolve) => {
      const hooks = `data:text/javascript,${encodeURIComponent('export async function load(url, context, next) { if (url.endsWith("/dist/bundle/core.js")) process._rawDebug("LOADED core.js"); return next(url, context); }')}`;
      const register = `data:text/javascript,${encodeURIComponent(`import { register } from 'node:module'; register(${JSON.stringify(hooks)});`)}`;
      execFile(process.execPath, ['--import', register, path.join(REPO_ROOT, 'bin/toolgate.js'), '--version'], (error, _stdout, stderr) => resolve({ code: error ? (error.code as number) : 0, stderr }));
    });
    assert.equal(run.code, 0, run.stderr);
    assert.doesNotMatch(run.stderr, /LOADED core\.js/);
  });

  test('a module that came from elsewhere keeps its import.meta.url: the CLI prints the package version', async () => {
    const { runCli } = (await import(pathToFileURL(dist('bundle/main.js')).href)) as { runCli: (argv: string[], options: object) => Promise<number> };
    let out = '';
    const code = await runCli(['--version'], { stdout: { write: (text: string) => (out += text) } });
    const { version } = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string };
    assert.equal(code, 0);
    assert.equal(out.trim(), version);
  });

  test("import.meta.url is rewritten as an expression, not where a message mentions it", () => {
    const core = fs.readFileSync(dist('bundle/core.js'), 'utf8') + fs.readFileSync(dist('bundle/errors.js'), 'utf8');
    assert.match(core, /pass \\?`module: import\.meta\.url\\?` to @tool/);
    assert.match(core, /such as import\.meta\.url"/);
    assert.match(core, /createRequire\d*\(new URL\("\.\.\/src\/decorators\/metadata\.js", import\.meta\.url\)\.href\)/);
  });

  /** Run a copy of bin/toolgate.js in a tree of `files` (path: text) with `list`. */
  async function binIn(t: { after: (fn: () => void) => void }, files: Record<string, string>): Promise<{ code: number | null; stderr: string }> {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'toolgate-stale-'));
    t.after(() => fs.rmSync(root, { recursive: true, force: true }));
    fs.mkdirSync(path.join(root, 'bin'));
    fs.cpSync(path.join(REPO_ROOT, 'bin/toolgate.js'), path.join(root, 'bin/toolgate.js'));
    for (const [file, text] of Object.entries(files)) {
      fs.mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
      fs.writeFileSync(path.join(root, file), text);
    }
    return new Promise((resolve) => {
      execFile(process.execPath, [path.join(root, 'bin/toolgate.js'), 'list'], (error, _stdout, stderr) => resolve({ code: error ? (error.code as number) : 0, stderr }));
    });
  }
  const FAKE_CLI = 'export async function runCli() { return 0; }\n';

  test('the bin refuses a bundle that tsc ran after (dist/src/tool.js compiled again)', async (t) => {
    const run = await binIn(t, { 'dist/bundle/main.js': FAKE_CLI, 'dist/src/tool.js': "export { tool } from './decorators/tool.decorator.js';\n" });
    assert.equal(run.code, 2);
    assert.match(run.stderr, /dist\/bundle is older than dist\/src \(tsc ran after the build\); run `npm run build`/);
  });

  test('the bin runs a bundle whatever the file times (npm stamps installed files as it unpacks them)', async (t) => {
    const run = await binIn(t, { 'dist/bundle/main.js': FAKE_CLI, 'dist/src/tool.js': fs.readFileSync(dist('src/tool.js'), 'utf8') });
    assert.equal(run.code, 0, run.stderr);
  });

  test('bundling output that is bundled already is refused, and changes nothing', async () => {
    const before = fs.readFileSync(dist('src/tool.js'), 'utf8');
    const run = await new Promise<{ code: number | null; stderr: string }>((resolve) => {
      execFile(process.execPath, [dist('scripts/bundle.js')], { cwd: REPO_ROOT }, (error, _stdout, stderr) => resolve({ code: error ? (error.code as number) : 0, stderr }));
    });
    assert.equal(run.code, 1);
    assert.match(run.stderr, /bundled already; run `npm run build`/);
    assert.equal(fs.readFileSync(dist('src/tool.js'), 'utf8'), before);
    assert.ok(fs.existsSync(dist('bundle/main.js')));
  });
});
