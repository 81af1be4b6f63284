/**
 * Policy files through the executor users get (issue 15, items 1, 3, 4 and 7): shell commands
 * judged one by one with a real parser (cases C1, C2, C3), wrappers unwrapped, redirections
 * counted as writes, the workspace file only narrowing the user's, an invalid file denying
 * every call with its file and line, a rule added while a person answers applying, and saved
 * approvals that cover exactly what was approved.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, beforeEach, describe, test } from 'node:test';
import { ToolExecutor, type ApprovalAnswer, type ConfirmationRequest, type ExecuteOptions, type ToolExecutionResult, type ToolRegistry } from 'toolgate';
import { portedRegistry, tempWorkspace, type TempWorkspace } from '../helpers.js';

describe('policy files', () => {
  let registry: ToolRegistry;
  let t: TempWorkspace;
  let userFile: string;
  let workspaceFile: string;
  let executor: ToolExecutor;
  /** The questions put to the person, and what they answer. */
  let asked: ConfirmationRequest[];
  let answer: ApprovalAnswer | ((request: ConfirmationRequest) => ApprovalAnswer);

  before(async () => {
    registry = await portedRegistry();
    t = tempWorkspace();
    userFile = path.join(t.root, 'config', 'toolgate', 'policy.toml');
    workspaceFile = path.join(t.ws, '.toolgate', 'policy.toml');
    fs.mkdirSync(path.dirname(userFile), { recursive: true });
    fs.mkdirSync(path.dirname(workspaceFile), { recursive: true });
    executor = new ToolExecutor(registry, {
      workspaceRoot: t.ws,
      policy: { user: userFile, workspace: true },
      confirmationHandler: (request) => {
        asked.push(request);
        return typeof answer === 'function' ? answer(request) : answer;
      },
    });
  });
  after(async () => {
    await executor.close();
    t.cleanup();
  });
  beforeEach(() => {
    asked = [];
    answer = 'deny';
    fs.rmSync(userFile, { force: true });
    fs.rmSync(workspaceFile, { force: true });
    fs.mkdirSync(path.join(t.ws, 'data'), { recursive: true });
  });

  /** Write a policy file (a new size each time, so the re-check sees the change). */
  const policy = (file: string, text: string) => fs.writeFileSync(file, text);
  const run = (command: string, options: ExecuteOptions = {}): Promise<ToolExecutionResult> =>
    executor.execute({ name: 'run_command', arguments: { command } }, options);
  /** The call was let through without a question (it may still fail to run, e.g. with no sandbox here). */
  const ranUnasked = (r: ToolExecutionResult) => {
    assert.equal(asked.length, 0, `asked: ${asked.map((a) => a.ask.reason).join('; ')}`);
    assert.ok(!['CONFIRMATION_REQUIRED', 'CONFIRMATION_DENIED', 'POLICY_DENIED'].includes(r.errorCode ?? ''), `${r.errorCode}: ${r.error}`);
  };
  const askedAbout = (r: ToolExecutionResult, pattern: RegExp) => {
    assert.equal(r.errorCode, 'CONFIRMATION_DENIED', `${r.errorCode}: ${r.error}`);
    assert.equal(asked.length, 1);
    assert.match(asked[0]!.ask.reason, pattern);
    asked = [];
  };

  test('C1: under a rule that allows echo, every command and redirect is judged; nothing runs first', async () => {
    policy(userFile, '[[rules]]\ncommand = "echo *"\naction = "allow"\n');
    ranUnasked(await run('echo ok'));
    askedAbout(await run('echo ok && rm -rf data'), /rm -rf data/);
    assert.ok(fs.existsSync(path.join(t.ws, 'data')), 'nothing ran: data is still there');
    askedAbout(await run('echo hi > out.txt'), /out\.txt/);
    assert.equal(fs.existsSync(path.join(t.ws, 'out.txt')), false);
    askedAbout(await run('echo a; cd data; curl http://127.0.0.1:9/x'), /./);
    askedAbout(await run('echo x | sh'), /./);
    // ls matches no rule: the tool's own question applies.
    askedAbout(await run('ls > ~/.bashrc'), /./);
  });

  test('an args pattern on the command argument does not allow git status;rm -rf data (C1 through args)', async () => {
    policy(userFile, '[[rules]]\ntool = "run_command"\nargs = { command = "git status*" }\naction = "allow"\n');
    askedAbout(await run('git status;rm -rf data'), /./);
    assert.ok(fs.existsSync(path.join(t.ws, 'data')), 'nothing ran');
  });

  test('a line the parser cannot vouch for asks under a deny rule, even under allow-all: a parse error, a computed program name', async () => {
    policy(userFile, '[[rules]]\ncommand = "rm"\naction = "deny"\n');
    for (const command of ['rm -rf data\nif then', '$(printf rm) -rf data']) {
      const r = await run(command, { approvalMode: 'allow-all' });
      assert.equal(r.errorCode, 'CONFIRMATION_DENIED', `${JSON.stringify(command)}: ${r.errorCode} ${r.error}`);
      assert.equal(asked.length, 1);
      assert.match(asked[0]!.ask.reason, /cannot be checked against the deny rule at .*policy\.toml:1 .*only a person/);
      asked = [];
    }
    assert.ok(fs.existsSync(path.join(t.ws, 'data')), 'nothing ran');
  });

  test('C2: eval of decoded text, bash -c and env sh -c are never approved by a rule written for echo', async () => {
    policy(userFile, '[[rules]]\ncommand = "echo"\naction = "allow"\n');
    for (const command of ['eval "$(echo cm0gLXJmIGRhdGE= | base64 -d)"', "bash -c 'rm -rf data'", "env sh -c 'rm -rf data'", 'echo ok; $(echo rm) -rf data']) {
      const r = await run(command);
      assert.equal(r.errorCode, 'CONFIRMATION_DENIED', `${command}: ${r.errorCode} ${r.error}`);
      assert.equal(asked.length, 1, command);
      asked = [];
    }
    assert.ok(fs.existsSync(path.join(t.ws, 'data')));
  });

  test('C3: an ask rule on git commit still asks for git -C . commit and git --no-pager commit, even under allow-all', async () => {
    policy(userFile, '[[rules]]\ncommand = "git commit"\naction = "ask"\n');
    for (const command of ['git commit -m x', 'git -C . commit -m x', 'git --no-pager commit -m x', 'git -c user.name=x commit']) {
      askedAbout(await run(command, { approvalMode: 'allow-all' }), /git commit|commit/);
    }
    ranUnasked(await run('git status', { approvalMode: 'allow-all' }));
  });

  test('wrappers are unwrapped: timeout 5 rm -rf x and env FOO=1 rm -rf x are denied by deny rm; sudo rm by deny sudo', async () => {
    policy(userFile, '[[rules]]\naction = "allow"\n\n[[rules]]\ncommand = "rm"\naction = "deny"\n\n[[rules]]\ncommand = "sudo"\naction = "deny"\n');
    for (const command of ['timeout 5 rm -rf data', 'env FOO=1 rm -rf data', 'nice -n 5 rm -rf data', 'bash -lc "rm -rf data"', 'sudo -u root ls']) {
      const r = await run(command);
      assert.equal(r.errorCode, 'POLICY_DENIED', `${command}: ${r.errorCode} ${r.error}`);
      assert.match(r.error!, /policy\.toml:\d+/);
    }
    assert.equal(asked.length, 0);
    assert.ok(fs.existsSync(path.join(t.ws, 'data')));
  });

  test('bash -lc "curl ..." is a network action: a rule on kind network decides it', async () => {
    policy(userFile, '[[rules]]\nkind = "network"\naction = "deny"\nreason = "no network from here"\n');
    const r = await run('bash -lc "curl -s http://127.0.0.1:9/"');
    assert.equal(r.errorCode, 'POLICY_DENIED', r.error);
    assert.match(r.error!, /no network from here/);
    assert.notEqual((await run('echo hi')).errorCode, 'POLICY_DENIED');
  });

  test('the workspace file only narrows: allow-all there under a user file that asks still asks; its deny denies', async () => {
    policy(userFile, '[[rules]]\ntool = "write_file"\naction = "ask"\n');
    policy(workspaceFile, '[[rules]]\naction = "allow"\n');
    const r = await executor.execute({ name: 'write_file', arguments: { filepath: 'w.md', content: 'x' } }, { approvalMode: 'allow-all' });
    askedAbout(r, /policy\.toml/);
    policy(workspaceFile, '[[rules]]\ntool = "list_files"\naction = "deny"\n');
    assert.equal((await executor.execute({ name: 'list_files', arguments: {} })).errorCode, 'POLICY_DENIED');
  });

  test('an invalid workspace file denies every call, naming the file and line, until it is fixed', async () => {
    policy(workspaceFile, '[[rules]]\ntool = "read_file"\nacton = "allow"\n');
    for (const name of ['list_files', 'read_file']) {
      const r = await executor.execute({ name, arguments: name === 'read_file' ? { filepath: 'x' } : {} });
      assert.equal(r.errorCode, 'POLICY_DENIED', r.error);
      assert.ok(r.error!.includes(`${workspaceFile} is invalid (line 3:`), r.error);
      assert.equal(r.decisions?.at(-1)?.file, workspaceFile);
      assert.equal(r.decisions?.at(-1)?.line, 3);
    }
    policy(workspaceFile, '[[rules]]\ntool = "read_file"\naction = "allow"\n# fixed\n');
    assert.equal((await executor.execute({ name: 'list_files', arguments: {} })).success, true);
  });

  test('a deny rule added while the person answers applies: the approved call does not run', async () => {
    answer = () => {
      policy(userFile, '[[rules]]\ntool = "write_file"\naction = "deny"\nreason = "frozen while we release"\n');
      return 'allow_once';
    };
    const r = await executor.execute({ name: 'write_file', arguments: { filepath: 'late.md', content: 'x' } });
    assert.equal(asked.length, 1);
    assert.equal(r.errorCode, 'POLICY_DENIED', r.error);
    assert.match(r.error!, /frozen while we release/);
    assert.equal(fs.existsSync(path.join(t.ws, 'late.md')), false);
  });

  test('an allow rule lifts the tool\'s own question; a protected path still asks', async () => {
    policy(userFile, '[[rules]]\ntool = "write_file"\npaths = ["docs/**", ".git/**"]\naction = "allow"\n');
    const r = await executor.execute({ name: 'write_file', arguments: { filepath: 'docs/a.md', content: 'x' } });
    assert.equal(r.success, true, r.error);
    assert.equal(asked.length, 0);
    askedAbout(await executor.execute({ name: 'write_file', arguments: { filepath: '.git/hooks/post-checkout', content: 'x' } }), /protected path/);
    askedAbout(await executor.execute({ name: 'write_file', arguments: { filepath: 'src/a.md', content: 'x' } }), /approval/);
  });

  test('always is saved in the user file: a saved git status does not allow git status; rm x, and the file is a valid policy file', async () => {
    policy(userFile, '# my rules\n');
    answer = 'always';
    await run('git status');
    assert.equal(asked.length, 1);
    assert.ok(asked[0]!.offers.includes('always'));
    const text = fs.readFileSync(userFile, 'utf8');
    assert.match(text, /^# my rules\n/, 'the person\'s text is kept');
    assert.match(text, /\[\[approved\]\]\nkey = "[0-9a-f]{64}"\ntool = "run_command"/);
    asked = [];
    answer = 'deny';
    ranUnasked(await run('git status'));
    askedAbout(await run('git status; rm -rf data'), /./);
    assert.ok(fs.existsSync(path.join(t.ws, 'data')));
    // A shell is a broad grant: always is not offered for it.
    await run("bash -c 'ls'");
    assert.equal(asked[0]!.offers.includes('always'), false);
  });

  test('a saved approval does not survive a changed tool registration, and a deny rule beats it', async () => {
    answer = 'always';
    const greet = (version: string) => executor.execute({ name: 'greet', version, arguments: { who: 'a' } }, { approvalMode: 'always-ask' });
    // always-ask questions are fresh: nothing is saved from them.
    await greet('1.0.0');
    assert.equal(fs.existsSync(userFile), false);
    policy(userFile, '[[rules]]\ntool = "greet"\naction = "ask"\n');
    asked = [];
    await executor.execute({ name: 'greet', version: '1.0.0', arguments: { who: 'a' } });
    assert.equal(asked.length, 1);
    assert.equal((await executor.execute({ name: 'greet', version: '1.0.0', arguments: { who: 'a' } })).success, true);
    assert.equal(asked.length, 1, 'saved: not asked again');
    await executor.execute({ name: 'greet', version: '1.2.0', arguments: { who: 'a' } });
    assert.equal(asked.length, 2, 'another version is another registration: asked again');
    fs.appendFileSync(userFile, '\n[[rules]]\ntool = "greet"\naction = "deny"\n');
    assert.equal((await executor.execute({ name: 'greet', version: '1.0.0', arguments: { who: 'a' } })).errorCode, 'POLICY_DENIED');
  });

  test('a workspace allow lifts no question when the user\'s file is silent (the repository only narrows)', async () => {
    policy(workspaceFile, '[[rules]]\naction = "allow"\n\n[[rules]]\ncommand = "*"\naction = "allow"\n');
    const written = await executor.execute({ name: 'write_file', arguments: { filepath: 'ws-allow.md', content: 'x' } });
    // The question says why the matching rule did not settle it, and where a rule that would goes.
    const note = asked[0]?.ask.reason ?? '';
    assert.ok(note.includes(`Note: the policy rule ${fs.realpathSync(workspaceFile)}:1 (allow)`) || note.includes(`Note: the policy rule ${workspaceFile}:1 (allow)`), note);
    assert.ok(note.includes(`whose allow rules lift no question`), note);
    assert.equal(fs.existsSync(userFile), false, 'the user has no file yet: its folder is named by its real path');
    assert.ok(note.includes(`put that allow rule in your own policy file, ${path.join(fs.realpathSync(path.dirname(userFile)), 'policy.toml')}`), note);
    const step = written.decisions?.find((d) => d.decider === 'policy');
    assert.equal(step?.verdict, 'allow', 'the matched rule is on the decision path');
    askedAbout(written, /approval/);
    askedAbout(await run('touch pwned'), /approval/);
    askedAbout(await run('touch pwned', { approvalMode: 'read-only' }), /read-only/);
    assert.equal(fs.existsSync(path.join(t.ws, 'pwned')), false);
    // The user's own allow does lift it.
    policy(userFile, '[[rules]]\ntool = "write_file"\naction = "allow"\n');
    ranUnasked(await executor.execute({ name: 'write_file', arguments: { filepath: 'ws-allow.md', content: 'x' } }));
  });

  test('G1: a shell command that names .git or .toolgate asks, even under allow-all', async () => {
    for (const command of ['echo evil > .git/hooks/pre-commit', 'mkdir -p n/.git/hooks', 'echo "gitdir: /tmp" > m/.GIT', 'tee .toolgate/policy.toml < /dev/null']) {
      askedAbout(await run(command, { approvalMode: 'allow-all' }), /protected path/);
    }
    assert.equal(fs.existsSync(path.join(t.ws, 'n')), false);
  });

  test('variables given to a shell tool make its command line uncertain: no rule allows it', async () => {
    policy(userFile, '[[rules]]\ncommand = "git status"\naction = "allow"\n');
    ranUnasked(await run('git status'));
    const r = await executor.execute({ name: 'run_command', arguments: { command: 'git status', env: { GIT_CONFIG_COUNT: '1', GIT_CONFIG_KEY_0: 'core.fsmonitor', GIT_CONFIG_VALUE_0: 'touch pwned' } } });
    askedAbout(r, /env argument sets GIT_CONFIG_COUNT/);
  });

  test('remembered answers are exact: a heredoc body, a variable, a glob or a path make the line one key, and always is not offered for what may change', async () => {
    answer = 'allow_for_turn';
    await run('cat <<EOF > notes.txt\nharmless\nEOF', { turnId: 'h' });
    assert.equal(asked.length, 1);
    asked = [];
    await run('cat <<EOF > notes.txt\nEVIL\nEOF', { turnId: 'h' });
    assert.equal(asked.length, 1, 'another heredoc body is another request');
    asked = [];
    answer = 'always';
    for (const command of ['F=a; rm -f "$F"', 'rm -rf *', './git status', 'cd sub && make']) {
      await run(command, { turnId: 'v' });
      assert.equal(asked.at(-1)!.offers.includes('always'), false, command);
    }
    asked = [];
    answer = 'deny';
    await run('F=precious; rm -f "$F"', { turnId: 'v' });
    assert.equal(asked.length, 1, 'another value is another request');
  });

  test('only a person\'s no is remembered, and only for a named turn', async () => {
    answer = () => {
      throw new Error('the terminal went away');
    };
    await executor.execute({ name: 'write_file', arguments: { filepath: 'f1.md', content: 'x' } }, { turnId: 't' });
    await executor.execute({ name: 'write_file', arguments: { filepath: 'f1.md', content: 'x' } }, { turnId: 't' });
    assert.equal(asked.length, 2, 'a failed question is not a no');
    asked = [];
    answer = 'deny';
    await executor.execute({ name: 'write_file', arguments: { filepath: 'f2.md', content: 'x' } });
    await executor.execute({ name: 'write_file', arguments: { filepath: 'f2.md', content: 'x' } });
    assert.equal(asked.length, 2, 'with no turn named, a no is not remembered for the executor\'s life');
  });

  test('a deny rule added while a call waits for its rate-limit turn applies', async () => {
    const first = await executor.execute({ name: 'ping_rate_limited', arguments: {} });
    assert.equal(first.success, true, first.error);
    const second = executor.execute({ name: 'ping_rate_limited', arguments: {} });
    await new Promise((resolve) => setTimeout(resolve, 200));
    policy(userFile, '[[rules]]\ntool = "ping_rate_limited"\naction = "deny"\nreason = "paused"\n');
    const r = await second;
    assert.equal(r.errorCode, 'POLICY_DENIED', r.error);
    assert.match(r.error!, /paused/);
  });
});
