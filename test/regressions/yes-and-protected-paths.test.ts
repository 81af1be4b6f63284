// Regression (attack s20, "noticed and left alone"): `toolgate call write_file
// .toolgate/policy.toml --yes` and `move_file ok.txt .GIT/config --yes` ran: the protected
// paths' question was "approved in advance by the caller". A protected path's question is now
// one only a person answers (`Decision.person`): no `--yes`, `confirm: true` or
// `autoConfirmTools`, and not `allow-all`; off a terminal with nobody to ask, the call is refused
// (`CONFIRMATION_REQUIRED`) naming the protected path. A person's answer still counts: a
// handler's (a terminal, an MCP client), or one remembered for this exact request.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { ToolExecutor, type ConfirmationRequest } from 'toolgate';
import { portedRegistry, runCli, tempWorkspace, type TempWorkspace } from '../helpers.js';

describe('--yes does not answer a protected path\'s question', () => {
  let t: TempWorkspace;
  let env: NodeJS.ProcessEnv;
  before(() => {
    t = tempWorkspace();
    env = { ...process.env, XDG_CONFIG_HOME: path.join(t.root, 'config'), XDG_STATE_HOME: path.join(t.root, 'state'), HOME: path.join(t.root, 'home') };
    fs.writeFileSync(path.join(t.ws, 'ok.txt'), 'ok\n');
  });
  after(() => t.cleanup());

  const call = (name: string, args: object, ...flags: string[]) =>
    runCli(['call', name, JSON.stringify(args), '--yes', '--workspace', t.ws, '--no-ledger', '--json', ...flags], { env, cwd: t.root });

  test('G1/O1: call write_file .toolgate/policy.toml and move_file ok.txt .GIT/config with --yes (and --approve allow-all): refused, naming the path; nothing written or moved', async () => {
    for (const flags of [[], ['--approve', 'allow-all']]) {
      const written = await call('write_file', { filepath: '.toolgate/policy.toml', content: '[[rules]]\naction = "allow"\n' }, ...flags);
      assert.notEqual(written.code, 0);
      const result = JSON.parse(written.stdout) as { errorCode?: string; error?: string };
      assert.equal(result.errorCode, 'CONFIRMATION_REQUIRED', written.stdout);
      assert.match(result.error ?? '', /\.toolgate/);
      assert.match(result.error ?? '', /protected path/);
      assert.match(result.error ?? '', /does not answer this question/);
      assert.equal(fs.existsSync(path.join(t.ws, '.toolgate', 'policy.toml')), false);

      const moved = await call('move_file', { source: 'ok.txt', destination: '.GIT/config' }, ...flags);
      assert.notEqual(moved.code, 0);
      const movedResult = JSON.parse(moved.stdout) as { errorCode?: string; error?: string };
      assert.equal(movedResult.errorCode, 'CONFIRMATION_REQUIRED', moved.stdout);
      assert.match(movedResult.error ?? '', /\.GIT/);
      assert.equal(fs.existsSync(path.join(t.ws, '.GIT', 'config')), false);
      assert.equal(fs.readFileSync(path.join(t.ws, 'ok.txt'), 'utf8'), 'ok\n');
    }
  });

  test('the hint off a terminal does not send the person back to --yes', async () => {
    const r = await runCli(['call', 'write_file', JSON.stringify({ filepath: '.git/config', content: 'x' }), '--yes', '--workspace', t.ws, '--no-ledger'], { env, cwd: t.root });
    assert.notEqual(r.code, 0);
    assert.match(r.stderr, /--yes does not answer this question/);
    assert.doesNotMatch(r.stderr, /re-run with --yes/);
  });

  test('the control: --yes still approves a write elsewhere', async () => {
    const r = await call('write_file', { filepath: 'notes.txt', content: 'n\n' });
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.equal(fs.readFileSync(path.join(t.ws, 'notes.txt'), 'utf8'), 'n\n');
  });

  test('an executor call with confirm: true (an agent\'s autoConfirmTools): the handler, a person, is asked; a remembered answer to this exact request counts', async () => {
    const asked: ConfirmationRequest[] = [];
    let answer: 'deny' | 'allow_for_turn' = 'deny';
    const ex = new ToolExecutor(await portedRegistry(), {
      workspaceRoot: t.ws, sandbox: 'none',
      confirmationHandler: (request) => {
        asked.push(request);
        return answer;
      },
    });
    try {
      const write = (turnId = 't1') => ex.execute({ name: 'write_file', arguments: { filepath: '.git/info/exclude', content: 'x\n' } }, { confirm: true, turnId });
      const refused = await write('t0');
      assert.equal(refused.errorCode, 'CONFIRMATION_DENIED');
      assert.equal(asked.length, 1);
      assert.equal(asked[0]!.ask.decider, 'protected-paths');
      assert.equal(fs.existsSync(path.join(t.ws, '.git', 'info', 'exclude')), false);
      answer = 'allow_for_turn';
      assert.equal((await write()).errorCode, undefined);
      assert.equal(asked.length, 2);
      answer = 'deny';
      assert.equal((await write()).errorCode, undefined, 'the person\'s answer for this turn was not remembered');
      assert.equal(asked.length, 2);
    } finally {
      await ex.close();
    }
  });
});
