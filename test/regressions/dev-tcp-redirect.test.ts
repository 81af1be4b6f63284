/**
 * Regression: with `command = "cat"` allowed and `command = "curl"` denied,
 * `cat < /dev/tcp/127.0.0.1/PORT` ran unasked and connected (found by a security trial): bash
 * opens /dev/tcp and /dev/udp paths itself, whatever the program. A redirect to such a path,
 * or to one computed when the line runs, is now something the analysis cannot vouch for:
 * no allow rule allows the line.
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

const RULES = '[[rules]]\ncommand = "cat"\naction = "allow"\n[[rules]]\ncommand = "echo"\naction = "allow"\n[[rules]]\ncommand = "true"\naction = "allow"\n[[rules]]\ncommand = "curl"\naction = "deny"\n';

describe('redirects that bash turns into network connections are never allowed by a rule for the program', () => {
  for (const line of ['cat < /dev/tcp/127.0.0.1/8080', 'echo hi > /dev/tcp/127.0.0.1/8080', 'true < /dev/udp/127.0.0.1/53', 'cat 0</dev/tcp/localhost/80', 'F=/dev/tcp/127.0.0.1/80; cat < "$F"', 'cat < "$HOME/x"']) {
    test(line, () => {
      assert.notEqual(verdict(RULES, line), 'allow');
    });
  }

  test('the control: plain redirects of files keep their verdicts', () => {
    assert.equal(verdict(RULES, 'cat < notes.txt'), 'allow');
    assert.equal(verdict(RULES, 'cat notes.txt 2>&1'), 'allow');
    assert.equal(verdict(RULES, 'echo hi > /dev/null'), 'allow');
  });
});
