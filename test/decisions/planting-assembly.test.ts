/**
 * Planting by assembly (issue 30, item 7; case G2 and its family): a folder git would trust
 * (two of `HEAD`, `config`, `objects/`, `refs/`, `commondir`, `gitdir`) assembled in steps,
 * written piece by piece, moved in, or unpacked beside what is there, is refused in plan mode
 * (and asks elsewhere) at the step that completes the shape; a folder moved or deleted is
 * judged by what it holds (a `.git` inside asks); a later `git_branch` there runs nothing.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { ToolExecutor, type ExecuteOptions, type ToolExecutionResult } from 'toolgate';
import { portedRegistry, tempWorkspace, type TempWorkspace } from '../helpers.js';

describe('planting by assembly (G2)', () => {
  let t: TempWorkspace;
  let executor: ToolExecutor;
  before(async () => {
    t = tempWorkspace();
    executor = new ToolExecutor(await portedRegistry(), { workspaceRoot: t.ws });
  });
  after(async () => {
    await executor.close();
    t.cleanup();
  });

  const PLAN: ExecuteOptions = { mode: 'plan', scopedWriteDirs: ['plans'], approvalMode: 'allow-all' };
  const call = (name: string, args: Record<string, unknown>, options: ExecuteOptions = PLAN): Promise<ToolExecutionResult> => executor.execute({ name, arguments: args }, options);
  const ok = (r: ToolExecutionResult, what: string) => assert.equal(r.success, true, `${what}: ${r.errorCode} ${r.error}`);
  const refused = (r: ToolExecutionResult, what: string, code = 'MODE_DENIED') => {
    assert.equal(r.errorCode, code, `${what}: ${r.errorCode} ${r.error ?? r.output}`);
    assert.match(r.error!, /git repository folder|protected path/, what);
  };
  const at = (rel: string) => path.join(t.ws, rel);
  const PAGER_CONFIG = '[core]\n\tbare = true\n\tpager = touch pwn\n\tfsmonitor = touch pwn\n';

  test('G2: HEAD, config, objects/ and refs/ written separately: the step that makes two of them is refused', async () => {
    ok(await call('write_file', { filepath: 'plans/r/HEAD', content: 'ref: refs/heads/main\n' }), 'HEAD alone');
    refused(await call('make_directory', { directory: 'plans/r/objects' }), 'objects beside HEAD');
    assert.equal(fs.existsSync(at('plans/r/objects')), false);
    ok(await call('make_directory', { directory: 'plans/r2/objects' }), 'objects alone');
    refused(await call('make_directory', { directory: 'plans/r2/refs' }), 'refs beside objects');
    refused(await call('write_file', { filepath: 'plans/r2/config', content: PAGER_CONFIG }), 'config beside objects');
    assert.equal(fs.existsSync(at('plans/r2/config')), false);
  });

  test('G2: commondir and gitdir files count as shape (a folder pointing git at a planted config)', async () => {
    ok(await call('write_file', { filepath: 'plans/w/HEAD', content: 'ref: refs/heads/main\n' }), 'HEAD alone');
    refused(await call('write_file', { filepath: 'plans/w/commondir', content: '../stage\n' }), 'commondir beside HEAD');
    ok(await call('write_file', { filepath: 'plans/g/gitdir', content: '/x/.git\n' }), 'gitdir alone');
    refused(await call('write_file', { filepath: 'plans/g/HEAD', content: 'ref: refs/heads/main\n' }), 'HEAD beside gitdir');
    ok(await call('write_file', { filepath: 'plans/g2/COMMONDIR', content: '../stage\n' }), 'COMMONDIR alone');
    refused(await call('write_file', { filepath: 'plans/g2/head', content: 'x' }), 'case variants (a case-insensitive file system)');
  });

  test('G2: pieces moved in complete the shape: a file moved beside another, a folder named objects, a whole staged folder', async () => {
    ok(await call('write_file', { filepath: 'plans/a/HEAD', content: 'ref: refs/heads/main\n' }), 'HEAD in one folder');
    ok(await call('write_file', { filepath: 'plans/b/config', content: PAGER_CONFIG }), 'config in another');
    refused(await call('move_file', { source: 'plans/a/HEAD', destination: 'plans/b/HEAD' }), 'HEAD moved beside config');
    assert.equal(fs.existsSync(at('plans/b/HEAD')), false);
    refused(await call('copy_file', { source: 'plans/a/HEAD', destination: 'plans/b/HEAD' }), 'HEAD copied beside config');
    ok(await call('make_directory', { directory: 'plans/o' }), 'a plain folder');
    refused(await call('move_file', { source: 'plans/o', destination: 'plans/a/objects' }), 'a folder renamed objects beside HEAD');
    // A folder that holds the shape already (put there by other means) moved anywhere.
    fs.mkdirSync(at('plans/stage/objects'), { recursive: true });
    fs.mkdirSync(at('plans/stage/refs'), { recursive: true });
    refused(await call('move_file', { source: 'plans/stage', destination: 'plans/repo' }), 'a staged repository folder moved in');
    assert.equal(fs.existsSync(at('plans/repo')), false);
    // Deeper down too.
    fs.rmSync(at('plans/stage'), { recursive: true });
    fs.mkdirSync(at('plans/stage/deep/refs'), { recursive: true });
    fs.writeFileSync(at('plans/stage/deep/HEAD'), 'ref: refs/heads/main\n');
    refused(await call('move_file', { source: 'plans/stage', destination: 'plans/repo' }), 'a staged repository folder deeper down');
  });

  test('G2: an archive that holds only HEAD, unpacked where objects is, completes the shape', async () => {
    fs.mkdirSync(at('plans/x/objects'), { recursive: true });
    fs.mkdirSync(at('src-archive'), { recursive: true });
    fs.writeFileSync(at('src-archive/HEAD'), 'ref: refs/heads/main\n');
    execFileSync('tar', ['-czf', at('plans/head.tar.gz'), '-C', at('src-archive'), 'HEAD']);
    // extract_archive is not a scoped-write tool (plan mode refuses it whole): approved here, the tool refuses by itself.
    const r = await call('extract_archive', { filepath: 'plans/head.tar.gz', destination: 'plans/x' }, { confirm: true });
    assert.equal(r.success, false, 'refused');
    assert.match(r.error!, /git repository folder/);
    assert.equal(fs.existsSync(at('plans/x/HEAD')), false);
  });

  test('a folder moved or deleted is judged by what it holds: a .git or a protected name inside asks, outside plan mode too', async () => {
    fs.mkdirSync(at('proj2/.git'), { recursive: true });
    fs.writeFileSync(at('proj2/.git/config'), PAGER_CONFIG);
    fs.mkdirSync(at('hooks-src/.husky'), { recursive: true });
    const loose: ExecuteOptions = { approvalMode: 'allow-all' };
    for (const [name, args] of [
      ['move_file', { source: 'proj2', destination: 'proj3' }],
      ['delete_file', { filepath: 'proj2' }],
      ['move_file', { source: 'hooks-src', destination: 'hooks-dst' }],
    ] as const) {
      const r = await call(name, args, loose);
      assert.equal(r.errorCode, 'CONFIRMATION_REQUIRED', `${name} ${JSON.stringify(args)}: ${r.error}`);
      assert.match(r.error!, /protected path/);
    }
    assert.equal(fs.existsSync(at('proj2/.git/config')), true);
    assert.equal(fs.existsSync(at('proj3')), false);
    // A hard link to .git/config is the same file: writing it asks; the file is unchanged.
    fs.linkSync(at('proj2/.git/config'), at('innocent.txt'));
    const linked = await call('write_file', { filepath: 'innocent.txt', content: 'x' }, loose);
    assert.equal(linked.errorCode, 'CONFIRMATION_REQUIRED', linked.error);
    assert.match(linked.error!, /hard link/);
    assert.equal(fs.readFileSync(at('proj2/.git/config'), 'utf8'), PAGER_CONFIG);
    fs.rmSync(at('innocent.txt'));
    // A folder without one moves unasked.
    fs.mkdirSync(at('plain/sub'), { recursive: true });
    ok(await call('move_file', { source: 'plain', destination: 'plain2' }, loose), 'a plain folder');
  });

  test('G2: one apply_diff creating HEAD, config, objects/x and refs/x is refused whole: the paths of one call count together', async () => {
    const created = (file: string, line: string) => `--- /dev/null\n+++ b/${file}\n@@ -0,0 +1 @@\n+${line}\n`;
    const files = ['plans/p/HEAD', 'plans/p/config', 'plans/p/objects/x', 'plans/p/refs/x'];
    const lines = ['ref: refs/heads/main', '[core]\n+\tpager = touch PWN8', 'x', 'x'];
    const diff = files.map((file, i) => created(file, lines[i]!)).join('');
    refused(await call('apply_diff', { diff, filepaths: files }), 'a whole repository folder in one diff');
    refused(await call('apply_diff', { diff: created(files[0]!, lines[0]!) + created(files[2]!, 'x'), filepaths: [files[0]!, files[2]!] }), 'HEAD and objects/x in one diff');
    refused(await call('apply_diff', { diff: created('plans/q/HEAD', 'x') + created('plans/Q/config', 'x'), filepaths: ['plans/q/HEAD', 'plans/Q/config'] }), 'case variants of one folder');
    for (const file of files) assert.equal(fs.existsSync(at(file)), false, file);
    // Outside plan mode the same call asks (and is not answered here).
    const asked = await call('apply_diff', { diff, filepaths: files }, { confirm: false });
    assert.equal(asked.success, false, asked.output);
    assert.equal(fs.existsSync(at('plans/p')), false);
    // git finds no repository there: `git branch` runs no pager.
    fs.mkdirSync(at('plans/p'), { recursive: true });
    let git = '';
    try {
      git = execFileSync('git', ['branch'], { cwd: at('plans/p'), env: { ...process.env, GIT_CEILING_DIRECTORIES: t.ws, GIT_PAGER: '', PAGER: '' }, stdio: 'pipe' }).toString();
    } catch (error) {
      git = String(error);
    }
    assert.equal(fs.existsSync(at('plans/p/PWN8')), false, git);
    // Files of one diff in different folders, none of them a shape, still apply.
    ok(await call('apply_diff', { diff: created('plans/s/HEAD', 'x') + created('plans/u/config', 'x'), filepaths: ['plans/s/HEAD', 'plans/u/config'] }), 'HEAD and config in separate folders');
  });

  test('G2: a later git_branch in a repository folder planted by other means runs nothing (safe.bareRepository=explicit)', async () => {
    const planted = at('plans/planted');
    fs.mkdirSync(path.join(planted, 'objects'), { recursive: true });
    fs.mkdirSync(path.join(planted, 'refs/heads'), { recursive: true });
    fs.writeFileSync(path.join(planted, 'HEAD'), 'ref: refs/heads/main\n');
    fs.writeFileSync(path.join(planted, 'config'), PAGER_CONFIG.replaceAll('touch pwn', `touch ${path.join(t.ws, 'pwn')}`));
    for (const name of ['git_branch', 'git_status', 'git_log']) {
      const r = await executor.execute({ name, arguments: { repository: 'plans/planted' } }, { confirm: true });
      assert.equal(r.success, false, `${name}: ${r.output}`);
      assert.match(r.error!, /bare repository|not a git repository|not in a git repository|no work tree/i, name);
    }
    assert.equal(fs.existsSync(at('pwn')), false);
    assert.equal(fs.existsSync(path.join(planted, 'pwn')), false);
  });
});
