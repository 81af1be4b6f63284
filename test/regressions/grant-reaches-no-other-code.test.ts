/**
 * A program granted by name (`[[rules]] command = "tar"`, no `allow_options`) reaches no form
 * that runs other code or writes a file not judged (issue 30 item 1, cases C4 and C5: "other
 * programs and other options will be tried"). Each line below, tried attacking the grants in
 * session 19, runs under an allow rule for every program it names, through the executor users
 * get with no sandbox (the decision is all there is): each one asks, and nothing runs (no
 * `pwn` marker, no `out` file). The same kind through the CLI: `toolgate call run_command ...
 * --yes --dangerously-disable-sandbox` with the programs allowed and `touch` denied never
 * makes the marker (`--yes` answers no question a deny rule may hide behind).
 *
 * What an allow rule for a program covers is docs/policy.md's "What a program grant covers".
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { before, beforeEach, describe, test } from 'node:test';
import { loadShellAnalyzer } from '../../src/policy/shell/analyze.js';
import { runCli } from '../helpers.js';
import { policyExecutor } from '../policy-executor.js';
import { analysisOf } from '../policy/line-verdict.js';

/** Forms that run other code or write a file, each under an allow rule for its programs. */
const LINES: readonly string[] = [
  // tar
  `tar --to-command='touch pwn' -xf a.tar`, 'tar -I "touch pwn" -xf a.tar', 'tar --use-compress-program=./pwn.sh -tf a.tar',
  'tar -cf - notes.txt --checkpoint=1 --checkpoint-action=exec=touch\\ pwn', 'tar -xf a.tar', 'tar -cf out notes.txt', 'tar -F ./pwn.sh -tf a.tar',
  'tar -tf h:a.tar --rsh-command=./pwn.sh', 'tar --info-script=./pwn.sh -tf a.tar', 'tar -tf a.tar --index-file=out',
  // rsync, ssh, curl, wget, zip: no table, so a rule covers only the words it gives
  `rsync -e 'sh -c "touch pwn"' a: b`, `ssh -o ProxyCommand='touch pwn' h`, 'curl -o out http://127.0.0.1:9/', 'curl --output-dir . -O http://127.0.0.1:9/out',
  'curl -K pwn.cfg http://127.0.0.1:9/', 'wget -O out http://127.0.0.1:9/', `wget --execute='x=y' http://127.0.0.1:9/`, `zip -TT 'touch pwn' -T a.zip notes.txt`,
  // awk
  `awk 'BEGIN { system("touch pwn") }'`, `awk '{ print > "out" }' notes.txt`, `awk '{ print | "touch pwn" }' notes.txt`, `awk 'BEGIN { "touch pwn" | getline }'`,
  `awk -f pwn.awk notes.txt`, `awk -i inplace '{ print }' notes.txt`, `awk '{ printf "%s", $0 > $1 }' notes.txt`, `awk 'BEGIN { f = "system"; @f("touch pwn") }'`,
  // sort
  'sort -o out notes.txt', 'sort --output=out notes.txt', 'sort --compress-program=./pwn.sh notes.txt', 'sort --outp=out notes.txt', 'sort -T . notes.txt',
  // git
  'git --exec-path=. log', `git -c alias.x='!touch pwn' x`, `git -c core.pager='touch pwn' log`, 'git difftool -x ./pwn.sh', 'git difftool --extcmd=./pwn.sh',
  'git log --ext-diff', 'git grep --open-files-in-pager=./pwn.sh one', 'git log --output=out', 'git log --outp=out', 'git archive -o out HEAD',
  'git bisect run ./pwn.sh', 'git rebase -x ./pwn.sh', 'git submodule foreach ./pwn.sh', 'git --config-env=core.pager=HOME log', 'git -p log',
  'GIT_PAGER=./pwn.sh git log', 'GIT_EXTERNAL_DIFF=./pwn.sh git diff', 'git config alias.x "!touch pwn"', 'git ls-remote --upload-pack=./pwn.sh x',
  // less, vim, man, perl
  `LESSOPEN='|touch pwn %s' less notes.txt`, `less +'!touch pwn' notes.txt`, 'less -o out notes.txt', `vim -c '!touch pwn' notes.txt`, 'man -P ./pwn.sh ls',
  `perl -e 'system("touch pwn")'`,
  // sed
  'sed e notes.txt', `sed 's/one/touch pwn/e' notes.txt`, `sed -n '1w out' notes.txt`, `sed 's/x/y/w out' notes.txt`, 'sed -i s/one/ONE/ notes.txt',
  'sed --in-pl s/one/ONE/ notes.txt', `sed '1e touch pwn' notes.txt`, `sed -f pwn.sed notes.txt`, `sed -n 'W out' notes.txt`, `sed '/x/Ie' notes.txt`,
  // xargs and the wrappers: the command they run is judged
  `echo x | xargs -I{} sh -c 'touch pwn'`, `echo pwn | xargs touch`, `env -S 'touch pwn'`, `env -S'touch pwn'`, 'env touch pwn', 'nice touch pwn', 'nice -n 5 touch pwn',
  'nohup touch pwn', 'timeout 5 touch pwn', 'stdbuf -o0 touch pwn', 'setsid touch pwn', 'chroot / touch pwn', 'ionice touch pwn', 'time -o out ls',
  'env -P . ls', 'env -C . touch pwn', 'flock notes.txt touch pwn', `flock notes.txt -c 'touch pwn'`, 'command touch pwn', 'builtin touch pwn',
  // find
  `find . -exec sh -c 'touch pwn' \\;`, `find . -execdir touch pwn \\;`, 'find . -ok touch pwn \\;', 'find . -delete', 'find . -fprint out', 'find . -fls out',
  'find . -fprintf out x',
  // reading coreutils told to write (a rule naming a writer, `tee` or `cp`, covers its writing: the person named it)
  'dd of=out', 'dd if=notes.txt of=out', 'uniq notes.txt out',
  'xxd notes.txt out', 'tree -o out', 'date -s 1', 'echo x > out', 'echo x >| out', 'cat notes.txt 2> out', 'diff --to-file=notes.txt notes.txt > out',
  // grep and rg
  'rg --pre ./pwn.sh one', 'rg -z one', 'rg --hostname-bin=./pwn.sh one', 'grep --pre=./pwn.sh one notes.txt',
];

describe('a program granted by name reaches no form that runs other code or writes a file (C4, C5)', () => {
  const fx = policyExecutor({ userFile: 'policy.toml', executor: { sandbox: 'none' }, person: 'deny' });
  const { t, userFile, asked } = fx;
  let programsOf: (line: string) => string[];

  before(async () => {
    const analyze = await loadShellAnalyzer();
    // the programs the line names itself: a wrapper's, not the command it runs (that one is judged on its own)
    programsOf = (line) => [...new Set(analysisOf(analyze, line).commands.flatMap((c) => (c.wrappers.length > 0 ? c.wrappers.filter((w) => !['sh', 'bash', 'find'].includes(w)) : [c.program])))];
  });
  beforeEach(() => {
    fs.writeFileSync(path.join(t.ws, 'notes.txt'), 'one\ntwo\n');
    fs.writeFileSync(path.join(t.ws, 'pwn.sh'), '#!/bin/sh\ntouch pwn\n', { mode: 0o755 });
  });
  const leftovers = () => ['pwn', 'out'].filter((name) => fs.existsSync(path.join(t.ws, name)));

  test('C4/C5: each form asks under an allow rule for every program it names; nothing runs, nothing is written', async () => {
    const ran: string[] = [];
    for (const line of LINES) {
      const programs = programsOf(line);
      fs.writeFileSync(userFile, programs.map((p) => `[[rules]]\ncommand = "${p}"\naction = "allow"\n`).join('\n'));
      asked.length = 0;
      const r = await fx.executor.execute({ name: 'run_command', arguments: { command: line } });
      if (!(r.errorCode === 'CONFIRMATION_DENIED' && asked.length === 1) && r.errorCode !== 'POLICY_DENIED') ran.push(`${line} (rules for ${programs.join(', ')}): ${r.errorCode ?? 'ran'}`);
      const left = leftovers();
      if (left.length > 0) ran.push(`${line}: left ${left.join(', ')}`);
      for (const name of left) fs.rmSync(path.join(t.ws, name), { force: true });
    }
    assert.deepEqual(ran, [], `${ran.length} of ${LINES.length} forms were not asked about`);
  });

  test('C4/C5 through the CLI: with the programs allowed and touch denied, --yes never makes the marker', async () => {
    const home = path.join(t.root, 'home');
    const policy = path.join(home, '.config', 'toolgate', 'policy.toml');
    fs.mkdirSync(path.dirname(policy), { recursive: true });
    const env: NodeJS.ProcessEnv = { ...process.env, HOME: home };
    for (const name of Object.keys(env)) if (name.startsWith('XDG_') || name.startsWith('TOOLGATE_')) delete env[name];
    const lines = [`tar --to-command='touch pwn' -xf a.tar`, `awk 'BEGIN { system("touch pwn") }'`, `env -S 'touch pwn'`, `find . -exec touch pwn \\;`, `echo pwn | xargs touch`,
      `git -c alias.x='!touch pwn' x`, `sed '1e touch pwn' notes.txt`, 'timeout 5 nice touch pwn', `flock notes.txt -c 'touch pwn'`];
    for (const line of lines) {
      const allowed = programsOf(line).filter((p) => p !== 'touch');
      fs.writeFileSync(policy, `[[rules]]\ncommand = "touch"\naction = "deny"\n\n${allowed.map((p) => `[[rules]]\ncommand = "${p}"\naction = "allow"\n`).join('\n')}`);
      const run = await runCli(['call', 'run_command', JSON.stringify({ command: line }), '--workspace', t.ws, '--yes', '--dangerously-disable-sandbox'], { env, cwd: t.ws });
      assert.notEqual(run.code, 0, `${line}: exit ${run.code}: ${run.stdout.slice(0, 200)}`);
      assert.deepEqual(leftovers(), [], `${line}: ${run.stdout.slice(0, 300)} ${run.stderr.slice(0, 300)}`);
    }
    // the control: the same set-up runs what the rules allow
    const control = await runCli(['call', 'run_command', JSON.stringify({ command: 'timeout 5 ls' }), '--workspace', t.ws, '--yes', '--dangerously-disable-sandbox'], { env, cwd: t.ws });
    assert.equal(control.code, 0, `${control.stdout} ${control.stderr}`);
    assert.match(control.stdout, /notes\.txt/);
  });
});
