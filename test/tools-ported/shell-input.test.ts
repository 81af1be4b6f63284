/**
 * Case C7 of the security checklist: input typed into a command session (`exec_command`, then
 * `input_command`) is decided like a `run_command` of the same text. Real sessions, in the
 * sandbox where bubblewrap is installed (with the network on, so that a request that got
 * through would reach the loopback listener), under a user policy file that denies curl.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { ToolExecutor, type ApprovalAnswer, type ConfirmationRequest, type ToolExecutionResult } from 'toolgate';
import { bubblewrapAvailable } from '../../src/internal.js';
import { portedRegistry, tempWorkspace, unsandboxedProgramsPerson } from '../helpers.js';

let tmp: ReturnType<typeof tempWorkspace>;
let server: http.Server;
let port = 0;
let requests = 0;
let realHome: string | undefined;
const executors: ToolExecutor[] = [];

const SANDBOX = bubblewrapAvailable() ? { sandboxNetwork: true } : { sandbox: 'none' as const };
/**
 * Without a sandbox, a shell or an interpreter may write `.git` or toolgate's own files, so
 * starting one asks a person, and so does a line typed into it that runs a program the analysis
 * cannot see (`cu` of a split line, python code): `confirm: true` answers neither
 * (src/decisions/protected-paths.decider.ts). There, the person who approves a session's start
 * (every question of it: {@link start}) and an input typed with `confirm: true` (the question
 * about programs the analysis cannot see, and only it) stands in for the advance approval these
 * tests give; an input typed without `confirm` meets nobody, as with a sandbox.
 */
const UNSANDBOXED = !bubblewrapAvailable();
const PYTHON = fs.existsSync('/usr/bin/python3') ? '/usr/bin/python3' : 'python3';

/**
 * An executor over the workspace whose user policy file holds `rules` (TOML). With `person`,
 * a confirmation handler stands for a person who approves starting sessions (`exec_command`)
 * and refuses everything else, recording what was put to them.
 */
async function executorWith(name: string, rules: string, person?: string[]): Promise<ToolExecutor> {
  const file = path.join(tmp.root, `${name}.toml`);
  fs.writeFileSync(file, rules);
  const handler = person === undefined ? {} : {
    confirmationHandler: (request: ConfirmationRequest): ApprovalAnswer => {
      person.push(request.tool);
      return request.tool === 'exec_command' ? 'allow_once' : 'deny';
    },
  };
  const executor = new ToolExecutor(await portedRegistry(), { workspaceRoot: tmp.ws, policy: { user: file, workspace: false }, ...SANDBOX, ...handler });
  executors.push(executor);
  return executor;
}

const DENY_CURL = '[[rules]]\ncommand = "curl"\naction = "deny"\n';

before(async () => {
  tmp = tempWorkspace();
  realHome = process.env.HOME;
  process.env.HOME = path.join(tmp.root, 'home');
  fs.mkdirSync(process.env.HOME);
  server = http.createServer((_req, res) => {
    requests++;
    res.end('reached\n');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as { port: number }).port;
});

after(async () => {
  for (const executor of executors) await executor.close();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (realHome === undefined) delete process.env.HOME;
  else process.env.HOME = realHome;
  tmp?.cleanup();
});

/**
 * Start `cmd` as a session (approved once: `confirm: true`) and return its process_id. The
 * call waits the least exec_command allows (250 ms): every wait for output below polls.
 */
async function start(executor: ToolExecutor, cmd: string): Promise<string> {
  const started = await executor.execute({ name: 'exec_command', arguments: { cmd, yield_time_ms: 250 } }, { confirm: true, ...(UNSANDBOXED ? { confirmationHandler: () => 'allow_once' as const } : {}) });
  const id = /process_id (cmd_[0-9a-f]+)/.exec(started.output)?.[1];
  assert.ok(id, started.output);
  return id;
}

/**
 * Type `chars` into session `id`; the call waits `yieldMs` for output (the tool waits the whole
 * time unless the session ends). Output a test needs is waited for by {@link readUntil}, so the
 * wait here is short; a Ctrl-C whose output nothing reads waits not at all.
 */
function input(executor: ToolExecutor, id: string, chars: string, confirm = false, yieldMs = chars === '\u0003' ? 0 : 100): Promise<ToolExecutionResult> {
  const person = confirm && UNSANDBOXED ? { confirmationHandler: unsandboxedProgramsPerson } : {};
  return executor.execute({ name: 'input_command', arguments: { process_id: id, chars, yield_time_ms: yieldMs } }, { confirm, ...person });
}

/** Poll until the session's output matches `pattern`. */
async function readUntil(executor: ToolExecutor, id: string, pattern: RegExp, ms = 10_000): Promise<string> {
  let seen = '';
  const end = Date.now() + ms;
  while (Date.now() < end && !pattern.test(seen)) {
    const polled = await input(executor, id, '');
    assert.equal(polled.success, true, polled.output);
    seen += polled.output;
  }
  return seen;
}

/**
 * Give a command that might have got through time to act (`waitMs`; 0 where the session has
 * since answered a later line, which it reads only after the earlier ones), then check it did nothing.
 */
async function assertNothingHappened(marker: string, waitMs = 700): Promise<void> {
  if (waitMs > 0) await new Promise((resolve) => setTimeout(resolve, waitMs));
  assert.equal(fs.existsSync(path.join(tmp.ws, marker)), false, `${marker} must not exist`);
  assert.equal(requests, 0, 'the loopback listener must receive nothing');
}

describe('C7: input_command into a session is decided like run_command of the same text', () => {
  test('bash approved once; `touch pwn; curl ...` typed under a deny rule for curl is denied (also when confirmed); nothing runs', async () => {
    const executor = await executorWith('deny-curl', DENY_CURL);
    const id = await start(executor, 'bash');
    const typed = `touch pwn; curl -s http://127.0.0.1:${port}/\n`;
    for (const confirm of [false, true]) {
      const result = await input(executor, id, typed, confirm);
      assert.equal(result.errorCode, 'POLICY_DENIED', result.output);
      assert.match(result.output, /curl/);
    }
    // The same text as a run_command is denied the same way.
    const run = await executor.execute({ name: 'run_command', arguments: { command: typed } }, { confirm: true });
    assert.equal(run.errorCode, 'POLICY_DENIED');
    // A poll and a lone Ctrl-C never ask (no confirm given), and the session is still bash.
    const polled = await input(executor, id, '');
    assert.equal(polled.success, true, polled.output);
    const echoed = await input(executor, id, 'echo still-here\n', true);
    assert.equal(echoed.success, true, echoed.output);
    assert.match(echoed.output.includes('still-here') ? echoed.output : await readUntil(executor, id, /still-here/), /still-here/);
    // bash ran this line after anything typed before it: had the denied text reached it, touch
    // and curl would have finished by now.
    await assertNothingHappened('pwn', 0);
    const stopped = await input(executor, id, '\u0003');
    assert.notEqual(stopped.errorCode, 'CONFIRMATION_REQUIRED', stopped.output);
  });

  test('a line split over two inputs (`cu`, then `rl ...`) is judged whole: the second is denied', async () => {
    const executor = await executorWith('deny-curl-split', DENY_CURL);
    const id = await start(executor, 'bash');
    const first = await input(executor, id, 'touch pwn2; cu', true);
    assert.equal(first.success, true, first.output);
    const second = await input(executor, id, `rl -s http://127.0.0.1:${port}/\n`, true);
    assert.equal(second.errorCode, 'POLICY_DENIED', second.output);
    await assertNothingHappened('pwn2');
    await input(executor, id, '\u0003');
  });

  test('with no rule for it, typed text asks (CONFIRMATION_REQUIRED); an allow rule for the command lets it run unasked; a protected path asks', async () => {
    const executor = await executorWith('allow-echo', `${DENY_CURL}[[rules]]\ncommand = "echo"\naction = "allow"\n[[rules]]\ncommand = "touch"\naction = "allow"\n`);
    const id = await start(executor, 'bash --norc');
    const asked = await input(executor, id, 'ls\n');
    assert.equal(asked.errorCode, 'CONFIRMATION_REQUIRED', asked.output);
    const allowed = await input(executor, id, 'echo allowed-by-rule\n');
    assert.equal(allowed.success, true, allowed.output);
    assert.match(allowed.output.includes('allowed-by-rule') ? allowed.output : await readUntil(executor, id, /allowed-by-rule/), /allowed-by-rule/);
    const protectedPath = await input(executor, id, 'touch .git\n');
    assert.equal(protectedPath.errorCode, 'CONFIRMATION_REQUIRED', protectedPath.output);
    assert.match(protectedPath.output, /protected path/);
    // A redirect is a write that a rule for `echo` does not allow.
    const redirect = await input(executor, id, 'echo x > written.txt\n');
    assert.equal(redirect.errorCode, 'CONFIRMATION_REQUIRED', redirect.output);
    assert.equal(fs.existsSync(path.join(tmp.ws, 'written.txt')), false);
    await input(executor, id, '\u0003');
  });

  test('python3 approved once; code typed into it asks (the shell analysis cannot read it), even where a rule allows `python3`; nothing runs', async () => {
    const executor = await executorWith('python-run-rule', `${DENY_CURL}[[rules]]\ncommand = "python3"\naction = "allow"\n[[rules]]\ncommand = "${PYTHON}"\naction = "allow"\n`);
    const id = await start(executor, `${PYTHON} -u -i -q`);
    const typed = `import os; os.system("touch pwn3; curl -s http://127.0.0.1:${port}/")\n`;
    const result = await input(executor, id, typed);
    assert.equal(result.errorCode, 'CONFIRMATION_REQUIRED', result.output);
    // Even the shell text of C7 typed into python asks: it is python's input, not a command line.
    const shellText = await input(executor, id, `touch pwn3; curl -s http://127.0.0.1:${port}/\n`);
    assert.equal(shellText.errorCode, 'CONFIRMATION_REQUIRED', shellText.output);
    // A line approved after them: python answers it only after any line typed before it (had the
    // os.system line reached python, touch and curl would have finished by now). The printed
    // text is joined at run time, so the echo of the typed line does not match it.
    const later = await input(executor, id, 'print("after-" + "pwn3")\n', true);
    assert.equal(later.success, true, later.output);
    assert.match(/after-pwn3/.test(later.output) ? later.output : await readUntil(executor, id, /after-pwn3/), /after-pwn3/);
    await assertNothingHappened('pwn3', 0);
    await input(executor, id, '\u0003');
  });

  test('a rule that names input_command and the interpreter allows input to it, and only to it', async () => {
    const executor = await executorWith('python-input-rule', `${DENY_CURL}[[rules]]\ntool = "input_command"\ncommand = "${PYTHON}"\naction = "allow"\n`);
    const id = await start(executor, `${PYTHON} -u -i -q`);
    if (UNSANDBOXED) {
      // Without a sandbox the rule is not the person's answer about what python's code may write.
      const asked = await input(executor, id, 'print(6 * 7)\n');
      assert.equal(asked.errorCode, 'CONFIRMATION_REQUIRED', asked.output);
      assert.match(asked.output, /with no sandbox, nothing keeps \.git/);
    } else {
      const allowed = await input(executor, id, 'print(6 * 7)\n');
      assert.equal(allowed.success, true, allowed.output);
      assert.match(allowed.output.includes('42') ? allowed.output : await readUntil(executor, id, /42/), /42/);
    }
    const bash = await start(executor, 'bash');
    const other = await input(executor, bash, 'ls\n');
    assert.equal(other.errorCode, 'CONFIRMATION_REQUIRED', other.output);
    await input(executor, id, '\u0003');
    await input(executor, bash, '\u0003');
  });

  test('after python3 was typed into a bash session, later input is python\'s: it asks even where a rule allows the shell command it looks like', async () => {
    const executor = await executorWith('bash-then-python', `${DENY_CURL}[[rules]]\ncommand = "echo"\naction = "allow"\n`);
    const id = await start(executor, 'bash');
    const plain = await input(executor, id, 'echo before\n');
    assert.equal(plain.success, true, plain.output);
    const python = await input(executor, id, `${PYTHON} -q\n`, true);
    assert.equal(python.success, true, python.output);
    const later = await input(executor, id, 'echo after\n');
    assert.equal(later.errorCode, 'CONFIRMATION_REQUIRED', later.output);
    assert.match(later.output, /typed into|types into/);
    await input(executor, id, '\u0003');
  });

  test('C7: sessions started as a wrapped shell, a shell at the end of a pipeline or an eval loop: `touch pwn; curl ...` typed and confirmed is denied; nothing runs', async () => {
    // A shell reading what the line feeds it (`cat | bash`) under a deny rule that could match
    // what it reads: only a person may start it (case C6), so a person approves the sessions.
    const asked: string[] = [];
    const executor = await executorWith('deny-curl-touch', `${DENY_CURL}[[rules]]\ncommand = "touch"\naction = "deny"\n`, asked);
    const sessions = ['env bash', 'exec bash', 'cat | bash', 'tee /dev/null | sh', 'sleep 0.1; bash', 'exec -a x bash', 'script -qc bash /dev/null', 'while read l; do eval "$l"; done'];
    for (const session of sessions) {
      const id = await start(executor, session);
      const result = await input(executor, id, `touch pwn7; curl -s http://127.0.0.1:${port}/x\n`, true);
      assert.equal(result.errorCode, 'POLICY_DENIED', `${session}: ${result.output}`);
      await input(executor, id, '\u0003');
    }
    assert.ok(asked.every((tool) => tool === 'exec_command'), asked.join(', '));
    await assertNothingHappened('pwn7');
  });

  test('C7: a wrapped shell is a shell (an allow rule for the command lets it run); a shell at the end of a pipeline may not be (it asks)', async () => {
    const asked: string[] = [];
    const executor = await executorWith('allow-echo-wrapped', `${DENY_CURL}[[rules]]\ncommand = "echo"\naction = "allow"\n`, asked);
    const wrapped = await start(executor, 'env bash --norc');
    const allowed = await input(executor, wrapped, 'echo wrapped-ok\n');
    assert.equal(allowed.success, true, allowed.output);
    assert.match(allowed.output.includes('wrapped-ok') ? allowed.output : await readUntil(executor, wrapped, /wrapped-ok/), /wrapped-ok/);
    const piped = await start(executor, 'cat | bash');
    const refused = await input(executor, piped, 'echo piped\n');
    assert.equal(refused.errorCode, 'CONFIRMATION_DENIED', refused.output);
    assert.equal(asked[asked.length - 1], 'input_command');
    await input(executor, wrapped, '\u0003');
    await input(executor, piped, '\u0003');
  });

  test('the control: typed input that a rule allows does reach the listener and write (so "nothing happened" above means something)', async () => {
    const executor = await executorWith('allow-curl', '[[rules]]\ncommand = "curl"\nallow_options = ["*"]\naction = "allow"\n[[rules]]\ncommand = "touch"\nallow_options = ["*"]\naction = "allow"\n');
    const id = await start(executor, 'bash');
    const before = requests;
    const result = await input(executor, id, `touch control; curl -s http://127.0.0.1:${port}/\n`);
    assert.equal(result.success, true, result.output);
    assert.match(result.output.includes('reached') ? result.output : await readUntil(executor, id, /reached/), /reached/);
    assert.equal(requests, before + 1);
    assert.equal(fs.existsSync(path.join(tmp.ws, 'control')), true);
    requests = before;
    await input(executor, id, '\u0003');
  });

  test('input to a process_id that does not exist: it asks like any input, and confirmed it fails without writing', async () => {
    const executor = await executorWith('none', DENY_CURL);
    const asked = await input(executor, 'cmd_000000000000', `curl -s http://127.0.0.1:${port}/\n`);
    assert.equal(asked.errorCode, 'CONFIRMATION_REQUIRED', asked.output);
    const result = await input(executor, 'cmd_000000000000', `curl -s http://127.0.0.1:${port}/\n`, true);
    assert.equal(result.errorCode, 'INVALID_ARGUMENTS', result.output);
    assert.equal(requests, 0);
  });
});
