/**
 * The generated files are not stale: the committed schema files (`npm run schemas`), the API
 * reports (`npm run api-report`) and the wiki's tool table (`npm run wiki`) are what the
 * scripts make now. The scripts run as the
 * commands they are (`--check` writes nothing), as a test file so that `npm test` runs them
 * alongside the other files instead of before all of them.
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { REPO_ROOT, type CliRun } from '../helpers.js';

/** Run `node dist/scripts/NAME --check` from the repository root. */
function check(script: string): Promise<CliRun> {
  return new Promise((resolve) => {
    execFile(process.execPath, [path.join(REPO_ROOT, 'dist/scripts', script), '--check'], { cwd: REPO_ROOT }, (error, stdout, stderr) => {
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
    for (const entry of ['toolgate', 'toolgate-tool', 'toolgate-ai-sdk', 'toolgate-openai-agents', 'toolgate-langchain']) {
      assert.match(run.stdout, new RegExp(`api/${entry}\\.api\\.md: up to date`));
    }
  });

  test('the tool table of wiki/Tools.md (npm run wiki)', async () => {
    const run = await check('wiki-tables.js');
    assert.equal(run.code, 0, `${run.stderr}${run.stdout}`);
    assert.match(run.stdout, /wiki\/Tools\.md: up to date/);
  });
});
