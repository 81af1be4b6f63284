/**
 * The generated files are not stale: the committed schema files (`npm run schemas`), the API
 * reports (`npm run api-report`) and the wiki's tool table (`npm run wiki`) are what the
 * scripts make now. The scripts run as the
 * commands they are (`--check` writes nothing), as a test file so that `npm test` runs them
 * alongside the other files instead of before all of them.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { REPO_ROOT, type CliRun } from '../helpers.js';

/** Run `node dist/scripts/NAME --check` (or other arguments) from the repository root. */
function check(script: string, args: readonly string[] = ['--check']): Promise<CliRun> {
  return new Promise((resolve) => {
    execFile(process.execPath, [path.join(REPO_ROOT, 'dist/scripts', script), ...args], { cwd: REPO_ROOT }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : -1) : 0, stdout, stderr });
    });
  });
}

describe('generated files are up to date', { concurrency: true }, () => {
  test('tools/, tools-ported/ and test/fixtures/ tool-schemas.json (npm run schemas)', async () => {
    const run = await check('schemas.js');
    assert.equal(run.code, 0, `${run.stderr}${run.stdout}`);
    assert.match(run.stdout, /tools\/tool-schemas\.json: up to date/);
    assert.match(run.stdout, /tools-ported\/tool-schemas\.json: up to date/);
    assert.match(run.stdout, /test\/fixtures\/tool-schemas\.json: up to date/);
  });

  test('the API reports of every package entry, api/*.api.md (npm run api-report)', async () => {
    const run = await check('api-report.js');
    assert.equal(run.code, 0, `${run.stderr}${run.stdout}`);
    for (const entry of ['toolgate', 'toolgate-tool', 'toolgate-internal', 'toolgate-ai-sdk', 'toolgate-openai-agents', 'toolgate-langchain']) {
      assert.match(run.stdout, new RegExp(`api/${entry}\\.api\\.md: up to date`));
    }
  });

  test('the API report refuses an @internal name in a public entry, and an unmarked name in toolgate/internal', async (t) => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'toolgate-api-report-'));
    t.after(() => fs.rmSync(root, { recursive: true, force: true }));
    const exports = { '.': { types: './index.d.ts' }, './internal': { types: './internal.d.ts' } };
    fs.writeFileSync(path.join(root, 'package.json'), JSON.stringify({ name: 'toolgate', type: 'module', exports }));
    const write = (index: string, internal: string): void => {
      fs.writeFileSync(path.join(root, 'index.d.ts'), index);
      fs.writeFileSync(path.join(root, 'internal.d.ts'), internal);
    };
    write('export declare const shown: number;\n/**\n * A helper.\n *\n * @internal\n */\nexport declare function hidden(): void;\n', 'export declare const unmarked: number;\n/** @internal */\nexport declare const marked: number;\n');
    const bad = await check('api-report.js', ['--root', root]);
    assert.equal(bad.code, 1, bad.stdout);
    assert.match(bad.stderr, /toolgate is a public entry but exports hidden, marked @internal/);
    assert.match(bad.stderr, /toolgate\/internal exports unmarked, not marked @internal/);
    assert.doesNotMatch(bad.stderr, /shown|exports marked/);
    write('export declare const shown: number;\n', '/** @internal */\nexport declare const marked: number;\n');
    const good = await check('api-report.js', ['--root', root]);
    assert.equal(good.code, 0, good.stderr);
    assert.match(fs.readFileSync(path.join(root, 'api/toolgate-internal.api.md'), 'utf8'), /1 exports, all `@internal`/);
  });

  test('the tool table of wiki/Tools.md (npm run wiki)', async () => {
    const run = await check('wiki-tables.js');
    assert.equal(run.code, 0, `${run.stderr}${run.stdout}`);
    assert.match(run.stdout, /wiki\/Tools\.md: up to date/);
  });
});
