/**
 * Regression: tree-sitter-bash reads `! { rm -rf data; }` and `! for ...; do rm ...; done` as
 * simple commands named `{`, `}`, `for`, `do` and `done`, so a deny rule on `rm` saw no `rm`
 * and no rule decided (under allow-all the line would have run). A reserved word as a
 * program name now means the parser misread the line: the line is beyond the analysis, and
 * a deny rule on any command denies it.
 */
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { loadShellAnalyzer, type ShellAnalyzer } from '../../src/policy/shell/analyze.js';
import { lineVerdict } from '../policy/line-verdict.js';

let analyze: ShellAnalyzer;

before(async () => {
  analyze = await loadShellAnalyzer();
});

function verdict(rules: string, line: string): string {
  return lineVerdict(analyze, rules, line);
}

const DENY_RM = '[[rules]]\ncommand = "rm"\naction = "deny"\n';
const ALLOW_ECHO = '[[rules]]\ncommand = "echo"\naction = "allow"\n';

describe('a compound command after ! is never read as commands named by reserved words', () => {
  for (const line of ['! { rm -rf data; }', '! for i in 1; do rm -rf data; done', '! if true; then rm -rf data; fi', '! while false; do rm x; done', '! case x in x) rm x;; esac']) {
    test(`under a deny rule on rm: ${line} -> denied`, () => {
      assert.equal(verdict(DENY_RM, line), 'deny');
    });
    test(`under an allow rule on echo only: ${line} -> not allowed`, () => {
      assert.notEqual(verdict(ALLOW_ECHO, line), 'allow');
    });
  }

  test('lines the grammar reads right keep their verdicts (the control)', () => {
    assert.equal(verdict(DENY_RM, '! rm x'), 'deny');
    assert.equal(verdict(DENY_RM, 'for i in 1; do rm x; done'), 'deny');
    assert.equal(verdict(DENY_RM, '{ echo a; }'), 'none');
    assert.equal(verdict(ALLOW_ECHO, '{ echo a; }'), 'allow');
    assert.equal(verdict(ALLOW_ECHO, 'if echo a; then echo b; fi'), 'allow');
  });
});
