/**
 * Regression: with `command = "awk"` allowed, a print statement continued on the next line
 * (after a backslash, or a newline after a comma) wrote a file unasked: `print 1 \` newline
 * `> "pwn"` and `print 1,` newline `2 > "pwn"` (found by an attack on the awk table, case
 * C4's family): the check split statements at every newline, so the `>` stood in a statement
 * without `print`. A newline after a backslash, a comma, `&&` or `||` now continues the statement.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { before, describe, test } from 'node:test';
import { loadShellAnalyzer, type ShellAnalyzer } from '../../src/policy/shell/analyze.js';
import { lineVerdict } from '../policy/line-verdict.js';

let analyze: ShellAnalyzer;

before(async () => {
  analyze = await loadShellAnalyzer();
});

const ALLOW_AWK = '[[rules]]\ncommand = "awk"\naction = "allow"\n';
const PROGRAMS = ['BEGIN{print 1 \\\n> "pwn"}', 'BEGIN{print 1,\n2 > "pwn"}', 'BEGIN{printf "%s",\n"x" >> "pwn"}', 'BEGIN{print 1 &&\n2 > "pwn"}'];

describe('an awk print redirected on a continued line is not covered by a rule for awk', () => {
  for (const program of PROGRAMS) {
    test(JSON.stringify(program), () => {
      assert.notEqual(lineVerdict(analyze, ALLOW_AWK, `awk '${program}'`), 'allow');
    });
  }

  test('awk does write with these programs (the test is about a real difference)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'tg-awk-'));
    try {
      for (const program of PROGRAMS.slice(0, 2)) {
        execFileSync('awk', [program], { cwd: dir, stdio: 'ignore' });
        assert.ok(readdirSync(dir).includes('pwn'), program);
        rmSync(join(dir, 'pwn'));
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('the control: programs over several lines that only print stay allowed', () => {
    assert.equal(lineVerdict(analyze, ALLOW_AWK, `awk '{ print $1,\n$2 }\nEND { print NR > 0 ? "some" : "none" }' f`), 'ask', 'a > after print at depth 0 is still read as a redirect');
    assert.equal(lineVerdict(analyze, ALLOW_AWK, `awk '{ print $1,\n$2 }\n$3 > 5 { n++ }' f`), 'allow');
  });
});
