/**
 * A `for` loop over static words, its variable untouched by the body, is judged as each word
 * (s20's note "loop variables"): a writing line without a sandbox asked for
 * `for f in a.txt b.txt; do echo x > "$f"; done` because `"$f"` was a word computed when the
 * line runs (under allow-all too). Through the executor users get, with no sandbox: each word is
 * judged like a word of the line (a deny rule on one denies the call, all-allowed paths run
 * unasked under allow-all or an allow rule for the program, a protected one asks), and a body
 * that may change the variable keeps the question.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { beforeEach, describe, test } from 'node:test';
import { policyExecutor } from '../policy-executor.js';

describe('a loop variable read as each of its static words (no sandbox)', () => {
  const { t, asked, policy, run } = policyExecutor({ executor: { sandbox: 'none' }, person: 'deny', emptyEachTest: true });
  beforeEach(() => {
    execFileSync('git', ['init', '-q'], { cwd: t.ws });
    fs.mkdirSync(path.join(t.ws, 'secrets'));
    fs.writeFileSync(path.join(t.ws, 'secrets', 'key.txt'), 'SECRET-KEY\n');
    fs.writeFileSync(path.join(t.ws, 'notes.txt'), 'notes\n');
    fs.writeFileSync(path.join(t.ws, 'h.txt'), '.git/pwn\n');
  });

  const read = (name: string) => (fs.existsSync(path.join(t.ws, name)) ? fs.readFileSync(path.join(t.ws, name), 'utf8') : undefined);

  test('a writing loop over static words that name allowed paths runs unasked, and writes them', async () => {
    policy('');
    const r = await run('for f in a.txt b.txt; do echo x > "$f"; done', { approvalMode: 'allow-all' });
    assert.equal(r.success, true, `${r.errorCode} ${r.error}`);
    assert.equal(asked.length, 0);
    assert.equal(read('a.txt'), 'x\n');
    assert.equal(read('b.txt'), 'x\n');
    // under an allow rule for the program, each word is covered as written
    policy('[[rules]]\ncommand = "cp"\naction = "allow"\n');
    const c = await run('for f in c.txt d.txt; do cp notes.txt "$f"; done');
    assert.equal(c.success, true, `${c.errorCode} ${c.error}`);
    assert.equal(asked.length, 0);
    assert.equal(read('d.txt'), 'notes\n');
  });

  test('a deny rule on one of the words denies the loop; a protected word asks; nothing leaks or is written', async () => {
    policy('[[rules]]\npaths = ["secrets/**"]\naction = "deny"\n');
    for (const line of ['for f in notes.txt secrets/key.txt; do cat "$f"; done', 'for d in notes.txt secrets; do cat "$d/key.txt"; done', 'for f in secre*; do cat "$f"/key.txt; done']) {
      const r = await run(line);
      assert.equal(r.errorCode, 'POLICY_DENIED', `${line}: ${r.errorCode} ${r.error}`);
      assert.doesNotMatch(JSON.stringify(r), /SECRET-KEY/, line);
    }
    policy('');
    for (const line of ['for d in sub .git; do echo x > "$d/pwn"; done', 'for d in .gi?; do echo x > "$d/pwn"; done']) {
      asked.length = 0;
      const r = await run(line);
      assert.equal(r.errorCode, 'CONFIRMATION_DENIED', `${line}: ${r.errorCode} ${r.error}`);
      assert.match(asked[0]?.ask.reason ?? '', /\.git/, line);
      assert.equal(fs.existsSync(path.join(t.ws, '.git', 'pwn')), false, line);
    }
  });

  test('a body that may change the variable keeps the question, and nothing is written', async () => {
    policy('');
    for (const line of ['for f in a.txt; do read f < h.txt; echo x > "$f"; done', 'for f in a.txt; do f=$(cat h.txt); echo x > "$f"; done', 'g() { read f < h.txt; }; for f in a.txt; do g; echo x > "$f"; done', 'for f in a.txt; do printf -v f %s "$(cat h.txt)"; echo x > "$f"; done']) {
      asked.length = 0;
      const r = await run(line, { approvalMode: 'allow-all' });
      assert.equal(r.errorCode, 'CONFIRMATION_DENIED', `${line}: ${r.errorCode} ${r.error}`);
      // The variable's value is unseen; a function the line defines is also a program the analysis cannot read without a sandbox: either reason asks.
      assert.match(asked[0]?.ask.reason ?? '', /computed when the line runs|the analysis cannot see/, line);
      assert.equal(fs.existsSync(path.join(t.ws, '.git', 'pwn')), false, line);
      assert.equal(read('a.txt'), undefined, line);
    }
  });
});
