/**
 * The package's public types compile for a TypeScript user who installed none of the optional
 * peer packages (`ai`, `@openai/agents`, `@langchain/core`, `@opentelemetry/api`,
 * `@modelcontextprotocol/client`, ...) and checks libraries (`skipLibCheck: false`): a project
 * importing `toolgate`, `toolgate/tool` and `toolgate/internal` from the built package is
 * compiled with `tsc`. Before, `McpBridgeOptions.transportFor` and `OAuthAuthorizer` pulled the
 * MCP client SDK's types into `toolgate`'s declarations (TS2307). The adapters' subpaths
 * (`toolgate/ai-sdk`, `toolgate/openai-agents`, `toolgate/langchain`) need their framework, as
 * docs/adapters.md says: one of them compiles only with its peer, which the test shows too.
 *
 * The project sees what a user's install has: its `node_modules` links every package of ours
 * but the optional peers and our development packages (and their `@types`), `typescript` and
 * `@types/node` kept; `toolgate` is a folder with our package.json and a link to `dist/`
 * (`preserveSymlinks`, so that nothing resolves through our own `node_modules`). The faster
 * stand-in for the packed install (test/package/packed-install.test.ts, TOOLGATE_PACK=1), which
 * compiles the same project in the user's install before any optional peer is added. Before,
 * `Ledger.connection()` named better-sqlite3's types too (TS7016: `@types/better-sqlite3` is a
 * development package). The folder is removed.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { REPO_ROOT } from '../helpers.js';
import { compileAgainstPackage } from './packed-project.js';

interface Manifest {
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
  peerDependencies: Record<string, string>;
  peerDependenciesMeta: Record<string, { optional?: boolean }>;
}

const manifest = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as Manifest;
const MODULES = path.join(REPO_ROOT, 'node_modules');
/** What the user compiles with. */
const KEPT = new Set(['typescript', '@types/node']);

/** The packages a user's install does not have: our development packages and the optional peers, and their `@types`. */
function hiddenPackages(): Set<string> {
  const hidden = new Set<string>();
  for (const name of [...Object.keys(manifest.devDependencies), ...Object.keys(manifest.peerDependenciesMeta).filter((n) => manifest.peerDependenciesMeta[n]!.optional === true)]) {
    if (KEPT.has(name) || name in manifest.dependencies) continue;
    hidden.add(name);
    if (!name.startsWith('@types/')) hidden.add(`@types/${name.startsWith('@') ? name.slice(1).replace('/', '__') : name}`);
  }
  return hidden;
}

describe('the public types compile without the optional peers, with skipLibCheck false', () => {
  let tmp = '';
  const hidden = hiddenPackages();

  before(() => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'toolgate-types-'));
    const modules = path.join(tmp, 'node_modules');
    fs.mkdirSync(modules);
    for (const entry of fs.readdirSync(MODULES)) {
      if (entry.startsWith('.') || entry === 'toolgate') continue;
      const names = entry.startsWith('@') ? fs.readdirSync(path.join(MODULES, entry)).map((inner) => `${entry}/${inner}`) : [entry];
      for (const name of names) {
        if (hidden.has(name)) continue;
        fs.mkdirSync(path.dirname(path.join(modules, name)), { recursive: true });
        fs.symlinkSync(path.join(MODULES, name), path.join(modules, name));
      }
    }
    const ours = path.join(modules, 'toolgate');
    fs.mkdirSync(ours);
    fs.copyFileSync(path.join(REPO_ROOT, 'package.json'), path.join(ours, 'package.json'));
    fs.symlinkSync(path.join(REPO_ROOT, 'dist'), path.join(ours, 'dist'));
  });
  after(() => {
    if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
  });

  /** A project in `tmp/<name>` (over `tmp/node_modules`; `source` as {@link compileAgainstPackage} takes it), compiled with skipLibCheck false. */
  function compile(name: string, source?: string) {
    const project = path.join(tmp, name);
    fs.mkdirSync(project);
    fs.symlinkSync(path.join(tmp, 'node_modules'), path.join(project, 'node_modules'));
    fs.writeFileSync(path.join(project, 'package.json'), JSON.stringify({ name, private: true, type: 'module' }));
    // preserveSymlinks: the linked packages resolve their imports in this node_modules, not in ours.
    return compileAgainstPackage(project, source, { preserveSymlinks: true, typeRoots: [path.join(tmp, 'node_modules/@types')] });
  }

  it('the project sees no optional peer', () => {
    for (const name of ['ai', '@openai/agents', '@langchain/core', '@opentelemetry/api', '@modelcontextprotocol/client', 'bullmq', 'pg', '@types/pg', '@types/better-sqlite3']) {
      assert.ok(hidden.has(name), `${name} is not hidden`);
      assert.equal(fs.existsSync(path.join(tmp, 'node_modules', name)), false, name);
    }
    assert.ok(fs.existsSync(path.join(tmp, 'node_modules/@modelcontextprotocol/server')), 'a dependency is there');
  });

  it('toolgate, toolgate/tool and toolgate/internal compile, the MCP bridge\'s options included', async () => {
    const { code, out } = await compile('main');
    assert.equal(code, 0, out);
    assert.doesNotMatch(out, /error TS/);
  });

  it('an adapter\'s subpath needs its framework, as its page says', async () => {
    const { code, out } = await compile('adapter', "import { toAiSdkTools } from 'toolgate/ai-sdk';\nexport const used = toAiSdkTools;\n");
    assert.notEqual(code, 0, out);
    assert.match(out, /error TS2307: Cannot find module 'ai'/);
  });
});
