/**
 * What `import('toolgate')` loads (docs/performance.md, "Import cost"): the root entry's
 * modules as two files (dist/bundle/root.js and runtime.js), and none of the packages loaded
 * on first use (the MCP server SDK included: `createMcpServer` loads it, with dist/bundle/mcp.js).
 * Each check runs in a fresh process with a module-load recorder (an `--import` of a register
 * hook that logs every ES module loaded, and the CommonJS cache at exit).
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';

/** The URLs of ES modules and paths of CommonJS modules that importing `specifier` loads. */
async function loadedBy(specifier: string): Promise<string[]> {
  return (await run(`await import(${JSON.stringify(specifier)});`)).loaded;
}

/**
 * Runs `code` (an ES module's text) in a fresh process with the module-load recorder: the
 * modules it loaded (ES modules as the loader's hook saw them, at their first load, then the
 * CommonJS cache at exit) and its standard output.
 */
function run(code: string): Promise<{ loaded: string[]; stdout: string }> {
  const hooks = `data:text/javascript,${encodeURIComponent('export async function load(url, context, next) { process._rawDebug("LOADED " + url); return next(url, context); }')}`;
  const register = `data:text/javascript,${encodeURIComponent(`import { register } from 'node:module'; register(${JSON.stringify(hooks)});`)}`;
  const whole = `import { createRequire } from 'node:module'; ${code} for (const file of Object.keys(createRequire(import.meta.url).cache)) process._rawDebug('LOADED ' + file);`;
  return new Promise((resolve, reject) => {
    execFile(process.execPath, ['--import', register, '--input-type=module', '-e', whole], (error, stdout, stderr) => {
      if (error) reject(new Error(`${error.message}\n${stderr}`));
      else resolve({ loaded: stderr.split('\n').filter((line) => line.startsWith('LOADED ')).map((line) => line.slice('LOADED '.length)), stdout });
    });
  });
}

/** Packages that a call path loads when it first needs them, never the import of an entry. */
const ON_FIRST_USE = ['@modelcontextprotocol/client', '@modelcontextprotocol/server', '@modelcontextprotocol/core', 'zod', 'ajv', 'pino', 'piscina', 'pg', 'bullmq', 'ioredis', 'web-tree-sitter', 'typescript', 'openai'];

describe('import cost', () => {
  test('toolgate loads its modules as dist/bundle/root.js and runtime.js, and none of the packages loaded on first use', async () => {
    const loaded = await loadedBy('toolgate');
    for (const file of ['root.js', 'runtime.js']) assert.ok(loaded.some((url) => url.endsWith(`/dist/bundle/${file}`)), `${file} not loaded`);
    const own = loaded.filter((url) => url.includes('/dist/src/'));
    // Its own file (src/index.js re-exports from root.js), and nothing else of dist/src.
    assert.ok(own.length < 3, `${own.length} modules of dist/src loaded: ${own.join(' ')}`);
    for (const name of ON_FIRST_USE) {
      const hit = loaded.find((url) => url.includes(`/node_modules/${name}/`));
      assert.equal(hit, undefined, `import('toolgate') loaded ${name}`);
    }
  });

  test('createMcpServer loads the MCP server SDK at its first call: the ES build, one Server class with what the application imports', async () => {
    // Either order: the application imported the SDK before the first call, or after it.
    for (const sdkFirst of [false, true]) {
      const sdk = `const sdk = await import('@modelcontextprotocol/server');`;
      const { loaded, stdout } = await run(`
        ${sdkFirst ? sdk : ''}
        const toolgate = await import('toolgate');
        const os = await import('node:os');
        const system = new toolgate.ToolSystem({ registry: new toolgate.ToolRegistry(), workspace: os.tmpdir(), executor: { ledger: false, outputStore: false, sweepLeftovers: false } });
        process._rawDebug('FIRST CALL');
        const server = toolgate.createMcpServer({ system });
        ${sdkFirst ? '' : sdk}
        console.log(JSON.stringify({ same: server instanceof sdk.Server, again: toolgate.createMcpServer({ system }) instanceof sdk.Server }));
        await system.close();
      `);
      assert.deepEqual(JSON.parse(stdout), { same: true, again: true }, `SDK imported ${sdkFirst ? 'before' : 'after'} the first call`);
      // (A module that `require` loads is not seen by the recorder's hook, but the CommonJS cache would show the SDK's CommonJS build.)
      const commonJs = loaded.filter((file) => file.includes('/node_modules/@modelcontextprotocol/') && file.endsWith('.cjs'));
      assert.deepEqual(commonJs, [], 'the SDK\'s CommonJS build was loaded');
    }
  });

  test('toolgate/tool and toolgate/internal load no root.js and no MCP SDK', async () => {
    for (const entry of ['toolgate/tool', 'toolgate/internal']) {
      const loaded = await loadedBy(entry);
      assert.equal(loaded.find((url) => url.endsWith('/dist/bundle/root.js') || url.includes('/node_modules/@modelcontextprotocol/')), undefined, entry);
    }
  });
});
