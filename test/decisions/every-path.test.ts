/**
 * Every path argument judged, after resolution (issue 30, item 2; case P9 and its family):
 * policy path rules see each path a call reaches, its real path (through file and folder
 * links) and its spelling, other names of the same file (hard links), and what a moved folder
 * holds and where it lands; a deny of any one denies the call.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { beforeEach, describe, test } from 'node:test';
import { ToolExecutor, type ToolExecutionResult } from 'toolgate';
import { bubblewrapAvailable } from '../../src/internal.js';
import { policyExecutor } from '../policy-executor.js';

/** Shell commands run only in the sandbox unless a test chooses none (the CI also runs the suite without bubblewrap). */
const HAS_BWRAP = bubblewrapAvailable();

describe('every path argument is judged (P9)', () => {
  const fx = policyExecutor({ executor: { approvalMode: 'allow-all' }, person: 'deny', emptyEachTest: true });
  const { t, userFile, asked, call } = fx;
  beforeEach(() => {
    fs.mkdirSync(path.join(t.ws, 'secrets'));
    fs.writeFileSync(path.join(t.ws, 'secrets/key.txt'), 'SECRET KEY\n');
    fs.writeFileSync(path.join(t.ws, 'ok.txt'), 'ok\n');
    fs.writeFileSync(path.join(t.ws, '.env'), 'TOKEN=SECRET ENV\n');
    fs.symlinkSync('.env', path.join(t.ws, 'env-link'));
  });

  let size = 0;
  /** Write the user's policy file (a new size each time, so the re-check sees the change). */
  const policy = (text: string) => fs.writeFileSync(userFile, `${text}\n${'#'.repeat(++size)}\n`);
  const denied = (r: ToolExecutionResult, what: string) => {
    assert.equal(r.errorCode, 'POLICY_DENIED', `${what}: ${r.errorCode} ${r.error ?? r.output}`);
    assert.doesNotMatch(String(r.output ?? ''), /SECRET/, what);
  };

  test('P9: copy_file ok.txt -> secrets/planted.txt and move_file secrets/key.txt -> leaked.txt are denied by a deny on secrets/**', async () => {
    policy('[[rules]]\naction = "deny"\npaths = "secrets/**"');
    denied(await call('copy_file', { source: 'ok.txt', destination: 'secrets/planted.txt' }), 'copy_file destination');
    assert.equal(fs.existsSync(path.join(t.ws, 'secrets/planted.txt')), false);
    denied(await call('move_file', { source: 'secrets/key.txt', destination: 'leaked.txt' }), 'move_file source');
    assert.equal(fs.readFileSync(path.join(t.ws, 'secrets/key.txt'), 'utf8'), 'SECRET KEY\n');
    assert.equal(fs.existsSync(path.join(t.ws, 'leaked.txt')), false);
    // Both sides of a diff, and a whole folder moved.
    denied(await call('diff_files', { old_filepath: 'ok.txt', new_filepath: 'secrets/key.txt' }), 'diff_files new side');
    denied(await call('move_file', { source: 'secrets', destination: 'public' }), 'move_file of the folder');
    assert.equal(fs.existsSync(path.join(t.ws, 'public')), false);
    // An archive of the whole workspace would carry secrets/key.txt out.
    denied(await call('create_archive', { paths: ['.'], destination: 'all.tar.gz' }), 'create_archive of a folder holding secrets');
    assert.equal(fs.existsSync(path.join(t.ws, 'all.tar.gz')), false);
    denied(await call('extract_archive', { filepath: 'ok.txt', destination: 'secrets/unpacked' }), 'extract_archive into secrets');
  });

  test('P9: a deny on .env read through env-link -> .env is denied for every tool that takes a path', async () => {
    policy('[[rules]]\naction = "deny"\npaths = ".env"');
    const calls: Array<[string, Record<string, unknown>]> = [
      ['read_file', { filepath: 'env-link' }],
      ['read_lines', { filepath: 'env-link' }],
      ['hash_file', { filepath: 'env-link' }],
      ['file_info', { filepath: 'env-link' }],
      ['detect_file_type', { filepath: 'env-link' }],
      ['convert_data', { filepath: 'env-link', from: 'json', to: 'yaml' }],
      ['diff_files', { old_filepath: 'ok.txt', new_filepath: 'env-link' }],
      ['copy_file', { source: 'env-link', destination: 'copied.txt' }],
      ['append_to_file', { filepath: 'env-link', content: 'x' }],
      ['write_file', { filepath: 'env-link', content: 'x' }],
      ['snapshot_file', { filepath: 'env-link' }],
    ];
    for (const [name, args] of calls) denied(await call(name, args), name);
    assert.equal(fs.existsSync(path.join(t.ws, 'copied.txt')), false);
    assert.equal(fs.readFileSync(path.join(t.ws, '.env'), 'utf8'), 'TOKEN=SECRET ENV\n');
    // The file beside it is not caught by the rule.
    assert.equal((await call('read_file', { filepath: 'ok.txt' })).success, true);
  });

  test('a folder link, a hard link and a rule on the link\'s own name: each is judged', async () => {
    policy('[[rules]]\naction = "deny"\npaths = ["secrets/**", ".env"]');
    fs.symlinkSync('secrets', path.join(t.ws, 'sec-link'));
    denied(await call('read_file', { filepath: 'sec-link/key.txt' }), 'through a linked parent folder');
    denied(await call('write_file', { filepath: 'sec-link/new.txt', content: 'x' }), 'a write through a linked parent folder');
    assert.equal(fs.existsSync(path.join(t.ws, 'secrets/new.txt')), false);
    fs.linkSync(path.join(t.ws, '.env'), path.join(t.ws, 'notes.txt'));
    denied(await call('read_file', { filepath: 'notes.txt' }), 'a hard link to .env');
    // A rule naming the link itself: the spelling counts as well as the target.
    policy('[[rules]]\naction = "deny"\npaths = "env-link"');
    denied(await call('read_file', { filepath: 'env-link' }), 'a rule on the link');
    denied(await call('read_file', { filepath: `${t.ws}/./env-link` }), 'the link spelled absolute');
    // Case variants: the same file on a case-insensitive file system; denied on every one.
    policy('[[rules]]\naction = "deny"\npaths = ["secrets/**", ".env"]');
    fs.writeFileSync(path.join(t.ws, '.ENV'), 'TOKEN=SECRET\n');
    fs.mkdirSync(path.join(t.ws, 'SECRETS'));
    fs.writeFileSync(path.join(t.ws, 'SECRETS/key.txt'), 'SECRET\n');
    denied(await call('read_file', { filepath: '.ENV' }), 'a case variant of .env');
    denied(await call('read_file', { filepath: 'SECRETS/key.txt' }), 'a case variant of secrets/');
  });

  test('P9 family: a shell command naming a denied file, through a link or by another spelling, is denied by the path rule', async () => {
    policy('[[rules]]\naction = "deny"\npaths = [".env", "secrets/**"]\n[[rules]]\ncommand = "cat"\naction = "allow"');
    for (const command of ['cat env-link', 'cat ./sub/../.env', 'cat secrets/key.txt', 'cat ok.txt > secrets/planted.txt', 'sort --output=secrets/out ok.txt', 'cat .en?', 'cat secre*/k*', 'cat [.]env']) {
      fs.mkdirSync(path.join(t.ws, 'sub'), { recursive: true });
      denied(await call('run_command', { command }), command);
    }
    assert.equal(fs.existsSync(path.join(t.ws, 'secrets/planted.txt')), false);
    // A word naming nothing denied is not held against the line.
    const plain = await call('run_command', { command: 'cat ok.txt' });
    assert.notEqual(plain.errorCode, 'POLICY_DENIED', plain.error);
  });

  test('P9: input redirections (`<`, `0<`, `<>`, on a command, a compound command or a shell) are judged by deny path rules, through links', async () => {
    fs.symlinkSync('secrets', path.join(t.ws, 'sdir'));
    policy('[[rules]]\naction = "deny"\npaths = ["secrets/**"]\n[[rules]]\naction = "deny"\npaths = [".env"]');
    const lines = [
      'head < secrets/key.txt', 'read l < .env; echo $l', 'cat 0<sdir/key.txt', 'cat <> .env', 'cat < env-link',
      'while read l; do echo "$l"; done < .env', '{ cat; } < secrets/key.txt', 'bash -c cat < .env', 'echo ok; (cat) <sdir/key.txt',
    ];
    for (const command of lines) denied(await call('run_command', { command }), command);
    // Under an allow rule for the program too: the path rule is judged before it.
    policy('[[rules]]\naction = "deny"\npaths = ["secrets/**"]\n[[rules]]\naction = "deny"\npaths = [".env"]\n[[rules]]\ncommand = "cat"\naction = "allow"');
    denied(await call('run_command', { command: 'cat < .env' }), 'cat < .env under an allow rule for cat');
    // Here-documents, here-strings and fd duplications name no file; a plain input file runs.
    for (const command of ['cat <<EOF\n.env\nEOF', 'cat <<< .env', 'cat 3<ok.txt <&3', 'cat < ok.txt']) {
      const r = await call('run_command', { command });
      assert.notEqual(r.errorCode, 'POLICY_DENIED', `${command}: ${r.error}`);
    }
    if (HAS_BWRAP) {
      const read = await call('run_command', { command: 'cat < ok.txt' });
      assert.match(String(read.output), /ok/);
    }
    assert.deepEqual(asked, []);
  });

  test('P9: without a sandbox, a shell command word naming a folder that holds a denied path is denied (grep -r SECRET . under an allow rule for grep); in the sandbox, the command runs and finds those paths hidden', async () => {
    policy('[[rules]]\naction = "deny"\npaths = ["secrets/**"]\n[[rules]]\naction = "deny"\npaths = [".env"]\n[[rules]]\ncommand = "grep"\naction = "allow"');
    fs.mkdirSync(path.join(t.ws, 'pub/inner'), { recursive: true });
    fs.writeFileSync(path.join(t.ws, 'pub/inner/notes.txt'), 'SECRET-FREE notes\n');
    fs.mkdirSync(path.join(t.ws, 'linked'));
    fs.symlinkSync('../secrets', path.join(t.ws, 'linked/to-secrets'));
    // (the pattern is KEY: `denied` checks that no output holds SECRET)
    const unsandboxed = new ToolExecutor(fx.registry, { workspaceRoot: t.ws, policy: { user: userFile, workspace: false }, approvalMode: 'allow-all', sandbox: 'none' });
    try {
      for (const command of ['grep -r KEY .', 'grep -R KEY linked', 'cat $(grep -rl KEY ./)', `grep -r KEY ../${path.basename(t.ws)}`, 'grep -r KEY secrets']) {
        const r = await unsandboxed.execute({ name: 'run_command', arguments: { command } });
        denied(r, command);
        assert.match(r.error!, /holds|which is/, command);
        // In the sandbox (or refused where there is none), nothing of them is printed either.
        const boxed = await call('run_command', { command });
        assert.doesNotMatch(`${boxed.output ?? ''}${boxed.error ?? ''}`, /SECRET/, command);
        if (command === 'grep -r KEY secrets') assert.equal(boxed.errorCode, 'POLICY_DENIED', 'a word naming a denied path is denied in any case');
      }
    } finally {
      await unsandboxed.close();
    }
    // A folder that holds nothing denied is searched.
    const searcher = new ToolExecutor(fx.registry, { workspaceRoot: t.ws, policy: { user: userFile, workspace: false }, approvalMode: 'allow-all', sandbox: 'none' });
    const r = await searcher.execute({ name: 'run_command', arguments: { command: 'grep -r SECRET pub' } });
    await searcher.close();
    assert.equal(r.success, true, `${r.errorCode} ${r.error}`);
    assert.match(String(r.output), /SECRET-FREE/);
  });

  test('P9: in the sandbox, what deny path rules cover is hidden from a shell command that names no path (grep -r with no folder, cd then a relative name)', { skip: HAS_BWRAP ? false : 'bubblewrap is not available: the shell tools refuse to run' }, async () => {
    policy('[[rules]]\naction = "deny"\npaths = ["secrets/**"]\n[[rules]]\naction = "deny"\npaths = [".env"]');
    fs.mkdirSync(path.join(t.ws, 'pub'));
    for (const command of ['cd pub && cat ../.env ../secrets/key.txt; cat ../ok.txt', 'grep -r KEY; cat ok.txt', 'cd pub; cat ../sdir/key.txt; cat ../ok.txt', 'cat "$(printf .en)v"; cat ok.txt']) {
      fs.rmSync(path.join(t.ws, 'sdir'), { force: true });
      fs.symlinkSync('secrets', path.join(t.ws, 'sdir'));
      const r = await call('run_command', { command });
      assert.doesNotMatch(String(r.output ?? ''), /SECRET/, `${command}: ${r.output}`);
      assert.match(String(r.output ?? ''), /^ok$/m, `${command}: the rest of the workspace is readable: ${r.errorCode} ${r.error} ${r.output}`);
    }
    assert.equal(fs.readFileSync(path.join(t.ws, 'secrets/key.txt'), 'utf8'), 'SECRET KEY\n');
  });

  test('a moved folder is judged by what it holds and by where that lands', async () => {
    fs.mkdirSync(path.join(t.ws, 'keys'));
    fs.writeFileSync(path.join(t.ws, 'keys/a.key'), 'K');
    policy('[[rules]]\naction = "deny"\npaths = "**/*.key"');
    denied(await call('move_file', { source: 'keys', destination: 'moved' }), 'what the folder holds');
    assert.equal(fs.existsSync(path.join(t.ws, 'keys/a.key')), true);
    fs.mkdirSync(path.join(t.ws, 'stuff'));
    fs.writeFileSync(path.join(t.ws, 'stuff/run.sh'), 'echo hi\n');
    policy('[[rules]]\naction = "deny"\npaths = "bin/**/*.sh"');
    denied(await call('move_file', { source: 'stuff', destination: 'bin/tools' }), 'where it lands');
    assert.equal(fs.existsSync(path.join(t.ws, 'bin')), false);
    const elsewhere = await call('move_file', { source: 'stuff', destination: 'lib/tools' });
    assert.equal(elsewhere.success, true, elsewhere.error);
  });

  test('an allow rule covers a call only when it covers every path; an ask on any path asks', async () => {
    fs.mkdirSync(path.join(t.ws, 'docs'));
    fs.writeFileSync(path.join(t.ws, 'docs/a.md'), 'a\n');
    policy('[[rules]]\naction = "allow"\ntool = "copy_file"\npaths = "docs/**"\n[[rules]]\naction = "ask"\npaths = "secrets/**"');
    const inside = await fx.executor.execute({ name: 'copy_file', arguments: { source: 'docs/a.md', destination: 'docs/b.md' } }, { approvalMode: 'read-only' });
    assert.equal(inside.success, true, inside.error);
    assert.equal(asked.length, 0);
    const out = await fx.executor.execute({ name: 'copy_file', arguments: { source: 'docs/a.md', destination: 'secrets/b.md' } }, { approvalMode: 'read-only' });
    assert.equal(out.errorCode, 'CONFIRMATION_DENIED', out.error);
    assert.equal(asked.length, 1);
    assert.match(asked[0]!.ask.reason, /secrets\/b\.md/);
    assert.equal(fs.existsSync(path.join(t.ws, 'secrets/b.md')), false);
  });
});
