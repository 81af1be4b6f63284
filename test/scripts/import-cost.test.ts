/**
 * What `import('toolgate')` loads (docs/performance.md, "Import cost"): the root entry's
 * modules as two files (dist/bundle/root.js and runtime.js), and none of the packages loaded on first use.
 * Each check runs in a fresh process with a module-load recorder (an `--import` of a register
 * hook that logs every ES module loaded, and the CommonJS cache at exit).
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';

/** The URLs of ES modules and paths of CommonJS modules that importing `specifier` loads. */
function loadedBy(specifier: string): Promise<string[]> {
  const hooks = `data:text/javascript,${encodeURIComponent('export async function load(url, context, next) { process._rawDebug("LOADED " + url); return next(url, context); }')}`;
  const register = `data:text/javascript,${encodeURIComponent(`import { register } from 'node:module'; register(${JSON.stringify(hooks)});`)}`;
  const code = `import { createRequire } from 'node:module'; await import(${JSON.stringify(specifier)}); for (const file of Object.keys(createRequire(import.meta.url).cache)) process._rawDebug('LOADED ' + file);`;
  return new Promise((resolve, reject) => {
    execFile(process.execPath, ['--import', register, '--input-type=module', '-e', code], (error, _stdout, stderr) => {
      if (error) reject(new Error(`${error.message}\n${stderr}`));
      else resolve(stderr.split('\n').filter((line) => line.startsWith('LOADED ')).map((line) => line.slice('LOADED '.length)));
    });
  });
}

/** Packages that a call path loads when it first needs them, never the import of an entry. */
const ON_FIRST_USE = ['@modelcontextprotocol/client', 'ajv', 'pino', 'piscina', 'pg', 'bullmq', 'ioredis', 'web-tree-sitter', 'typescript', 'openai'];

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

  test('toolgate/tool and toolgate/internal load no root.js and no MCP SDK', async () => {
    for (const entry of ['toolgate/tool', 'toolgate/internal']) {
      const loaded = await loadedBy(entry);
      assert.equal(loaded.find((url) => url.endsWith('/dist/bundle/root.js') || url.includes('/node_modules/@modelcontextprotocol/')), undefined, entry);
    }
  });
});
