/**
 * Approval modes and remembered approvals (issue 15, items 2, 7 and 8), through the executor
 * users get: allow-all, deny-all, read-only and always-ask; answers remembered for the turn, a
 * denial not asked again in its turn, `always` saved and keyed by the tool's registration
 * revision, the canonical input and the workspace; one audit event per decision.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { ToolExecutor, type ApprovalAnswer, type ConfirmationRequest, type ToolRegistry } from 'toolgate';
import { MemorySaved } from './memory-saved.js';
import { fixtureRegistry, portedRegistry, tempWorkspace, type TempWorkspace } from '../helpers.js';


/** A handler that answers `answer` and records the questions. */
function answering(answer: ApprovalAnswer | boolean) {
  const asked: ConfirmationRequest[] = [];
  return { asked, handler: (request: ConfirmationRequest) => (asked.push(request), answer) };
}

describe('approval modes', () => {
  let registry: ToolRegistry;
  let t: TempWorkspace;
  before(async () => {
    registry = await fixtureRegistry();
    t = tempWorkspace();
  });
  after(() => t.cleanup());

  const write = (executor: ToolExecutor, filepath: string, options = {}) => executor.execute({ name: 'write_file', arguments: { filepath, content: 'x\n' } }, options);
  const read = (executor: ToolExecutor, options = {}) => executor.execute({ name: 'list_files', arguments: {} }, options);

  test('allow-all runs what would ask, except a protected path, which still asks', async () => {
    const executor = new ToolExecutor(registry, { workspaceRoot: t.ws, approvalMode: 'allow-all' });
    try {
      const written = await write(executor, 'notes.md');
      assert.equal(written.success, true, written.error);
      assert.deepEqual(written.decisions?.map((d) => `${d.decider}:${d.verdict}:${d.rule}`), ['approval:allow:allow-all']);
      const hooks = await write(executor, '.git/hooks/pre-commit');
      assert.equal(hooks.errorCode, 'CONFIRMATION_REQUIRED', hooks.error);
    } finally {
      await executor.close();
    }
  });

  test('deny-all refuses every call, reads included; a call\'s own approvalMode overrides the executor\'s', async () => {
    const executor = new ToolExecutor(registry, { workspaceRoot: t.ws, approvalMode: 'deny-all' });
    try {
      const listed = await read(executor);
      assert.equal(listed.success, false);
      assert.equal(listed.errorCode, 'CONFIRMATION_DENIED');
      assert.match(listed.error!, /deny-all/);
      assert.equal((await read(executor, { approvalMode: 'allow-all' })).success, true);
      const bad = await read(executor, { approvalMode: 'yolo' as never });
      assert.equal(bad.errorCode, 'INVALID_OPTIONS');
    } finally {
      await executor.close();
    }
    assert.throws(() => new ToolExecutor(registry, { approvalMode: 'sometimes' as never }), /approvalMode must be one of allow-all, deny-all, read-only, always-ask/);
  });

  test('read-only runs tools that only read and asks for the rest', async () => {
    const { asked, handler } = answering(true);
    const executor = new ToolExecutor(registry, { workspaceRoot: t.ws, approvalMode: 'read-only', confirmationHandler: handler });
    try {
      assert.equal((await read(executor)).success, true);
      assert.equal(asked.length, 0);
      const written = await write(executor, 'ro.md');
      assert.equal(written.success, true, written.error);
      assert.equal(asked.length, 1);
      assert.equal(asked[0]!.ask.decider, 'approval');
      assert.match(asked[0]!.ask.reason, /read-only.*file_write/);
      const unanswered = await write(executor, 'ro2.md', { confirmationHandler: null });
      assert.equal(unanswered.errorCode, 'CONFIRMATION_REQUIRED');
    } finally {
      await executor.close();
    }
  });

  test('always-ask asks about every call afresh: a remembered answer is not offered and does not count', async () => {
    const { asked, handler } = answering('allow_for_turn');
    const executor = new ToolExecutor(registry, { workspaceRoot: t.ws, approvalMode: 'always-ask', confirmationHandler: handler, savedApprovals: new MemorySaved() });
    try {
      assert.equal((await read(executor)).success, true);
      assert.equal((await read(executor)).success, true);
      assert.equal(asked.length, 2, 'asked again: the answer was taken as allow_once');
      assert.deepEqual(asked[0]!.offers, ['allow_once', 'deny']);
    } finally {
      await executor.close();
    }
  });
});

describe('remembered approvals', () => {
  let registry: ToolRegistry;
  let t: TempWorkspace;
  before(async () => {
    registry = await fixtureRegistry();
    t = tempWorkspace();
  });
  after(() => t.cleanup());

  const write = (executor: ToolExecutor, filepath: string, options = {}, content = 'x\n') => executor.execute({ name: 'write_file', arguments: { filepath, content } }, options);

  test('allow_for_turn: the same request in the same turn runs without a question; another turn, or other input, asks again', async () => {
    const { asked, handler } = answering('allow_for_turn');
    const executor = new ToolExecutor(registry, { workspaceRoot: t.ws, confirmationHandler: handler });
    try {
      assert.equal((await write(executor, 'a.md', { turnId: 't1' })).success, true);
      const again = await write(executor, 'a.md', { turnId: 't1' });
      assert.equal(again.success, true, again.error);
      assert.equal(asked.length, 1);
      assert.ok(again.decisions?.some((d) => d.decider === 'remembered' && d.rule === 'allow_for_turn'));
      await write(executor, 'a.md', { turnId: 't2' });
      assert.equal(asked.length, 2, 'a new turn asks again');
      await write(executor, 'a.md', { turnId: 't1' }, 'other content\n');
      assert.equal(asked.length, 3, 'other input asks again (keys are the canonical input)');
      // The same input written with its keys in another order is the same request (RFC 8785).
      await executor.execute({ name: 'write_file', arguments: '{"content":"x\\n","filepath":"a.md"}' }, { turnId: 't1' });
      assert.equal(asked.length, 3);
    } finally {
      await executor.close();
    }
  });

  test('a request denied in a turn is refused again without a question in that turn', async () => {
    const { asked, handler } = answering('deny');
    const executor = new ToolExecutor(registry, { workspaceRoot: t.ws, confirmationHandler: handler });
    try {
      assert.equal((await write(executor, 'b.md', { turnId: 't1' })).errorCode, 'CONFIRMATION_DENIED');
      const again = await write(executor, 'b.md', { turnId: 't1' });
      assert.equal(again.errorCode, 'CONFIRMATION_DENIED');
      assert.match(again.error!, /already refused this exact write_file request in this turn/);
      assert.equal(asked.length, 1);
      await write(executor, 'b.md', { turnId: 't2' });
      assert.equal(asked.length, 2);
    } finally {
      await executor.close();
    }
  });

  test('always is saved, and a new executor with the same saved approvals does not ask; without a store it is not offered', async () => {
    const saved = new MemorySaved();
    const first = answering('always');
    const one = new ToolExecutor(registry, { workspaceRoot: t.ws, confirmationHandler: first.handler, savedApprovals: saved });
    try {
      assert.equal((await write(one, 'c.md')).success, true);
      assert.deepEqual(first.asked[0]!.offers, ['allow_once', 'allow_for_turn', 'always', 'deny']);
      assert.equal(saved.size, 1);
      assert.match([...saved.keys.values()][0]!, /^write_file \{/);
    } finally {
      await one.close();
    }
    const second = answering(false);
    const two = new ToolExecutor(registry, { workspaceRoot: t.ws, confirmationHandler: second.handler, savedApprovals: saved });
    try {
      const r = await write(two, 'c.md');
      assert.equal(r.success, true, r.error);
      assert.equal(second.asked.length, 0);
      assert.ok(r.decisions?.some((d) => d.decider === 'remembered' && d.rule === 'always'));
      // Another workspace is another request.
      const elsewhere = tempWorkspace();
      try {
        assert.equal((await write(two, 'c.md', { workspaceRoot: elsewhere.ws })).errorCode, 'CONFIRMATION_DENIED');
      } finally {
        elsewhere.cleanup();
      }
    } finally {
      await two.close();
    }
    const storeless = answering('always');
    const three = new ToolExecutor(registry, { workspaceRoot: t.ws, confirmationHandler: storeless.handler });
    try {
      await write(three, 'd.md');
      assert.deepEqual(storeless.asked[0]!.offers, ['allow_once', 'allow_for_turn', 'deny']);
      await write(three, 'd.md');
      assert.equal(storeless.asked.length, 1, 'always without a store counts for the turn');
    } finally {
      await three.close();
    }
  });

  test('every decision is one audit event naming the decider and the rule', async () => {
    const lines: Record<string, unknown>[] = [];
    const sink = new Writable({ write(chunk, _enc, done) { lines.push(JSON.parse(String(chunk))); done(); } });
    const executor = new ToolExecutor(registry, { workspaceRoot: t.ws, approvalMode: 'allow-all', logger: pino({ level: 'info' }, sink) });
    try {
      await write(executor, 'e.md');
      const events = lines.filter((l) => l.event === 'decision');
      assert.equal(events.length, 1);
      assert.equal(events[0]!.decider, 'approval');
      assert.equal(events[0]!.verdict, 'allow');
      assert.equal(events[0]!.rule, 'allow-all');
      assert.equal(events[0]!.tool, 'write_file');
    } finally {
      await executor.close();
    }
  });
});

describe('always is not offered for programs that run code the model can change', () => {
  let t: TempWorkspace;
  before(() => (t = tempWorkspace()));
  after(() => t.cleanup());

  test('build tools and test runners of every ecosystem get no always (attack s11: bazel, sbt, rspec...)', async () => {
    const asker = answering('deny');
    const executor = new ToolExecutor(await portedRegistry(), { workspaceRoot: t.ws, confirmationHandler: asker.handler, savedApprovals: new MemorySaved() });
    try {
      for (const command of ['bazel test //...', 'sbt test', 'rspec', 'phpunit', 'mix test', 'pre-commit run', 'bats t', 'ctest', 'zig build test', 'cabal test']) {
        const before = asker.asked.length;
        const result = await executor.execute({ name: 'run_command', arguments: { command } });
        assert.equal(result.stopReason, 'not_run', command);
        assert.equal(asker.asked.length, before + 1, `${command}: asked`);
        assert.ok(!asker.asked.at(-1)!.offers!.includes('always'), `${command}: offers ${asker.asked.at(-1)!.offers}`);
      }
      // A narrow command still gets it.
      await executor.execute({ name: 'run_command', arguments: { command: 'ls -la' } });
      assert.ok(asker.asked.at(-1)!.offers!.includes('always'));
    } finally {
      await executor.close();
    }
  });
});

describe('a command too long to show whole is granted by nobody who did not see it', () => {
  let registry: ToolRegistry;
  let t: TempWorkspace;
  before(async () => {
    registry = await portedRegistry();
    t = tempWorkspace();
  });
  after(() => t.cleanup());

  // over the prompt's bound for a command (4,000 characters): the prompt shows its head and tail
  const long = `echo ${'a'.repeat(2500)} ${'b'.repeat(2500)}`;
  const run = (executor: ToolExecutor, command: string, options = {}) => executor.execute({ name: 'run_command', arguments: { command } }, options);

  test('a remembered allow_for_turn does not settle it: the person is asked each time; a command shown whole is remembered', async () => {
    const { asked, handler } = answering('allow_for_turn');
    const executor = new ToolExecutor(registry, { workspaceRoot: t.ws, sandbox: 'none', confirmationHandler: handler });
    try {
      assert.equal((await run(executor, long, { turnId: 't1' })).success, true);
      const again = await run(executor, long, { turnId: 't1' });
      assert.equal(again.success, true, again.error);
      assert.equal(asked.length, 2, 'asked again');
      assert.equal(again.decisions?.some((d) => d.decider === 'remembered'), false);
      await run(executor, 'echo short', { turnId: 't1' });
      await run(executor, 'echo short', { turnId: 't1' });
      assert.equal(asked.length, 3, 'a short command is remembered');
    } finally {
      await executor.close();
    }
  });

  test('an allow rule of the user\'s policy grants nothing for it: the default question is asked; a command shown whole is granted', async () => {
    const userFile = path.join(t.root, 'policy.toml');
    fs.writeFileSync(userFile, '[[rules]]\ncommand = "echo"\naction = "allow"\n');
    const { asked, handler } = answering(false);
    const executor = new ToolExecutor(registry, { workspaceRoot: t.ws, sandbox: 'none', policy: { user: userFile, workspace: false }, confirmationHandler: handler });
    try {
      const r = await run(executor, long);
      assert.equal(r.errorCode, 'CONFIRMATION_DENIED', `${r.errorCode} ${r.error}`);
      assert.equal(asked.length, 1);
      assert.ok(r.decisions?.some((d) => d.decider === 'policy' && /too long to show whole/.test(d.reason)), JSON.stringify(r.decisions));
      const short = await run(executor, 'echo short');
      assert.equal(short.success, true, short.error);
      assert.equal(asked.length, 1);
    } finally {
      await executor.close();
    }
  });
});
