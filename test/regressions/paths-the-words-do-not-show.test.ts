/**
 * Regression: under a deny rule on `secrets/**` and `.env`, shell commands read the denied
 * files through names their words do not show (found attacking the grants, task s18):
 * - a hard link made earlier (`hardlink.txt` -> `secrets/key.txt`): `cat hardlink.txt` ran, and
 *   in the sandbox `grep -r SECRET .` and `tar cf - .` read it (the sandbox hid the path
 *   `secrets/`, not the file's other name);
 * - with no sandbox (`--sandbox none`), where nothing hides what the words miss: a link made
 *   earlier in the line (`ln -s / r && cat r/WS/secrets/key.txt`), `/proc/self/cwd/...`, brace
 *   expansion, variables, `$(...)`, `~+`, a folder holding the workspace (`grep -r x ..`), `cd
 *   sub && cat ../.env`, `env -C sub cat ../.env`, and `..` after a link (`cat sub/link/../key.txt`
 *   with `sub/link -> ../secrets/inner`: the words were normalised before links were followed).
 * Now the decider judges a command word's other names (hard links), the sandbox hides every
 * name of a withheld file, and without a sandbox a word or a folder change the analysis cannot
 * follow asks (only a person answers under a deny rule), `..` is walked as the workspace, and
 * the folders a static `cd` or `env -C` leads to are where relative words are judged from.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { ToolExecutor, type ToolRegistry } from 'toolgate';
import { bubblewrapAvailable } from 'toolgate/internal';
import { portedRegistry, tempWorkspace, type TempWorkspace } from '../helpers.js';

describe('paths a shell command reaches that its words do not show', () => {
  let registry: ToolRegistry;
  let t: TempWorkspace;
  let ws: string;
  let userFile: string;
  const executors: ToolExecutor[] = [];

  before(async () => {
    registry = await portedRegistry();
    t = tempWorkspace();
    userFile = path.join(t.root, 'config', 'toolgate', 'policy.toml');
    fs.mkdirSync(path.dirname(userFile), { recursive: true });
    fs.writeFileSync(userFile, '[[rules]]\naction = "deny"\npaths = ["secrets/**", ".env"]\n');
    fs.mkdirSync(path.join(t.ws, 'secrets'));
    fs.writeFileSync(path.join(t.ws, 'secrets/key.txt'), 'TOPSECRET\n');
    fs.writeFileSync(path.join(t.ws, '.env'), 'ENVSECRET\n');
    fs.writeFileSync(path.join(t.ws, 'ok.txt'), 'ok\n');
    fs.linkSync(path.join(t.ws, 'secrets/key.txt'), path.join(t.ws, 'hardlink.txt'));
    fs.mkdirSync(path.join(t.ws, 'sub'));
    fs.mkdirSync(path.join(t.ws, 'docs'));
    fs.mkdirSync(path.join(t.ws, 'secrets/inner'));
    fs.symlinkSync('../secrets/inner', path.join(t.ws, 'sub/link'));
    ws = fs.realpathSync(t.ws);
  });
  after(async () => {
    for (const executor of executors) await executor.close();
    t.cleanup();
  });

  function executor(sandbox: 'none' | undefined): ToolExecutor {
    const made = new ToolExecutor(registry, {
      workspaceRoot: t.ws, policy: { user: userFile, workspace: false }, approvalMode: 'allow-all', confirmationHandler: () => 'deny',
      ...(sandbox === 'none' && { sandbox: 'none' as const }),
    });
    executors.push(made);
    return made;
  }

  async function held(on: ToolExecutor, command: string): Promise<void> {
    for (const made of ['r', 'x']) fs.rmSync(path.join(t.ws, made), { recursive: true, force: true });
    // --yes does not settle it: a deny, or a question only a person answers (the handler says no)
    const r = await on.execute({ name: 'run_command', arguments: { command } }, { confirm: true });
    assert.doesNotMatch(String(r.output ?? ''), /TOPSECRET|ENVSECRET/, `${command} printed a denied file`);
    assert.ok(['POLICY_DENIED', 'CONFIRMATION_DENIED'].includes(r.errorCode ?? ''), `${command}: ${r.errorCode ?? 'ran'} ${r.error ?? ''}`);
  }

  test('a hard link to a denied file, in the sandbox', { skip: !bubblewrapAvailable() && 'bubblewrap is not available' }, async () => {
    const sandboxed = executor(undefined);
    await held(sandboxed, 'cat hardlink.txt');
    for (const command of ['grep -r SECRET .', 'tar cf - . | tar xOf -', 'cat $(printf hardlink.txt)']) {
      const r = await sandboxed.execute({ name: 'run_command', arguments: { command } }, { confirm: true });
      assert.doesNotMatch(String(r.output ?? ''), /TOPSECRET|ENVSECRET/, `${command} printed a denied file through its other name`);
    }
    const r = await sandboxed.execute({ name: 'run_command', arguments: { command: 'cat ok.txt' } });
    assert.equal(r.errorCode, undefined, `${r.errorCode} ${r.error}`);
  });

  test('with no sandbox, what the words do not show asks or is denied', async () => {
    const bare = executor('none');
    const lines = [
      'cat hardlink.txt', `ln -s / r && cat r${ws}/secrets/key.txt`, 'cat /proc/self/cwd/secrets/key.txt', 'cat /proc/$$/cwd/.env',
      'cat secre{t,}s/key.txt', 'x=secrets; cat $x/key.txt', 'cat "${HOME:+secrets}/key.txt"', 'cat ~+/secrets/key.txt', "cat $(printf '.e%s' nv)",
      'grep -r SECRET sub ..', 'cd sub && cat ../.env', 'cd sub; cd ..; cat .env', 'env -C sub cat ../.env', 'cd "$(printf sub)" && cat ../.env',
      // `..` after a link climbs from the link's target: sub/link/.. is secrets, not sub
      'cat sub/link/../key.txt',
    ];
    for (const command of lines) await held(bare, command);
  });

  test('the control: with no sandbox, lines whose words show everything run', async () => {
    const bare = executor('none');
    for (const command of ['cat ok.txt', 'cd docs && ls', 'ls -la docs', `awk '{print $1}' ok.txt`]) {
      const r = await bare.execute({ name: 'run_command', arguments: { command } });
      assert.equal(r.errorCode, undefined, `${command}: ${r.errorCode} ${r.error}`);
    }
  });
});
