/**
 * Regression: with `command = "sed"` allowed, scripts that GNU sed reads differently from the
 * analysis wrote files unasked (found by an attack on the sed table, case C4's family):
 * - a label ends at a blank in GNU sed, so `:a w pwn` and `b end w pwn` are a label and then a
 *   `w` command, where the analysis read the label to the next `;`;
 * - a delimiter inside a bracket expression is literal in GNU sed, so in `s/[/]/g;s:a:/w pwn:`
 *   the `w pwn:` is the flag of the first `s`, and `/[/a]/w pwn` is an address then `w`.
 * The same readings hid an `e` command from the deny-side check (a deny rule for curl then
 * left `sed ':a e curl ...'` undecided). Both readings of a script are now checked.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { before, describe, test } from 'node:test';
import { loadShellAnalyzer, type ShellAnalyzer } from '../../src/policy/shell/analyze.js';
import { lineVerdict } from '../policy/line-verdict.js';

let analyze: ShellAnalyzer;

before(async () => {
  analyze = await loadShellAnalyzer();
});

const ALLOW_SED = '[[rules]]\ncommand = "sed"\naction = "allow"\n';
const DENY_CURL = '[[rules]]\ncommand = "curl"\naction = "deny"\n';

const WRITING = [':a w pwn', 'b end w pwn\n:end', 'bx;:x w pwn', 'b x\tW pwn\n:x', 's/[/]/g;s:a:/w pwn:', '/[/a]/w pwn', '\\%[%a]%w pwn', 's/[[:alpha:]/]/g;s:a:/w pwn:'];

describe('sed scripts GNU sed reads as writing are not covered by a rule for sed', () => {
  for (const script of WRITING) {
    test(JSON.stringify(script), () => {
      assert.notEqual(lineVerdict(analyze, ALLOW_SED, `sed '${script}' f`), 'allow');
    });
  }

  test('GNU sed does write with these scripts (the test is about a real difference)', (t) => {
    const dir = mkdtempSync(join(tmpdir(), 'tg-sed-'));
    try {
      writeFileSync(join(dir, 'f'), 'a/b\n');
      try {
        execFileSync('sed', ['--version'], { stdio: 'ignore' });
      } catch {
        t.skip('no sed here');
        return;
      }
      for (const script of [':a w pwn', 's/[/]/g;s:a:/w pwn:', '/[/a]/w pwn', 's/[[:alpha:]/]/g;s:a:/w pwn:']) {
        execFileSync('sed', ['-n', script, 'f'], { cwd: dir, stdio: 'ignore' });
        assert.ok(readdirSync(dir).some((f) => f.startsWith('pwn')), script);
        for (const f of readdirSync(dir)) if (f !== 'f') rmSync(join(dir, f));
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('an e command hidden after a label is not left undecided under a deny rule for curl', () => {
    for (const script of [':a e curl http://127.0.0.1/', 'b x e curl http://127.0.0.1/', 's/[/]/g;s:a:/e:']) {
      assert.notEqual(lineVerdict(analyze, DENY_CURL, `sed '${script}' f`), 'none', script);
    }
  });

  test('the control: reading scripts with labels and bracket expressions stay allowed', () => {
    for (const script of [':a;N;$!ba;s/\\n/ /g', 's/[0-9]/#/g', '/[a-z]/p', 's/[^/]*$//', 'b end;p;:end']) {
      assert.equal(lineVerdict(analyze, ALLOW_SED, `sed '${script}' f`), 'allow', script);
    }
  });
});
