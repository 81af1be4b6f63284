/**
 * The home folder's dotfiles that run code are read-only in the sandbox (case G1's family with
 * O1's set-up, attack s19): with the workspace at the user's home folder (a temporary one,
 * `HOME` of this process), an approved `run_command` that reaches `~/.bashrc`, `~/.gitconfig`,
 * `~/.ssh/config`, `~/.config/autostart/` without naming them (a glob, a variable, a script,
 * a rename of the folder above) leaves them as they were, and its result shows the failure;
 * ordinary writes of the workspace (other hidden entries included) still work. Without a
 * sandbox, the same commands ask under an allow rule (their words cannot be judged).
 * The sandboxed part needs bubblewrap (skipped, saying so, where it does not work).
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { ToolExecutor } from 'toolgate';
import { bubblewrapAvailable } from 'toolgate/internal';
import { homeDotfileTargets } from '../../src/sandbox/home-dotfile-mounts.js';
import { ownStateProtections } from '../../src/sandbox/own-state-paths.js';
import { portedRegistry, tempWorkspace, type TempWorkspace } from '../helpers.js';

const ORIGINAL: Record<string, string> = { '.bashrc': 'alias ll="ls -l"\n', '.gitconfig': '[user]\n\tname = me\n', '.ssh/config': 'Host *\n', '.profile': 'PATH=$PATH\n' };

/** A temporary workspace that is `HOME`, holding {@link ORIGINAL}. */
function homeWorkspace(): { t: TempWorkspace; restore: () => void } {
  const t = tempWorkspace();
  const saved = process.env.HOME;
  process.env.HOME = t.ws;
  for (const [name, content] of Object.entries(ORIGINAL)) {
    fs.mkdirSync(path.dirname(path.join(t.ws, name)), { recursive: true });
    fs.writeFileSync(path.join(t.ws, name), content);
  }
  return {
    t,
    restore: () => {
      process.env.HOME = saved;
      t.cleanup();
    },
  };
}

/** Each dotfile still holds what it held, and no autostart entry or ~/.bash_profile exists. */
function untouched(ws: string): void {
  for (const [name, content] of Object.entries(ORIGINAL)) assert.equal(fs.readFileSync(path.join(ws, name), 'utf8'), content, name);
  assert.deepEqual(fs.existsSync(path.join(ws, '.config/autostart')) ? fs.readdirSync(path.join(ws, '.config/autostart')) : [], [], '~/.config/autostart stays empty');
  assert.equal(fs.existsSync(path.join(ws, '.bash_profile')) ? fs.readFileSync(path.join(ws, '.bash_profile'), 'utf8') : '', '');
}

/** Commands that write the dotfiles without naming them. */
const ATTACKS = [
  'for f in .b*rc .g*config .s*h/c*g .p*file; do echo evil >> "$f"; done',
  'D=.config/autostart; mkdir -p $D && echo x > $D/y.desktop',
  'for f in .b*rc; do mv "$f" old-rc && echo evil > "$f"; done',
  'mv .s*h ssh-old && mkdir .ssh && echo "Host * ProxyCommand sh" > .ssh/config',
  'mv .c*g conf-old && mkdir -p .config/autostart && echo x > .config/autostart/y.desktop',
  'printf "echo evil >> \\"\\$1\\"\\n" > w.sh && sh w.sh "$(printf .bash)rc" && sh w.sh "$(printf .git)config"',
];

describe('G1 family: home dotfiles that run code are read-only in the sandbox', { skip: bubblewrapAvailable() ? false : 'bubblewrap does not work here' }, () => {
  let home: ReturnType<typeof homeWorkspace>;
  let executor: ToolExecutor;
  before(async () => {
    home = homeWorkspace();
    executor = new ToolExecutor(await portedRegistry(), { workspaceRoot: home.t.ws });
  });
  after(async () => {
    await executor.close();
    home.restore();
  });
  // approved by a person: a protected path's question is not answered by confirm: true alone (session 21); the read-only mounts are what is tested
  const run = (command: string) => executor.execute({ name: 'run_command', arguments: { command } }, { confirm: true, confirmationHandler: () => 'allow_once' });

  test('G1: approved commands writing them through a glob, a variable, a script or a renamed folder leave them unchanged, and fail', async () => {
    for (const command of ATTACKS) {
      const r = await run(command);
      assert.doesNotMatch(String(r.output), /\[exit status 0\]/, `${command}: ${r.output}`);
      assert.match(String(r.output) + String(r.error), /Read-only file system|Device or resource busy|exit status [1-9]/, command);
      untouched(home.t.ws);
    }
  });

  test('G1: ordinary writes of the workspace still work, other hidden entries (caches) included', async () => {
    const r = await run('echo ok > notes.txt && mkdir -p src .cache/tool && echo y > src/a.txt && echo c > .cache/tool/c && echo "$HOME"');
    assert.match(String(r.output), /\[exit status 0\]/, String(r.output) + r.error);
    assert.equal(fs.readFileSync(path.join(home.t.ws, 'notes.txt'), 'utf8'), 'ok\n');
    assert.equal(fs.readFileSync(path.join(home.t.ws, '.cache/tool/c'), 'utf8'), 'c\n');
  });

  test('G1: a missing ~/.bashrc cannot be created, ~/.bash_profile is not made by toolgate (an empty one would stop bash reading ~/.profile)', async () => {
    fs.rmSync(path.join(home.t.ws, '.bashrc'));
    const r = await run('B=.bash; echo evil > "${B}rc"');
    assert.doesNotMatch(String(r.output), /\[exit status 0\]/, String(r.output));
    assert.equal(fs.readFileSync(path.join(home.t.ws, '.bashrc'), 'utf8'), '', 'an empty placeholder, bound read-only');
    assert.equal(fs.existsSync(path.join(home.t.ws, '.bash_profile')), false);
    fs.writeFileSync(path.join(home.t.ws, '.bashrc'), ORIGINAL['.bashrc']!);
  });
});

describe('G1 family: which dotfiles the sandbox binds read-only', () => {
  let home: ReturnType<typeof homeWorkspace>;
  before(() => {
    home = homeWorkspace();
  });
  after(() => home.restore());

  test('only where a writable folder holds the home folder; a grant of a whole entry leaves it writable, a grant inside one does not', () => {
    const ws = fs.realpathSync(home.t.ws);
    assert.deepEqual(homeDotfileTargets([path.join(ws, 'src')]), [], 'a workspace below the home folder protects nothing here');
    const all = homeDotfileTargets([ws]);
    for (const name of ['.bashrc', '.gitconfig', '.ssh', '.profile', '.config/autostart', '.config/systemd', '.local/bin']) assert.ok(all.includes(path.join(ws, name)), name);
    assert.ok(!all.includes(path.join(ws, '.bash_profile')), 'not made: an empty one changes what bash reads');
    assert.equal(fs.statSync(path.join(ws, '.config/autostart')).mode & 0o777, 0o700);
    const granted = homeDotfileTargets([ws], [path.join(ws, '.gitconfig'), path.join(ws, '.ssh/config')]);
    assert.ok(!granted.includes(path.join(ws, '.gitconfig')));
    assert.ok(granted.includes(path.join(ws, '.ssh')), 'a grant of ~/.ssh/config leaves ~/.ssh read-only (fail closed)');
    // a writable folder scoped to ~/.config (or to ~/.ssh itself): the entries in or over it stay read-only
    const config = path.join(ws, '.config');
    assert.deepEqual(homeDotfileTargets([config]).filter((p) => !p.startsWith(`${config}/`)), []);
    assert.ok(homeDotfileTargets([config]).includes(path.join(config, 'autostart')));
    const ssh = path.join(ws, '.ssh');
    const args = ownStateProtections([ssh], process.env, homeDotfileTargets([ssh]));
    assert.deepEqual(args.slice(args.indexOf(ssh) - 1, args.indexOf(ssh) + 2), ['--ro-bind', ssh, ssh]);
  });
});

describe('G1 family without a sandbox: the same commands ask under an allow rule', () => {
  let home: ReturnType<typeof homeWorkspace>;
  let executor: ToolExecutor;
  before(async () => {
    home = homeWorkspace();
    const userFile = path.join(home.t.root, 'config', 'policy.toml');
    fs.mkdirSync(path.dirname(userFile), { recursive: true });
    fs.writeFileSync(userFile, '[[rules]]\ntool = "run_command"\naction = "allow"\n');
    executor = new ToolExecutor(await portedRegistry(), { workspaceRoot: home.t.ws, sandbox: 'none', policy: { user: userFile, workspace: false } });
  });
  after(async () => {
    await executor.close();
    home.restore();
  });

  test('G1: unsandboxed, a command whose words cannot be judged asks; nothing is written', async () => {
    for (const command of ATTACKS) {
      const r = await executor.execute({ name: 'run_command', arguments: { command } });
      assert.equal(r.errorCode, 'CONFIRMATION_REQUIRED', `${command}: ${r.output} ${r.error}`);
      untouched(home.t.ws);
    }
    const plain = await executor.execute({ name: 'run_command', arguments: { command: 'echo ok > notes.txt' } });
    assert.equal(plain.success, true, `the allow rule works: ${plain.error}`);
  });
});
