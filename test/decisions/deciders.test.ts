/**
 * The decision pipeline and each decider as plain logic: no registry, no pool, no executor.
 * Tools are plain objects with the fields deciders read.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { answerAsk, type ConfirmationRequest } from '../../src/decisions/approval.js';
import { ApprovalModeDecider } from '../../src/decisions/approval-mode.decider.js';
import { buildDeciders } from '../../src/decisions/deciders.js';
import type { Decider, Decision, PreparedCall } from '../../src/decisions/decision.js';
import { decideMode, ModeDecider } from '../../src/decisions/mode.decider.js';
import { combineConfinements, DecisionPipeline } from '../../src/decisions/pipeline.js';
import { decidePolicy, fromHookAnswer, PolicyHookDecider, type PolicyCall } from '../../src/decisions/policy-hook.decider.js';
import { RateLimiter } from '../../src/decisions/rate-limit.js';
import { createLogger } from '../../src/logging/logger.js';
import { RememberedApprovals } from '../../src/policy/remembered-approvals.js';
import { MODES, type AgentMode } from '../../src/modes/modes.js';
import type { RegisteredTool } from '../../src/registry/registered-tool.js';
import { workspaceFor, type Workspace } from '../../src/workspace/workspace.js';
import { tempWorkspace, type TempWorkspace } from '../helpers.js';

const logger = createLogger('silent');

/** A tool as far as deciders see it. */
function fakeTool(fields: Partial<RegisteredTool> = {}): RegisteredTool {
  return { name: 'edit_notes', version: '1.0.0', description: 'Edits notes.', readOnly: false, scopedWrite: true, requiresConfirmation: false, kind: 'file_write', commandArguments: [], revision: 'r1', ...fields } as unknown as RegisteredTool;
}

let tmp: TempWorkspace;
let workspace: Workspace;

before(() => {
  tmp = tempWorkspace();
  fs.mkdirSync(path.join(tmp.ws, 'plans'));
  workspace = workspaceFor(tmp.ws);
});
after(() => tmp.cleanup());

function prepared(fields: Partial<PreparedCall> = {}): PreparedCall {
  return { tool: fakeTool(), args: { filepath: 'plans/a.md' }, callId: 'call_1', workspace, paths: [], mode: MODES.default, modeName: 'default', scopedWriteDirs: [], approvalMode: undefined, session: 's1', turnId: '', commands: [], ...fields };
}

function resolved(given: string) {
  return { given, real: workspace.resolve(given) };
}

describe('mode decider', () => {
  const input = (mode: AgentMode | undefined, fields: Partial<Parameters<typeof decideMode>[0]> = {}) => ({
    tool: fakeTool(), paths: [resolved('plans/a.md')], mode, modeName: mode?.name ?? 'yolo', scopedWriteDirs: [], scopedWriteTools: undefined, workspace, ...fields,
  });

  test('an unknown mode is denied (fail closed), naming the known modes', () => {
    const d = decideMode(input(undefined));
    assert.equal(d?.verdict, 'deny');
    assert.equal(d?.code, 'MODE_DENIED');
    assert.match(d!.reason, /Unknown mode "yolo"; known modes/);
  });

  test('no opinion where the mode does not restrict the tool', () => {
    assert.equal(decideMode(input(MODES.default)), undefined);
    assert.equal(decideMode(input(MODES.explore, { tool: fakeTool({ readOnly: true }) })), undefined);
  });

  test('read-only modes deny writes without scoped folders, tools that do not declare scopedWrite, and calls naming no path', () => {
    assert.match(decideMode(input(MODES.explore))!.reason, /this mode is read-only/);
    assert.match(decideMode(input(MODES.explore, { scopedWriteDirs: ['plans'], tool: fakeTool({ scopedWrite: false }) }))!.reason, /only allows read-only tools/);
    assert.match(decideMode(input(MODES.explore, { scopedWriteDirs: ['plans'], paths: [] }))!.reason, /names no path/);
    const narrowed = decideMode(input(MODES.explore, { scopedWriteDirs: ['plans'], scopedWriteTools: new Set(['other_tool']) }));
    assert.equal(narrowed?.verdict, 'deny');
  });

  test('a scoped write inside the folder is allowed and confined there; outside, beside or at the root it is denied', () => {
    const ok = decideMode(input(MODES.explore, { scopedWriteDirs: ['plans'] }));
    assert.equal(ok?.verdict, 'allow');
    assert.deepEqual(ok?.writeRoots, [fs.realpathSync(path.join(tmp.ws, 'plans'))]);
    assert.match(decideMode(input(MODES.explore, { scopedWriteDirs: ['plans'], paths: [resolved('notes.md')] }))!.reason, /outside the scoped write folders/);
    assert.match(decideMode(input(MODES.explore, { scopedWriteDirs: ['plans'], paths: [resolved('plans')] }))!.reason, /outside the scoped write folders/);
    assert.match(decideMode(input(MODES.explore, { scopedWriteDirs: ['.'] }))!.reason, /subfolder of the workspace/);
  });

  test('the decider wrapper reads the prepared call', () => {
    const decider = new ModeDecider(undefined);
    assert.equal(decider.decide(prepared()), undefined);
    assert.equal(decider.decide(prepared({ mode: MODES.plan, modeName: 'plan', paths: [resolved('plans/a.md')] }))?.code, 'MODE_DENIED');
    assert.equal(decider.decide(prepared({ mode: MODES.plan, modeName: 'plan', paths: [resolved('plans/a.md')], scopedWriteDirs: ['plans'] }))?.verdict, 'allow');
  });
});

describe('policy hook decider', () => {
  test('a non-empty string vetoes with it as the reason; empty, null, undefined and false pass', () => {
    assert.deepEqual(fromHookAnswer('  no deletes on Fridays '), { verdict: 'deny', decider: 'policy-hook', code: 'POLICY_DENIED', reason: 'Denied by policy: no deletes on Fridays' });
    for (const pass of ['', '   ', null, undefined, false]) assert.equal(fromHookAnswer(pass), undefined, String(pass));
  });

  test('other answers fail closed: true, an Error, an object with or without a reason', () => {
    assert.match(fromHookAnswer(true)!.reason, /returned boolean instead of a reason/);
    assert.match(fromHookAnswer(new Error('blocked'))!.reason, /Denied by policy: blocked/);
    assert.match(fromHookAnswer({ reason: 'too big' })!.reason, /Denied by policy: too big/);
    assert.equal(fromHookAnswer({})!.verdict, 'deny');
  });

  test('a hook that throws or rejects fails open; a synchronous hook answers synchronously', async () => {
    const call = { tool: 't', version: '1.0.0', arguments: {}, mode: 'default', callId: 'c', readOnly: true } satisfies PolicyCall;
    assert.equal(decidePolicy(() => { throw new Error('bug'); }, call, logger), undefined);
    const sync = decidePolicy(() => 'no', call, logger);
    assert.equal((sync as Decision).verdict, 'deny', 'not a promise');
    assert.equal(await decidePolicy(() => Promise.reject(new Error('bug')), call, logger), undefined);
    assert.equal((await decidePolicy(async () => 'later no', call, logger))?.reason, 'Denied by policy: later no');
  });

  test('the hook sees a frozen copy of the arguments, and cannot change what runs', () => {
    const args = { nested: { value: 1 } };
    let seen: PolicyCall | undefined;
    new PolicyHookDecider((c) => { seen = c; }, logger, 1000).decide(prepared({ args }));
    assert.ok(seen);
    assert.throws(() => { (seen!.arguments.nested as { value: number }).value = 2; }, TypeError);
    assert.equal(args.nested.value, 1);
    assert.equal(seen.mode, 'default');
  });
});

describe('approval decider and answering an ask', () => {
  const request: ConfirmationRequest = { tool: 'write_file', version: '1.0.0', arguments: {}, callId: 'c', description: '', paths: [], ask: { decider: 'approval', reason: 'needs approval' }, offers: ['allow_once', 'allow_for_turn', 'deny'] };

  test('with no approval mode, asks only for tools that declare requiresConfirmation', () => {
    const decider = new ApprovalModeDecider();
    assert.equal(decider.decide(prepared(), []), undefined);
    assert.equal((decider.decide(prepared({ tool: fakeTool({ requiresConfirmation: true }) }), []) as Decision | undefined)?.verdict, 'ask');
  });

  test('confirm approves without asking; no handler is CONFIRMATION_REQUIRED; the handler decides otherwise (a throw is no)', async () => {
    let asked = 0;
    const yes = () => { asked++; return true; };
    const inAdvance = await answerAsk(request, true, yes, logger);
    assert.equal(inAdvance.verdict, 'allow');
    assert.equal(asked, 0);
    const required = await answerAsk(request, undefined, undefined, logger);
    assert.equal(required.code, 'CONFIRMATION_REQUIRED');
    assert.match(required.reason, /^Confirmation required/);
    const byHandler = await answerAsk(request, false, yes, logger);
    assert.equal(byHandler.verdict, 'allow');
    assert.notEqual(byHandler.reason, inAdvance.reason, 'a ledger can tell who approved');
    assert.equal((await answerAsk(request, undefined, async () => false, logger)).code, 'CONFIRMATION_DENIED');
    assert.equal((await answerAsk(request, undefined, () => { throw new Error('tty gone'); }, logger)).code, 'CONFIRMATION_DENIED');
  });
});

describe('decision pipeline', () => {
  const closing = new AbortController();
  const noAsk = { confirm: undefined, handler: undefined };
  /** A decider that records being asked and says `said`. */
  const saying = (name: string, said: Decision | undefined | Promise<Decision | undefined>, asked: string[]): Decider => ({
    name,
    decide: () => {
      asked.push(name);
      return said;
    },
  });

  test('nobody objects: allow, synchronously, with an empty trail', () => {
    const decided = new DecisionPipeline(buildDeciders({ scopedWriteTools: undefined, policyHook: () => undefined, policyTimeoutMs: 1000, protectedPaths: [], remembered: new RememberedApprovals(undefined), policyFiles: undefined, logger }), logger, closing.signal)
      .decide(prepared({ tool: fakeTool({ readOnly: true }) }), noAsk, undefined);
    assert.ok(!(decided instanceof Promise));
    assert.equal(decided.final.verdict, 'allow');
    assert.deepEqual(decided.trail, []);
  });

  test('the first deny ends the pipeline: later deciders are not asked, and an earlier ask is never put to anyone', async () => {
    const asked: string[] = [];
    let handlerAsked = false;
    const pipeline = new DecisionPipeline([
      saying('first', { verdict: 'ask', decider: 'first', reason: 'check' }, asked),
      saying('second', { verdict: 'deny', decider: 'second', code: 'POLICY_DENIED', reason: 'no' }, asked),
      saying('third', undefined, asked),
    ], logger, closing.signal);
    const decided = await pipeline.decide(prepared(), { confirm: undefined, handler: () => (handlerAsked = true) }, undefined);
    assert.equal(decided.final.decider, 'second');
    assert.deepEqual(asked, ['first', 'second']);
    assert.equal(handlerAsked, false);
    assert.deepEqual(decided.trail.map((d) => d.verdict), ['ask', 'deny']);
  });

  test('ask beats allow, and the answer ends the trail; allows keep their write confinement', async () => {
    const asked: string[] = [];
    const pipeline = new DecisionPipeline([
      saying('scope', { verdict: 'allow', decider: 'scope', reason: 'scoped', writeRoots: ['/w/plans'] }, asked),
      saying('confirmation', { verdict: 'ask', decider: 'confirmation', reason: 'needs approval' }, asked),
    ], logger, closing.signal);
    const approved = await pipeline.decide(prepared({ paths: [resolved('plans/a.md')] }), { confirm: undefined, handler: (r) => r.paths[0] === path.join('plans', 'a.md') }, undefined);
    assert.equal(approved.final.verdict, 'allow');
    assert.deepEqual(approved.writeRoots, ['/w/plans']);
    assert.deepEqual(approved.trail.map((d) => `${d.decider}:${d.verdict}`), ['scope:allow', 'confirmation:ask', 'confirmation:allow']);
    const refused = await pipeline.decide(prepared(), noAsk, undefined);
    assert.equal(refused.final.code, 'CONFIRMATION_REQUIRED');
  });

  test('an async decider past its wait limit counts as what it says; an abort or the executor closing ends any wait with ABORTED', async () => {
    const never = new Promise<Decision | undefined>(() => {});
    const late: Decider = { name: 'slow', waitLimit: { ms: 20, onTimeout: () => undefined }, decide: () => never };
    const decided = await new DecisionPipeline([late], logger, closing.signal).decide(prepared(), noAsk, undefined);
    assert.equal(decided.final.verdict, 'allow');
    const hung: Decider = { name: 'hung', decide: () => never };
    const controller = new AbortController();
    const pending = new DecisionPipeline([hung], logger, closing.signal).decide(prepared(), noAsk, controller.signal);
    setTimeout(() => controller.abort(), 10);
    const aborted = await pending;
    assert.equal(aborted.final.code, 'ABORTED');
    assert.match(aborted.final.reason, /aborted while it waited/);
    const shutting = new AbortController();
    const onClose = new DecisionPipeline([hung], logger, shutting.signal).decide(prepared(), noAsk, undefined);
    shutting.abort();
    assert.match((await onClose).final.reason, /executor was closed/);
  });

  test('the person asked sees why: the asking decider, its reason and rule; an abort while asking is the confirmation step\'s', async () => {
    const asking: Decider = { name: 'policy', decide: () => ({ verdict: 'ask', decider: 'policy', reason: 'rm needs a look', rule: 'ask-rm' }) };
    let seen: ConfirmationRequest | undefined;
    const pipeline = new DecisionPipeline([asking], logger, closing.signal);
    await pipeline.decide(prepared(), { confirm: undefined, handler: (r) => { seen = r; return true; } }, undefined);
    assert.deepEqual(seen?.ask, { decider: 'policy', reason: 'rm needs a look', rule: 'ask-rm' });
    const controller = new AbortController();
    const pending = pipeline.decide(prepared(), { confirm: undefined, handler: () => new Promise<boolean>(() => {}) }, controller.signal);
    setTimeout(() => controller.abort(), 10);
    const aborted = await pending;
    assert.equal(aborted.final.code, 'ABORTED');
    assert.equal(aborted.final.decider, 'confirmation');
  });

  test('write confinements combine by intersection; when nothing is left in common the call is denied', async () => {
    assert.deepEqual(combineConfinements([['/w/a', '/w/b'], ['/w/a/x', '/w/c']]), ['/w/a/x']);
    assert.deepEqual(combineConfinements([['/w/a'], ['/w/a']]), ['/w/a']);
    const asked: string[] = [];
    const two = new DecisionPipeline([
      saying('one', { verdict: 'allow', decider: 'one', reason: 'a', writeRoots: ['/w/a'] }, asked),
      saying('two', { verdict: 'allow', decider: 'two', reason: 'b', writeRoots: ['/w/b'] }, asked),
    ], logger, closing.signal);
    const decided = await two.decide(prepared(), noAsk, undefined);
    assert.equal(decided.final.verdict, 'deny');
    assert.match(decided.final.reason, /one and two confine them, have nothing in common/);
  });

  test('the deciders are built in order: visibility, mode, protected paths, remembered approvals, policy hook (only when given), approval mode', () => {
    const remembered = new RememberedApprovals(undefined);
    assert.deepEqual(buildDeciders({ scopedWriteTools: undefined, policyHook: undefined, policyTimeoutMs: 1, protectedPaths: [], remembered, policyFiles: undefined, logger }).map((d) => d.name), ['visibility', 'mode', 'protected-paths', 'remembered', 'approval']);
    assert.deepEqual(buildDeciders({ scopedWriteTools: undefined, policyHook: () => undefined, policyTimeoutMs: 1, protectedPaths: [], remembered, policyFiles: undefined, logger }).map((d) => d.name), ['visibility', 'mode', 'protected-paths', 'remembered', 'policy-hook', 'approval']);
  });
});

describe('rate-limit admission', () => {
  test('a call whose turn is further away than the longest wait is refused at once with a retry estimate', async () => {
    const limiter = new RateLimiter(0);
    try {
      assert.equal(await limiter.acquire('t@1.0.0', 't', 1), undefined);
      const refused = await limiter.acquire('t@1.0.0', 't', 1);
      assert.equal(refused?.code, 'RATE_LIMITED');
      assert.match(refused!.reason, /allows 1 calls per minute .* retry in about \d+ s/);
      assert.equal(await limiter.acquire('t@2.0.0', 't', 1), undefined, 'each version has its own budget');
    } finally {
      await limiter.close();
    }
  });
});
