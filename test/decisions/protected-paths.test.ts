/**
 * Protected paths (issue 15, item 5; G1 family, attack s11): a writing tool asks before it writes into `.git` (at any
 * depth), `.toolgate` or the executor's `protectedPaths`, in every mode; a read-only mode with
 * scoped write folders denies it (`plans/.git/config` in plan mode would have git run a command
 * at the next `git status` there; `--scoped-write .git` would have let plan mode write hooks).
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { ToolExecutor, type ToolRegistry } from 'toolgate';
import { fixtureRegistry, tempWorkspace, type TempWorkspace } from '../helpers.js';

describe('protected paths', () => {
  let registry: ToolRegistry;
  let executor: ToolExecutor;
  let t: TempWorkspace;
  before(async () => {
    registry = await fixtureRegistry();
    t = tempWorkspace();
    executor = new ToolExecutor(registry, { workspaceRoot: t.ws, protectedPaths: ['.env', 'config/secrets'] });
  });
  after(async () => {
    await executor.close();
    t.cleanup();
  });

  // write_file asks by itself (requiresConfirmation); write_without_asking (a fixture) asks nobody.
  const write = (filepath: string, options = {}) => executor.execute({ name: 'write_file', arguments: { filepath, content: '[core]\n\tfsmonitor = touch /tmp/pwned\n' } }, { confirm: true, ...options });
  const unvetted = (filepath: string, options = {}) => executor.execute({ name: 'write_without_asking', arguments: { filepath } }, options);

  test('a write into .git, a nested .git, .toolgate, or a listed name or path asks, and writes nothing unanswered', async () => {
    for (const target of ['.git/config', 'sub/.git/hooks/pre-commit', 'plans/.git', '.GIT/config', '.toolgate/policy.toml', 'app/.env', 'config/secrets/key', 'config/secrets']) {
      const r = await unvetted(target);
      assert.equal(r.errorCode, 'CONFIRMATION_REQUIRED', `${target}: ${r.error}`);
      assert.match(r.error!, /It asks because .* a protected path/);
    }
  });

  test('G1, the rest of the family (attack s11): .hg, .jj, .envrc and .husky ask too, and a folder given two of a git repository folder\'s entries asks', async () => {
    for (const target of ['out/.hg/hgrc', 'out/.jj/repo/config.toml', 'out/.envrc', 'out/.husky/pre-commit', 'out/.HUSKY/pre-push']) {
      const r = await unvetted(target);
      assert.equal(r.errorCode, 'CONFIRMATION_REQUIRED', `${target}: ${r.error}`);
      assert.equal(fs.existsSync(path.join(t.ws, target)), false);
    }
    // A bare repository planted file by file: HEAD alone is a plain file; config beside it is not.
    const head = await unvetted('out/evil/HEAD');
    assert.equal(head.success, true, head.error);
    fs.mkdirSync(path.join(t.ws, 'out/evil'), { recursive: true });
    fs.writeFileSync(path.join(t.ws, 'out/evil/HEAD'), 'ref: refs/heads/main\n');
    const config = await unvetted('out/evil/config');
    assert.equal(config.errorCode, 'CONFIRMATION_REQUIRED', config.error);
    assert.match(config.error!, /"out\/evil"/);
    assert.equal((await unvetted('out/other/objects/x')).success, true, 'objects alone is a plain folder');
    fs.mkdirSync(path.join(t.ws, 'out/other/objects'), { recursive: true });
    assert.equal((await unvetted('out/other/refs/heads/main')).errorCode, 'CONFIRMATION_REQUIRED', 'objects and refs together ask');
    // Folders named config or objects in a project are not that shape (review: src/config beside src/objects).
    fs.mkdirSync(path.join(t.ws, 'src/objects'), { recursive: true });
    fs.mkdirSync(path.join(t.ws, 'src/config'), { recursive: true });
    assert.equal((await unvetted('src/config/db.ts')).success, true);
    assert.equal((await unvetted('src/objects/user.ts')).success, true);
    // In plan mode with the folder scoped, it is refused outright.
    fs.mkdirSync(path.join(t.ws, 'plans/bare'), { recursive: true });
    fs.writeFileSync(path.join(t.ws, 'plans/bare/HEAD'), 'ref: refs/heads/main\n');
    const scoped = await write('plans/bare/config', { mode: 'plan', scopedWriteDirs: ['plans'], approvalMode: 'allow-all' });
    assert.equal(scoped.errorCode, 'MODE_DENIED', scoped.error);
    assert.equal(fs.existsSync(path.join(t.ws, 'plans/bare/config')), false);
  });

  test('the same write with the user\'s approval runs; writes elsewhere never ask', async () => {
    // a person's answer (the handler), not an approval given in advance (session 21: confirm: true, --yes)
    const inAdvance = await unvetted('.git/info/note', { confirm: true });
    assert.equal(inAdvance.errorCode, 'CONFIRMATION_REQUIRED', inAdvance.error);
    assert.equal(fs.existsSync(path.join(t.ws, '.git/info/note')), false);
    const approved = await unvetted('.git/info/note', { confirm: true, confirmationHandler: () => 'allow_once' });
    assert.equal(approved.success, true, approved.error);
    for (const target of ['src/gitignore.txt', 'config/secrets-not/x', 'my.git/x', '.gitignore']) {
      const plain = await unvetted(target);
      assert.equal(plain.success, true, `${target} is not protected: ${plain.error}`);
    }
  });

  test('in plan mode, a scoped write folder does not open .git inside it, nor a scoped .git itself, even with approval', async () => {
    // The acceptance's three: a config, a HEAD, and a case variant deeper down.
    for (const target of ['plans/.git/config', 'plans/.git/HEAD', 'plans/sub/.GIT/hooks/x']) {
      const nested = await write(target, { mode: 'plan', scopedWriteDirs: ['plans'], approvalMode: 'allow-all' });
      assert.equal(nested.errorCode, 'MODE_DENIED', `${target}: ${nested.error}`);
      assert.match(nested.error!, /protected path/);
      assert.equal(fs.existsSync(path.join(t.ws, target)), false);
    }
    const scopedGit = await write('.git/hooks/pre-commit', { mode: 'plan', scopedWriteDirs: ['.git'] });
    assert.equal(scopedGit.errorCode, 'MODE_DENIED', scopedGit.error);
    assert.equal(fs.existsSync(path.join(t.ws, 'plans/.git/config')), false);
    const allowed = await write('plans/step-1.md', { mode: 'plan', scopedWriteDirs: ['plans'] });
    assert.equal(allowed.success, true, allowed.error);
  });

  test('reading a protected path asks nothing', async () => {
    fs.mkdirSync(path.join(t.ws, '.git'), { recursive: true });
    fs.writeFileSync(path.join(t.ws, '.git', 'HEAD'), 'ref: refs/heads/main\n');
    const read = await executor.execute({ name: 'read_file', arguments: { filepath: '.git/HEAD' } });
    assert.equal(read.success, true, read.error);
  });
});
