// Regression (review s19, item 2 of s20-sandbox): with the workspace at the home folder, a
// dotfile reached through a symbolic link (`~/.config -> dotfiles/config`, `~/.bashrc ->
// dotfiles/bashrc`, as dotfile managers make them) was bound read-only at its target only: a
// mount follows the link, so a command could remove the link and make a folder or file of its
// own under its name (`rm .config; mkdir -p .config/autostart; ...`), which a desktop session
// or a login shell then runs. The folder holding such a link is now sealed (read-only, its
// entries bound writable again): the link stays, entries already there stay writable.
// Needs bubblewrap (skipped, saying so, where it does not work).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { ToolExecutor } from 'toolgate';
import { bubblewrapAvailable } from 'toolgate/internal';
import { homeDotfileSeals } from '../../src/sandbox/home-dotfile-mounts.js';
import { portedRegistry, tempWorkspace, type TempWorkspace } from '../helpers.js';

describe('G1 family: a dotfile behind a symbolic link keeps its link in the sandbox', { skip: bubblewrapAvailable() ? false : 'bubblewrap does not work here' }, () => {
  let t: TempWorkspace;
  let savedHome: string | undefined;
  let executor: ToolExecutor;
  before(async () => {
    t = tempWorkspace();
    savedHome = process.env.HOME;
    process.env.HOME = t.ws;
    fs.mkdirSync(path.join(t.ws, 'dotfiles/config/autostart'), { recursive: true });
    fs.symlinkSync('dotfiles/config', path.join(t.ws, '.config'));
    fs.writeFileSync(path.join(t.ws, 'dotfiles/bashrc'), 'alias ll="ls -l"\n');
    fs.symlinkSync('dotfiles/bashrc', path.join(t.ws, '.bashrc'));
    fs.mkdirSync(path.join(t.ws, 'src'));
    fs.writeFileSync(path.join(t.ws, 'notes.txt'), 'before\n');
    executor = new ToolExecutor(await portedRegistry(), { workspaceRoot: t.ws });
  });
  after(async () => {
    await executor.close();
    process.env.HOME = savedHome;
    t.cleanup();
  });
  // approved by a person (a protected path's question is not answered by confirm: true alone): the seal holds all the same
  const run = (command: string) => executor.execute({ name: 'run_command', arguments: { command } }, { confirm: true, confirmationHandler: () => 'allow_once' });

  test('the home folder holding the links is sealed', () => {
    const ws = fs.realpathSync(t.ws);
    assert.deepEqual(homeDotfileSeals([ws]), [ws]);
    assert.deepEqual(homeDotfileSeals([path.join(ws, 'src')]), [], 'nothing to seal outside the writable folders');
  });

  for (const command of [
    'rm .c*g && mkdir -p .config/autostart && echo x > .config/autostart/y.desktop',
    'mv .c*g c-old && mkdir -p .config/autostart && echo x > .config/autostart/y.desktop',
    'rm .b*rc; echo evil > .bashrc',
    'mv .b*rc rc-old; echo evil > .bashrc',
  ]) {
    test(`G1: \`${command}\` fails and leaves the links as they were`, async () => {
      const r = await run(command);
      assert.doesNotMatch(String(r.output), /\[exit status 0\]/, String(r.output));
      assert.match(String(r.output) + String(r.error), /Read-only file system|Device or resource busy/, String(r.output));
      assert.equal(fs.readlinkSync(path.join(t.ws, '.config')), 'dotfiles/config');
      assert.equal(fs.readlinkSync(path.join(t.ws, '.bashrc')), 'dotfiles/bashrc');
      assert.deepEqual(fs.readdirSync(path.join(t.ws, 'dotfiles/config/autostart')), []);
      assert.equal(fs.readFileSync(path.join(t.ws, 'dotfiles/bashrc'), 'utf8'), 'alias ll="ls -l"\n');
    });
  }

  test('entries already in the sealed home folder stay writable; a new one cannot be made there', async () => {
    const r = await run('echo after > notes.txt && mkdir -p src/a && echo y > src/a/b.txt && rm src/a/b.txt && echo done');
    assert.match(String(r.output), /done[\s\S]*\[exit status 0\]/, String(r.output) + r.error);
    assert.equal(fs.readFileSync(path.join(t.ws, 'notes.txt'), 'utf8'), 'after\n');
    const made = await run('touch new-file');
    assert.match(String(made.output), /Read-only file system/, String(made.output));
    assert.equal(fs.existsSync(path.join(t.ws, 'new-file')), false);
  });
});
