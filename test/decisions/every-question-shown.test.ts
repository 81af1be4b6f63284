/**
 * A person's answer settles only what the person was shown (s22): a call that raises several
 * questions (a protected path's, a policy rule's, the tool's own) puts every one of them in
 * the request the handler gets (`ask`, then `also`), and a remembered answer settles only a
 * call that raises the same questions. Through the executor users get; the session case runs
 * with `sandbox: 'none'` on purpose (as on a machine without bubblewrap), so it runs the same
 * in both of CI's passes.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { ToolExecutor, type ApprovalAnswer, type ConfirmationRequest, type ToolRegistry } from 'toolgate';
import { MemorySaved } from './memory-saved.js';
import { confirmationPrompt } from '../../src/cli/terminal.js';
import { confirmationForm } from '../../src/mcp/confirmation.js';
import { RememberedDecider } from '../../src/decisions/remembered.decider.js';
import type { Decision, PreparedCall } from '../../src/decisions/decision.js';
import { RememberedApprovals } from '../../src/policy/remembered-approvals.js';
import { portedRegistry, tempWorkspace, type TempWorkspace } from '../helpers.js';


/** A handler that answers `answer(request)` and records every request. */
function recording(answer: (request: ConfirmationRequest) => ApprovalAnswer) {
  const asked: ConfirmationRequest[] = [];
  return { asked, handler: (request: ConfirmationRequest) => (asked.push(request), answer(request)) };
}

/** Every question of a request, as `decider: reason`. */
function questions(request: ConfirmationRequest): string[] {
  return [request.ask, ...(request.also ?? [])].map((q) => `${q.decider}: ${q.reason}`);
}

let registry: ToolRegistry;
let t: TempWorkspace;
const executors: ToolExecutor[] = [];

before(async () => {
  registry = await portedRegistry();
  t = tempWorkspace();
});

after(async () => {
  for (const executor of executors) await executor.close();
  t.cleanup();
});

function policyFile(name: string, toml: string): string {
  const file = path.join(t.root, `${name}.toml`);
  fs.writeFileSync(file, toml);
  return file;
}

function executor(options: ConstructorParameters<typeof ToolExecutor>[1]): ToolExecutor {
  const made = new ToolExecutor(registry, { workspaceRoot: t.ws, ...options });
  executors.push(made);
  return made;
}

const writeGit = (on: ToolExecutor, filepath = '.git/notes.txt') => on.execute({ name: 'write_file', arguments: { filepath, content: 'x\n' } });

describe('every question of a call is shown', () => {
  test('a protected path and a user policy ask rule: the request shows both reasons (and the tool\'s own), the protected path first', async () => {
    const person = recording(() => 'deny');
    const on = executor({ policy: { user: policyFile('ask-write', '[[rules]]\ntool = "write_file"\naction = "ask"\n'), workspace: false }, confirmationHandler: person.handler });
    const result = await writeGit(on);
    assert.equal(result.errorCode, 'CONFIRMATION_DENIED', result.output);
    assert.equal(person.asked.length, 1);
    const [request] = person.asked;
    assert.equal(request!.ask.decider, 'protected-paths', 'the question only a person answers comes first');
    assert.match(request!.ask.reason, /"\.git\/notes\.txt" is inside "\.git", a protected path/);
    const shown = questions(request!);
    assert.ok(shown.some((q) => /^policy: .*ask-write\.toml:1/.test(q)), shown.join('\n'));
    assert.ok(shown.some((q) => /^approval: write_file declares that it needs the user's approval/.test(q)), shown.join('\n'));
    assert.equal(new Set(shown).size, shown.length, 'each question once');
    // The CLI prompt and the MCP form print every one of them.
    const prompt = confirmationPrompt(request!);
    assert.match(prompt, /asks to run: "\.git\/notes\.txt" is inside "\.git"/);
    assert.match(prompt, /\n {2}also \(policy \[[^\]]*ask-write\.toml:1\]\): /);
    assert.match(prompt, /\n {2}also \(approval\): write_file declares that it needs the user's approval/);
    const form = confirmationForm(request!).message;
    assert.match(form, /It asks because "\.git\/notes\.txt" is inside "\.git"/);
    assert.match(form, /It also asks \(policy \[[^\]]*ask-write\.toml:1\]\) because /);
    assert.match(form, /It also asks \(approval\) because write_file declares/);
  });

  test('with nobody to ask, the refusal the model reads names every question', async () => {
    const on = executor({ policy: { user: policyFile('ask-write-2', '[[rules]]\ntool = "write_file"\naction = "ask"\n'), workspace: false } });
    const result = await writeGit(on);
    assert.equal(result.errorCode, 'CONFIRMATION_REQUIRED', result.output);
    assert.match(result.output, /It asks because "\.git\/notes\.txt" is inside "\.git"/);
    assert.match(result.output, /It also asks because .*\(policy \[[^\]]*ask-write-2\.toml:1\]\)/);
    assert.match(result.output, /It also asks because write_file declares that it needs the user's approval before it runs \(approval\)/);
  });

  test('input typed into a python3 session with no sandbox, under a policy ask rule for typed input: the protected-paths and the policy question are both shown', async () => {
    const python = fs.existsSync('/usr/bin/python3') ? '/usr/bin/python3' : 'python3';
    const person = recording((request) => (request.tool === 'exec_command' ? 'allow_once' : 'deny'));
    const rules = '[[rules]]\ncommand = "curl"\naction = "deny"\n[[rules]]\ntool = "input_command"\naction = "ask"\n';
    const on = executor({ policy: { user: policyFile('ask-input', rules), workspace: false }, sandbox: 'none', confirmationHandler: person.handler });
    const started = await on.execute({ name: 'exec_command', arguments: { cmd: `${python} -u -i -q`, yield_time_ms: 250 } });
    const id = /process_id (cmd_[0-9a-f]+)/.exec(started.output)?.[1];
    assert.ok(id, started.output);
    try {
      const typed = await on.execute({ name: 'input_command', arguments: { process_id: id, chars: 'print(6 * 7)\n', yield_time_ms: 0 } });
      assert.equal(typed.errorCode, 'CONFIRMATION_DENIED', typed.output);
      const request = person.asked.at(-1)!;
      assert.equal(request.tool, 'input_command');
      const shown = questions(request);
      assert.ok(shown.some((q) => /^protected-paths: .*python3 runs code that may open files no word names.*with no sandbox, nothing keeps \.git/.test(q)), shown.join('\n'));
      assert.equal(request.ask.decider, 'protected-paths', 'the question only a person answers comes first');
      assert.ok(request.also?.some((q) => q.decider === 'policy' && /ask-input\.toml:4$/.test(q.rule ?? '')), shown.join('\n'));
      assert.ok(request.also?.some((q) => q.decider === 'approval' && /types into a running program/.test(q.reason)), shown.join('\n'));
      // the answers offered are those of the narrowest question: no `always` for an interpreter's input
      assert.equal(request.offers.includes('always'), false, request.offers.join(', '));
    } finally {
      await on.execute({ name: 'input_command', arguments: { process_id: id, chars: '\u0003', yield_time_ms: 0 } });
    }
  });
});

describe('a remembered answer settles only the questions it was given for', () => {
  test('`always` given while two questions were shown does not settle the same call when it raises a third; it does when it raises the same two', async () => {
    const saved = new MemorySaved();
    const first = recording(() => 'always');
    const one = executor({ savedApprovals: saved, confirmationHandler: first.handler });
    assert.equal((await writeGit(one, '.git/info/kept.txt')).success, true);
    assert.equal(first.asked.length, 1);
    assert.equal(questions(first.asked[0]!).length, 2, questions(first.asked[0]!).join('\n'));
    assert.ok(first.asked[0]!.offers.includes('always'));
    assert.equal(saved.size, 1);

    // The same request, the same two questions: the saved answer settles it (the control).
    const control = recording(() => 'deny');
    const two = executor({ savedApprovals: saved, confirmationHandler: control.handler });
    const again = await writeGit(two, '.git/info/kept.txt');
    assert.equal(again.success, true, again.output);
    assert.equal(control.asked.length, 0);

    // The same request under a policy ask rule: a third question, which nobody was shown.
    const third = recording(() => 'deny');
    const three = executor({ savedApprovals: saved, policy: { user: policyFile('ask-later', '[[rules]]\ntool = "write_file"\naction = "ask"\n'), workspace: false }, confirmationHandler: third.handler });
    const asked = await writeGit(three, '.git/info/kept.txt');
    assert.equal(asked.errorCode, 'CONFIRMATION_DENIED', asked.output);
    assert.equal(third.asked.length, 1, 'the person is asked: the saved answer was given for two questions, not this one');
    assert.equal(questions(third.asked[0]!).length, 3, questions(third.asked[0]!).join('\n'));
  });

  test('an `always` for a call whose second question is fresh (always_ask) is taken as once: the next call asks again', async () => {
    const saved = new MemorySaved();
    const person = recording(() => 'always');
    const on = executor({ savedApprovals: saved, policy: { user: policyFile('always-ask', 'always_ask = true\n'), workspace: false }, confirmationHandler: person.handler });
    assert.equal((await writeGit(on, '.git/info/fresh.txt')).success, true);
    assert.equal((await writeGit(on, '.git/info/fresh.txt')).success, true);
    assert.equal(person.asked.length, 2, 'asked again');
    assert.deepEqual(person.asked[0]!.offers, ['allow_once', 'deny']);
    assert.equal(questions(person.asked[0]!).length >= 2, true, questions(person.asked[0]!).join('\n'));
    assert.equal(saved.size, 0);
  });
});

test('one rule, two questions: an answer remembered for one reason does not settle the same rule\'s other reason', () => {
  const saved = new MemorySaved();
  const decider = new RememberedDecider(new RememberedApprovals(saved));
  const call = () => ({
    tool: { name: 'run_command', revision: 'r', moduleUrl: undefined, commandArguments: [] },
    args: { command: 'python3 y.py; cp x "$f"' }, workspace: { realRoot: t.ws }, paths: [], commands: [], turnId: 'turn',
  }) as unknown as PreparedCall;
  const unseen = (reason: string): Decision => ({ verdict: 'ask', decider: 'protected-paths', reason, rule: 'unseen-path', person: true });
  const computed = unseen('the word `"$f"` of `cp x "$f"` is computed when the line runs, and the line may write files.');
  const first = call();
  assert.equal(decider.decide(first, [computed]), undefined);
  decider.answered(first, { verdict: 'allow', decider: 'confirmation', reason: 'approved', rule: 'always' });
  assert.equal(saved.size, 1);
  assert.equal(decider.decide(call(), [computed])?.verdict, 'allow', 'the question answered is settled');
  const noSandbox = unseen('`python3 y.py` runs code that may open files no word names; with no sandbox, nothing keeps .git, .toolgate and toolgate\'s own files read-only.');
  assert.equal(decider.decide(call(), [noSandbox]), undefined, 'the same rule\'s other question is asked');
});

describe('a prompt stays readable and hides no question silently', () => {
  const request: ConfirmationRequest = {
    tool: 'write_file', version: '1.0.0', arguments: { filepath: 'a.txt', content: 'x' }, callId: 'c1', description: 'd', paths: ['a.txt'],
    ask: { decider: 'protected-paths', reason: 'first reason.', rule: '.git' },
    also: [1, 2, 3, 4, 5, 6, 7].map((n) => ({ decider: `d${n}`, reason: `other reason ${n}.` })),
    offers: ['allow_once', 'deny'],
  };

  test('the terminal prompt shows five questions in all, then how many more, and where to read them', () => {
    const prompt = confirmationPrompt(request, { questionId: 9 });
    assert.equal(prompt.match(/\n {2}also \(/g)?.length, 4);
    assert.match(prompt, /also \(d4\): other reason 4\./);
    assert.doesNotMatch(prompt, /other reason 5/);
    assert.match(prompt, /\n {2}and 3 more questions \(toolgate approvals show 9 prints every one\): your answer answers them too\./);
    assert.match(confirmationPrompt(request), /and 3 more questions \(not shown here\)/);
  });

  test('the MCP form does the same', () => {
    const message = confirmationForm(request, 9).message;
    assert.equal(message.match(/\nIt also asks \(/g)?.length, 4);
    assert.match(message, /It also asks 3 more questions, which your answer answers too: `toolgate approvals show 9` \(same --workspace\) prints every one\./);
  });
});
