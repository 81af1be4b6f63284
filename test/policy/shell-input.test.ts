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
  // [session, the reader named, whether the text is also read as shell text (the reader may be a shell; case C7)]
  const cases: ReadonlyArray<readonly [string, string | undefined, boolean]> = [
    ['python3', 'python3', false], ['python3 -u -i -q', 'python3', false], ['node', 'node', false], ['perl', 'perl', false], ['cat', 'cat', true],
    ['bash script.sh', '(unknown)', true], ['python3; bash', 'python3', true], ['$SHELL', '(unknown)', true], ['bash -c "read x; eval $x"', undefined, true],
    // A doubt about a longer line (what else runs before the shell) leaves the reader unknown: fail closed.
    ['cd data && bash', undefined, true],
  ];
  for (const [session, program, asShell] of cases) {
    test(`typed into \`${session}\`: an opaque command${program === undefined ? '' : ` for ${program}`}${asShell ? ', and the text read as shell text' : ' alone'}`, () => {
      const analysis = analyseShellInput(analyze, 'touch pwn; curl http://x/\n', into(session));
      assert.equal(analysis.commands[0]!.opaqueInput, true);
      if (program !== undefined) assert.equal(analysis.commands[0]!.program, program);
      assert.match(analysis.commands[0]!.text, /typed into/);
      const rest = analysis.commands.slice(1);
      assert.deepEqual(rest.map((c) => c.program), asShell ? ['touch', 'curl'] : [], JSON.stringify(analysis));
      assert.ok(rest.every((c) => c.readAsShell === true && c.opaqueInput === undefined));
    });
  }

  // C7: sessions that confirmed `touch pwn; curl ...` got past deny rules on main.
  for (const session of ['env bash', 'exec bash', 'exec -a x bash', 'timeout 60 bash', 'nice -n 5 sh', 'stdbuf -oL bash', 'setsid bash', 'nohup bash']) {
    test(`C7: typed into \`${session}\` (a shell under a wrapper that passes its input on): analysed as shell`, () => {
      assert.deepEqual(programs(into(session), 'touch pwn; curl http://127.0.0.1:9/\n'), ['touch', 'curl']);
      assert.equal(opaque(into(session), 'ls\n'), false);
    });
  }
  for (const session of ['cat | bash', 'tee /dev/null | sh', 'sleep 0.1; bash', 'script -qc bash /dev/null', 'while read l; do eval "$l"; done', 'xargs bash', 'env PATH=/tmp/x bash']) {
    test(`C7: typed into \`${session}\` (may be a shell): opaque, and read as shell text as well`, () => {
      const analysis = analyseShellInput(analyze, 'touch pwn; curl http://127.0.0.1:9/\n', into(session));
      assert.equal(analysis.commands[0]!.opaqueInput, true);
      assert.deepEqual(analysis.commands.slice(1).map((c) => [c.program, c.readAsShell]), [['touch', true], ['curl', true]]);
    });
  }

  test('a shell whose earlier input started an interpreter or xargs: later input is theirs, or the shell\'s once they end (read as shell text as well)', () => {
    const later = analyseShellInput(analyze, 'echo after\n', into('bash', 'echo hi\npython3 -q\n'));
    assert.deepEqual(later.commands.map((c) => [c.program, c.opaqueInput, c.readAsShell]), [['python3', true, undefined], ['echo', undefined, true]]);
    assert.deepEqual(programs(into('bash', 'xargs rm\n'), 'important.txt\n'), ['xargs', 'important.txt']);
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

describe('C6: literal text fed to a shell is analysed like `bash -c` text, and still doubted', () => {
  const cases: ReadonlyArray<readonly [string, readonly string[]]> = [
    ["bash <<'EOF'\ntouch pwn\ncurl -s http://x/\nEOF\n", ['touch', 'curl', 'bash']],
    ["bash <<< 'curl -s http://x/'", ['curl', 'bash']],
    ["echo 'curl -s http://x/; rm -rf data' | bash", ['echo', 'curl', 'rm', 'bash']],
    ['echo curl x | env sh', ['echo', 'curl', 'sh']],
    // not literal: nothing to read, only the doubt
    ['bash <<EOF\ncurl -s $X\nEOF\n', ['bash']], ["echo -e 'curl x' | bash", ['echo', 'bash']], ['echo $X | bash', ['echo', 'bash']],
    ["{ head -1; bash; } <<'EOF'\necho '\ncurl x\n'\nEOF\n", ['head', 'bash']],
  ];
  for (const [line, found] of cases) {
    test(`\`${line.split('\n')[0]}\``, () => {
      const analysis = analyze(line);
      assert.deepEqual(analysis.commands.map((c) => c.program), found);
      assert.ok(analysis.uncertain.some((u) => /fed to it by the command line/.test(u)), JSON.stringify(analysis.uncertain));
      assert.equal(analysis.callerInput, undefined, 'not the call\'s own input');
    });
  }
  test('a shell reading the call\'s own input is told apart (callerInput)', () => {
    assert.deepEqual(analyze('bash').callerInput, ['bash reads commands from standard input: `bash`']);
    assert.deepEqual(analyze('env bash').callerInput?.length, 1);
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

  test('C7: text typed into a session that may be a shell: deny and ask rules on its commands apply; an allow rule for them does not', () => {
    const denyCurl = '[[rules]]\ncommand = "curl"\naction = "deny"\n';
    for (const session of ['cat | bash', 'script -qc bash /dev/null', 'while read l; do eval "$l"; done', 'cat']) {
      assert.equal(verdict(denyCurl, 'touch pwn; curl http://x/\n', into(session)), 'deny', session);
      assert.equal(verdict('[[rules]]\ncommand = "touch"\naction = "ask"\n', 'touch pwn\n', into(session)), 'ask', session);
      assert.equal(verdict('[[rules]]\ncommand = "echo"\naction = "allow"\n', 'echo hi\n', into(session)), undefined, session);
      assert.equal(verdict(`${denyCurl}[[rules]]\ntool = "input_command"\ncommand = "cat"\naction = "allow"\n`, 'echo hi\n', into('cat')), 'allow', 'a rule naming the tool and the reader still allows');
    }
    // a known interpreter alone is not read as shell text: its rules are those for typed input
    assert.equal(verdict(denyCurl, 'touch pwn; curl http://x/\n', into('python3')), undefined);
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
