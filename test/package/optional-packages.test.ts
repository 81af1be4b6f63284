/**
 * The optional packages (issue 34, a lighter install): every feature whose package is not
 * installed answers with the package's name and the `npm install` command, and nothing else
 * fails with it. The features run as a user runs them, through the CLI (`toolgate call`,
 * `toolgate schemas`) or the SDK's model client, with the package hidden by
 * TOOLGATE_HIDE_PACKAGES (src/util/optional-package.ts), which answers as a missing package
 * does; the helper's own missing-package path is checked with a package that exists nowhere.
 * The packed-install test (test/package/packed-install.test.ts) checks the same answers with
 * the packages really absent.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PackageUnavailableError, ToolgateError } from 'toolgate';
import { HIDE_PACKAGES_ENV, loadOptional, packageOf, requireOptional, resolveOptional } from '../../src/util/optional-package.js';
import { OpenAIChatModel } from '../../src/agents/model-client.js';
import { REPO_ROOT, runCli } from '../helpers.js';
import { startWebFixture, type WebFixture } from '../web-fixture.js';
import { NET_ALLOW_ENV } from '../../tools-ported/common/net-policy.js';

/** A 1x1 PNG. */
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==', 'base64');

let tmp = '';
let site: WebFixture;

before(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'toolgate-optional-'));
  fs.writeFileSync(path.join(tmp, 'dot.png'), PNG);
  fs.writeFileSync(path.join(tmp, 'doc.pdf'), '%PDF-1.4\n%%EOF\n');
  fs.writeFileSync(path.join(tmp, 'a.tool.ts'), "export const x = 1;\n");
  site = await startWebFixture('127.0.0.1');
});

after(async () => {
  await site?.close();
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

/** `toolgate ARGS` in the temp folder with `hidden` packages hidden. */
function cliWithout(hidden: string[], args: string[], env: NodeJS.ProcessEnv = {}) {
  return runCli(args, { cwd: tmp, env: { ...process.env, ...env, [HIDE_PACKAGES_ENV]: hidden.join(',') } });
}

/** The CLI failed and said what to install. */
function assertNamed(run: { code: number | null; stdout: string; stderr: string }, packages: string[]): void {
  assert.notEqual(run.code, 0, run.stdout);
  const said = run.stdout + run.stderr;
  assert.match(said, /unavailable: /, said);
  assert.ok(said.includes(`npm install ${packages.join(' ')}`), said);
  for (const name of packages) assert.ok(said.includes(`\`${name}\``), `${name} in: ${said}`);
}

describe('a feature without its optional package names the package', () => {
  const tools: Array<[string, string[], Record<string, unknown>]> = [
    ['calculate', ['mathjs'], { expression: '1 + 1' }],
    ['image_info', ['sharp'], { filepath: 'dot.png' }],
    ['resize_image', ['sharp'], { filepath: 'dot.png', destination: 'small.png', width: 1 }],
    ['read_pdf', ['pdfjs-dist'], { filepath: 'doc.pdf' }],
    ['execute_python', ['pyodide'], { code: 'print(1)' }],
  ];
  for (const [name, packages, args] of tools) {
    it(`${name}: ${packages.join(', ')}`, async () => {
      const run = await cliWithout(packages, ['call', name, JSON.stringify(args), '--workspace', tmp, '--yes']);
      assertNamed(run, packages);
      assert.doesNotMatch(run.stderr, /at .*\.js:\d+/, 'no stack trace');
    });
  }

  it('web_fetch of an HTML page: linkedom, @mozilla/readability, turndown (a text page still reads)', async () => {
    const env = { [NET_ALLOW_ENV]: '127.0.0.1' };
    const page = await cliWithout(['turndown'], ['call', 'web_fetch', JSON.stringify({ url: `${site.base}/article` }), '--workspace', tmp], env);
    assertNamed(page, ['linkedom', '@mozilla/readability', 'turndown']);
    const text = await cliWithout(['turndown'], ['call', 'web_fetch', JSON.stringify({ url: `${site.base}/plain` }), '--workspace', tmp], env);
    assert.equal(text.code, 0, text.stderr);
  });

  it('toolgate schemas: typescript and typescript-json-schema', async () => {
    const run = await cliWithout(['typescript-json-schema'], ['schemas', 'a.tool.ts', '--out', 'tool-schemas.json']);
    assertNamed(run, ['typescript', 'typescript-json-schema']);
    assert.equal(run.code, 1);
    assert.match(run.stderr, /^toolgate: unavailable: schema generation/);
    assert.doesNotMatch(run.stderr, /\bat .*\.js:\d+/, 'no stack trace');
    assert.equal(fs.existsSync(path.join(tmp, 'tool-schemas.json')), false);
  });

  it('the shipped tools need no compiler: toolgate call with typescript hidden', async () => {
    const run = await cliWithout(['typescript', 'typescript-json-schema'], ['call', 'read_file', '{"filepath":"a.tool.ts"}', '--workspace', tmp]);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /export const x/);
  });

  it('toolgate agent: openai', async () => {
    const run = await cliWithout(['openai'], ['agent', 'hi', '--base-url', 'http://127.0.0.1:9/v1', '--model', 'm', '--workspace', tmp]);
    assertNamed(run, ['openai']);
  });

  it("the SDK's model client: openai (a thrown PackageUnavailableError)", async () => {
    const saved = process.env[HIDE_PACKAGES_ENV];
    process.env[HIDE_PACKAGES_ENV] = 'openai';
    try {
      const model = new OpenAIChatModel({ model: 'm', baseURL: 'http://127.0.0.1:9/v1' });
      const error = await model.complete({ messages: [{ role: 'user', content: 'hi' }], tools: [] }).then(() => assert.fail('expected a failure'), (e: unknown) => e);
      assert.ok(error instanceof PackageUnavailableError, String(error));
      assert.equal(error.code, 'PACKAGE_UNAVAILABLE');
      assert.deepEqual(error.packages, ['openai']);
      assert.match(error.message, /npm install openai/);
    } finally {
      if (saved === undefined) delete process.env[HIDE_PACKAGES_ENV];
      else process.env[HIDE_PACKAGES_ENV] = saved;
    }
  });

  it('toolgate approvals --store postgres://: pg', async () => {
    // Refused before any connection is tried (nothing listens on port 9).
    const run = await cliWithout(['pg'], ['approvals', 'list', '--store', 'postgres://toolgate@127.0.0.1:9/toolgate']);
    assertNamed(run, ['pg']);
  });

  it('toolgate worker --queue: bullmq', async () => {
    const run = await cliWithout(['bullmq'], ['worker', '--workspace', tmp, '--store', path.join(tmp, 'store.sqlite'), '--queue', 'redis://127.0.0.1:9']);
    assertNamed(run, ['bullmq']);
  });
});

describe('loadOptional, requireOptional and resolveOptional', () => {
  it('a package installed nowhere: PackageUnavailableError naming it', async () => {
    const error = await loadOptional('toolgate-no-such-package/sub.js', 'a test feature').then(() => assert.fail('loaded'), (e: unknown) => e);
    assert.ok(error instanceof PackageUnavailableError && error instanceof ToolgateError);
    assert.deepEqual(error.packages, ['toolgate-no-such-package']);
    assert.equal(error.message, 'unavailable: a test feature needs the package `toolgate-no-such-package`, not installed here. Install it: npm install toolgate-no-such-package');
    assert.throws(() => resolveOptional('@toolgate-none/pkg/package.json', 'x'), (e: unknown) => e instanceof PackageUnavailableError && e.packages[0] === '@toolgate-none/pkg');
    assert.throws(() => requireOptional('@toolgate-none/pkg', 'a test feature'), (e: unknown) => e instanceof PackageUnavailableError && e.packages[0] === '@toolgate-none/pkg' && /npm install @toolgate-none\/pkg/.test(e.message));
  });

  it('requireOptional: an installed CommonJS package loads at once; a hidden one is unavailable', () => {
    assert.equal(requireOptional<{ valid: (v: string) => string | null }>('semver', 'a test').valid('1.2.3'), '1.2.3');
    const saved = process.env[HIDE_PACKAGES_ENV];
    process.env[HIDE_PACKAGES_ENV] = 'semver';
    try {
      assert.throws(() => requireOptional('semver', 'a test'), (e: unknown) => e instanceof PackageUnavailableError && e.packages[0] === 'semver');
    } finally {
      if (saved === undefined) delete process.env[HIDE_PACKAGES_ENV];
      else process.env[HIDE_PACKAGES_ENV] = saved;
    }
  });

  it('an installed package loads; a broken module inside one is not reported as missing', async () => {
    const semver = await loadOptional<{ valid: (v: string) => string | null }>('semver', 'a test');
    assert.equal(semver.valid('1.2.3'), '1.2.3');
    assert.ok(fs.existsSync(resolveOptional('semver/package.json', 'a test')));
    // A file missing inside an installed package is a broken install, not a missing package.
    await assert.rejects(loadOptional('semver/no-such-file.js', 'a test'), (e: unknown) => !(e instanceof PackageUnavailableError));
  });

  it('packageOf: the npm name of a specifier', () => {
    assert.equal(packageOf('pdfjs-dist/legacy/build/pdf.mjs'), 'pdfjs-dist');
    assert.equal(packageOf('@mozilla/readability'), '@mozilla/readability');
    assert.equal(packageOf('@scope/name/deep/file.js'), '@scope/name');
  });

  it('every optional peer of package.json is a devDependency (the tests here have it) and not a dependency', () => {
    const pkg = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as Record<string, Record<string, unknown>>;
    for (const [name, meta] of Object.entries(pkg.peerDependenciesMeta!)) {
      assert.deepEqual(meta, { optional: true }, name);
      assert.ok(name in pkg.devDependencies!, `${name} is a devDependency`);
      assert.equal(pkg.dependencies![name], undefined, `${name} is not a dependency`);
    }
  });
});
