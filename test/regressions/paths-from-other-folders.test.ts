/**
 * Every path a shell command touches is judged from the folder it really runs in, after links
 * (issue 30 items 2 and 4, "grant exactly what the person granted"), through the executor users
 * get, with no sandbox (nothing hides a withheld path, so the judging is all there is):
 *
 * - P9: a program option that runs the command (or the program) in another folder (`find
 *   -execdir`, `sudo -D`, `git -C`, `tar -C`, `make -C`, `env -C`, `unshare -w`, `nsenter --wd`)
 *   does not hide `../.env` from a deny rule on `.env`; `-execdir` whose folder the words do not
 *   show asks a person (`--yes` does not answer);
 * - P9/O1: `~` words are judged at the home folder the command sees (the workspace at the home
 *   folder), globs with `..` climb from where a link leads;
 * - G1: a command word reaching a protected path through a link, a glob, `..` or a folder option
 *   (`touch g/pwn` with `g -> .git`, `cp x .gi?/pwn`, `env -C g touch pwn`) asks under an allow
 *   rule for the program;
 * - O1: toolgate's own policy file named through a link or `~` is denied.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { beforeEach, describe, test } from 'node:test';
import type { ToolExecutionResult } from 'toolgate';
import { expandTilde, homeFolder, lineReading, tildeReadings, wordPathForms } from '../../src/decisions/command-word-paths.js';
import { policyExecutor } from '../policy-executor.js';

describe('command words judged from the folder they run in, after links', () => {
  const { t, userFile, asked, policy, run } = policyExecutor({ executor: { sandbox: 'none' }, person: 'deny', emptyEachTest: true });
  beforeEach(() => {
    execFileSync('git', ['init', '-q'], { cwd: t.ws });
    for (const folder of ['sub/deep', 'secrets', 'lnk']) fs.mkdirSync(path.join(t.ws, folder), { recursive: true });
    fs.writeFileSync(path.join(t.ws, '.env'), 'SECRET-ENV\n');
    fs.writeFileSync(path.join(t.ws, 'secrets', 'key.txt'), 'SECRET-KEY\n');
    fs.writeFileSync(path.join(t.ws, 'sub', 'a.txt'), 'a\n');
    fs.writeFileSync(path.join(t.ws, 'sub', 'deep', 'b.txt'), 'b\n');
    fs.writeFileSync(path.join(t.ws, 'notes.txt'), 'notes\n');
    fs.symlinkSync('../secrets', path.join(t.ws, 'lnk', 'sl'));
    fs.symlinkSync('.git', path.join(t.ws, 'g'));
  });

  /** The call did not run: denied, or asked and refused; no secret in what came back. */
  const stopped = (r: ToolExecutionResult, command: string) => {
    assert.ok(r.errorCode === 'POLICY_DENIED' || r.errorCode === 'CONFIRMATION_DENIED', `${command}: ran (${r.errorCode ?? 'success'}): ${JSON.stringify(r.output).slice(0, 200)}`);
    assert.doesNotMatch(JSON.stringify(r), /SECRET-(ENV|KEY)/, command);
  };
  const pwned = () => ['.git/pwn', 'pwn', 'sub/pwn'].filter((p) => fs.existsSync(path.join(t.ws, p)));

  test('P9: a program option that runs the command in another folder (find -execdir, sudo -D, git -C, tar -C, make -C, env -C, unshare -w, nsenter --wd) does not hide ../.env from a deny rule on .env; with --yes, nothing leaks', async () => {
    policy('[[rules]]\npaths = [".env", "secrets/**"]\naction = "deny"\n');
    const lines = [
      'find sub -execdir cat ../.env \\;', 'find sub -okdir cat ../.env \\;', 'find sub/deep -execdir cat ../../.env \\;',
      'sudo -D sub cat ../.env', 'sudo --chdir=sub cat ../.env', 'git -C sub diff --no-index ../.env /dev/null',
      'tar -C sub -cf - ../.env', 'tar -cf - --directory sub ../.env', 'tar --directory=sub -cf - ../.env | tar -xOf -',
      'make -C sub -f ../.env', 'make --directory=sub -f ../.env', 'env -C sub cat ../.env', 'env --chdir=sub cat ../.env',
      'unshare -w sub cat ../.env', 'nsenter --wd=sub cat ../.env', 'cd sub && cat ../.env',
      // a folder made earlier in the line
      'mkdir made && tar -C made -cf - ../.env', 'mkdir -p n/m && env -C n/m cat ../../.env',
      // an option's attached value is a path too
      'xargs -a .env echo', 'xargs -a.env echo',
    ];
    for (const line of lines) {
      const r = await run(line, { confirm: true });
      assert.equal(r.errorCode, 'POLICY_DENIED', `${line}: ${r.errorCode} ${r.error}`);
      stopped(r, line);
    }
    assert.equal(asked.length, 0);
  });

  test('P9: find -execdir runs its command in folders no word shows: with words besides {} it asks a person under a deny rule on paths (--yes does not answer), and nothing leaks', async () => {
    policy('[[rules]]\npaths = [".env"]\naction = "deny"\n');
    for (const line of ['find sub -execdir cat ../../.env \\;', 'find sub -name b.txt -execdir cat ../../.env \\;', 'find sub -okdir cat ../../.env \\;']) {
      asked.length = 0;
      const r = await run(line, { confirm: true });
      stopped(r, line);
      if (r.errorCode === 'CONFIRMATION_DENIED') {
        assert.equal(asked.length, 1, line);
        assert.match(asked[0]!.ask.reason, /-execdir|-okdir/, line);
      }
    }
    // {} alone names only what find found below a folder judged whole
    policy('[[rules]]\npaths = ["secrets/**"]\naction = "deny"\n');
    asked.length = 0;
    const r = await run('find sub -name a.txt -execdir cat {} \\;', { confirm: true });
    assert.equal(r.success, true, `${r.errorCode} ${r.error}`);
    assert.equal(asked.length, 0);
  });

  test('P9: file names that come from xargs\'s input or from a list file (sort --files0-from, tar -T, md5sum -c) ask a person under a deny rule with no sandbox; nothing leaks', async () => {
    policy('[[rules]]\npaths = [".env"]\naction = "deny"\n');
    fs.writeFileSync(path.join(t.ws, 'list'), '.env\n');
    fs.writeFileSync(path.join(t.ws, 'list0'), '.env\0');
    const lines = ['ls -a | xargs cat', 'rev <<< vne. | xargs cat', 'xargs cat < list', 'xargs -a list cat', 'sort --files0-from=list0', 'sort --files0=list0',
      'tar -cf - -T list | tar -xOf -', 'tar cTf list - | tar -xOf -', 'wc --files0-from=list0', 'md5sum -c list', 'file -f list'];
    for (const line of lines) {
      asked.length = 0;
      const r = await run(line, { confirm: true });
      stopped(r, line);
      assert.equal(asked.length, 1, `${line}: a person was asked`);
      assert.match(asked[0]!.ask.reason, /xargs's input|names of the files it reads/, line);
    }
    // the same programs with the names in their words are judged by them
    asked.length = 0;
    const r = await run('sort notes.txt sub/a.txt', { confirm: true });
    assert.equal(r.success, true, `${r.errorCode} ${r.error}`);
    assert.equal(asked.length, 0);
  });

  test('P9: cd through CDPATH (set by an assignment or by read) and lines the analysis cannot vouch for ask a person under a deny rule with no sandbox; nothing leaks', async () => {
    policy('[[rules]]\npaths = [".env"]\naction = "deny"\n');
    for (const line of ['CDPATH=sub cd deep && cat ../../.env', 'echo sub | { read CDPATH; cd deep; cat ../../.env; }', 'CDPATH=sub; cd deep; cat ../../.env']) {
      asked.length = 0;
      const r = await run(line, { confirm: true });
      stopped(r, line);
      assert.equal(asked.length, 1, `${line}: a person was asked`);
      assert.match(asked[0]!.ask.reason, /CDPATH/, line);
    }
  });

  test('P9/O1: ~ is the home folder the command sees (the workspace at home), and a glob with .. climbs from where a link leads', async () => {
    policy('[[rules]]\npaths = [".env", "secrets/**"]\naction = "deny"\n');
    const home = process.env.HOME;
    process.env.HOME = t.ws;
    try {
      for (const line of ['cat ~/.env', 'cat ~/sub/../.env', 'cat ~/.e*', 'cd ~ && cat .env', 'cat lnk/sl/../*', 'cat lnk/sl/../secrets/*', 'cat lnk/sl/../.e*', 'cat lnk/sl/../../proj/.e?v']) {
        const r = await run(line, { confirm: true });
        stopped(r, line);
        assert.equal(r.errorCode, 'POLICY_DENIED', `${line}: ${r.errorCode} ${r.error}`);
      }
    } finally {
      if (home === undefined) delete process.env.HOME;
      else process.env.HOME = home;
    }
    // ~+ is the folder the shell is in: not shown by the words, so a person decides
    const r = await run('cat ~+/.env', { confirm: true });
    stopped(r, 'cat ~+/.env');
  });

  test('G1: under allow rules for the programs, a word reaching .git through a link, a glob, .. or a folder option asks; nothing is written there', async () => {
    policy(['touch', 'cp', 'tee', 'env', 'tar', 'mkdir'].map((c) => `[[rules]]\ncommand = "${c}"\naction = "allow"\n`).join('\n'));
    for (const line of ['touch g/pwn', 'cp notes.txt g/pwn', 'echo x | tee g/pwn', 'touch .gi?/pwn', 'cp notes.txt .g*/pwn', 'touch sub/../g/pwn', 'env -C g touch pwn', 'mkdir -p g/pwn', 'tar -C g -cf pwn ../notes.txt']) {
      asked.length = 0;
      const r = await run(line);
      assert.equal(r.errorCode, 'CONFIRMATION_DENIED', `${line}: ${r.errorCode} ${r.error}`);
      assert.match(asked[0]?.ask.reason ?? '', /\.git/, line);
      assert.deepEqual(pwned(), [], line);
    }
    // the same programs elsewhere run unasked
    asked.length = 0;
    const r = await run('touch sub/fine.txt');
    assert.equal(r.success, true, `${r.errorCode} ${r.error}`);
    assert.equal(asked.length, 0);
  });

  test('G1: under allow-all, a line that may write and holds a word computed when it runs (a link or a copy to "$(...)") asks; one that only reads does not', async () => {
    policy('');
    for (const line of ['ln -s "$(printf .gi)t" h', 'cp notes.txt "$(printf .gi)t/pwn"', 'echo x > "$(printf .gi)t/pwn"', 'd=$(printf .gi)t; cd "$d" && touch pwn']) {
      asked.length = 0;
      const r = await run(line, { approvalMode: 'allow-all' });
      assert.equal(r.errorCode, 'CONFIRMATION_DENIED', `${line}: ${r.errorCode} ${r.error}`);
      assert.match(asked[0]?.ask.reason ?? '', /computed when the line runs|folder the words do not show/, line);
      assert.deepEqual(pwned(), [], line);
      assert.equal(fs.existsSync(path.join(t.ws, 'h')), false, line);
    }
    asked.length = 0;
    const r = await run('echo "$(printf hello)"', { approvalMode: 'allow-all' });
    assert.equal(r.success, true, `${r.errorCode} ${r.error}`);
    assert.equal(asked.length, 0);
  });

  test('O1: toolgate\'s own policy file named through a link in the workspace or through ~ is denied, and unchanged', async () => {
    policy('[[rules]]\ncommand = "tee"\naction = "allow"\n');
    const before = fs.readFileSync(userFile, 'utf8');
    fs.symlinkSync(path.dirname(userFile), path.join(t.ws, 'cfg'));
    const home = process.env.HOME;
    process.env.HOME = t.root;
    try {
      for (const line of ['echo x | tee cfg/policy.toml', 'echo x | tee cfg/../toolgate/policy.toml', 'echo x | tee ~/config/toolgate/policy.toml', 'echo x | tee ~/config/*/policy.toml', 'echo x | tee -a cf?/policy.toml']) {
        const r = await run(line, { confirm: true });
        assert.equal(r.errorCode, 'POLICY_DENIED', `${line}: ${r.errorCode} ${r.error}`);
        assert.match(r.error ?? '', /toolgate's own file/);
      }
    } finally {
      if (home === undefined) delete process.env.HOME;
      else process.env.HOME = home;
    }
    assert.equal(fs.readFileSync(userFile, 'utf8'), before);
  });

  test('the words a for or select loop iterates over (and a case subject) are judged as paths: a deny rule on paths denies, toolgate\'s own file is denied, a protected name asks', async () => {
    policy('[[rules]]\npaths = [".env", "secrets/**"]\naction = "deny"\n');
    for (const line of ['for f in .e*; do cat "$f"; done', 'for f in secrets/*; do cat "$f"; done', 'for f in sub .env; do cat "$f"; done',
      'select f in lnk/sl/key.txt; do cat "$f"; break; done < /dev/null', 'for d in x; do for f in .env; do cat "$f"; done; done', 'case .env in *) cat .env;; esac',
      'for f in ".env"; do bash -c \'cat "$1"\' _ "$f"; done']) {
      asked.length = 0;
      const r = await run(line, { confirm: true });
      assert.equal(r.errorCode, 'POLICY_DENIED', `${line}: ${r.errorCode} ${r.error}`);
      stopped(r, line);
    }
    policy('[[rules]]\ncommand = "tee"\naction = "allow"\n[[rules]]\ncommand = "cp"\naction = "allow"\n');
    const before = fs.readFileSync(userFile, 'utf8');
    fs.symlinkSync(path.dirname(userFile), path.join(t.ws, 'cfg'));
    const own = await run('for f in cfg/*.toml; do echo x | tee "$f"; done', { confirm: true });
    assert.equal(own.errorCode, 'POLICY_DENIED', `${own.errorCode} ${own.error}`);
    assert.match(own.error ?? '', /toolgate's own file/);
    assert.equal(fs.readFileSync(userFile, 'utf8'), before);
    asked.length = 0;
    const hook = await run('for f in g/hooks; do cp notes.txt "$f/pre-commit"; done');
    assert.equal(hook.errorCode, 'CONFIRMATION_DENIED', `${hook.errorCode} ${hook.error}`);
    assert.match(asked[0]?.ask.reason ?? '', /\.git|protected|computed/);
    assert.deepEqual(pwned(), []);
    // the control: a loop over files no rule withholds runs (its variable, computed when the
    // line runs, would ask a person with no sandbox: the words it may be are not followed into it)
    policy('[[rules]]\npaths = [".env"]\naction = "deny"\n');
    const r = await run('for f in sub/*.txt notes.txt; do echo ok; done', { confirm: true });
    assert.equal(r.success, true, `${r.errorCode} ${r.error}`);
  });

  test('~ where bash leaves it as written (quoted, after = or : of a word that is not an assignment) is judged as a folder named ~ as well; NAME=VALUE arguments are judged by their value', async () => {
    policy('[[rules]]\npaths = [".env", "secrets/**"]\naction = "deny"\n');
    fs.symlinkSync('secrets', path.join(t.ws, '~'));
    for (const line of ['cat "~/key.txt"', "cat '~'/key.txt", 'cat \\~/key.txt', 'grep -r --exclude-from="~/key.txt" x sub', 'dd if=secrets/key.txt status=none', 'cat x:"~/key.txt" 2>/dev/null; cat "~/key.txt"', 'cd "~" && cat key.txt']) {
      const r = await run(line, { confirm: true });
      assert.equal(r.errorCode, 'POLICY_DENIED', `${line}: ${r.errorCode} ${r.error}`);
      stopped(r, line);
    }
    // where bash expands it, the home reading is judged
    const home = process.env.HOME;
    process.env.HOME = t.ws;
    try {
      for (const line of ['dd if=~/.env status=none', 'env X=a:~/.env true; cat ~/.env']) {
        const r = await run(line, { confirm: true });
        assert.equal(r.errorCode, 'POLICY_DENIED', `${line}: ${r.errorCode} ${r.error}`);
      }
    } finally {
      if (home === undefined) delete process.env.HOME;
      else process.env.HOME = home;
    }
  });

  test('cd -P and cd through a link then ..: under allow-all, later words are judged from the folder the kernel is in, as well as from the one bash -L names', async () => {
    // lnk/dl -> ../sub/deep: physically, lnk/dl/.. is sub (where h -> ../.git/hooks); lexically it is lnk
    fs.symlinkSync('../sub/deep', path.join(t.ws, 'lnk', 'dl'));
    fs.symlinkSync('../.git/hooks', path.join(t.ws, 'sub', 'h'));
    policy('');
    for (const line of ['cd -P lnk/dl/.. && touch h/pwn', 'cd lnk/dl && cd -P .. && touch h/pwn', 'set -P; cd lnk/dl/.. && touch h/pwn', 'cd -P lnk/dl/../deep/.. && cp notes.txt h/pwn', 'pushd -P lnk/dl/.. && touch h/pwn']) {
      asked.length = 0;
      const r = await run(line, { approvalMode: 'allow-all' });
      assert.equal(r.errorCode, 'CONFIRMATION_DENIED', `${line}: ${r.errorCode} ${r.error}`);
      assert.match(asked[0]?.ask.reason ?? '', /hooks/, line);
      assert.equal(fs.existsSync(path.join(t.ws, '.git/hooks/pwn')), false, line);
    }
    // the control: the lexical folder (bash's cd -L) holds no such link, and a write there runs
    asked.length = 0;
    const r = await run('cd lnk/dl/.. && touch fine', { approvalMode: 'allow-all' });
    assert.equal(r.success, true, `${r.errorCode} ${r.error}`);
    assert.equal(asked.length, 0);
  });

  test('one reading of a call\'s words per decision: shared by the deciders of one pass, read afresh after an await (the recheck after an answer)', async () => {
    const call = { paths: [], workspace: { realRoot: fs.realpathSync(t.ws) }, commands: [] };
    const first = lineReading(call);
    assert.equal(lineReading(call), first);
    assert.equal(first.bases(() => {}), first.bases(() => {}));
    await Promise.resolve();
    assert.notEqual(lineReading(call), first);
  });

  test('the word forms read as paths, and ~ expanded as bash does', () => {
    assert.deepEqual(wordPathForms('of=out.txt'), ['of=out.txt', 'out.txt']);
    assert.deepEqual(wordPathForms('a-b=out.txt'), ['a-b=out.txt']);
    assert.deepEqual(tildeReadings('~/x').forms, [`${homeFolder('')}/x`, '~/x']);
    assert.deepEqual(tildeReadings('~+/x'), { forms: ['~+/x'], unknown: true });
    assert.deepEqual(tildeReadings('a~/x'), { forms: ['a~/x'], unknown: false });
    assert.deepEqual(wordPathForms('--output=out.txt'), ['out.txt']);
    assert.deepEqual(wordPathForms('-ofile'), ['file', 'ile', 'le', 'e']);
    assert.deepEqual(wordPathForms('HEAD:secrets/key'), ['HEAD:secrets/key', 'secrets/key']);
    assert.deepEqual(wordPathForms('--long'), []);
    assert.equal(expandTilde('notes.txt'), 'notes.txt');
    assert.equal(expandTilde('~+/x'), undefined);
    assert.equal(expandTilde('~-'), undefined);
    assert.equal(expandTilde('~no-such-user-here/x'), undefined);
    const root = homeFolder('root');
    if (root !== undefined) assert.equal(expandTilde('~root/x'), `${root}/x`);
    assert.equal(expandTilde('~/x'), `${homeFolder('')}/x`);
  });
});
