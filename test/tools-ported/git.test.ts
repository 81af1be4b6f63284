/**
 * The ported git tools (tools-ported/git/) through the library: the ported registry, a real
 * ToolExecutor, and temporary repositories made here with the real git program, each its own
 * workspace inside a temporary folder (`/tmp/x/<name>`, with `outside/` beside it).
 *
 * Every tool: its success path, each documented error, and bad input (refs and paths that start
 * with "-", case R6; paths outside the workspace or the repository). A repository whose config
 * sets core.fsmonitor, every hook, filter drivers, diff drivers, a pager and an editor to a
 * script that writes a marker: after every tool no marker exists (and plain git, run on the
 * same repository, does write one, so the fixture is armed). Commit messages with `$(...)` and
 * backticks stay data (case R5). A repository reached through a `.git` file or `core.worktree`
 * that leads outside the workspace is refused as a path traversal. The process runner kills
 * git's whole process group on abort and timeout, and bounds its output.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ToolExecutor, type ToolExecutionResult } from 'toolgate';
import { assertFailed, assertOk, assertTraversal, callsTo, portedRegistry } from '../helpers.js';
import { filterDriverOverrides, gitEnv, runGit, SAFE_GIT_CONFIG } from '../../tools-ported/git/git-process.js';
import { checkRef, GitToolError } from '../../tools-ported/git/git-repository.js';
import { waitFor, wholeNumberIn } from '../wait.js';

const GIT_TOOLS = ['git_add', 'git_blame', 'git_branch', 'git_checkout', 'git_commit', 'git_diff', 'git_log', 'git_show', 'git_status'];
const READ_TOOLS = new Set(['git_blame', 'git_diff', 'git_log', 'git_show', 'git_status']);

let base: string;
let outside: string;
let executor: ToolExecutor;

/** Environment of the set-up git commands: no user or system config, a fixed identity. */
const SETUP_ENV: NodeJS.ProcessEnv = {
  PATH: process.env.PATH,
  HOME: os.tmpdir(),
  GIT_CONFIG_GLOBAL: '/dev/null',
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_AUTHOR_NAME: 'Test Author',
  GIT_AUTHOR_EMAIL: 'author@example.test',
  GIT_COMMITTER_NAME: 'Test Author',
  GIT_COMMITTER_EMAIL: 'author@example.test',
  LC_ALL: 'C',
};

/** Run git for set-up (not through a tool); returns its standard output. */
function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd, env: SETUP_ENV, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

/** A new workspace folder `base/<name>` (not a repository). */
function workspace(name: string): string {
  const ws = path.join(base, name);
  fs.mkdirSync(ws, { recursive: true });
  return ws;
}

/**
 * A new workspace holding a repository at its root (branch main) with two commits: `a.txt`
 * ("one\ntwo\nthree\n") and then `b.txt`; user.name and user.email set in its config.
 */
function repository(name: string): string {
  const ws = workspace(name);
  git(ws, 'init', '-q', '-b', 'main');
  git(ws, 'config', 'user.name', 'Repo User');
  git(ws, 'config', 'user.email', 'repo@example.test');
  put(ws, 'a.txt', 'one\ntwo\nthree\n');
  git(ws, 'add', 'a.txt');
  git(ws, 'commit', '-q', '-m', 'first: add a.txt');
  put(ws, 'b.txt', 'bee\n');
  git(ws, 'add', 'b.txt');
  git(ws, 'commit', '-q', '-m', 'second: add b.txt');
  return ws;
}

function put(ws: string, rel: string, content: string | Uint8Array): void {
  const file = path.join(ws, rel);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, content);
}

function read(ws: string, rel: string): string {
  return fs.readFileSync(path.join(ws, rel), 'utf8');
}

const callTool = callsTo(() => executor);
/** Run one call in workspace `ws` (confirmed unless `confirm` is false). */
function call(ws: string, name: string, args: Record<string, unknown>, confirm = true): Promise<ToolExecutionResult> {
  return callTool(name, args, { workspaceRoot: ws, confirm });
}

const ok = assertOk;

/** A failed call with this code and a message matching `pattern`. */
function failed(result: ToolExecutionResult, code: string, pattern: RegExp): void {
  assertFailed(result, pattern, code);
}

before(async () => {
  base = fs.mkdtempSync(path.join(os.tmpdir(), 'toolgate-git-'));
  outside = path.join(base, 'outside');
  fs.mkdirSync(outside);
  executor = new ToolExecutor(await portedRegistry(), { workspaceRoot: workspace('default') });
});

after(async () => {
  await executor?.close();
  if (base) fs.rmSync(base, { recursive: true, force: true });
});

// ---------------------------------------------------------------------------------------------
describe('git tools: registration', () => {
  test('the nine git tools load through loadPortedTools with their flags', async () => {
    const registry = await portedRegistry();
    for (const name of GIT_TOOLS) {
      const t = registry.get(name);
      assert.ok(t, `${name} is registered`);
      assert.equal(t.version, '1.0.0');
      assert.deepEqual([...t.tags].sort(), ['git', 'ported'], name);
      assert.equal(t.readOnly, READ_TOOLS.has(name), `${name} readOnly`);
      assert.equal(t.requiresConfirmation, !READ_TOOLS.has(name), `${name} requiresConfirmation`);
      assert.equal(t.runner, 'main', `${name}: runs on the main thread, so an abort always reaches the git process`);
      assert.match(t.description, /git/i);
    }
  });

  test('path arguments are marked @format workspace-path, also the items of optional path arrays', async () => {
    const registry = await portedRegistry();
    const expected: Record<string, string[]> = {
      git_status: ['repository'], git_diff: ['paths', 'repository'], git_log: ['paths', 'repository'], git_show: ['paths', 'repository'],
      git_blame: ['filepath', 'repository'], git_add: ['paths', 'repository'], git_commit: ['repository'], git_branch: ['repository'],
      git_checkout: ['repository'],
    };
    for (const [name, args] of Object.entries(expected)) {
      assert.deepEqual(registry.get(name)!.pathArguments.map((a) => a.name).sort(), args, name);
    }
    const logPaths = (registry.get('git_log')!.inputSchema.properties as Record<string, { items?: { format?: string } }>).paths!;
    assert.equal(logPaths.items?.format, 'workspace-path', 'an optional array keeps its @items.format');
  });

  test('mutating git tools need confirmation; read-only modes allow only the reads', async () => {
    const ws = repository('reg-gates');
    for (const name of ['git_add', 'git_commit', 'git_branch', 'git_checkout']) {
      const args = name === 'git_add' ? { paths: ['a.txt'] } : name === 'git_commit' ? { message: 'x' } : name === 'git_checkout' ? { ref: 'main' } : {};
      failed(await call(ws, name, args, false), 'CONFIRMATION_REQUIRED', /confirm/i);
      const explore = await executor.execute({ name, arguments: args }, { workspaceRoot: ws, mode: 'explore', confirm: true });
      assert.equal(explore.errorCode, 'MODE_DENIED', `${name} in explore mode: ${explore.output}`);
    }
    ok(await executor.execute({ name: 'git_status', arguments: {} }, { workspaceRoot: ws, mode: 'explore' }));
  });
});

// ---------------------------------------------------------------------------------------------
describe('git_status', () => {
  test('names the branch and lists staged, unstaged and untracked files', async () => {
    const ws = repository('status-ok');
    put(ws, 'a.txt', 'one\nTWO\nthree\n');
    put(ws, 'new.txt', 'new\n');
    git(ws, 'add', 'new.txt');
    put(ws, 'untracked.txt', 'u\n');
    const out = ok(await call(ws, 'git_status', {})).output;
    assert.match(out, /^Repository: \.\nOn branch main/);
    assert.match(out, /Changes to be committed:\n\s+new file:\s+new\.txt/);
    assert.match(out, /Changes not staged for commit:\n\s+modified:\s+a\.txt/);
    assert.match(out, /Untracked files:\n\s+untracked\.txt/);
    assert.doesNotMatch(out, /\(use "git/, 'advice lines are off');
  });

  test('a clean tree says so; read-only: the index file is not rewritten', async () => {
    const ws = repository('status-clean');
    const index = path.join(ws, '.git/index');
    const before = fs.statSync(index);
    put(ws, 'a.txt', 'one\ntwo\nthree\n'); // same content, new mtime: a refreshing status would rewrite the index
    assert.match(ok(await call(ws, 'git_status', {})).output, /nothing to commit, working tree clean/);
    assert.equal(fs.statSync(index).mtimeMs, before.mtimeMs, 'git_status takes no optional locks and writes no index');
  });

  test('repository names a repository in a subfolder of the workspace', async () => {
    const ws = workspace('status-sub');
    const repo = path.join(ws, 'projects/app');
    fs.mkdirSync(repo, { recursive: true });
    git(repo, 'init', '-q', '-b', 'trunk');
    put(repo, 'x.txt', 'x\n');
    const out = ok(await call(ws, 'git_status', { repository: 'projects/app' })).output;
    assert.match(out, /^Repository: projects\/app\nOn branch trunk/);
    assert.match(out, /No commits yet/);
    assert.match(out, /x\.txt/);
  });

  test('a workspace that is not a repository: not_a_repository, even inside a repository above it', async () => {
    const ws = workspace('status-none');
    failed(await call(ws, 'git_status', {}), 'TOOL_ERROR', /is not in a git repository/);
    // A repository above the workspace is never used (GIT_CEILING_DIRECTORIES).
    const outer = workspace('outer-repo');
    git(outer, 'init', '-q');
    const inner = path.join(outer, 'inner-ws');
    fs.mkdirSync(inner);
    failed(await call(inner, 'git_status', {}), 'TOOL_ERROR', /\. is not in a git repository \(none at or above it, inside the workspace\)/);
  });

  test('bad repository arguments: a file, a missing folder, a folder outside the workspace', async () => {
    const ws = repository('status-bad');
    failed(await call(ws, 'git_status', { repository: 'a.txt' }), 'INVALID_ARGUMENTS', /repository "a\.txt" is a file/);
    failed(await call(ws, 'git_status', { repository: 'nope' }), 'INVALID_ARGUMENTS', /repository "nope" does not exist/);
    await assertTraversal(call(ws, 'git_status', { repository: '../outside' }), 'repository outside');
    failed(await call(ws, 'git_status', { repository: '' }), 'INVALID_PATH', /empty/);
  });

  test('a .git file or core.worktree that leads outside the workspace is a path traversal', async () => {
    const elsewhere = path.join(outside, 'real-repo');
    fs.mkdirSync(elsewhere, { recursive: true });
    git(elsewhere, 'init', '-q');
    const ws = workspace('status-gitfile');
    put(ws, '.git', `gitdir: ${path.join(elsewhere, '.git')}\n`);
    await assertTraversal(call(ws, 'git_status', {}), '.git file leading outside');

    const ws2 = repository('status-worktree');
    git(ws2, 'config', 'core.worktree', outside);
    await assertTraversal(call(ws2, 'git_status', {}), 'core.worktree outside');
    await assertTraversal(call(ws2, 'git_checkout', { ref: 'HEAD~1' }), 'core.worktree outside, checkout');
    assert.deepEqual(fs.readdirSync(outside).sort(), ['real-repo'], 'nothing was written outside');
  });

  test('a repository whose objects/info/alternates (or objects folder) leads outside is a path traversal: git_show cannot print outside objects', async () => {
    const secretRepo = path.join(outside, 'secret-repo');
    fs.mkdirSync(secretRepo, { recursive: true });
    git(secretRepo, 'init', '-q');
    fs.writeFileSync(path.join(secretRepo, 'secret.txt'), 'TOP SECRET outside\n');
    git(secretRepo, 'add', 'secret.txt');
    git(secretRepo, '-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-q', '-m', 'secret');
    const hash = git(secretRepo, 'rev-parse', 'HEAD').trim();
    const ws = repository('status-alternates');
    put(ws, '.git/objects/info/alternates', `${path.join(secretRepo, '.git', 'objects')}\n`);
    await assertTraversal(call(ws, 'git_show', { ref: hash }), 'alternates outside', 'TOP SECRET outside');
    await assertTraversal(call(ws, 'git_status', {}), 'alternates outside, status');
    fs.rmSync(path.join(ws, '.git/objects/info/alternates'));
    const shown = await call(ws, 'git_status', {});
    assert.equal(shown.success, true, shown.output);
  });

  test('a bare repository planted in the workspace is not used', async () => {
    const ws = workspace('status-bare');
    git(ws, 'init', '-q', '--bare', 'planted.git');
    const result = await call(ws, 'git_status', { repository: 'planted.git' });
    assert.equal(result.success, false, result.output);
    assert.equal(result.errorCode, 'TOOL_ERROR');
    assert.match(result.output, /bare repository|not in a git repository/);
  });

  test('G2: a repository folder assembled in steps (HEAD, a commondir to a planted config with a pager and an fsmonitor) runs nothing under git_branch, git_log or git_status', async () => {
    const ws = workspace('assembled');
    const marker = path.join(ws, 'pwn');
    fs.mkdirSync(path.join(ws, 'stage/objects'), { recursive: true });
    fs.mkdirSync(path.join(ws, 'stage/refs/heads'), { recursive: true });
    fs.writeFileSync(path.join(ws, 'stage/config'), `[core]\n\tbare = true\n\tpager = touch ${marker}\n\tfsmonitor = touch ${marker}\n[alias]\n\tbranch = !touch ${marker}\n`);
    fs.mkdirSync(path.join(ws, 'assembled'));
    fs.writeFileSync(path.join(ws, 'assembled/HEAD'), 'ref: refs/heads/main\n');
    fs.writeFileSync(path.join(ws, 'assembled/commondir'), '../stage\n');
    for (const repository of ['assembled', 'stage']) {
      for (const name of ['git_branch', 'git_log', 'git_status']) {
        const result = await call(ws, name, { repository });
        assert.equal(result.success, false, `${name} in ${repository}: ${result.output}`);
        assert.match(result.output, /bare repository|not in a git repository|not a git repository/, `${name} in ${repository}`);
      }
    }
    assert.equal(fs.existsSync(marker), false);
  });
});

// ---------------------------------------------------------------------------------------------
describe('git_diff', () => {
  let ws: string;
  before(() => {
    ws = repository('diff');
    put(ws, 'a.txt', 'one\nTWO\nthree\n');
    put(ws, 'b.txt', 'bee\nstaged line\n');
    git(ws, 'add', 'b.txt');
  });

  test('unstaged changes by default, staged with staged=true', async () => {
    const unstaged = ok(await call(ws, 'git_diff', {})).output;
    assert.match(unstaged, /unstaged changes/);
    assert.match(unstaged, /--- a\/a\.txt\n\+\+\+ b\/a\.txt\n@@ -1,3 \+1,3 @@\n one\n-two\n\+TWO\n three/);
    assert.doesNotMatch(unstaged, /b\.txt/);
    const staged = ok(await call(ws, 'git_diff', { staged: true })).output;
    assert.match(staged, /\+staged line/);
    assert.doesNotMatch(staged, /a\.txt/);
  });

  test('ref, a range, paths, stat and context_lines', async () => {
    const vsFirst = ok(await call(ws, 'git_diff', { ref: 'HEAD~1' })).output;
    assert.match(vsFirst, /working tree against HEAD~1/);
    assert.match(vsFirst, /\+\+\+ b\/b\.txt/);
    const range = ok(await call(ws, 'git_diff', { ref: 'HEAD~1..HEAD' })).output;
    assert.match(range, /new file mode/);
    assert.match(range, /\+bee/);
    assert.doesNotMatch(range, /TWO/);
    const onlyB = ok(await call(ws, 'git_diff', { ref: 'HEAD', paths: ['b.txt'] })).output;
    assert.doesNotMatch(onlyB, /a\.txt/);
    assert.match(ok(await call(ws, 'git_diff', { stat: true })).output, /a\.txt \| 2 \+-/);
    assert.match(ok(await call(ws, 'git_diff', { context_lines: 0 })).output, /@@ -2 \+2 @@[^\n]*\n-two\n\+TWO$/);
  });

  test('no differences is a sentence, not an empty result', async () => {
    const clean = repository('diff-clean');
    assert.match(ok(await call(clean, 'git_diff', {})).output, /^No differences: unstaged changes/);
  });

  test('errors: an unknown ref, a malformed ref, a path outside the repository or the workspace', async () => {
    failed(await call(ws, 'git_diff', { ref: 'no-such-branch' }), 'INVALID_ARGUMENTS', /ref "no-such-branch" names no commit/);
    failed(await call(ws, 'git_diff', { ref: 'main\nHEAD' }), 'INVALID_ARGUMENTS', /control character/);
    failed(await call(ws, 'git_diff', { ref: '' }), 'INVALID_ARGUMENTS', /ref is empty/);
    failed(await call(ws, 'git_diff', { paths: 'a.txt' }), 'INVALID_ARGUMENTS', /paths/);
    const nested = workspace('diff-nested');
    const repo = path.join(nested, 'repo');
    fs.mkdirSync(repo);
    git(repo, 'init', '-q');
    put(nested, 'loose.txt', 'x\n');
    failed(await call(nested, 'git_diff', { repository: 'repo', paths: ['loose.txt'] }), 'INVALID_ARGUMENTS', /"loose\.txt" is not inside the repository at repo/);
    await assertTraversal(call(ws, 'git_diff', { paths: ['../outside/x'] }), 'git_diff path outside');
  });
});

// ---------------------------------------------------------------------------------------------
describe('git_log', () => {
  let ws: string;
  before(() => {
    ws = repository('log');
    for (let i = 3; i <= 5; i++) {
      put(ws, 'c.txt', `version ${i}\n`);
      git(ws, 'add', 'c.txt');
      git(ws, 'commit', '-q', '-m', `commit number ${i}`);
    }
    git(ws, 'tag', 'v1', 'HEAD~2');
  });

  test('one line per commit, newest first, with decorations', async () => {
    const out = ok(await call(ws, 'git_log', {})).output;
    const lines = out.split('\n').slice(1);
    assert.equal(lines.length, 5, out);
    assert.match(lines[0]!, /^[0-9a-f]{7,} \d{4}-\d\d-\d\d Test Author \(HEAD -> main\): commit number 5$/);
    assert.match(lines[2]!, /\(tag: v1\): commit number 3$/);
    assert.match(lines[4]!, /first: add a\.txt$/);
  });

  test('max_count and skip page, with a note when more may follow', async () => {
    const page = ok(await call(ws, 'git_log', { max_count: 2 })).output;
    assert.match(page, /commit number 5\n.*commit number 4\n\[2 commits shown; there may be more: call again with skip=2\]$/);
    const next = ok(await call(ws, 'git_log', { max_count: 2, skip: 2 })).output;
    assert.match(next, /commit number 3/);
    assert.doesNotMatch(next, /commit number 5/);
    assert.match(ok(await call(ws, 'git_log', { skip: 50 })).output, /^No commits: HEAD after skipping 50/);
  });

  test('ref, a range, paths and show_files', async () => {
    assert.match(ok(await call(ws, 'git_log', { ref: 'v1' })).output, /^Repository \.: commits of v1[^\n]*\n[^\n]*commit number 3/);
    const range = ok(await call(ws, 'git_log', { ref: 'v1..main' })).output;
    assert.equal(range.split('\n').length, 3, range);
    const onlyA = ok(await call(ws, 'git_log', { paths: ['a.txt'] })).output;
    assert.equal(onlyA.split('\n').length, 2, onlyA);
    assert.match(ok(await call(ws, 'git_log', { max_count: 1, show_files: true })).output, /commit number 5\n\nM\tc\.txt/);
  });

  test('errors: an unknown ref, a repository without commits, bad max_count', async () => {
    failed(await call(ws, 'git_log', { ref: 'nope' }), 'INVALID_ARGUMENTS', /ref "nope" names no commit/);
    const empty = workspace('log-empty');
    git(empty, 'init', '-q');
    failed(await call(empty, 'git_log', {}), 'TOOL_ERROR', /has no commits yet/);
    failed(await call(ws, 'git_log', { max_count: 0 }), 'INVALID_ARGUMENTS', /max_count/);
    failed(await call(ws, 'git_log', { max_count: 'ten' }), 'INVALID_ARGUMENTS', /max_count/);
  });
});

// ---------------------------------------------------------------------------------------------
describe('git_show', () => {
  let ws: string;
  before(() => {
    ws = repository('show');
    git(ws, 'commit', '-q', '--allow-empty', '-m', 'third: empty\n\nA body line.');
    put(ws, 'bin.dat', Buffer.from([0, 1, 2, 0, 255, 0]));
    git(ws, 'add', 'bin.dat');
    git(ws, 'commit', '-q', '-m', 'binary');
  });

  test('a commit with its message and diff; HEAD by default', async () => {
    const out = ok(await call(ws, 'git_show', { ref: 'HEAD~2' })).output;
    assert.match(out, /^commit [0-9a-f]{40}/);
    assert.match(out, /Author: Test Author <author@example\.test>/);
    assert.match(out, /second: add b\.txt/);
    assert.match(out, /\+\+\+ b\/b\.txt\n@@ -0,0 \+1 @@\n\+bee/);
    assert.match(ok(await call(ws, 'git_show', { ref: 'HEAD~1' })).output, /third: empty\n\s*\n\s+A body line\./);
    assert.match(ok(await call(ws, 'git_show', {})).output, /binary/);
  });

  test('<commit>:<path> shows a file as it was; stat summarises', async () => {
    assert.equal(ok(await call(ws, 'git_show', { ref: 'HEAD~3:a.txt' })).output, 'one\ntwo\nthree');
    assert.match(ok(await call(ws, 'git_show', { ref: 'HEAD~2', stat: true })).output, /b\.txt \| 1 \+\n 1 file changed/);
  });

  test('binary content is not shown', async () => {
    assert.match(ok(await call(ws, 'git_show', { ref: 'HEAD:bin.dat' })).output, /is binary content/);
  });

  test('errors: an unknown ref, a path missing at that commit', async () => {
    failed(await call(ws, 'git_show', { ref: 'deadbeef' }), 'INVALID_ARGUMENTS', /ref "deadbeef" names no commit/);
    const missing = await call(ws, 'git_show', { ref: 'HEAD~3:b.txt' });
    assert.equal(missing.success, false, missing.output);
    assert.equal(missing.errorCode, 'INVALID_ARGUMENTS');
    assert.match(missing.output, /b\.txt/);
  });
});

// ---------------------------------------------------------------------------------------------
describe('git_blame', () => {
  let ws: string;
  before(() => {
    ws = repository('blame');
    put(ws, 'a.txt', 'one\nTWO by other\nthree\n');
    execFileSync('git', ['commit', '-q', '-am', 'change line 2'], {
      cwd: ws, env: { ...SETUP_ENV, GIT_AUTHOR_NAME: 'Other Person', GIT_AUTHOR_EMAIL: 'other@example.test' },
    });
  });

  test('each line with its commit, author and date', async () => {
    const out = ok(await call(ws, 'git_blame', { filepath: 'a.txt' })).output;
    const lines = out.split('\n').slice(1);
    assert.equal(lines.length, 3, out);
    assert.match(lines[0]!, /^\^?[0-9a-f]{7,} \(Test Author\s+\d{4}-\d\d-\d\d\s+1\) one$/);
    assert.match(lines[1]!, /\(Other Person\s+\d{4}-\d\d-\d\d\s+2\) TWO by other$/);
  });

  test('a line range, a ref, and uncommitted lines', async () => {
    const part = ok(await call(ws, 'git_blame', { filepath: 'a.txt', start_line: 2, end_line: 2 })).output;
    assert.equal(part.split('\n').length, 2, part);
    assert.match(part, /TWO by other/);
    assert.match(ok(await call(ws, 'git_blame', { filepath: 'a.txt', ref: 'HEAD~1' })).output, /Test Author\s+\S+\s+2\) two$/m);
    put(ws, 'b.txt', 'bee\nnew line\n');
    assert.match(ok(await call(ws, 'git_blame', { filepath: 'b.txt' })).output, /Not Committed Yet.*new line/);
    git(ws, 'checkout', '-q', '--', 'b.txt');
  });

  test('errors: an untracked file, a range past the end, end before start, an unknown ref, a path outside', async () => {
    put(ws, 'loose.txt', 'x\n');
    failed(await call(ws, 'git_blame', { filepath: 'loose.txt' }), 'INVALID_ARGUMENTS', /loose\.txt/);
    failed(await call(ws, 'git_blame', { filepath: 'a.txt', start_line: 10 }), 'INVALID_ARGUMENTS', /past the end of a\.txt, which has 3 lines/);
    failed(await call(ws, 'git_blame', { filepath: 'a.txt', start_line: 3, end_line: 2 }), 'INVALID_ARGUMENTS', /before start_line/);
    failed(await call(ws, 'git_blame', { filepath: 'a.txt', ref: 'nope' }), 'INVALID_ARGUMENTS', /ref "nope" names no commit/);
    failed(await call(ws, 'git_blame', { filepath: 'a.txt', start_line: 0 }), 'INVALID_ARGUMENTS', /start_line/);
    await assertTraversal(call(ws, 'git_blame', { filepath: '/etc/passwd' }), 'git_blame /etc/passwd');
  });
});

// ---------------------------------------------------------------------------------------------
describe('git_add', () => {
  test('stages new, changed and deleted files and lists them', async () => {
    const ws = repository('add-ok');
    put(ws, 'a.txt', 'changed\n');
    put(ws, 'dir/new.txt', 'new\n');
    fs.rmSync(path.join(ws, 'b.txt'));
    const out = ok(await call(ws, 'git_add', { paths: ['a.txt', 'dir', 'b.txt'] })).output;
    assert.match(out, /3 changes staged/);
    assert.match(out, /staged a\.txt/);
    assert.match(out, /staged dir\/new\.txt/);
    assert.match(out, /staged the deletion of b\.txt/);
    assert.deepEqual(git(ws, 'diff', '--cached', '--name-status').trim().split('\n').sort(), ['A\tdir/new.txt', 'D\tb.txt', 'M\ta.txt']);
  });

  test('"." stages everything; nothing new is a sentence', async () => {
    const ws = repository('add-all');
    put(ws, 'x.txt', 'x\n');
    assert.match(ok(await call(ws, 'git_add', { paths: ['.'] })).output, /staged x\.txt/);
    assert.match(ok(await call(ws, 'git_add', { paths: ['.'] })).output, /^Nothing new to stage/);
  });

  test('paths are literal: a name with wildcard characters stages only that file', async () => {
    const ws = repository('add-literal');
    put(ws, '*.txt', 'star\n');
    put(ws, 'other.txt', 'other\n');
    ok(await call(ws, 'git_add', { paths: ['*.txt'] }));
    assert.equal(git(ws, 'diff', '--cached', '--name-only').trim(), '*.txt');
  });

  test('errors: a path matching nothing, an ignored path (force stages it), empty paths, a path outside', async () => {
    const ws = repository('add-errors');
    failed(await call(ws, 'git_add', { paths: ['missing.txt'] }), 'INVALID_ARGUMENTS', /"missing\.txt" matches no file/);
    put(ws, '.gitignore', 'secret.log\n');
    put(ws, 'secret.log', 'ignored\n');
    failed(await call(ws, 'git_add', { paths: ['secret.log'] }), 'INVALID_ARGUMENTS', /secret\.log is ignored by \.gitignore.*force=true/);
    assert.equal(git(ws, 'diff', '--cached', '--name-only').trim(), '', 'nothing staged');
    assert.match(ok(await call(ws, 'git_add', { paths: ['secret.log'], force: true })).output, /staged secret\.log/);
    failed(await call(ws, 'git_add', { paths: [] }), 'INVALID_ARGUMENTS', /paths/);
    failed(await call(ws, 'git_add', {}), 'INVALID_ARGUMENTS', /paths/);
    await assertTraversal(call(ws, 'git_add', { paths: ['../outside'] }), 'git_add outside');
    await assertTraversal(call(ws, 'git_add', { paths: ['/etc/passwd'] }), 'git_add absolute outside');
  });

  test('a symbolic link is staged as a link, not as what it points to', async () => {
    const ws = repository('add-link');
    fs.symlinkSync('a.txt', path.join(ws, 'link.txt'));
    ok(await call(ws, 'git_add', { paths: ['link.txt'] }));
    assert.match(git(ws, 'ls-files', '-s', 'link.txt'), /^120000 /);
  });
});

// ---------------------------------------------------------------------------------------------
describe('git_commit', () => {
  test('commits the staged changes and reports the new commit', async () => {
    const ws = repository('commit-ok');
    put(ws, 'c.txt', 'c\n');
    git(ws, 'add', 'c.txt');
    const out = ok(await call(ws, 'git_commit', { message: 'Add c.txt\n\nWith a body.' })).output;
    assert.match(out, /committed\.\n\[main [0-9a-f]{7,}\] Add c\.txt\n 1 file changed, 1 insertion\(\+\)/);
    assert.doesNotMatch(out, /Note:/, 'the repository has an identity');
    assert.equal(git(ws, 'log', '-1', '--format=%B').trim(), 'Add c.txt\n\nWith a body.');
    assert.equal(git(ws, 'log', '-1', '--format=%an <%ae>').trim(), 'Repo User <repo@example.test>');
  });

  test('all=true commits changes to tracked files without git_add', async () => {
    const ws = repository('commit-all');
    put(ws, 'a.txt', 'changed\n');
    ok(await call(ws, 'git_commit', { message: 'change a', all: true }));
    assert.equal(git(ws, 'status', '--porcelain'), '');
  });

  test('without user.name and user.email a default identity is used and the output says so', async () => {
    const ws = workspace('commit-identity');
    git(ws, 'init', '-q', '-b', 'main');
    put(ws, 'x.txt', 'x\n');
    git(ws, 'add', 'x.txt');
    const out = ok(await call(ws, 'git_commit', { message: 'root commit' })).output;
    assert.match(out, /\[main \(root-commit\) [0-9a-f]+\] root commit/);
    assert.match(out, /Note: the repository sets no user\.name or user\.email, so the commit was made with toolgate agent <toolgate@localhost>/);
    assert.equal(git(ws, 'log', '-1', '--format=%an <%ae> / %cn <%ce>').trim(), 'toolgate agent <toolgate@localhost> / toolgate agent <toolgate@localhost>');
  });

  test('R5: a message with $(...) and backticks is stored as written and runs nothing', async () => {
    const ws = repository('commit-r5');
    put(ws, 'r5.txt', 'r5\n');
    git(ws, 'add', 'r5.txt');
    const pwn = path.join(outside, 'pwn-r5');
    const message = `R5 $(touch pwn) \`touch pwn2\` $(touch ${pwn})\n\n"; touch pwn3; echo '\n# not a comment\n--amend`;
    ok(await call(ws, 'git_commit', { message }));
    assert.equal(git(ws, 'log', '-1', '--format=%B').replace(/\n+$/, ''), message);
    for (const name of ['pwn', 'pwn2', 'pwn3']) assert.equal(fs.existsSync(path.join(ws, name)), false, `${name} must not exist in the workspace`);
    assert.equal(fs.existsSync(path.join(process.cwd(), 'pwn')), false);
    assert.equal(fs.existsSync(pwn), false);
    assert.equal(git(ws, 'rev-list', '--count', 'HEAD').trim(), '3', 'a new commit, not an amend');
  });

  test('errors: nothing to commit, an empty message, unresolved conflicts', async () => {
    const ws = repository('commit-errors');
    failed(await call(ws, 'git_commit', { message: 'nothing' }), 'TOOL_ERROR', /nothing to commit.*git_add/);
    put(ws, 'a.txt', 'unstaged\n');
    failed(await call(ws, 'git_commit', { message: 'nothing staged' }), 'TOOL_ERROR', /nothing to commit.*all=true/);
    failed(await call(ws, 'git_commit', { message: '' }), 'INVALID_ARGUMENTS', /message/);
    failed(await call(ws, 'git_commit', { message: '  \n\t ' }), 'INVALID_ARGUMENTS', /message is empty/);
    failed(await call(ws, 'git_commit', {}), 'INVALID_ARGUMENTS', /message/);
    git(ws, 'checkout', '-q', '--', 'a.txt');
    makeConflict(ws);
    const head = git(ws, 'rev-parse', 'HEAD');
    failed(await call(ws, 'git_commit', { message: 'try', all: true }), 'TOOL_ERROR', /a\.txt has unresolved merge conflicts.*Nothing was committed/);
    failed(await call(ws, 'git_commit', { message: 'try' }), 'TOOL_ERROR', /unresolved merge conflicts/);
    assert.equal(git(ws, 'rev-parse', 'HEAD'), head, 'no commit was made');
  });
});

/** True when process `pid` no longer runs: it does not exist, or is a zombie (killed, not yet reaped). */
function gone(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return true;
  }
  try {
    return /^\d+ \(.*\) Z/.test(fs.readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return true;
  }
}

/** Leave `ws` in the middle of a merge with a conflict in a.txt (branch other vs main). */
function makeConflict(ws: string): void {
  git(ws, 'checkout', '-q', '-b', 'other');
  put(ws, 'a.txt', 'other side\n');
  git(ws, 'commit', '-q', '-am', 'other side');
  git(ws, 'checkout', '-q', 'main');
  put(ws, 'a.txt', 'main side\n');
  git(ws, 'commit', '-q', '-am', 'main side');
  try {
    git(ws, 'merge', '-q', 'other');
  } catch {
    // the conflict is expected
  }
  assert.match(git(ws, 'status', '--porcelain'), /^UU a\.txt/m, 'the fixture has a conflict');
}

// ---------------------------------------------------------------------------------------------
describe('git_branch', () => {
  test('lists, creates (at HEAD or a start point) and deletes branches', async () => {
    const ws = repository('branch-ok');
    assert.match(ok(await call(ws, 'git_branch', {})).output, /\* main\s+[0-9a-f]{7,} second: add b\.txt/);
    assert.match(ok(await call(ws, 'git_branch', { name: 'feature/x' })).output, /created the branch feature\/x at [0-9a-f]+ second: add b\.txt \(the current commit\)/);
    assert.match(ok(await call(ws, 'git_branch', { name: 'old', start_point: 'HEAD~1' })).output, /created the branch old at [0-9a-f]+ first: add a\.txt/);
    const list = ok(await call(ws, 'git_branch', {})).output;
    assert.match(list, /  feature\/x /);
    assert.match(list, /  old /);
    assert.match(ok(await call(ws, 'git_branch', { name: 'old', delete: true })).output, /Deleted branch old/);
    assert.doesNotMatch(git(ws, 'branch'), /old/);
    assert.equal(git(ws, 'symbolic-ref', '--short', 'HEAD').trim(), 'main', 'creating a branch does not switch to it');
  });

  test('errors: an existing name, an invalid name, an unknown start point, unmerged and current branches', async () => {
    const ws = repository('branch-errors');
    failed(await call(ws, 'git_branch', { name: 'main' }), 'TOOL_ERROR', /a branch named main already exists/);
    failed(await call(ws, 'git_branch', { name: 'bad name' }), 'INVALID_ARGUMENTS', /not a valid branch name/);
    failed(await call(ws, 'git_branch', { name: 'a..b' }), 'INVALID_ARGUMENTS', /not a valid branch name/);
    failed(await call(ws, 'git_branch', { name: 'x', start_point: 'nope' }), 'INVALID_ARGUMENTS', /start_point "nope" names no commit/);
    failed(await call(ws, 'git_branch', { delete: true }), 'INVALID_ARGUMENTS', /name is required/);
    failed(await call(ws, 'git_branch', { name: 'ghost', delete: true }), 'INVALID_ARGUMENTS', /name "ghost" names no commit/);
    git(ws, 'branch', 'ahead');
    git(ws, 'checkout', '-q', 'ahead');
    git(ws, 'commit', '-q', '--allow-empty', '-m', 'only on ahead');
    git(ws, 'checkout', '-q', 'main');
    failed(await call(ws, 'git_branch', { name: 'ahead', delete: true }), 'TOOL_ERROR', /not merged.*not deleted/);
    assert.match(git(ws, 'branch'), /ahead/);
    failed(await call(ws, 'git_branch', { name: 'main', delete: true }), 'TOOL_ERROR', /checked out/);
    const empty = workspace('branch-empty');
    git(empty, 'init', '-q');
    failed(await call(empty, 'git_branch', { name: 'x' }), 'TOOL_ERROR', /no commits yet/);
  });
});

// ---------------------------------------------------------------------------------------------
describe('git_checkout', () => {
  test('switches branches and updates files; a commit detaches HEAD; create=true makes a branch', async () => {
    const ws = repository('checkout-ok');
    git(ws, 'checkout', '-q', '-b', 'feature');
    put(ws, 'a.txt', 'feature version\n');
    git(ws, 'commit', '-q', '-am', 'feature change');
    git(ws, 'checkout', '-q', 'main');
    const out = ok(await call(ws, 'git_checkout', { ref: 'feature' })).output;
    assert.match(out, /Switched to branch 'feature'/);
    assert.match(out, /Now on branch feature, commit [0-9a-f]+ feature change/);
    assert.equal(read(ws, 'a.txt'), 'feature version\n');
    const detached = ok(await call(ws, 'git_checkout', { ref: 'main~1' })).output;
    assert.match(detached, /detached HEAD/);
    assert.equal(fs.existsSync(path.join(ws, 'b.txt')), false);
    const created = ok(await call(ws, 'git_checkout', { ref: 'topic', create: true, start_point: 'main' })).output;
    assert.match(created, /Switched to a new branch 'topic'/);
    assert.equal(git(ws, 'rev-parse', 'topic').trim(), git(ws, 'rev-parse', 'main').trim());
    assert.equal(read(ws, 'a.txt'), 'one\ntwo\nthree\n');
  });

  test('local changes that do not collide are carried over and listed', async () => {
    const ws = repository('checkout-carry');
    git(ws, 'branch', 'other');
    put(ws, 'b.txt', 'edited\n');
    const out = ok(await call(ws, 'git_checkout', { ref: 'other' })).output;
    assert.match(out, /Local changes kept:\nM\tb\.txt/);
    assert.equal(read(ws, 'b.txt'), 'edited\n');
  });

  test('errors: a dirty tree, untracked files in the way, unresolved conflicts, unknown refs, existing branches', async () => {
    const ws = repository('checkout-errors');
    git(ws, 'checkout', '-q', '-b', 'feature');
    put(ws, 'a.txt', 'feature\n');
    put(ws, 'only-feature.txt', 'f\n');
    git(ws, 'add', '.');
    git(ws, 'commit', '-q', '-m', 'feature');
    git(ws, 'checkout', '-q', 'main');

    put(ws, 'a.txt', 'uncommitted\n');
    failed(await call(ws, 'git_checkout', { ref: 'feature' }), 'TOOL_ERROR', /uncommitted changes to a\.txt would be overwritten\. Nothing was changed/);
    assert.equal(read(ws, 'a.txt'), 'uncommitted\n');
    assert.equal(git(ws, 'symbolic-ref', '--short', 'HEAD').trim(), 'main');
    git(ws, 'checkout', '-q', '--', 'a.txt');

    put(ws, 'only-feature.txt', 'mine\n');
    failed(await call(ws, 'git_checkout', { ref: 'feature' }), 'TOOL_ERROR', /untracked files only-feature\.txt would be overwritten/);
    assert.equal(read(ws, 'only-feature.txt'), 'mine\n');
    fs.rmSync(path.join(ws, 'only-feature.txt'));

    failed(await call(ws, 'git_checkout', { ref: 'nope' }), 'INVALID_ARGUMENTS', /ref "nope" names no commit/);
    failed(await call(ws, 'git_checkout', { ref: 'feature', create: true }), 'TOOL_ERROR', /a branch named feature already exists/);
    failed(await call(ws, 'git_checkout', { ref: 'x', start_point: 'main' }), 'INVALID_ARGUMENTS', /start_point is only for create=true/);
    failed(await call(ws, 'git_checkout', { ref: 'bad name', create: true }), 'INVALID_ARGUMENTS', /not a valid branch name/);
    failed(await call(ws, 'git_checkout', {}), 'INVALID_ARGUMENTS', /ref/);

    makeConflict(ws);
    failed(await call(ws, 'git_checkout', { ref: 'feature' }), 'TOOL_ERROR', /unresolved merge conflicts/);
  });
});

// ---------------------------------------------------------------------------------------------
describe('R6: refs and paths that start with "-" are never options', () => {
  let ws: string;
  let pwn: string;
  before(() => {
    ws = repository('r6');
    pwn = path.join(outside, 'pwn-r6');
  });

  const refCalls: Array<[string, (ref: string) => Record<string, unknown>]> = [
    ['git_diff', (ref) => ({ ref })],
    ['git_log', (ref) => ({ ref })],
    ['git_show', (ref) => ({ ref })],
    ['git_blame', (ref) => ({ filepath: 'a.txt', ref })],
    ['git_checkout', (ref) => ({ ref })],
    ['git_checkout', (ref) => ({ ref: 'newbranch', create: true, start_point: ref })],
    ['git_branch', (ref) => ({ name: ref })],
    ['git_branch', (ref) => ({ name: 'newbranch', start_point: ref })],
    ['git_branch', (ref) => ({ name: ref, delete: true })],
  ];

  test('R6: a ref such as --output=<file> is rejected and writes nothing', async () => {
    for (const [name, args] of refCalls) {
      for (const ref of [`--output=${pwn}`, '-D', '--orphan=x', '-']) {
        const result = await call(ws, name, args(ref));
        failed(result, 'INVALID_ARGUMENTS', /starts with "-", which git would read as an option/);
        assert.equal(fs.existsSync(pwn), false, `${name} ${JSON.stringify(args(ref))} must not write ${pwn}`);
      }
    }
    assert.deepEqual(git(ws, 'branch', '--format=%(refname:short)').trim().split('\n'), ['main'], 'no branch was made or deleted');
  });

  test('R6: a path such as --output=<file> is a file name after "--", never an option', async () => {
    for (const [name, args] of [
      ['git_add', { paths: [`--output=${pwn}`] }],
      ['git_diff', { paths: [`--output=${pwn}`] }],
      ['git_log', { paths: [`--output=${pwn}`] }],
      ['git_show', { paths: [`--output=${pwn}`] }],
      ['git_blame', { filepath: `--output=${pwn}` }],
    ] as const) {
      const result = await call(ws, name, args);
      // The path names a file inside the workspace ("--output=..."): git finds nothing there.
      if (result.success) assert.doesNotMatch(result.output, /pwn-r6.*written/);
      assert.equal(fs.existsSync(pwn), false, `${name} must not write ${pwn}`);
    }
    // A file really named like an option is staged as a file.
    put(ws, '--force', 'a file named --force\n');
    put(ws, '.gitignore', 'ignored.txt\n');
    put(ws, 'ignored.txt', 'x\n');
    // Were "--force" read as the option, ignored.txt would be staged; git stages the file "--force" and refuses ignored.txt.
    failed(await call(ws, 'git_add', { paths: ['--force', 'ignored.txt'] }), 'INVALID_ARGUMENTS', /ignored\.txt is ignored.*the other paths were/);
    assert.equal(git(ws, 'ls-files', '--', '--force').trim(), '--force', 'the file named --force was staged');
    assert.equal(git(ws, 'ls-files', '--', 'ignored.txt'), '', 'the ignored file was not staged');
  });

  test('checkRef is the single check: leading "-", control characters, empty, too long', () => {
    for (const bad of ['-x', '--output=/tmp/x', '', ' ', 'a\u0000b', 'a\nb', 'x'.repeat(300)]) {
      assert.throws(() => checkRef(bad, 'ref'), (e: unknown) => e instanceof GitToolError && e.code === 'INVALID_ARGUMENTS' && e.reason === 'bad_argument', JSON.stringify(bad));
    }
    for (const good of ['HEAD', 'main~2', 'a..b', 'v1.0^{commit}', 'HEAD:src/x.ts', 'feature/-x']) assert.equal(checkRef(good, 'ref'), good);
  });
});

// ---------------------------------------------------------------------------------------------
describe('a repository whose config runs programs: nothing of it runs', () => {
  let ws: string;
  let marker: string;
  before(() => {
    ws = repository('hostile');
    marker = path.join(outside, 'hostile-marker');
    const script = path.join(outside, 'evil.sh');
    fs.writeFileSync(script, `#!/bin/sh\necho "$0 $*" >> ${marker}\ncat\n`, { mode: 0o755 });
    const set = (key: string, value: string) => git(ws, 'config', key, value);
    set('core.fsmonitor', script);
    set('core.pager', script);
    set('core.editor', script);
    set('core.askPass', script);
    set('core.sshCommand', script);
    set('sequence.editor', script);
    set('credential.helper', `!${script}`);
    set('gpg.program', script);
    set('commit.gpgSign', 'true');
    set('log.showSignature', 'true');
    set('diff.external', script);
    set('status.submoduleSummary', 'true');
    set('format.pretty', 'oneline');
    for (const driver of ['evil', 'dots.in.name', 'eq=name']) {
      set(`filter.${driver}.clean`, script);
      set(`filter.${driver}.smudge`, script);
      set(`filter.${driver}.required`, 'true');
    }
    set('filter.proc.process', script);
    set('diff.evil.textconv', script);
    set('diff.evil.command', script);
    set('merge.evil.driver', script);
    set('pager.status', script);
    set('pager.log', script);
    set('pager.diff', script);
    set('pager.show', script);
    set('pager.branch', script);
    set('pager.blame', script);
    const hooks = path.join(ws, '.git/hooks');
    for (const hook of ['pre-commit', 'prepare-commit-msg', 'commit-msg', 'post-commit', 'post-checkout', 'post-index-change', 'pre-auto-gc', 'reference-transaction', 'fsmonitor-watchman']) {
      fs.copyFileSync(script, path.join(hooks, hook));
      fs.chmodSync(path.join(hooks, hook), 0o755);
    }
    put(ws, '.gitattributes', '*.txt filter=evil diff=evil merge=evil\n*.md filter=dots.in.name diff=evil\n*.cfg filter=eq=name\n*.dat filter=proc\n');
    git(ws, '-c', 'core.hooksPath=/dev/null', '-c', 'core.fsmonitor=false', '-c', 'filter.evil.required=false', '-c', 'filter.evil.clean=', 'add', '.gitattributes');
    git(ws, '-c', 'core.hooksPath=/dev/null', '-c', 'core.fsmonitor=false', '-c', 'commit.gpgSign=false', 'commit', '-q', '-m', 'attributes');
    git(ws, '-c', 'core.hooksPath=/dev/null', '-c', 'core.fsmonitor=false', 'branch', 'side');
    fs.rmSync(marker, { force: true });
  });

  /** Plain git for the test's own checks, with the hostile settings off (reading the index would run the fsmonitor). */
  function safeGit(cwd: string, ...args: string[]): string {
    return git(cwd, '-c', 'core.fsmonitor=false', '-c', 'core.hooksPath=/dev/null', '-c', 'filter.evil.clean=', '-c', 'filter.evil.required=false', ...args);
  }

  function assertNoMarker(after: string): void {
    assert.equal(fs.existsSync(marker), false, `after ${after}, something of the repository's config ran: ${fs.existsSync(marker) ? fs.readFileSync(marker, 'utf8') : ''}`);
  }

  test('the fixture is armed: plain git runs the fsmonitor, the hooks and the filters', () => {
    const scratch = path.join(base, 'hostile-armed');
    fs.cpSync(ws, scratch, { recursive: true });
    put(scratch, 'a.txt', 'changed\n');
    git(scratch, 'status', '--short');
    assert.ok(fs.existsSync(marker), 'plain git status must write the marker (fsmonitor / clean filter)');
    fs.rmSync(marker);
    try {
      git(scratch, 'commit', '-q', '-am', 'x');
    } catch {
      // gpg "signing" with the script fails; the hooks ran before
    }
    assert.ok(fs.existsSync(marker), 'plain git commit must write the marker (hooks)');
    fs.rmSync(marker, { force: true });
  });

  test('git_status, git_diff, git_add, git_commit, git_checkout, git_log, git_show, git_blame, git_branch run none of it', async () => {
    put(ws, 'a.txt', 'one\ntwo changed\nthree\n');
    put(ws, 'notes.md', '# notes\n');
    put(ws, 'x.cfg', 'k=v\n');
    put(ws, 'blob.dat', 'data\n');
    ok(await call(ws, 'git_status', {}));
    assertNoMarker('git_status');
    const diff = ok(await call(ws, 'git_diff', {})).output;
    assert.match(diff, /\+two changed/, 'a plain diff, not the external one');
    assertNoMarker('git_diff');
    ok(await call(ws, 'git_diff', { ref: 'HEAD~1', stat: true }));
    assertNoMarker('git_diff stat');
    ok(await call(ws, 'git_add', { paths: ['a.txt', 'notes.md', 'x.cfg', 'blob.dat'] }));
    assertNoMarker('git_add');
    assert.equal(safeGit(ws, 'show', ':a.txt'), 'one\ntwo changed\nthree\n', 'the clean filter did not run: content staged as it is');
    const commit = ok(await call(ws, 'git_commit', { message: 'hostile commit' })).output;
    assert.match(commit, /hostile commit/);
    assertNoMarker('git_commit');
    assert.doesNotMatch(safeGit(ws, 'cat-file', 'commit', 'HEAD'), /gpgsig/, 'not signed');
    ok(await call(ws, 'git_log', { show_files: true }));
    assert.match(ok(await call(ws, 'git_show', {})).output, /^commit [0-9a-f]{40}[^\n]*\nAuthor: /, 'the documented format, whatever format.pretty says');
    ok(await call(ws, 'git_blame', { filepath: 'a.txt' }));
    ok(await call(ws, 'git_branch', {}));
    assertNoMarker('git_log, git_show, git_blame, git_branch');
    ok(await call(ws, 'git_checkout', { ref: 'side' }));
    assertNoMarker('git_checkout (smudge filter, post-checkout hook)');
    assert.equal(read(ws, 'a.txt'), 'one\ntwo\nthree\n');
    ok(await call(ws, 'git_checkout', { ref: 'main' }));
    put(ws, 'a.txt', 'one\ntwo\nthree\nfour\n');
    ok(await call(ws, 'git_commit', { message: 'again', all: true }));
    assertNoMarker('git_checkout back, git_commit --all');
  });
});

// ---------------------------------------------------------------------------------------------
describe('git process runner', () => {
  test('the environment: no host secrets or GIT_* variables, no global config, the overrides as GIT_CONFIG_*', () => {
    const env = gitEnv(
      { PATH: '/usr/bin', HOME: '/home/u', GITHUB_TOKEN: 'secret', GIT_DIR: '/elsewhere', GIT_SSH_COMMAND: 'evil', GIT_AUTHOR_NAME: 'Op', TOOLGATE_SHELL_PASS_ENV: 'GIT_DIR,GIT_AUTHOR_NAME' },
      { ceiling: '/tmp/x', config: [['filter.a=b.clean', '']] },
    );
    assert.equal(env.GITHUB_TOKEN, undefined);
    assert.equal(env.GIT_DIR, undefined, 'a GIT_DIR of the host never moves the repository');
    assert.equal(env.GIT_SSH_COMMAND, undefined);
    assert.equal(env.GIT_AUTHOR_NAME, 'Op', 'an identity the operator passed is kept');
    assert.equal(env.GIT_CONFIG_GLOBAL, '/dev/null');
    assert.equal(env.GIT_CONFIG_NOSYSTEM, '1');
    assert.equal(env.GIT_TERMINAL_PROMPT, '0');
    assert.equal(env.GIT_CEILING_DIRECTORIES, '/tmp/x');
    const count = Number(env.GIT_CONFIG_COUNT);
    assert.equal(count, SAFE_GIT_CONFIG.length + 1);
    assert.equal(env[`GIT_CONFIG_KEY_${count - 1}`], 'filter.a=b.clean');
    const keys = Array.from({ length: count }, (_, i) => env[`GIT_CONFIG_KEY_${i}`]);
    for (const key of ['core.hooksPath', 'core.fsmonitor', 'commit.gpgSign', 'credential.helper', 'core.sshCommand', 'core.pager', 'core.editor']) {
      assert.ok(keys.includes(key), `${key} is overridden`);
    }
  });

  test('filterDriverOverrides: every driver named in the config, whatever its name', () => {
    const overrides = filterDriverOverrides(['filter.lfs.clean', 'filter.lfs.smudge', 'filter.a.b.c.process', 'filter.x=y.required', 'filter.clean', 'core.editor']);
    const keys = overrides.map(([k]) => k);
    for (const name of ['lfs', 'a.b.c', 'x=y']) {
      for (const suffix of ['clean', 'smudge', 'process', 'required']) assert.ok(keys.includes(`filter.${name}.${suffix}`), `filter.${name}.${suffix}`);
    }
    assert.equal(keys.length, 12, 'filter.clean (no driver name) and other sections add nothing');
    assert.deepEqual(overrides.find(([k]) => k === 'filter.lfs.required'), ['filter.lfs.required', 'false']);
  });

  test('an abort kills git and everything it started (the process group)', async () => {
    const dir = workspace('runner-abort');
    const pidFile = path.join(dir, 'pid');
    const controller = new AbortController();
    const env = gitEnv(process.env, { ceiling: base });
    const running = runGit(['-c', `alias.wait=!echo $$ > ${pidFile}; exec sleep 60`, 'wait'], { cwd: dir, env, signal: controller.signal });
    // `echo $$ > file` makes the file before it writes: a whole line, not the name, is the pid.
    const pid = await waitFor(() => wholeNumberIn(pidFile, { newline: true }), { what: 'git\'s alias to write its pid' });
    controller.abort();
    await assert.rejects(running, (e: unknown) => e instanceof Error && (e as GitToolError).code === 'ABORTED');
    // SIGKILL is delivered asynchronously: on a loaded machine the process may take a moment to go.
    await waitFor(() => gone(pid), { what: 'the sleeping child of git to be gone (or a zombie waiting to be reaped)' });
  });

  test('a timeout kills git and reports TIMEOUT; too much output is cut and the process stopped', async () => {
    const dir = workspace('runner-bounds');
    const env = gitEnv(process.env, { ceiling: base });
    await assert.rejects(
      runGit(['-c', 'alias.wait=!exec sleep 60', 'wait'], { cwd: dir, env, timeoutMs: 200 }),
      (e: unknown) => (e as GitToolError).code === 'TIMEOUT' && /killed/.test((e as Error).message),
    );
    const flood = await runGit(['-c', 'alias.flood=!exec yes', 'flood'], { cwd: dir, env, maxOutputBytes: 10_000 });
    assert.equal(flood.cut, true);
    assert.equal(Buffer.byteLength(flood.stdout), 10_000);
  });

  test('git missing from PATH is a clear error', async () => {
    await assert.rejects(
      runGit(['status'], { cwd: base, env: { PATH: path.join(base, 'no-bin') } }),
      (e: unknown) => (e as GitToolError).code === 'TOOL_ERROR' && /git is not installed/.test((e as Error).message),
    );
  });
});
