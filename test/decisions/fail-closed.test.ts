/**
 * Allow rules that fail closed, and what cannot be analysed (issue 30, items 1 and 6), through
 * the executor users get, with real commands in a real git repository: case C4 (an allow rule
 * for git, sed or find does not cover their forms that run code or write), C5 (a rule for a
 * wrapper covers no command it runs) and C6 (a command line beyond the analyser's limits ends
 * with a curl denied by a rule, under `confirm: true`, which is what `--yes` sets: denied, and
 * a loopback listener receives nothing). A question a policy marks as needing a person
 * (`always_ask`) is not answered by `confirm: true` either.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { after, before, beforeEach, describe, test } from 'node:test';
import { ToolExecutor, type ApprovalAnswer } from 'toolgate';
import { bubblewrapAvailable } from '../../src/internal.js';
import { policyExecutor } from '../policy-executor.js';

/** Where bubblewrap is missing (CI runs the suite so too), the commands run with the profile none, chosen explicitly. */
const SANDBOX = bubblewrapAvailable() ? {} : { sandbox: 'none' as const };

describe('allow rules that fail closed; what cannot be analysed', () => {
  let answer: ApprovalAnswer;
  const fx = policyExecutor({ executor: SANDBOX, person: () => answer });
  const { t, userFile, asked, policy, run } = fx;
  let server: http.Server;
  let port: number;
  let requests: number;

  before(async () => {
    const git = (...args: string[]) => execFileSync('git', args, { cwd: t.ws, stdio: 'ignore', env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1', HOME: t.root } });
    git('init', '-q', '-b', 'main');
    fs.writeFileSync(path.join(t.ws, 'notes.txt'), 'one\ntwo\nthree\n');
    git('add', 'notes.txt');
    git('-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '-q', '-m', 'first');
    requests = 0;
    server = http.createServer((_request, response) => {
      requests++;
      response.end('reached\n');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  after(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
  beforeEach(() => {
    answer = 'deny';
    fs.rmSync(userFile, { force: true });
    fs.mkdirSync(path.join(t.ws, 'data'), { recursive: true });
    fs.writeFileSync(path.join(t.ws, 'data', 'keep.txt'), 'keep\n');
  });

  /** Nothing was written or removed: no pwn, no out.txt, data and notes intact. */
  const untouched = () => {
    for (const name of ['pwn', 'out.txt', 'pwn1']) assert.equal(fs.existsSync(path.join(t.ws, name)), false, `${name} was written`);
    assert.equal(fs.readFileSync(path.join(t.ws, 'data', 'keep.txt'), 'utf8'), 'keep\n');
    assert.equal(fs.readFileSync(path.join(t.ws, 'notes.txt'), 'utf8'), 'one\ntwo\nthree\n');
  };
  const askedFirst = async (command: string, pattern: RegExp = /./) => {
    const r = await run(command);
    assert.equal(r.errorCode, 'CONFIRMATION_DENIED', `${command}: ${r.errorCode} ${r.error}`);
    assert.equal(asked.length, 1, command);
    assert.match(asked[0]!.ask.reason, pattern, command);
    asked.length = 0;
  };
  const ranUnasked = async (command: string) => {
    const r = await run(command);
    assert.equal(asked.length, 0, `${command} asked: ${asked.map((a) => a.ask.reason).join('; ')}`);
    assert.ok(!['CONFIRMATION_REQUIRED', 'CONFIRMATION_DENIED', 'POLICY_DENIED'].includes(r.errorCode ?? ''), `${command}: ${r.errorCode}: ${r.error}`);
    return r;
  };

  test('C4: under allow rules for git, sed and find, their forms that run code or write ask; nothing runs, no file is written or removed', async () => {
    policy('[[rules]]\ncommand = "git"\naction = "allow"\n\n[[rules]]\ncommand = "sed"\naction = "allow"\n\n[[rules]]\ncommand = "find"\naction = "allow"\n');
    const cases: Array<[string, RegExp]> = [
      [`git -c core.pager='sh -c "touch pwn"' log`, /./],
      ['git log --output=out.txt', /--output writes files/],
      ['git -c diff.external=./x diff', /-c/],
      ['git diff --ext-diff', /--ext-diff/],
      ['git grep -O touch one', /-O|unknown option/],
      ['git config alias.x "!touch pwn"', /git config/],
      ['git branch pwn', /operand/],
      // (without a sandbox the question names the script's file commands first)
      [`sed -n '1w pwn' notes.txt`, /w` writes a file|\(r, R, w, W\)/],
      [`sed 's/one/touch pwn/e' notes.txt`, /runs/],
      ['sed -i s/one/ONE/ notes.txt', /-i/],
      [`find . -exec sh -c 'touch pwn' \\;`, /-exec runs a command/],
      ['find . -delete', /-delete deletes files/],
      ['find . -fprint out.txt', /writes a file/],
    ];
    for (const [command, pattern] of cases) await askedFirst(command, pattern);
    untouched();
    assert.equal(execFileSync('git', ['branch', '--list'], { cwd: t.ws, encoding: 'utf8' }).includes('pwn'), false);
    // the reading forms run without a question
    const log = await ranUnasked('git log --oneline');
    await ranUnasked(`sed -n '2p' notes.txt`);
    await ranUnasked(`find . -name '*.txt' -type f`);
    assert.equal(log.success, true, log.error);
    assert.match(JSON.stringify(log.output), /first/);
  });

  test('C4: other programs of the family: awk, rg, sort, tar, tee under allow rules naming them ask for their writing or running forms', async () => {
    policy(['awk', 'rg', 'sort', 'tar', 'grep'].map((c) => `[[rules]]\ncommand = "${c}"\naction = "allow"\n`).join('\n'));
    for (const command of [
      `awk 'BEGIN { system("touch pwn") }'`, `awk '{ print > "out.txt" }' notes.txt`, `awk '{ print 1 / 1 | "touch pwn" (1/1) }' notes.txt`,
      'rg --pre ./x one', 'rg -z one', 'sort -o out.txt notes.txt', 'sort --compress-program=sh notes.txt', 'tar -cf out.txt notes.txt',
      'tar -cf - notes.txt --checkpoint=1 --checkpoint-action=exec=touch\\ pwn', 'tar -cf - -I "touch pwn" notes.txt',
    ]) await askedFirst(command);
    untouched();
    await ranUnasked('sort -r notes.txt');
    await ranUnasked(`awk '{ print $1 }' notes.txt`);
  });

  test('C5: under allow rules for the wrappers, timeout 5 rm -rf data and env -S \'rm -rf data\' are judged as rm -rf data', async () => {
    policy(['timeout', 'env', 'nice', 'xargs', 'nohup'].map((c) => `[[rules]]\ncommand = "${c}"\naction = "allow"\n`).join('\n') + '\n[[rules]]\ncommand = "echo"\naction = "allow"\n');
    for (const command of ['timeout 5 rm -rf data', "env -S 'rm -rf data'", 'nice -n 5 rm -rf data', 'echo data | xargs rm -rf', 'nohup rm -rf data', 'timeout 5 env nice rm -rf data']) {
      await askedFirst(command, /rm -rf/);
    }
    untouched();
    // with a rule for the wrapped command, the wrapper's safe options pass
    policy('[[rules]]\ncommand = "ls"\naction = "allow"\n');
    await ranUnasked('timeout 5 ls data');
    await askedFirst('env -P /tmp ls data', /-P/);
    // and a deny rule on rm denies it however it is wrapped
    policy('[[rules]]\ncommand = "timeout"\naction = "allow"\n\n[[rules]]\ncommand = "rm"\naction = "deny"\n');
    const r = await run("timeout 5 env -S 'rm -rf data'");
    assert.equal(r.errorCode, 'POLICY_DENIED', r.error);
    untouched();
  });

  test('C6: a command line too large or too deep to analyse that ends with a denied curl is denied under confirm: true (--yes) and allow-all; the listener receives nothing', async () => {
    policy('[[rules]]\ncommand = "curl"\naction = "deny"\n');
    const url = `http://127.0.0.1:${port}/`;
    const lines = [
      `${'true;'.repeat(20_000)} curl -s ${url}`,
      `${'$('.repeat(90)}curl -s ${url}${')'.repeat(90)}`,
      `echo ${'$('.repeat(90)}curl -s ${url}${')'.repeat(90)}`,
      `${':;'.repeat(5_000)} curl -s ${url}`,
    ];
    for (const line of lines) {
      for (const options of [{ confirm: true }, { confirm: true, approvalMode: 'allow-all' as const }]) {
        const r = await run(line, options);
        assert.equal(r.errorCode, 'POLICY_DENIED', `${line.slice(0, 40)}...: ${r.errorCode} ${r.error?.slice(0, 300)}`);
      }
    }
    assert.equal(asked.length, 0);
    // the same curl alone, under --yes: denied too (a deny rule is never overridden)
    assert.equal((await run(`curl -s ${url}`, { confirm: true })).errorCode, 'POLICY_DENIED');
    await new Promise((resolve) => setTimeout(resolve, 100));
    assert.equal(requests, 0, 'the listener received a request');
  });

  test('C6: with no deny rule, a line beyond the limits asks (a rule for the tool exists), and nothing runs when the person says no', async () => {
    policy('[[rules]]\ncommand = "echo"\naction = "allow"\n');
    const r = await run(`${'echo x;'.repeat(10_000)} touch pwn`);
    assert.equal(r.errorCode, 'CONFIRMATION_DENIED', `${r.errorCode} ${r.error}`);
    assert.equal(asked.length, 1);
    assert.match(asked[0]!.ask.reason, /beyond what the analysis reads/);
    untouched();
  });

  test('C6: text fed to a shell that the analysis cannot read, under a deny rule for curl: confirm: true and allow-all do not answer; only a person does', async () => {
    policy('[[rules]]\ncommand = "curl"\naction = "deny"\n');
    const url = `http://127.0.0.1:${port}/`;
    const lines = [`bash <<'EOF'\ncurl -s ${url}\nEOF`, `bash <<< 'curl -s ${url}'`, `echo 'curl -s ${url}' | bash`, `cat script.sh | sh`, `sh < script.sh`];
    fs.writeFileSync(path.join(t.ws, 'script.sh'), `curl -s ${url}\n`);
    for (const line of lines) {
      for (const options of [{ confirm: true }, { confirm: true, approvalMode: 'allow-all' as const }]) {
        asked.length = 0;
        const r = await run(line, options);
        assert.ok(r.errorCode === 'POLICY_DENIED' || r.errorCode === 'CONFIRMATION_DENIED', `${line}: ${r.errorCode} ${r.error}`);
        if (r.errorCode === 'CONFIRMATION_DENIED') {
          assert.equal(asked.length, 1, 'the person was asked');
          assert.deepEqual(asked[0]!.offers, ['allow_once', 'deny'], 'nothing to remember');
        }
      }
    }
    fs.rmSync(path.join(t.ws, 'script.sh'));
    await new Promise((resolve) => setTimeout(resolve, 100));
    assert.equal(requests, 0, 'the listener received a request');
  });

  test('always_ask: confirm: true (--yes) does not answer a question a policy marks as needing a person', async () => {
    policy('always_ask = true\n\n[[rules]]\ncommand = "touch"\naction = "allow"\n');
    const r = await run('touch pwn', { confirm: true });
    assert.equal(r.errorCode, 'CONFIRMATION_DENIED', `${r.errorCode} ${r.error}`);
    assert.equal(asked.length, 1, 'the person was asked');
    untouched();
    // and with nobody to ask, it is refused, not run
    const lonely = new ToolExecutor(fx.registry, { workspaceRoot: t.ws, policy: { user: userFile, workspace: false }, ...SANDBOX });
    try {
      const alone = await lonely.execute({ name: 'run_command', arguments: { command: 'touch pwn' } }, { confirm: true, approvalMode: 'allow-all' });
      assert.equal(alone.errorCode, 'CONFIRMATION_REQUIRED', `${alone.errorCode} ${alone.error}`);
    } finally {
      await lonely.close();
    }
    untouched();
  });
});
