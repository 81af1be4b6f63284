// Regression (case G1's family, attack s19): protected names (`.git`, `.toolgate`, `.hg`,
// `.jj`, `.envrc`, `.husky`) and a git folder's entries (`HEAD`, `config`, ...) were compared
// in lower case only. Other file systems fold more: Windows and vfat drop trailing dots and
// spaces (`.git.`, `.git `), NTFS opens `.git::$INDEX_ALLOCATION` and the short name `GIT~1`
// as `.git`, HFS+ ignores zero-width code points (`.g\u200cit`). In plan mode with a scoped
// folder each of these wrote a `config` with `core.fsmonitor` that git on such a file system
// would run. Git refuses the same forms in a tree (core.protectNTFS, core.protectHFS).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { ToolExecutor } from 'toolgate';
import { checkEntries } from '../../tools-ported/archive/archive-policy.js';
import { portedRegistry, tempWorkspace, type TempWorkspace } from '../helpers.js';

const FORMS = ['.git.', '.git ', '.git..', '.git::$INDEX_ALLOCATION', 'GIT~1', 'git~2', 'GI7EBA~1', '.g\u200cit', '.git\ufeff', '.\u200dgit', '\uff0e\uff47\uff49\uff54', '.TOOLGATE.', 'TOOLGA~1', '.husky ', '.envrc.'];

describe('G1 family: protected names in the spellings other file systems fold', () => {
  let t: TempWorkspace;
  let executor: ToolExecutor;
  before(async () => {
    t = tempWorkspace();
    executor = new ToolExecutor(await portedRegistry(), { workspaceRoot: t.ws });
    fs.mkdirSync(path.join(t.ws, 'plans'));
  });
  after(async () => {
    await executor.close();
    t.cleanup();
  });

  test('G1: write_file into each form inside a scoped folder is denied in plan mode; nothing is written', async () => {
    for (const form of FORMS) {
      const target = `plans/${form}/config`;
      const r = await executor.execute({ name: 'write_file', arguments: { filepath: target, content: '[core]\n\tfsmonitor = touch pwn\n' } }, { confirm: true, mode: 'plan', scopedWriteDirs: ['plans'], approvalMode: 'allow-all' });
      assert.equal(r.errorCode, 'MODE_DENIED', `${JSON.stringify(form)}: ${r.error}`);
      assert.match(r.error!, /protected path/);
    }
    assert.deepEqual(fs.readdirSync(path.join(t.ws, 'plans')), []);
  });

  test('G2: a bare repository whose entries are spelled HEAD. and config  (trailing dot, space) is that shape', async () => {
    fs.mkdirSync(path.join(t.ws, 'plans/bare'));
    fs.writeFileSync(path.join(t.ws, 'plans/bare/HEAD.'), 'ref: refs/heads/main\n');
    const r = await executor.execute({ name: 'write_file', arguments: { filepath: 'plans/bare/config ', content: '[core]\n\tpager = touch pwn\n' } }, { confirm: true, mode: 'plan', scopedWriteDirs: ['plans'], approvalMode: 'allow-all' });
    assert.equal(r.errorCode, 'MODE_DENIED', r.error);
    assert.equal(fs.existsSync(path.join(t.ws, 'plans/bare/config ')), false);
  });

  test('G1: a command naming a folded form asks', async () => {
    const r = await executor.execute({ name: 'run_command', arguments: { command: 'echo x > .git./hooks/pre-commit' } }, { approvalMode: 'allow-all' });
    assert.equal(r.errorCode, 'CONFIRMATION_REQUIRED', r.error);
    assert.match(r.error!, /protected path/);
  });

  test('G1: an archive holding a folded form is refused', () => {
    for (const form of FORMS) {
      assert.throws(() => checkEntries([{ name: `x/${form}/config`, kind: 'file', size: 1, mode: 0o644 }]), /git and toolgate run programs/, JSON.stringify(form));
    }
  });

  test('names that merely resemble them stay plain', async () => {
    for (const plain of ['plans/.gitignore', 'plans/git/x', 'plans/my.git/x', 'plans/.git-notes/x', 'plans/GIT~10/x']) {
      const r = await executor.execute({ name: 'write_file', arguments: { filepath: plain, content: 'x\n' } }, { confirm: true, mode: 'plan', scopedWriteDirs: ['plans'] });
      assert.equal(r.success, true, `${plain}: ${r.error}`);
    }
  });
});
