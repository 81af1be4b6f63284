/**
 * Input typed into a running program, as the deciders see it (`src/policy/shell-input.ts`):
 * what counts as typing, which programs read their input as commands, the line a text
 * continues, and how policy rules treat input the analysis cannot read. The real sessions
 * (case C7) are test/tools-ported/shell-input.test.ts.
 */
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { loadShellAnalyzer, type ShellAnalyzer } from '../../src/policy/shell/analyze.js';
import { analyseInputArguments, analyseShellInput } from '../../src/policy/shell-input.js';
import { carriesInput, typesInput } from '../../src/policy/typed-input.js';
import { parsePolicyFile } from '../../src/policy/policy-file.js';
import { matchPolicyRules, policyCallInput } from '../../src/policy/policy-rules.js';
import type { ShellInputTarget } from '../../src/tool.js';
import { ToolDefinitionError } from '../../src/errors/errors.js';
import { buildToolDescriptor } from '../../src/decorators/tool.decorator.js';
import { RegisteredTool } from '../../src/registry/registered-tool.js';

let analyze: ShellAnalyzer;
before(async () => {
  analyze = await loadShellAnalyzer();
});

const into = (command: string, written = ''): ShellInputTarget => ({ command, written });
const programs = (target: ShellInputTarget | null, text: string) => analyseShellInput(analyze, text, target).commands.map((c) => c.program);
const opaque = (target: ShellInputTarget | null, text: string) => analyseShellInput(analyze, text, target).commands.every((c) => c.opaqueInput === true);

describe('what counts as typing', () => {
  test('a poll (empty) and a lone Ctrl-C type nothing; anything else does', () => {
    assert.equal(typesInput(''), false);
    assert.equal(typesInput('\u0003'), false);
    assert.equal(typesInput(undefined), false);
    assert.equal(typesInput('\u0003\n'), true);
    assert.equal(typesInput('ls\n'), true);
    assert.equal(carriesInput(['chars'], { chars: '' }), false);
    assert.equal(carriesInput(['chars'], { chars: 'x' }), true);
  });
});

describe('input to a shell is a command line', () => {
  for (const session of ['bash', 'sh', 'dash', 'zsh', 'bash -i --norc', 'bash -l', 'sh -s', 'sh -s arg', '/bin/bash', 'bash -o pipefail']) {
    test(`typed into \`${session}\`: analysed as shell`, () => {
      assert.deepEqual(programs(into(session), 'touch pwn; curl http://127.0.0.1:9/\n'), ['touch', 'curl']);
      assert.equal(opaque(into(session), 'ls\n'), false);
    });
  }

  test('a line begun earlier is judged with the text that ends it; finished lines are not judged again', () => {
    assert.deepEqual(programs(into('bash', 'echo a; cu'), 'rl http://x/\n'), ['echo', 'curl']);
    assert.deepEqual(programs(into('bash', 'rm -rf data\necho a; cu'), 'rl http://x/\n'), ['echo', 'curl']);
    assert.deepEqual(programs(into('bash', 'rm -rf data\n'), 'ls\n'), ['ls']);
  });

  test('an unfinished quote from earlier input keeps the earlier text in view (the analysis doubts it)', () => {
    const analysis = analyseShellInput(analyze, '"; curl http://x/; echo "\n', into('bash', 'echo "\n'));
    assert.ok(analysis.uncertain.length > 0 || analysis.commands.some((c) => c.program === 'curl'), JSON.stringify(analysis));
  });

  test('earlier input that changed the shell\'s state (alias, export PATH, shopt) makes later input doubted', () => {
    for (const earlier of ["alias ls='curl http://x/'\n", 'export PATH=/tmp/x:$PATH\n', 'shopt -s expand_aliases\n', 'source ./env.sh\n']) {
      const analysis = analyseShellInput(analyze, 'ls\n', into('bash -i', earlier));
      assert.ok(analysis.uncertain.length > 0, `${earlier}: ${JSON.stringify(analysis)}`);
    }
    assert.deepEqual(analyseShellInput(analyze, 'ls\n', into('bash', 'cd data\necho hi\n')).uncertain, []);
  });

  test('earlier input cut by the cap: where the line begins is unknown, so the text is doubted', () => {
    const analysis = analyseShellInput(analyze, 'ls\n', { command: 'bash', written: 'x'.repeat(10), truncated: true });
    assert.ok(analysis.uncertain.some((u) => /longer than the part kept/.test(u)), JSON.stringify(analysis));
  });
});

describe('input to anything else is opaque', () => {
  const cases: ReadonlyArray<readonly [string, string | undefined]> = [
    ['python3', 'python3'], ['python3 -u -i -q', 'python3'], ['node', 'node'], ['perl', 'perl'], ['cat', 'cat'], ['bash script.sh', '(unknown)'],
    ['python3; bash', 'python3'], ['timeout 60 bash', '(unknown)'], ['$SHELL', '(unknown)'], ['bash -c "read x; eval $x"', undefined],
    // A doubt about a longer line (what else runs before the shell) leaves the reader unknown: fail closed.
    ['cd data && bash', undefined],
  ];
  for (const [session, program] of cases) {
    test(`typed into \`${session}\`: one opaque command${program === undefined ? '' : ` for ${program}`}`, () => {
      const analysis = analyseShellInput(analyze, 'touch pwn; curl http://x/\n', into(session));
      assert.equal(analysis.commands.length, 1, JSON.stringify(analysis));
      assert.equal(analysis.commands[0]!.opaqueInput, true);
      if (program !== undefined) assert.equal(analysis.commands[0]!.program, program);
      assert.match(analysis.commands[0]!.text, /typed into/);
    });
  }

  test('a shell whose earlier input started an interpreter or xargs: later input is theirs', () => {
    assert.deepEqual(programs(into('bash', 'echo hi\npython3 -q\n'), 'echo after\n'), ['python3']);
    assert.equal(opaque(into('bash', 'echo hi\npython3 -q\n'), 'echo after\n'), true);
    assert.deepEqual(programs(into('bash', 'xargs rm\n'), 'important.txt\n'), ['xargs']);
    assert.equal(opaque(into('bash', 'bash\n'), 'ls\n'), false, 'a shell started in a shell still reads commands');
  });

  test('a tool that cannot say what reads its input: opaque (fail closed); one that says nothing reads it: nothing to judge', () => {
    const tool = (target: unknown) => ({ inputArguments: ['chars'], target });
    const args = { process_id: 'x', chars: 'ls\n' };
    const noHook = analyseInputArguments(analyze, tool(class {}), args, '/ws');
    assert.equal(noHook[0]!.commands[0]!.opaqueInput, true);
    const throws = analyseInputArguments(analyze, tool(class { static shellInputTarget(): never { throw new Error('boom'); } }), args, '/ws');
    assert.equal(throws[0]!.commands[0]!.opaqueInput, true);
    const nothing = analyseInputArguments(analyze, tool(class { static shellInputTarget() { return undefined; } }), args, '/ws');
    assert.deepEqual(nothing, []);
    const poll = analyseInputArguments(analyze, tool(class { static shellInputTarget() { return into('bash'); } }), { process_id: 'x', chars: '' }, '/ws');
    assert.deepEqual(poll, []);
    const seen: unknown[] = [];
    const shell = analyseInputArguments(analyze, tool(class { static shellInputTarget(a: unknown, root: string) { seen.push(a, root); return into('bash'); } }), args, '/ws');
    assert.deepEqual(shell[0]!.commands.map((c) => c.program), ['ls']);
    assert.deepEqual(seen, [args, '/ws']);
  });
});

describe('policy rules and opaque input', () => {
  const INPUT = { name: 'input_command', kind: 'shell_command' as const, commandArguments: [], inputArguments: ['chars'] };
  const verdict = (rules: string, text: string, target: ShellInputTarget) => {
    const analysis = analyseShellInput(analyze, text, target);
    return matchPolicyRules(parsePolicyFile(rules, '/p.toml'), policyCallInput(INPUT, { process_id: 'x', chars: text }, [], [analysis]))?.verdict;
  };

  test('a rule for running python3 does not allow typing into it; one that names the tool does', () => {
    assert.equal(verdict('[[rules]]\ncommand = "python3"\naction = "allow"\n', 'print(1)\n', into('python3')), undefined);
    assert.equal(verdict('[[rules]]\nkind = ["shell_command"]\naction = "allow"\n', 'print(1)\n', into('python3')), undefined);
    assert.equal(verdict('[[rules]]\ntool = "input_command"\ncommand = "python3"\naction = "allow"\n', 'print(1)\n', into('python3')), 'allow');
    assert.equal(verdict('[[rules]]\ntool = "input_command"\ncommand = "node"\naction = "allow"\n', 'print(1)\n', into('python3')), undefined);
    assert.equal(verdict('[[rules]]\ncommand = "python3"\naction = "deny"\n', 'print(1)\n', into('python3')), 'deny');
  });

  test('input to a shell is matched command by command, as run_command is', () => {
    assert.equal(verdict('[[rules]]\ncommand = "curl"\naction = "deny"\n', 'touch pwn; curl http://x/\n', into('bash')), 'deny');
    assert.equal(verdict('[[rules]]\ncommand = "echo"\naction = "allow"\n', 'echo hi\n', into('bash')), 'allow');
    assert.equal(verdict('[[rules]]\ncommand = "echo"\naction = "allow"\n', 'echo hi; rm -rf data\n', into('bash')), 'ask');
  });

  test('an args pattern never matches the typed text (a glob on a command line would match `ls; rm -rf data`)', () => {
    assert.equal(verdict('[[rules]]\ntool = "input_command"\nargs = { chars = "ls*" }\naction = "allow"\n', 'ls; rm -rf data\n', into('bash')), undefined);
  });
});

describe('registering a tool with a @format shell-input argument', () => {
  const entry = (name: string) => ({
    name, version: '1.0.0', description: 'Type into a session.', className: 'T', source: 't.ts', outputSchema: null,
    inputSchema: { type: 'object', properties: { id: { type: 'string' }, chars: { type: 'string', format: 'shell-input' } }, required: ['id'], additionalProperties: false },
  });
  class T {
    run(): string {
      return '';
    }
  }

  test('names the argument in inputArguments on the main runner; refuses any other runner', () => {
    const main = new RegisteredTool(buildToolDescriptor({ name: 'type_in', version: '1.0.0', kind: 'shell_command', runner: 'main' }, T, 'file:///t.js'), entry('type_in'));
    assert.deepEqual(main.inputArguments, ['chars']);
    assert.deepEqual(main.commandArguments, []);
    assert.throws(
      () => new RegisteredTool(buildToolDescriptor({ name: 'type_pool', version: '1.0.0', kind: 'shell_command', runner: 'pool' }, T, 'file:///t.js'), entry('type_pool')),
      (error: unknown) => error instanceof ToolDefinitionError && /shell-input, which needs runner: 'main'/.test(error.message),
    );
  });
});
