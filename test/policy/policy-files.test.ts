/**
 * Policy files (issue 15, item 3): parsing and validation with file and line, matching one
 * call against one file (last match wins; shell calls judged command by command: cases C1,
 * C2), the user and workspace files together (stricter wins; re-checked before every call;
 * an invalid file denies every call until fixed), and `toolgate policy check`. Shell analyses
 * are built by hand: the analyzer is separate work.
 */
import assert from 'node:assert/strict';
import { execFile, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { ActionKind } from '../../src/policy/action-kinds.js';
import { parsePolicyFile, PolicyFileError, type PolicyFile } from '../../src/policy/policy-file.js';
import { matchPolicyRules, type PolicyCallInput } from '../../src/policy/policy-rules.js';
import { defaultPolicyPaths, PolicySet } from '../../src/policy/policy-set.js';
import { PolicyFileApprovals } from '../../src/policy/saved-approvals.js';
import { createLogger } from '../../src/logging/logger.js';
import type { ShellAnalysis, ShellCommand } from '../../src/policy/shell/types.js';
import { runCli } from '../helpers.js';

const FILE = '/home/u/.config/toolgate/policy.toml';

function toml(text: string, file = FILE): PolicyFile {
  return parsePolicyFile(text, file);
}

/** Assert that parsing fails with a PolicyFileError at `line` whose message matches `pattern`. */
function assertInvalid(text: string, line: number, pattern: RegExp, file = FILE): void {
  assert.throws(() => parsePolicyFile(text, file), (error: unknown) => {
    assert.ok(error instanceof PolicyFileError, `not a PolicyFileError: ${String(error)}`);
    assert.equal(error.code, 'INVALID_POLICY_FILE');
    assert.equal(error.file, file);
    assert.equal(error.line, line, `line of: ${error.message}`);
    assert.match(error.message, new RegExp(`^${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:${line}: `));
    assert.match(error.message, pattern);
    return true;
  });
}

function call(tool: string, fields: Partial<Omit<PolicyCallInput, 'tool'>> = {}): PolicyCallInput {
  return { tool, kind: fields.kind ?? 'file_write', args: fields.args ?? {}, paths: fields.paths ?? [], ...(fields.shell && { shell: fields.shell }) };
}

/** A simple command as the analyzer would give it. */
function cmd(text: string, fields: Partial<Omit<ShellCommand, 'text'>> = {}): ShellCommand {
  const argv = fields.argv ?? text.split(/\s+/).filter((w) => w !== '' && !w.startsWith('>'));
  return { argv, program: fields.program ?? path.basename(argv[0] ?? ''), wrappers: fields.wrappers ?? [], kind: fields.kind ?? 'shell_command', writes: fields.writes ?? [], text };
}

function shell(commands: ShellCommand[], uncertain: string[] = []): ShellAnalysis {
  const kinds: ActionKind[] = commands.map((c) => c.kind);
  return { commands, uncertain, kind: kinds.includes('network') ? 'network' : 'shell_command' };
}

const runCommand = (analysis: ShellAnalysis) => call('run_command', { kind: 'shell_command', args: { command: analysis.commands.map((c) => c.text).join(' && ') }, shell: analysis });

describe('policy files: parsing', () => {
  test('a TOML file: rules keep file, line and id; keys as written', () => {
    const policy = toml(`# my policy
always_ask = true

[[rules]]
tool = "*"
action = "ask"

[[rules]]
kind = ["file_read", "mcp_read"]
action = "allow"

[[rules]]
tool = "write_file"
paths = ["docs/**", "*.md"]
action = "allow"
reason = "docs are fine"

[[rules]]
tool = "http_request"
args = { url = "https://api.example.com/**" }
action = "allow"

[[rules]]
command = "git status"
action = "allow"
`);
    assert.equal(policy.alwaysAsk, true);
    assert.deepEqual(policy.rules.map((r) => r.line), [4, 8, 12, 18, 23]);
    assert.deepEqual(policy.rules.map((r) => r.id), [4, 8, 12, 18, 23].map((l) => `${FILE}:${l}`));
    assert.deepEqual(policy.rules.map((r) => r.action), ['ask', 'allow', 'allow', 'allow', 'allow']);
    assert.equal(policy.rules[0]!.tool, '*');
    assert.deepEqual(policy.rules[1]!.kind, ['file_read', 'mcp_read']);
    assert.deepEqual(policy.rules[2]!.paths, ['docs/**', '*.md']);
    assert.equal(policy.rules[2]!.reason, 'docs are fine');
    assert.deepEqual(policy.rules[3]!.args, { url: 'https://api.example.com/**' });
    assert.deepEqual(policy.rules[4]!.command, ['git', 'status']);
    assert.ok(Object.isFrozen(policy.rules[0]));
  });

  test('a JSON file (name ends .json): same shape, lines of each rule object', () => {
    const file = '/ws/.toolgate/policy.json';
    const policy = parsePolicyFile(`{
  "always_ask": false,
  "rules": [
    { "tool": "*", "action": "ask" },
    {
      "kind": "file_read",
      "action": "allow"
    }
  ]
}`, file);
    assert.equal(policy.alwaysAsk, false);
    assert.deepEqual(policy.rules.map((r) => r.id), [`${file}:4`, `${file}:5`]);
    assert.deepEqual(policy.rules[1]!.kind, ['file_read']);
  });

  test('an empty file has no rules; an inline list of rules gives each its line', () => {
    assert.deepEqual(toml('').rules, []);
    const policy = toml('rules = [\n  { action = "deny" },\n  { tool = "x",\n    action = "allow" },\n]\n');
    assert.deepEqual(policy.rules.map((r) => r.line), [2, 3]);
  });

  test('syntax errors name file and line (TOML and JSON)', () => {
    assertInvalid('[[rules]]\naction = "allow"\ntool = \n', 3, /TOML syntax error/);
    assertInvalid('{\n  "rules": [\n    { "action": "allow" }\n    { "action": "deny" }\n  ]\n}', 4, /JSON syntax error/, '/w/p.json');
    assertInvalid('{\n  "rules": [\n    { "action": "allow", }\n  ]\n}', 3, /JSON syntax error/, '/w/p.json');
    assertInvalid('{\n  "rules": [\n', 3, /JSON syntax error/, '/w/p.json');
  });

  test('every schema error names file, line and key', () => {
    const rules = (...bodies: string[]) => bodies.map((b) => `[[rules]]\n${b}\n`).join('\n');
    // line 1: [[rules]] #1, line 2: action; line 4: [[rules]] #2 ...
    assertInvalid(rules('action = "allow"', 'tool = "write_file"\nacton = "deny"'), 6, /unknown key 'acton' in rule 2 \(did you mean 'action'\?\)/);
    assertInvalid('alwaysAsk = true\n', 1, /unknown key 'alwaysAsk' at the top/);
    assertInvalid('\n\nalways_ask = "yes"\n', 3, /always_ask must be true or false; got the string "yes"/);
    assertInvalid('rules = 3\n', 1, /rules must be a list of tables/);
    assertInvalid(rules('action = "allow"', 'tool = "x"'), 4, /rule 2 has no action/);
    assertInvalid(rules('action = "allow"', 'tool = "x"\naction = "permit"'), 6, /action in rule 2 must be "allow", "ask" or "deny"; got the string "permit"/);
    assertInvalid(rules('action = "allow"\n\ntool = ""'), 4, /tool in rule 1 is an empty pattern/);
    assertInvalid(rules('tool = 5\naction = "allow"'), 2, /tool in rule 1 must be a string; got the number 5/);
    assertInvalid(rules('tool = "a{b"\naction = "allow"'), 2, /tool in rule 1 is not a valid glob/);
    assertInvalid(rules('action = "allow"\nkind = ["file_read", "files"]'), 3, /unknown kind "files" in rule 1; the kinds are internal, file_read/);
    assertInvalid(rules('action = "allow"\nkind = []'), 3, /kind in rule 1 is an empty list/);
    assertInvalid(rules('action = "allow"\nkind = 1'), 3, /kind in rule 1 must be a string or a list of strings/);
    assertInvalid(rules('action = "allow"\npaths = ["/etc/**"]'), 3, /paths in rule 1: "\/etc\/\*\*" must be relative to the workspace/);
    assertInvalid(rules('action = "allow"\npaths = ["docs/../x"]'), 3, /must not hold a \.\. segment/);
    assertInvalid(rules('action = "allow"\npaths = ["docs", ""]'), 3, /paths in rule 1 holds an empty pattern/);
    assertInvalid(rules('action = "allow"\npaths = ["./docs/**"]'), 3, /without a leading \.\//);
    assertInvalid(rules('action = "allow"', 'action = "allow"\nargs = "url"'), 6, /args in rule 2 must be a table/);
    assertInvalid(rules('action = "allow"\nargs = {}'), 3, /args in rule 1 is empty/);
    assertInvalid(rules('action = "allow"\nargs = { url = "" }'), 3, /args\.url in rule 1 is an empty pattern/);
    assertInvalid('[[rules]]\naction = "allow"\n[rules.args]\nurl = "x"\ndepth = 3\n', 5, /args\.depth in rule 1 must be a string pattern; got the number 3/);
    assertInvalid(rules('action = "allow"\ncommand = ""'), 3, /command in rule 1 is empty/);
    assertInvalid(rules('action = "allow"\ncommand = 7'), 3, /command in rule 1 must be a string of words/);
    assertInvalid(rules('action = "allow"\nreason = ["a"]'), 3, /reason in rule 1 must be a string; got a list/);
    assertInvalid('rules = [\n  { action = "allow" },\n  { action = "allow",\n    comand = "ls" },\n]\n', 4, /unknown key 'comand' in rule 2 \(did you mean 'command'\?\)/);
    assertInvalid('{\n  "rules": [\n    {\n      "action": "allow",\n      "paths": "/abs"\n    }\n  ]\n}', 5, /paths in rule 1/, '/w/p.json');
    assertInvalid('[1, 2]', 1, /must be a table of keys/, '/w/p.json');
  });

  test('__proto__ and constructor keys are unknown keys, not prototype changes (A1 family)', () => {
    assertInvalid('__proto__ = 1\n', 1, /unknown key '__proto__' at the top/);
    assertInvalid('[[rules]]\naction = "allow"\n__proto__ = { action = "deny" }\n', 3, /unknown key '__proto__' in rule 1/);
    assertInvalid('{\n  "rules": [\n    { "action": "allow",\n      "constructor": "x" }\n  ]\n}', 4, /unknown key 'constructor' in rule 1/, '/w/p.json');
    assert.equal(({} as Record<string, unknown>).action, undefined);
  });

  test('a key given twice is an error naming its line: JSON (top level, in a rule), and TOML', () => {
    assertInvalid('{"rules":[{"action":"deny"}],"rules":[]}', 1, /duplicate key "rules" \(first at line 1\)/, '/w/p.json');
    assertInvalid('{\n  "rules": [\n    { "action": "deny",\n      "tool": "x",\n      "action": "allow" }\n  ]\n}', 5, /duplicate key "action" \(first at line 3\)/, '/w/p.json');
    assertInvalid('{\n  "always_ask": true,\n  "always_\\u0061sk": false\n}', 3, /duplicate key "always_ask"/, '/w/p.json');
    // The same key in two rules, or inside a string, is no duplicate.
    assert.equal(parsePolicyFile('{"rules":[{"action":"deny","reason":"\\"action\\": 1"},{"action":"allow"}]}', '/w/p.json').rules.length, 2);
    assertInvalid('always_ask = true\nalways_ask = false\n', 2, /TOML syntax error/);
    assertInvalid('[[rules]]\naction = "deny"\naction = "allow"\n', 3, /TOML syntax error/);
  });

  test('a key inside a string or a comment is not taken for the key', () => {
    assertInvalid('[[rules]]\nreason = "tool = x"\n# tool = y\naction = "allow"\ntool = 3\n', 5, /tool in rule 1 must be a string/);
  });
});

describe('policy files: matching one file', () => {
  test('the last matching rule wins; a rule with only action matches everything', () => {
    const policy = toml('[[rules]]\naction = "ask"\n\n[[rules]]\ntool = "read_*"\naction = "allow"\n\n[[rules]]\ntool = "read_secret"\naction = "deny"\n');
    assert.equal(matchPolicyRules(policy, call('read_file'))?.verdict, 'allow');
    const secret = matchPolicyRules(policy, call('read_secret'))!;
    assert.equal(secret.verdict, 'deny');
    assert.equal(secret.rule.id, `${FILE}:8`);
    assert.match(secret.reason, /policy\.toml:8/);
    assert.equal(matchPolicyRules(policy, call('write_file'))?.verdict, 'ask');
    assert.equal(matchPolicyRules(toml('[[rules]]\ntool = "x"\naction = "deny"\n'), call('y')), undefined);
  });

  test('kind rules match the tool\'s kind', () => {
    const policy = toml('[[rules]]\nkind = ["file_read", "mcp_read"]\naction = "allow"\n');
    assert.equal(matchPolicyRules(policy, call('read_file', { kind: 'file_read' }))?.verdict, 'allow');
    assert.equal(matchPolicyRules(policy, call('write_file', { kind: 'file_write' })), undefined);
  });

  test('path globs: every path argument must match one glob; no path, absolute or .. paths never match', () => {
    const policy = toml('[[rules]]\ntool = "write_file"\npaths = ["docs/**", "*.md"]\naction = "allow"\n');
    const verdict = (paths: string[]) => matchPolicyRules(policy, call('write_file', { paths }))?.verdict;
    assert.equal(verdict(['docs/a/b.txt']), 'allow');
    assert.equal(verdict(['docs/.hidden']), 'allow', 'dot files inside count');
    assert.equal(verdict(['README.md']), 'allow');
    assert.equal(verdict(['docs/x', 'NOTES.md']), 'allow');
    assert.equal(verdict(['docs/x', 'src/a.ts']), undefined, 'one path outside the globs: no match');
    assert.equal(verdict(['src/README.md']), undefined, '*.md is top-level only');
    assert.equal(verdict([]), undefined, 'no path argument: no match');
    assert.equal(verdict(['docs/../src/a.ts']), undefined);
    assert.equal(verdict(['../docs/a']), undefined);
    assert.equal(verdict(['/docs/a']), undefined);
    assert.equal(verdict(['docs-evil/a']), undefined);
    const all = toml('[[rules]]\npaths = "**"\naction = "deny"\n');
    assert.equal(matchPolicyRules(all, call('list_files', { paths: ['.'] }))?.verdict, 'deny', '** matches the root too');
  });

  test('arg patterns: every listed argument must be a matching string', () => {
    const policy = toml('[[rules]]\ntool = "http_request"\nargs = { url = "https://api.example.com/**", method = "{GET,HEAD}" }\naction = "allow"\n');
    const verdict = (args: Record<string, unknown>) => matchPolicyRules(policy, call('http_request', { kind: 'network', args }))?.verdict;
    assert.equal(verdict({ url: 'https://api.example.com/v1/items?x=1', method: 'GET' }), 'allow');
    assert.equal(verdict({ url: 'https://api.example.com', method: 'HEAD' }), 'allow');
    assert.equal(verdict({ url: 'https://api.example.com.evil.net/v1', method: 'GET' }), undefined);
    assert.equal(verdict({ url: 'https://api.example.com/v1', method: 'POST' }), undefined);
    assert.equal(verdict({ url: 'https://api.example.com/v1' }), undefined, 'missing argument');
    assert.equal(verdict({ url: ['https://api.example.com/v1'], method: 'GET' }), undefined, 'non-string value');
  });

  test('an args pattern on a shell tool\'s command argument never matches: use command (C1 through args)', () => {
    const policy = toml('[[rules]]\ntool = "run_command"\nargs = { command = "git status*" }\naction = "allow"\n');
    const analysis = shell([cmd('git status'), cmd('rm -rf data')]);
    const input = { ...call('run_command', { kind: 'shell_command', args: { command: 'git status; rm -rf data' }, shell: analysis }), commandArguments: ['command'] };
    assert.equal(matchPolicyRules(policy, input), undefined);
    assert.equal(matchPolicyRules(policy, { ...input, shell: shell([cmd('git status')]), args: { command: 'git status' } }), undefined, 'not even the plain command');
    // An argument named command on a tool where it is not a command line still matches.
    assert.equal(matchPolicyRules(toml('[[rules]]\nargs = { command = "git status*" }\naction = "allow"\n'), call('note', { args: { command: 'git status x' }, commandArguments: [] }))?.verdict, 'allow');
  });

  test('an uncertain command line under a deny or ask command rule asks, whatever else allows it', () => {
    const denyRm = toml('[[rules]]\ncommand = "rm"\naction = "deny"\n');
    const parseError = shell([cmd('rm -rf data')], ['the command line does not parse: syntax error near "then"']);
    // The parser saw rm here: the deny decides.
    assert.equal(matchPolicyRules(denyRm, runCommand(parseError))?.verdict, 'deny');
    const hidden = shell([], ['the command line does not parse: syntax error near "then"']);
    const asked = matchPolicyRules(denyRm, runCommand(hidden));
    assert.equal(asked?.verdict, 'ask');
    assert.equal(asked?.reason, `the command line cannot be checked against the rule at ${FILE}:1: the command line does not parse: syntax error near "then"`);
    const dynamic = shell([cmd('printf rm')], ['the program name is computed when the line runs']);
    assert.equal(matchPolicyRules(denyRm, runCommand(dynamic))?.verdict, 'ask');
    // Under allow-all too; but not with only allow rules, and not when something is denied.
    const allowAll = toml('[[rules]]\naction = "allow"\n\n[[rules]]\ncommand = "git push"\naction = "ask"\n');
    assert.equal(matchPolicyRules(allowAll, runCommand(dynamic))?.verdict, 'ask');
    assert.equal(matchPolicyRules(toml('[[rules]]\ncommand = "printf"\naction = "allow"\n'), runCommand(dynamic))?.verdict, 'ask', 'uncertain allow asks, as before');
    assert.equal(matchPolicyRules(toml('[[rules]]\ncommand = "ls"\naction = "allow"\n'), runCommand(dynamic)), undefined, 'no deny or ask rule: no opinion');
    assert.equal(matchPolicyRules(toml('[[rules]]\ncommand = "rm"\naction = "ask"\n\n[[rules]]\ncommand = "printf"\naction = "deny"\n'), runCommand(dynamic))?.verdict, 'deny');
  });

  test('a command rule never matches a call that is not a shell call', () => {
    const policy = toml('[[rules]]\ncommand = "*"\naction = "deny"\n');
    assert.equal(matchPolicyRules(policy, call('write_file')), undefined);
  });

  test('command prefixes: words start the argv; trailing * is sugar; words are globs', () => {
    const policy = toml('[[rules]]\ncommand = "git status"\naction = "allow"\n\n[[rules]]\ncommand = "npm run test*"\naction = "allow"\n');
    const verdict = (text: string) => matchPolicyRules(policy, runCommand(shell([cmd(text)])))?.verdict;
    assert.equal(verdict('git status'), 'allow');
    assert.equal(verdict('git status -s'), 'allow');
    assert.equal(verdict('git push'), undefined);
    assert.equal(verdict('git'), undefined);
    assert.equal(verdict('npm run test:unit'), 'allow');
    assert.equal(verdict('npm run build'), undefined);
    // a program run by path may be any file: an allow rule for `git` does not allow it (shell-hardening, item 8)
    assert.equal(matchPolicyRules(policy, runCommand(shell([cmd('/usr/bin/git status', { program: 'git' })])))?.verdict, undefined, 'a path is not the program name');
    const star = toml('[[rules]]\ncommand = "echo *"\naction = "allow"\n');
    assert.equal(matchPolicyRules(star, runCommand(shell([cmd('echo')])))?.verdict, 'allow');
    assert.equal(matchPolicyRules(star, runCommand(shell([cmd('echo /tmp/a b')])))?.verdict, 'allow');
  });

  describe('shell-hardening 8: a program run by path', () => {
    test('an allow rule `git status` does not match `./git status` (argv[0] as written)', () => {
      const policy = toml('[[rules]]\ncommand = "git status"\naction = "allow"\n');
      assert.equal(matchPolicyRules(policy, runCommand(shell([cmd('./git status', { program: 'git' })]))), undefined);
      assert.equal(matchPolicyRules(policy, runCommand(shell([cmd('tools/git status', { program: 'git' })]))), undefined);
      assert.equal(matchPolicyRules(policy, runCommand(shell([cmd('git status')])))?.verdict, 'allow');
    });

    test('an allow rule `./build.sh` matches `./build.sh` exactly as written, and not `build.sh` elsewhere', () => {
      const policy = toml('[[rules]]\ncommand = "./build.sh *"\naction = "allow"\n');
      assert.equal(matchPolicyRules(policy, runCommand(shell([cmd('./build.sh', { program: 'build.sh' })])))?.verdict, 'allow');
      // a program no table knows: exactly the words given, unless allow_options says more
      assert.equal(matchPolicyRules(policy, runCommand(shell([cmd('./build.sh --fast', { program: 'build.sh' })])))?.verdict, 'ask');
      const wider = toml('[[rules]]\ncommand = "./build.sh"\nallow_options = ["--fast"]\naction = "allow"\n');
      assert.equal(matchPolicyRules(wider, runCommand(shell([cmd('./build.sh --fast', { program: 'build.sh' })])))?.verdict, 'allow');
      assert.equal(matchPolicyRules(policy, runCommand(shell([cmd('/tmp/build.sh', { program: 'build.sh' })]))), undefined);
      assert.equal(matchPolicyRules(policy, runCommand(shell([cmd('build.sh')]))), undefined);
    });

    test('a deny or ask rule still matches a program run by path by its name: `rm` denies `/bin/rm -rf x`', () => {
      const policy = toml('[[rules]]\ncommand = "*"\naction = "allow"\n\n[[rules]]\ncommand = "rm"\naction = "deny"\n\n[[rules]]\ncommand = "git push"\naction = "ask"\n');
      assert.equal(matchPolicyRules(policy, runCommand(shell([cmd('/bin/rm -rf x', { program: 'rm' })])))?.verdict, 'deny');
      assert.equal(matchPolicyRules(policy, runCommand(shell([cmd('./git push', { program: 'git' })])))?.verdict, 'ask');
    });

    test('a wrapper rule does not reach through to a program run by path: `sudo git status` does not match `sudo ./git status`', () => {
      const policy = toml('[[rules]]\ncommand = "sudo git status"\naction = "allow"\n');
      assert.equal(matchPolicyRules(policy, runCommand(shell([cmd('sudo ./git status', { argv: ['./git', 'status'], program: 'git', wrappers: ['sudo'] })]))), undefined);
      assert.equal(matchPolicyRules(policy, runCommand(shell([cmd('sudo git status', { argv: ['git', 'status'], wrappers: ['sudo'] })])))?.verdict, 'allow');
    });
  });

  describe('shell calls, command by command', () => {
    const echo = toml('[[rules]]\ncommand = "echo *"\naction = "allow"\n');

    test('C1: `echo ok && rm -rf data` under allow `echo *` asks, naming rm', () => {
      const m = matchPolicyRules(echo, runCommand(shell([cmd('echo ok'), cmd('rm -rf data')])))!;
      assert.equal(m.verdict, 'ask');
      assert.equal(m.command, 'rm -rf data');
      assert.match(m.reason, /`rm -rf data` matches no policy rule/);
      assert.match(m.reason, /rule written for something else/);
    });

    test('C1: `cd x; curl ...` and `cat f | sh` under allow `echo *` are not allowed', () => {
      assert.equal(matchPolicyRules(echo, runCommand(shell([cmd('cd x'), cmd('curl https://x', { kind: 'network' })]))), undefined);
      const piped = toml('[[rules]]\ncommand = "cat *"\naction = "allow"\n');
      assert.equal(matchPolicyRules(piped, runCommand(shell([cmd('cat f'), cmd('sh')], ['text piped into sh'])))?.verdict, 'ask');
    });

    test('an allow rule with paths and no command does not allow a shell call whose workdir matches (attack s11); its deny still denies', () => {
      const policy = toml('[[rules]]\ntool = "*"\npaths = ["docs/**"]\naction = "allow"\n');
      const escape = shell([cmd('printf PWN > ../src/x.ts', { argv: ['printf', 'PWN'], writes: ['../src/x.ts'] }), cmd('id')]);
      const fromDocs = { ...runCommand(escape), paths: ['docs'] };
      assert.equal(matchPolicyRules(policy, fromDocs), undefined, 'no rule allows it: it goes to the approval mode');
      assert.equal(matchPolicyRules(policy, { ...fromDocs, shell: shell([]) }), undefined, 'a line with no commands neither');
      const deny = toml('[[rules]]\ntool = "*"\npaths = ["docs/**"]\naction = "deny"\n');
      assert.equal(matchPolicyRules(deny, fromDocs)?.verdict, 'deny');
      // A file tool with that path is still allowed.
      assert.equal(matchPolicyRules(policy, call('write_file', { paths: ['docs/a.md'] }))?.verdict, 'allow');
    });

    test('C1: `ls > ~/.bashrc` asks even under allow `ls`; a redirect is not what the rule allowed', () => {
      const policy = toml('[[rules]]\ncommand = "echo *"\naction = "allow"\n\n[[rules]]\ncommand = "ls"\naction = "allow"\n');
      const m = matchPolicyRules(policy, runCommand(shell([cmd('ls > ~/.bashrc', { argv: ['ls'], writes: ['~/.bashrc'] })])))!;
      assert.equal(m.verdict, 'ask');
      assert.match(m.reason, /writes to ~\/\.bashrc/);
      assert.equal(matchPolicyRules(echo, runCommand(shell([cmd('ls > ~/.bashrc', { argv: ['ls'], writes: ['~/.bashrc'] })]))), undefined, 'under allow echo alone: no rule, not allowed');
      assert.equal(matchPolicyRules(echo, runCommand(shell([cmd('echo hi > out.txt', { argv: ['echo', 'hi'], writes: ['out.txt'] })])))?.verdict, 'ask');
      const wholeTool = toml('[[rules]]\ntool = "run_command"\naction = "allow"\n');
      assert.equal(matchPolicyRules(wholeTool, runCommand(shell([cmd('echo hi > out.txt', { argv: ['echo', 'hi'], writes: ['out.txt'] })])))?.verdict, 'allow', 'a rule for the whole tool is not a rule for one command');
    });

    test('C2: `bash -c \'rm -rf x\'` under allow `echo *`: the inner rm is not allowed', () => {
      const analysis = shell([cmd("bash -c 'rm -rf x'", { argv: ['bash', '-c', 'rm -rf x'] }), cmd('rm -rf x')]);
      assert.notEqual(matchPolicyRules(echo, runCommand(analysis))?.verdict, 'allow');
      const withEcho = shell([cmd('echo start'), cmd("bash -c 'rm -rf x'", { argv: ['bash', '-c', 'rm -rf x'] }), cmd('rm -rf x')]);
      assert.equal(matchPolicyRules(echo, runCommand(withEcho))?.verdict, 'ask');
      const evaled = shell([cmd('echo aGk= | base64 -d'), cmd('eval "$x"', { argv: ['eval', '"$x"'] })], ['eval of text that is not static']);
      assert.notEqual(matchPolicyRules(echo, runCommand(evaled))?.verdict, 'allow');
    });

    test('wrappers: `timeout 5 rm -rf x` and `env FOO=1 rm -rf x` under deny `rm` deny; deny `sudo` catches `sudo rm x`', () => {
      const policy = toml('[[rules]]\ncommand = "*"\naction = "allow"\n\n[[rules]]\ncommand = "rm"\naction = "deny"\nreason = "no deleting"\n\n[[rules]]\ncommand = "sudo"\naction = "deny"\n');
      for (const wrappers of [['timeout'], ['env']]) {
        const m = matchPolicyRules(policy, runCommand(shell([cmd('timeout 5 rm -rf x', { argv: ['rm', '-rf', 'x'], wrappers })])))!;
        assert.equal(m.verdict, 'deny');
        assert.equal(m.rule.line, 5);
        assert.match(m.reason, /no deleting/);
      }
      const sudo = matchPolicyRules(policy, runCommand(shell([cmd('sudo ls x', { argv: ['ls', 'x'], wrappers: ['sudo'] })])))!;
      assert.equal(sudo.verdict, 'deny');
      assert.equal(sudo.rule.line, 10);
      const sudoRm = toml('[[rules]]\ncommand = "sudo rm"\naction = "deny"\n');
      assert.equal(matchPolicyRules(sudoRm, runCommand(shell([cmd('sudo rm x', { argv: ['rm', 'x'], wrappers: ['sudo'] })])))?.verdict, 'deny');
      assert.equal(matchPolicyRules(sudoRm, runCommand(shell([cmd('sudo ls x', { argv: ['ls', 'x'], wrappers: ['sudo'] })]))), undefined);
    });

    test('any deny denies, naming the command; any ask asks; all allowed allows', () => {
      const policy = toml('[[rules]]\ncommand = "echo"\naction = "allow"\n\n[[rules]]\ncommand = "git push"\naction = "ask"\n\n[[rules]]\ncommand = "git commit"\naction = "allow"\n\n[[rules]]\ncommand = "rm"\naction = "deny"\n');
      const denied = matchPolicyRules(policy, runCommand(shell([cmd('echo a'), cmd('git push'), cmd('rm x')])))!;
      assert.equal(denied.verdict, 'deny');
      assert.equal(denied.command, 'rm x');
      assert.match(denied.reason, /`rm x` is denied by the policy rule .*:13/);
      assert.equal(matchPolicyRules(policy, runCommand(shell([cmd('echo a'), cmd('git push')])))?.verdict, 'ask');
      const allowed = matchPolicyRules(policy, runCommand(shell([cmd('echo a'), cmd('git commit -m x')])))!;
      assert.equal(allowed.verdict, 'allow');
      // C3 as the analyzer normalises it: `git -C . commit` gives argv ["git", "commit"].
      const ask = toml('[[rules]]\ncommand = "git commit"\naction = "ask"\n');
      assert.equal(matchPolicyRules(ask, runCommand(shell([cmd('git -C . commit', { argv: ['git', 'commit'] })])))?.verdict, 'ask');
    });

    test('uncertain analysis: an allow becomes ask naming the first reason; a deny still denies', () => {
      const all = toml('[[rules]]\ntool = "run_command"\naction = "allow"\n');
      const m = matchPolicyRules(all, runCommand(shell([cmd('$X a', { argv: ['$X', 'a'], program: '$X' })], ['a dynamic program name ($X)', 'second'])))!;
      assert.equal(m.verdict, 'ask');
      assert.match(m.reason, /a dynamic program name \(\$X\)/);
      const denied = toml('[[rules]]\ntool = "run_command"\naction = "allow"\n\n[[rules]]\ncommand = "rm"\naction = "deny"\n');
      assert.equal(matchPolicyRules(denied, runCommand(shell([cmd('rm x')], ['unknown construct'])))?.verdict, 'deny');
      assert.equal(matchPolicyRules(all, runCommand(shell([], ['parse error'])))?.verdict, 'ask', 'no commands at all: judged as a whole');
    });

    test('kind rules judge each command by its own kind: allowing network does not approve the rm beside curl', () => {
      const network = toml('[[rules]]\nkind = "network"\naction = "allow"\n');
      const analysis = shell([cmd('curl https://x', { kind: 'network' }), cmd('rm -rf ~')]);
      assert.equal(analysis.kind, 'network');
      assert.equal(matchPolicyRules(network, runCommand(analysis))?.verdict, 'ask');
      const deny = toml('[[rules]]\nkind = "network"\naction = "deny"\n');
      assert.equal(matchPolicyRules(deny, runCommand(analysis))?.verdict, 'deny');
    });
  });
});

describe('policy files: the user and workspace files together', () => {
  let root: string;
  let userFile: string;
  let wsFile: string;
  before(() => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'toolgate-policy-'));
    fs.mkdirSync(path.join(root, 'config', 'toolgate'), { recursive: true });
    fs.mkdirSync(path.join(root, 'ws', '.toolgate'), { recursive: true });
    userFile = path.join(root, 'config', 'toolgate', 'policy.toml');
    wsFile = path.join(root, 'ws', '.toolgate', 'policy.toml');
  });
  after(() => fs.rmSync(root, { recursive: true, force: true }));

  /** Write `text` to `file` so that a re-check must see it (size or mtime changes). */
  let tick = 0;
  function put(file: string, text: string): void {
    fs.writeFileSync(file, text);
    const at = new Date(Date.UTC(2026, 0, 1) + ++tick * 1000);
    fs.utimesSync(file, at, at);
  }
  function clear(): void {
    fs.rmSync(userFile, { force: true });
    fs.rmSync(wsFile, { force: true });
  }
  const set = () => new PolicySet({ user: userFile, workspace: wsFile });

  test('absent files hold no rules; no rule matched is no opinion', () => {
    clear();
    const d = set().decide(call('write_file'));
    assert.equal(d.verdict, undefined);
    assert.equal(d.fresh, false);
    assert.equal(new PolicySet({}).decide(call('x')).verdict, undefined);
  });

  test('a workspace allow under a user ask still asks; a workspace deny under a user allow denies', () => {
    clear();
    put(userFile, '[[rules]]\ntool = "write_file"\naction = "ask"\n');
    put(wsFile, '[[rules]]\ntool = "write_file"\naction = "allow"\n');
    const asked = set().decide(call('write_file'));
    assert.equal(asked.verdict, 'ask');
    assert.equal(asked.layer, 'user');
    assert.equal(asked.rule?.id, `${userFile}:1`);

    put(userFile, '[[rules]]\ntool = "write_file"\naction = "allow"\n');
    put(wsFile, '[[rules]]\ntool = "write_file"\npaths = ["secret/**"]\naction = "deny"\n');
    const policies = set();
    const denied = policies.decide(call('write_file', { paths: ['secret/k'] }));
    assert.equal(denied.verdict, 'deny');
    assert.equal(denied.layer, 'workspace');
    assert.equal(denied.rule?.id, `${wsFile}:1`);
    assert.equal(policies.decide(call('write_file', { paths: ['docs/k'] })).verdict, 'allow');

    // A workspace allow counts only where the user's file allows too or says nothing.
    put(userFile, '[[rules]]\ntool = "delete_file"\naction = "deny"\n');
    put(wsFile, '[[rules]]\naction = "allow"\n');
    assert.equal(policies.decide(call('delete_file')).verdict, 'deny');
    const unmentioned = policies.decide(call('read_file'));
    assert.equal(unmentioned.verdict, 'allow');
    assert.equal(unmentioned.layer, 'workspace');
  });

  test('always_ask in either file sets fresh', () => {
    clear();
    put(userFile, '[[rules]]\naction = "allow"\n');
    put(wsFile, 'always_ask = true\n');
    const d = set().decide(call('read_file'));
    assert.equal(d.verdict, 'allow');
    assert.equal(d.fresh, true);
    put(wsFile, 'always_ask = false\n');
    assert.equal(set().decide(call('read_file')).fresh, false);
  });

  test('an invalid workspace file denies every call naming file and line, and recovers when fixed', () => {
    clear();
    put(userFile, '[[rules]]\naction = "allow"\n');
    put(wsFile, '[[rules]]\ntool = "x"\naction = "ask"\n\n[[rules]]\ntool = "y"\nacton = "deny"\n');
    const policies = set();
    for (const c of [call('read_file'), call('x'), runCommand(shell([cmd('ls')]))]) {
      const d = policies.decide(c);
      assert.equal(d.verdict, 'deny');
      assert.equal(d.error?.line, 7);
      assert.equal(d.reason, `the policy file ${wsFile} is invalid (line 7: unknown key 'acton' in rule 2 (did you mean 'action'?); a rule's keys are tool, kind, paths, args, command, allow_options, action, reason); every call is denied until it is fixed`);
    }
    put(wsFile, '[[rules]]\ntool = "x"\naction = "ask"\n\n[[rules]]\ntool = "y"\naction = "deny"\n');
    assert.equal(policies.decide(call('read_file')).verdict, 'allow');
    assert.equal(policies.decide(call('y')).verdict, 'deny');
  });

  test('an unreadable policy file (a folder) denies every call', () => {
    clear();
    fs.mkdirSync(wsFile);
    try {
      const d = set().decide(call('read_file'));
      assert.equal(d.verdict, 'deny');
      assert.match(d.reason, /cannot be read \(EISDIR\); every call is denied/);
    } finally {
      fs.rmdirSync(wsFile);
    }
  });

  test('a rule added between two decisions applies to the second (re-checked before every call)', () => {
    clear();
    put(userFile, '[[rules]]\ntool = "*"\naction = "allow"\n');
    const policies = set();
    assert.equal(policies.decide(call('delete_file')).verdict, 'allow');
    fs.appendFileSync(userFile, '\n[[rules]]\ntool = "delete_file"\naction = "deny"\n');
    const d = policies.decide(call('delete_file'));
    assert.equal(d.verdict, 'deny');
    assert.equal(d.rule?.line, 5);
    put(wsFile, '[[rules]]\ntool = "read_file"\naction = "ask"\n');
    assert.equal(policies.decide(call('read_file')).verdict, 'ask', 'a workspace file created later is seen');
    fs.rmSync(wsFile);
    assert.equal(policies.decide(call('read_file')).verdict, 'allow', 'and its removal too');
  });

  test('special files are invalid at once: a FIFO, a symlink to /dev/zero, a 2 MiB file', () => {
    clear();
    const expectRefused = (pattern: RegExp, policies = set()) => {
      const d = policies.decide(call('read_file'));
      assert.equal(d.verdict, 'deny');
      assert.match(d.reason, pattern);
      assert.match(d.reason, /every call is denied until it is fixed$/);
    };
    execFileSync('mkfifo', [wsFile]);
    try {
      expectRefused(/^the policy file .*policy\.toml is not a regular file;/);
    } finally {
      fs.rmSync(wsFile);
    }
    execFileSync('mkfifo', [userFile]);
    try {
      expectRefused(/is not a regular file/);
    } finally {
      fs.rmSync(userFile);
    }
    fs.symlinkSync('/dev/zero', userFile);
    try {
      expectRefused(/is not a regular file/);
    } finally {
      fs.rmSync(userFile);
    }
    fs.symlinkSync('/dev/zero', wsFile);
    try {
      expectRefused(/is not a regular file \(a symbolic link/);
    } finally {
      fs.rmSync(wsFile);
    }
    fs.writeFileSync(wsFile, `# ${'x'.repeat(2 * 1024 * 1024)}\n`);
    const policies = set();
    expectRefused(/is larger than 1 MiB/, policies);
    put(wsFile, '[[rules]]\naction = "ask"\n');
    assert.equal(policies.decide(call('read_file')).verdict, 'ask', 'fixed: seen');
  });

  test('a workspace file that is a symlink is refused unread (no secret in a syntax error); a user file may be one', () => {
    clear();
    const secret = path.join(root, 'secret.json');
    fs.writeFileSync(secret, 'TOKEN=abc123-very-secret\n');
    const wsJson = path.join(root, 'ws', '.toolgate', 'policy.json');
    fs.symlinkSync(secret, wsJson);
    try {
      const d = new PolicySet({ workspace: wsJson }).decide(call('read_file'));
      assert.equal(d.verdict, 'deny');
      assert.match(d.reason, /is not a regular file \(a symbolic link/);
      assert.doesNotMatch(JSON.stringify(d), /abc123|TOKEN/);
    } finally {
      fs.rmSync(wsJson);
    }
    // Nor a .toolgate folder that is a link to one outside.
    fs.mkdirSync(path.join(root, 'outside'));
    fs.writeFileSync(path.join(root, 'outside', 'policy.json'), 'TOKEN=abc123-very-secret\n');
    fs.mkdirSync(path.join(root, 'ws2'));
    fs.symlinkSync(path.join(root, 'outside'), path.join(root, 'ws2', '.toolgate'));
    const linked = new PolicySet({ workspace: path.join(root, 'ws2', '.toolgate', 'policy.json') }).decide(call('read_file'));
    assert.equal(linked.verdict, 'deny');
    assert.match(linked.reason, /its folder is a symbolic link/);
    assert.doesNotMatch(JSON.stringify(linked), /abc123|TOKEN/);

    const dotfile = path.join(root, 'dotfile-policy.toml');
    fs.writeFileSync(dotfile, '[[rules]]\ntool = "read_file"\naction = "deny"\n');
    fs.symlinkSync(dotfile, userFile);
    try {
      assert.equal(set().decide(call('read_file')).verdict, 'deny');
    } finally {
      fs.rmSync(userFile);
    }
  });

  test('one stat of each file per executor decision: the saved approvals read the check the policy made; an absent file allocates nothing', () => {
    clear();
    const key = (n: number) => n.toString(16).padStart(64, '0');
    put(userFile, `[[rules]]\ntool = "x"\naction = "ask"\n\n[[approved]]\nkey = "${key(1)}"\ntool = "x"\n`);
    const policies = set();
    const approvals = new PolicyFileApprovals(userFile, createLogger());
    const other = new PolicySet({ user: userFile });
    assert.equal(policies.decide(call('x')).verdict, 'ask');
    let stats = 0;
    const { statSync, lstatSync } = fs;
    const patched = fs as { statSync: typeof statSync; lstatSync: typeof lstatSync };
    patched.statSync = ((...a: Parameters<typeof statSync>) => (stats++, statSync(...a))) as typeof statSync;
    patched.lstatSync = ((...a: Parameters<typeof lstatSync>) => (stats++, lstatSync(...a))) as typeof lstatSync;
    try {
      policies.decide(call('x'));
      assert.ok(approvals.size > 0);
      assert.equal(approvals.has(key(1)), true);
      assert.equal(approvals.has(key(2)), false);
      assert.equal(approvals.has(key(3)), false);
      assert.equal(stats, 2, 'the user file and the workspace file, once each');
    } finally {
      patched.statSync = statSync;
      patched.lstatSync = lstatSync;
    }
    // A second set (another workspace) shares the user file's parse.
    assert.equal(other.check()[0]!.policy, policies.check()[0]!.policy);
    // A person deletes the entry: the next decision's check sees it.
    put(userFile, '[[rules]]\ntool = "x"\naction = "ask"\n');
    policies.decide(call('x'));
    assert.equal(approvals.has(key(1)), false);
    clear();
    const absent = policies.check();
    assert.equal(policies.check()[0], absent[0]);
    assert.equal(policies.check()[1], absent[1]);
  });

  test('saving approvals: all keys of an answer in one write; a symlinked file stays a symlink', () => {
    clear();
    const key = (n: number) => n.toString(16).padStart(64, '0');
    const dotfile = path.join(root, 'dotfile-saved.toml');
    fs.writeFileSync(dotfile, '# mine\n');
    fs.symlinkSync(dotfile, userFile);
    try {
      const approvals = new PolicyFileApprovals(userFile, createLogger());
      approvals.saveAll([1, 2, 3].map((n) => ({ key: key(n), tool: 'run_command', summary: `c${n}` })));
      assert.ok(fs.lstatSync(userFile).isSymbolicLink(), 'still a symlink');
      const text = fs.readFileSync(dotfile, 'utf8');
      assert.equal(text.match(/\[\[approved\]\]/g)?.length, 3);
      assert.equal(text.match(/# Requests approved/g)?.length, 1, 'one write: one header');
      assert.deepEqual([...parsePolicyFile(text, userFile).approved], [key(1), key(2), key(3)]);
      assert.equal(approvals.has(key(2)), true);
      approvals.saveAll([{ key: key(2), tool: 'run_command', summary: 'again' }]);
      assert.equal(fs.readFileSync(dotfile, 'utf8'), text, 'a saved key is not written twice');
      assert.equal(fs.existsSync(`${dotfile}.lock`), false, 'the lock is removed');
    } finally {
      fs.rmSync(userFile);
    }
  });

  test('two processes saving approvals at once lose nothing', async () => {
    clear();
    const module = new URL('../../src/policy/saved-approvals.js', import.meta.url).href;
    const logger = new URL('../../src/logging/logger.js', import.meta.url).href;
    const child = (tag: number) => new Promise<void>((resolve, reject) => {
      const script = `import { PolicyFileApprovals } from ${JSON.stringify(module)}; import { createLogger } from ${JSON.stringify(logger)};
        const a = new PolicyFileApprovals(${JSON.stringify(userFile)}, createLogger('warn'));
        for (let i = 0; i < 15; i++) a.saveAll([{ key: (${tag} * 1000 + i).toString(16).padStart(64, '0'), tool: 't', summary: 's' }]);`;
      execFile(process.execPath, ['--input-type=module', '-e', script], (error, _out, stderr) => (error || stderr ? reject(error ?? new Error(stderr)) : resolve()));
    });
    await Promise.all([child(1), child(2)]);
    const keys = parsePolicyFile(fs.readFileSync(userFile, 'utf8'), userFile).approved;
    assert.equal(keys.size, 30);
    assert.equal(fs.existsSync(`${userFile}.lock`), false);
  });

  test('default locations: XDG_CONFIG_HOME, else ~/.config; .json when the .toml is absent', () => {
    const home = path.join(root, 'home');
    assert.deepEqual(defaultPolicyPaths({ env: {}, home }), { user: path.join(home, '.config', 'toolgate', 'policy.toml') });
    assert.deepEqual(defaultPolicyPaths({ env: { XDG_CONFIG_HOME: 'relative' }, home }).user, path.join(home, '.config', 'toolgate', 'policy.toml'));
    clear();
    const json = path.join(root, 'ws', '.toolgate', 'policy.json');
    put(json, '{"rules": [{"action": "deny"}]}');
    try {
      const paths = defaultPolicyPaths({ env: { XDG_CONFIG_HOME: path.join(root, 'config') }, workspaceRoot: path.join(root, 'ws') });
      assert.deepEqual(paths, { user: userFile, workspace: json });
      assert.equal(new PolicySet(paths).decide(call('x')).verdict, 'deny');
    } finally {
      fs.rmSync(json);
    }
  });
});

describe('toolgate policy check', () => {
  let root: string;
  let env: NodeJS.ProcessEnv;
  before(() => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'toolgate-policy-cli-'));
    fs.mkdirSync(path.join(root, 'config', 'toolgate'), { recursive: true });
    fs.mkdirSync(path.join(root, 'ws', '.toolgate'), { recursive: true });
    env = { ...process.env, XDG_CONFIG_HOME: path.join(root, 'config'), HOME: path.join(root, 'home') };
  });
  after(() => fs.rmSync(root, { recursive: true, force: true }));
  const userFile = () => path.join(root, 'config', 'toolgate', 'policy.toml');
  const wsFile = () => path.join(root, 'ws', '.toolgate', 'policy.toml');

  test('valid files: each path with "ok, N rules", exit 0; --explain shows each file\'s rule and the verdict', async () => {
    fs.writeFileSync(userFile(), '[[rules]]\naction = "ask"\n\n[[rules]]\ntool = "write_file"\npaths = ["docs/**"]\naction = "allow"\nreason = "docs are fine"\n');
    fs.writeFileSync(wsFile(), 'always_ask = true\n\n[[rules]]\ntool = "write_file"\npaths = ["docs/secret/**"]\naction = "deny"\n');
    const run = await runCli(['policy', 'check', '--workspace', path.join(root, 'ws')], { env, cwd: root });
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stdout, `user       ${userFile()}\n           ok, 2 rules\nworkspace  ${wsFile()}\n           ok, 1 rule, always_ask\n`);

    const explained = await runCli(['policy', 'check', '--workspace', path.join(root, 'ws'), '--explain', '{"name":"write_file","arguments":{"filepath":"docs/secret/k.md","content":"x"}}'], { env, cwd: root });
    assert.equal(explained.code, 0, explained.stderr);
    assert.match(explained.stdout, /^call {7}write_file /m);
    assert.match(explained.stdout, /paths docs\/secret\/k\.md/);
    assert.ok(explained.stdout.includes(`user       allow by ${userFile()}:4 ("docs are fine")`), explained.stdout);
    assert.ok(explained.stdout.includes(`workspace  deny by ${wsFile()}:3`), explained.stdout);
    assert.match(explained.stdout, /^verdict {4}deny: /m);
  });

  test('an invalid file: the error with file:line, exit 1; a missing file is no rules', async () => {
    fs.rmSync(userFile(), { force: true });
    fs.writeFileSync(wsFile(), '[[rules]]\ntool = "write_file"\nacton = "deny"\n');
    const run = await runCli(['policy', 'check', '--workspace', path.join(root, 'ws')], { env, cwd: root });
    assert.equal(run.code, 1);
    assert.ok(run.stdout.includes(`user       ${userFile()}\n           not found (no rules)\n`), run.stdout);
    assert.ok(run.stdout.includes(`invalid: ${wsFile()}:3: unknown key 'acton' in rule 1`), run.stdout);
  });

  test('a rule with an args pattern on a command line gets a warning (use command)', async () => {
    fs.writeFileSync(userFile(), '[[rules]]\ntool = "run_command"\nargs = { command = "git status*" }\naction = "allow"\n');
    fs.rmSync(wsFile(), { force: true });
    const run = await runCli(['policy', 'check', '--workspace', path.join(root, 'ws')], { env, cwd: root });
    assert.equal(run.code, 0, run.stderr);
    assert.ok(run.stdout.includes(`warning: ${userFile()}:1: args.command never matches a shell tool's command line`), run.stdout);
  });

  test('usage errors exit 2', async () => {
    const run = await runCli(['policy', 'lint'], { env, cwd: root });
    assert.equal(run.code, 2);
    assert.match(run.stderr, /unknown policy subcommand "lint"/);
  });
});
