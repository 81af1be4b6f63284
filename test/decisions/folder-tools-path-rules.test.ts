/**
 * Folder-walking tools under the policy's path rules (issue 30, item 2; case P9's family): a
 * tool given a whole folder (`grep_files directory="."`) finds what the folder holds by
 * itself, so the deciders never see those paths; the call's path rules reach the tool through
 * `ctx.workspace.withholds()`, and each walking tool leaves out what a deny rule (or an ask
 * rule nobody answered) covers, by its real path and its spelling, and says how many entries
 * it withheld.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, beforeEach, describe, test } from 'node:test';
import { ToolExecutor } from 'toolgate';
import { findPathArguments, pathValues } from '../../src/schema/path-arguments.js';
import { CallContext } from '../../src/runner/call-context.js';
import { cliInProcess } from '../cli/in-process.js';
import { portedRegistry, tempWorkspace } from '../helpers.js';
import { policyExecutor } from '../policy-executor.js';

describe('folder-walking tools leave out what the path rules withhold (P9)', () => {
  const { t, userFile, asked, call } = policyExecutor({ executor: { approvalMode: 'allow-all' }, person: 'allow_once', emptyEachTest: true });
  beforeEach(() => {
    fs.mkdirSync(path.join(t.ws, 'secrets'));
    fs.writeFileSync(path.join(t.ws, 'secrets/key.txt'), 'SECRET KEY needle\n');
    fs.mkdirSync(path.join(t.ws, 'src'));
    fs.writeFileSync(path.join(t.ws, 'src/app.ts'), 'const needle = 1;\n');
    fs.writeFileSync(path.join(t.ws, 'ok.txt'), 'ok needle\n');
    fs.writeFileSync(path.join(t.ws, '.env'), 'TOKEN=SECRET ENV needle\n');
    fs.symlinkSync('.env', path.join(t.ws, 'env-link'));
    fs.symlinkSync('secrets', path.join(t.ws, 'secret-dir-link'));
  });

  let size = 0;
  /** Write the user's policy file (a new size each time, so the re-check sees the change). */
  const policy = (text: string) => fs.writeFileSync(userFile, `${text}\n${'#'.repeat(++size)}\n`);
  const DENY = '[[rules]]\naction = "deny"\npaths = ".env"\n\n[[rules]]\naction = "deny"\npaths = "secrets/**"';

  /** Each folder-walking tool over the whole workspace, and what it must still show. */
  const walks: Array<[string, Record<string, unknown>, RegExp]> = [
    ['grep_files', { pattern: 'needle', directory: '.' }, /ok\.txt/],
    ['grep_files', { pattern: 'needle', directory: '.', include: ['**/*', '.*'] }, /src\/app\.ts/],
    ['find_files', { pattern: '*', directory: '.' }, /ok\.txt/],
    ['find_files', { pattern: '*', directory: '.', type: 'any' }, /src/],
    ['tree', { directory: '.' }, /ok\.txt/],
    ['list_files', { directory: '.' }, /ok\.txt/],
    ['list_files', { directory: '.', recursive: true }, /src\/app\.ts/],
  ];

  for (const [name, args, shows] of walks) {
    test(`P9: ${name} ${JSON.stringify(args)} under a deny on .env and secrets/** shows nothing of .env, env-link or secrets/, and the rest`, async () => {
      policy(DENY);
      const r = await call(name, args);
      assert.equal(r.success, true, `${r.errorCode} ${r.error}`);
      const out = String(r.output);
      assert.match(out, shows);
      assert.doesNotMatch(out, /SECRET/);
      assert.doesNotMatch(out, /\.env|env-link/);
      assert.doesNotMatch(out, /secrets|secret-dir-link/);
      assert.match(out, /entr(y was|ies were) withheld by the policy's path rules/);
      assert.equal(asked.length, 0);
    });
  }

  test('P9: without path rules the same walks show .env and secrets/ (the filter is what hides them)', async () => {
    policy('[[rules]]\naction = "deny"\npaths = "nothing-here"');
    const r = await call('grep_files', { pattern: 'needle', directory: '.' });
    assert.match(String(r.output), /secrets\/key\.txt/);
    assert.doesNotMatch(String(r.output), /withheld/);
    const tree = await call('tree', { directory: '.' });
    assert.match(String(tree.output), /\.env/);
  });

  test('P9: an ask rule on secrets/** that nobody was asked about withholds secrets/ from a walk of "."', async () => {
    policy('[[rules]]\naction = "ask"\npaths = "secrets/**"');
    const r = await call('grep_files', { pattern: 'needle', directory: '.' });
    assert.equal(r.success, true, `${r.errorCode} ${r.error}`);
    assert.equal(asked.length, 0);
    assert.doesNotMatch(String(r.output), /SECRET KEY/);
    assert.match(String(r.output), /ok\.txt/);
  });

  test('P9: an ask rule the person answered yes for this call withholds nothing it asked about', async () => {
    policy('[[rules]]\naction = "ask"\npaths = "secrets/**"');
    const r = await call('grep_files', { pattern: 'needle', directory: 'secrets' });
    assert.equal(asked.length, 1);
    assert.match(String(r.output), /SECRET KEY/);
  });

  test('P9: extract_archive of an archive whose member would land on .env or in secrets/ is refused before anything is written', async () => {
    policy('[[rules]]\naction = "deny"\npaths = "nothing-here"');
    fs.rmSync(path.join(t.ws, 'env-link'));
    fs.rmSync(path.join(t.ws, 'secret-dir-link'));
    const made = await call('create_archive', { paths: ['.'], destination: 'all.tar.gz' });
    assert.equal(made.success, true, `${made.errorCode} ${made.error}`);
    fs.rmSync(path.join(t.ws, '.env'));
    fs.rmSync(path.join(t.ws, 'secrets'), { recursive: true });
    fs.rmSync(path.join(t.ws, 'ok.txt'));
    fs.rmSync(path.join(t.ws, 'src'), { recursive: true });
    for (const rule of ['.env', 'secrets/**']) {
      policy(`[[rules]]\naction = "deny"\npaths = "${rule}"`);
      const r = await call('extract_archive', { filepath: 'all.tar.gz', destination: '.' });
      assert.equal(r.success, false, rule);
      assert.match(String(r.error), /the policy's rules deny/, rule);
      assert.deepEqual(fs.readdirSync(t.ws).sort(), ['all.tar.gz'], `${rule}: nothing was written`);
    }
    // The same archive into another folder lands nowhere a rule denies.
    const elsewhere = await call('extract_archive', { filepath: 'all.tar.gz', destination: 'out' });
    assert.equal(elsewhere.success, true, `${elsewhere.errorCode} ${elsewhere.error}`);
    assert.equal(fs.readFileSync(path.join(t.ws, 'out/ok.txt'), 'utf8'), 'ok needle\n');
  });
});

describe('toolgate policy check --explain judges the paths the decider judges (P9)', () => {
  const t = tempWorkspace();
  after(t.cleanup);
  const config = path.join(t.root, 'config');
  const env = { ...process.env, XDG_CONFIG_HOME: config };
  const userFile = path.join(config, 'toolgate', 'policy.toml');
  const explain = (call: Record<string, unknown>) => cliInProcess(['policy', 'check', '--explain', JSON.stringify(call), '--workspace', t.ws], { env });

  test('P9: a link read by its own name, and a hard link of .env, are denied in --explain as the decider denies them', async () => {
    fs.mkdirSync(path.dirname(userFile), { recursive: true });
    fs.writeFileSync(path.join(t.ws, '.env'), 'TOKEN=x\n');
    fs.symlinkSync('.env', path.join(t.ws, 'env-link'));
    fs.linkSync(path.join(t.ws, '.env'), path.join(t.ws, 'notes.txt'));
    fs.writeFileSync(userFile, '[[rules]]\naction = "deny"\npaths = "env-link"\n');
    const byName = await explain({ name: 'read_file', arguments: { filepath: 'env-link' } });
    assert.equal(byName.code, 0, byName.stderr);
    assert.match(byName.stdout, /paths \.env, env-link/);
    assert.match(byName.stdout, /verdict {4}deny/);
    fs.writeFileSync(userFile, '[[rules]]\naction = "deny"\npaths = ".env"\n');
    const alias = await explain({ name: 'read_file', arguments: { filepath: 'notes.txt' } });
    assert.match(alias.stdout, /verdict {4}deny/, alias.stdout);
    const plain = await explain({ name: 'read_file', arguments: { filepath: 'other.txt' } });
    assert.doesNotMatch(plain.stdout, /verdict {4}deny/, plain.stdout);
  });
});

describe('read_image and describe_image: a source that is not an http(s) URL is a path argument (P9)', () => {
  test('P9: the source schema is workspace-path-or-url; a URL is no path, anything else is', async () => {
    const registry = await portedRegistry();
    for (const name of ['read_image', 'describe_image']) {
      const tool = registry.get(name)!;
      assert.deepEqual(findPathArguments(tool.inputSchema), [{ name: 'source', isArray: false, orUrl: true }], name);
      assert.deepEqual(pathValues({ source: 'env-link' }, tool.pathArguments), ['env-link']);
      assert.deepEqual(pathValues({ source: ' HTTPS://example.com/a.png' }, tool.pathArguments), []);
      assert.deepEqual(pathValues({ source: 'ftp://example.com/a.png' }, tool.pathArguments), ['ftp://example.com/a.png']);
    }
  });

  test('P9: read_image and describe_image of env-link -> .env under a deny on .env are denied', async () => {
    const registry = await portedRegistry();
    const t = tempWorkspace();
    const userFile = path.join(t.root, 'config', 'toolgate', 'policy.toml');
    fs.mkdirSync(path.dirname(userFile), { recursive: true });
    fs.writeFileSync(userFile, '[[rules]]\naction = "deny"\npaths = ".env"\n');
    fs.writeFileSync(path.join(t.ws, '.env'), 'TOKEN=SECRET\n');
    fs.symlinkSync('.env', path.join(t.ws, 'env-link'));
    const executor = new ToolExecutor(registry, { workspaceRoot: t.ws, policy: { user: userFile, workspace: false }, approvalMode: 'allow-all' });
    try {
      for (const name of ['read_image', 'describe_image']) {
        const r = await executor.execute({ name, arguments: { source: 'env-link' } });
        assert.equal(r.errorCode, 'POLICY_DENIED', `${name}: ${r.errorCode} ${r.error}`);
        assert.match(String(r.error), /"\.env"/);
      }
    } finally {
      await executor.close();
      t.cleanup();
    }
  });
});

describe('ctx.workspace.withholds (the path filter a call carries)', () => {
  test('P9: judged by real path and spelling, ask rules answered for the call withhold nothing, a note counts what was withheld', async () => {
    const t = tempWorkspace();
    try {
      const userFile = path.join(t.root, 'policy.toml');
      fs.writeFileSync(userFile, '[[rules]]\naction = "deny"\npaths = ".env"\n\n[[rules]]\naction = "ask"\npaths = "drafts/**"\n\n[[rules]]\naction = "deny"\npaths = "named-link"\n');
      fs.writeFileSync(path.join(t.ws, '.env'), 'x');
      fs.symlinkSync('.env', path.join(t.ws, 'env-link'));
      fs.writeFileSync(path.join(t.ws, 'ok.txt'), 'x');
      fs.symlinkSync('ok.txt', path.join(t.ws, 'named-link'));
      const spec = { user: userFile, tool: { name: 'tree', kind: 'file_read', commandArguments: [] }, answered: [] as string[] };
      const ctx = new CallContext('c1', 'tree', '1.0.0', t.ws, false, 1000);
      ctx.pathFilter = spec;
      const ws = ctx.workspace;
      assert.equal(await ws.withholds('.env'), true);
      assert.equal(await ws.withholds(path.join(t.ws, 'env-link')), true, 'a link is judged by its target');
      assert.equal(await ws.withholds('named-link'), true, 'and by its own name');
      assert.equal(await ws.withholds('ok.txt'), false);
      assert.equal(await ws.withholds('drafts/a.md'), true, 'an ask rule nobody answered');
      assert.equal(await ws.withholds('.'), false);
      assert.equal(ws.withheld, 4);
      assert.match(ctx.notes.at(-1)!, /^4 entries were withheld by the policy's path rules/);
      const answered = new CallContext('c2', 'tree', '1.0.0', t.ws, false, 1000);
      answered.pathFilter = { ...spec, answered: [`${userFile}:5`] };
      assert.equal(await answered.workspace.withholds('drafts/a.md'), false, 'the ask rule was answered for this call');
      assert.deepEqual(answered.notes, []);
      const unfiltered = new CallContext('c3', 'tree', '1.0.0', t.ws, false, 1000);
      assert.equal(await unfiltered.workspace.withholds('.env'), false, 'no path rules, nothing withheld');
    } finally {
      t.cleanup();
    }
  });
});

describe('git_diff and git_show leave out what the path rules withhold (P9)', () => {
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH, HOME: os.tmpdir(), GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1', LC_ALL: 'C',
    GIT_AUTHOR_NAME: 'T', GIT_AUTHOR_EMAIL: 't@example.test', GIT_COMMITTER_NAME: 'T', GIT_COMMITTER_EMAIL: 't@example.test',
  };
  const git = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });

  test('P9: a diff of the whole repository, a commit, and "HEAD:.env" show nothing of .env or secrets/ under a deny on them', async () => {
    const registry = await portedRegistry();
    const t = tempWorkspace();
    const userFile = path.join(t.root, 'policy.toml');
    fs.writeFileSync(userFile, '[[rules]]\naction = "deny"\npaths = ".env"\n\n[[rules]]\naction = "deny"\npaths = "secrets/**"\n');
    git(t.ws, 'init', '-q', '-b', 'main');
    fs.writeFileSync(path.join(t.ws, '.env'), 'TOKEN=old\n');
    fs.mkdirSync(path.join(t.ws, 'secrets'));
    fs.writeFileSync(path.join(t.ws, 'secrets/key.txt'), 'KEY old\n');
    fs.writeFileSync(path.join(t.ws, 'ok.txt'), 'ok old\n');
    git(t.ws, 'add', '-A');
    git(t.ws, 'commit', '-q', '-m', 'first');
    fs.writeFileSync(path.join(t.ws, '.env'), 'TOKEN=SECRET\n');
    fs.writeFileSync(path.join(t.ws, 'secrets/key.txt'), 'KEY SECRET\n');
    fs.writeFileSync(path.join(t.ws, 'ok.txt'), 'ok new\n');
    const executor = new ToolExecutor(registry, { workspaceRoot: t.ws, policy: { user: userFile, workspace: false }, approvalMode: 'allow-all' });
    try {
      const diff = await executor.execute({ name: 'git_diff', arguments: {} });
      assert.equal(diff.success, true, `${diff.errorCode} ${diff.error}`);
      assert.match(diff.output, /ok new/);
      assert.doesNotMatch(diff.output, /SECRET|TOKEN|KEY|\.env|secrets/);
      assert.match(diff.output, /2 entries were withheld/);
      git(t.ws, 'commit', '-q', '-a', '-m', 'second');
      const show = await executor.execute({ name: 'git_show', arguments: {} });
      assert.equal(show.success, true, `${show.errorCode} ${show.error}`);
      assert.match(show.output, /ok new/);
      assert.doesNotMatch(show.output, /SECRET|TOKEN|KEY|\.env|secrets/);
      const onlySecrets = await executor.execute({ name: 'git_diff', arguments: { ref: 'HEAD~1', paths: ['secrets', '.env'] } });
      assert.doesNotMatch(String(onlySecrets.output), /SECRET|TOKEN|KEY/);
      for (const ref of ['HEAD:.env', 'HEAD:secrets/key.txt', 'HEAD~1:./.env']) {
        const file = await executor.execute({ name: 'git_show', arguments: { ref } });
        assert.equal(file.success, false, ref);
        assert.doesNotMatch(`${file.output}${file.error}`, /SECRET|TOKEN=|KEY old/, ref);
      }
      const okFile = await executor.execute({ name: 'git_show', arguments: { ref: 'HEAD:ok.txt' } });
      assert.match(okFile.output, /ok new/);
    } finally {
      await executor.close();
      t.cleanup();
    }
  });
});

