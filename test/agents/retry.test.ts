/**
 * An agent's retries (issue 19 item 2) through GeneralAgent with a scripted model: a flaky
 * read-only tool is retried before the model sees its failure; a tool that writes is not; a
 * rate-limit refusal carries retryAfterMs and is retried only after that wait; the breaker
 * stops identical-argument retries and tells the model.
 */
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import { GeneralAgent, ToolExecutionError, ToolRegistry, ToolSystem, type AgentEvent, type ToolOptions } from 'toolgate';
import { buildToolDescriptor } from '../../src/decorators/tool.decorator.js';
import { tempWorkspace } from '../helpers.js';
import { finalAnswer as final, ScriptedModel, toolCalls as calls, toolMessages } from './scripted-model.js';

const INPUT = { type: 'object', properties: { key: { type: 'string' } }, required: ['key'], additionalProperties: false };

/** Register a main-runner tool with a given schema; `run` counts its runs in `runs`. */
function addTool(registry: ToolRegistry, options: Omit<ToolOptions, 'version' | 'runner'>, run: (args: { key: string }) => string): void {
  const target = class { run(args: { key: string }) { return run(args); } };
  const descriptor = buildToolDescriptor({ ...options, version: '1.0.0', runner: 'main' }, target);
  registry.register(descriptor, { name: options.name, version: '1.0.0', description: options.description ?? options.name, className: 'T', source: 'test', inputSchema: INPUT, outputSchema: null }, { foreignSchemas: true });
}

describe('agent retries of recoverable failures', () => {
  const t = tempWorkspace();
  const runs = new Map<string, number>();
  const count = (key: string) => {
    const n = (runs.get(key) ?? 0) + 1;
    runs.set(key, n);
    return n;
  };
  let tools: ToolSystem;
  before(async () => {
    const registry = new ToolRegistry();
    // Fails transiently on the first run of each key, then answers.
    addTool(registry, { name: 'flaky_read', kind: 'internal', readOnly: true, description: 'Read a flaky source.' }, ({ key }) => {
      if (count(`flaky_read:${key}`) === 1) throw new ToolExecutionError('the source is busy', 'TRANSIENT');
      return `value of ${key}`;
    });
    addTool(registry, { name: 'flaky_write', kind: 'mcp_write_or_unknown', description: 'Write to a flaky sink.' }, ({ key }) => {
      if (count(`flaky_write:${key}`) === 1) throw new ToolExecutionError('the sink is busy', 'TRANSIENT');
      return `wrote ${key}`;
    });
    addTool(registry, { name: 'always_busy', kind: 'internal', readOnly: true, description: 'Never free.' }, ({ key }) => {
      count(`always_busy:${key}`);
      throw new ToolExecutionError('still busy', 'TRANSIENT');
    });
    addTool(registry, { name: 'limited_read', kind: 'internal', readOnly: true, rateLimitRpm: 300, description: 'Five calls a second at most.' }, ({ key }) => {
      count(`limited_read:${key}`);
      return `limited ${key}`;
    });
    addTool(registry, { name: 'broken_read', kind: 'internal', readOnly: true, description: 'Always fails for good.' }, ({ key }) => {
      count(`broken_read:${key}`);
      throw new ToolExecutionError('the record is corrupt; retrying will not help');
    });
    // rateLimitMaxWaitMs 0: a call that would wait for its turn is refused at once, with retryAfterMs.
    tools = new ToolSystem({ workspace: t.ws, builtins: false, registry, executor: { rateLimitMaxWaitMs: 0 } });
    await tools.start();
  });
  after(async () => {
    await tools.close();
    t.cleanup();
  });

  it('a transient failure of a read-only tool is retried before the model sees it', async () => {
    const model = new ScriptedModel([calls(['c1', 'flaky_read', { key: 'a' }]), final('got it')]);
    const events: AgentEvent[] = [];
    const result = await new GeneralAgent({ tools, model, onEvent: (e) => events.push(e), retry: { backoffMs: 1 } }).run('read a');
    assert.equal(result.stopReason, 'final');
    assert.equal(runs.get('flaky_read:a'), 2, 'ran twice: the failure, then the retry');
    assert.equal(result.results.length, 1);
    assert.equal(result.results[0]!.success, true);
    assert.equal(result.results[0]!.outcome, 'success');
    assert.equal(toolMessages(model.requests[1]!).get('c1'), 'value of a', 'the model sees only the answer');
    const retries = events.filter((e) => e.type === 'tool_retry');
    assert.equal(retries.length, 1);
    assert.equal(retries[0]!.type === 'tool_retry' && retries[0]!.result.errorClass, 'transient');
  });

  it('a failure of a tool that writes is not retried (it may have had effects); the model sees it', async () => {
    const model = new ScriptedModel([calls(['w1', 'flaky_write', { key: 'b' }]), final('it failed')]);
    const result = await new GeneralAgent({ tools, model, retry: { backoffMs: 1 } }).run('write b');
    assert.equal(runs.get('flaky_write:b'), 1, 'not made again');
    const r = result.results[0]!;
    assert.equal(r.errorCode, 'TRANSIENT');
    assert.equal(r.outcome, 'recoverable');
    assert.equal(r.sideEffects, 'possible');
    assert.match(toolMessages(model.requests[1]!).get('w1')!, /the sink is busy/);
  });

  it('a fatal failure is not retried', async () => {
    const model = new ScriptedModel([calls(['f1', 'broken_read', { key: 'c' }]), final('broken')]);
    const result = await new GeneralAgent({ tools, model, retry: { backoffMs: 1 } }).run('read c');
    assert.equal(runs.get('broken_read:c'), 1);
    assert.equal(result.results[0]!.outcome, 'fatal');
    assert.equal(result.results[0]!.errorClass, 'tool_error');
  });

  it('a rate-limit refusal carries retryAfterMs, and the agent waits at least that long before the retry', async () => {
    const model = new ScriptedModel([calls(['r1', 'limited_read', { key: 'x' }], ['r2', 'limited_read', { key: 'y' }]), final('both read')]);
    const events: AgentEvent[] = [];
    const result = await new GeneralAgent({ tools, model, onEvent: (e) => events.push(e) }).run('read x and y');
    const retries = events.flatMap((e) => (e.type === 'tool_retry' ? [e] : []));
    assert.ok(retries.length >= 1, 'the second call was refused and retried');
    for (const retry of retries) {
      assert.equal(retry.result.errorCode, 'RATE_LIMITED');
      assert.equal(retry.result.outcome, 'recoverable');
      assert.equal(retry.result.errorClass, 'rate_limited');
      assert.ok(typeof retry.result.retryAfterMs === 'number' && retry.result.retryAfterMs > 0 && retry.result.retryAfterMs <= 200, `retryAfterMs ${retry.result.retryAfterMs}`);
      assert.equal(retry.delayMs, retry.result.retryAfterMs, 'waits the refusal\u2019s retryAfterMs, not a transient backoff');
    }
    assert.deepEqual(result.results.map((r) => r.success), [true, true]);
    assert.equal((runs.get('limited_read:x') ?? 0) + (runs.get('limited_read:y') ?? 0), 2, 'each ran once');
  });

  it('a refusal whose retryAfterMs is past maxWaitMs is not retried, and the model is told when to try', async () => {
    await sleep(300); // the previous test's turn of limited_read has passed
    const model = new ScriptedModel([calls(['s1', 'limited_read', { key: 'p' }], ['s2', 'limited_read', { key: 'q' }]), final('one read')]);
    const result = await new GeneralAgent({ tools, model, retry: { maxWaitMs: 0 } }).run('read p and q');
    const refused = result.results.filter((r) => !r.success);
    assert.equal(refused.length, 1);
    assert.equal(refused[0]!.errorCode, 'RATE_LIMITED');
    assert.ok(refused[0]!.retryAfterMs! > 0);
    assert.match(toolMessages(model.requests[1]!).get(refused[0]!.callId)!, /not retried: the call may succeed in about 1 s/);
  });

  it('the breaker: the same tool and canonical arguments failing again is not retried, and the model is told not to repeat it', async () => {
    const model = new ScriptedModel([
      calls(['b1', 'always_busy', { key: 'k' }]),
      // The model tries again with the same arguments (keys in another order would be the same).
      calls(['b2', 'always_busy', { key: 'k' }]),
      final('gave up'),
    ]);
    const result = await new GeneralAgent({ tools, model, retry: { backoffMs: 1, maxRetriesPerCall: 5, breakerThreshold: 3 } }).run('try k');
    assert.equal(runs.get('always_busy:k'), 4, 'three attempts in the first round (the breaker opens at 3), one in the second');
    const first = toolMessages(model.requests[1]!).get('b1')!;
    assert.match(first, /has failed 3 times with these same arguments in this run; it is not retried\. Do not call it again unchanged/);
    assert.match(toolMessages(model.requests[2]!).get('b2')!, /has failed 4 times/);
    assert.equal(result.results.length, 2);
  });

  it('retries are bounded per call and per run, and retry: false turns them off', async () => {
    const model = new ScriptedModel([calls(['p1', 'always_busy', { key: 'm' }]), final('no')]);
    await new GeneralAgent({ tools, model, retry: { backoffMs: 1, maxRetriesPerCall: 1 } }).run('m');
    assert.equal(runs.get('always_busy:m'), 2, 'one retry per call');
    assert.match(toolMessages(model.requests[1]!).get('p1')!, /not retried again: 2 attempts made/);

    const budget = new ScriptedModel([calls(['q1', 'always_busy', { key: 'n1' }], ['q2', 'always_busy', { key: 'n2' }]), final('no')]);
    await new GeneralAgent({ tools, model: budget, retry: { backoffMs: 1, maxRetriesPerRun: 1 } }).run('n');
    assert.equal((runs.get('always_busy:n1') ?? 0) + (runs.get('always_busy:n2') ?? 0), 3, 'one retry in the whole run');

    const off = new ScriptedModel([calls(['o1', 'flaky_read', { key: 'off' }]), final('no')]);
    const r = await new GeneralAgent({ tools, model: off, retry: false }).run('off');
    assert.equal(runs.get('flaky_read:off'), 1);
    assert.equal(r.results[0]!.errorClass, 'transient');
  });

  it('bad retry options are refused, naming the option', () => {
    const model = new ScriptedModel([]);
    assert.throws(() => new GeneralAgent({ tools, model, retry: { maxRetriesPerCall: -1 } }), /retry\.maxRetriesPerCall/);
    assert.throws(() => new GeneralAgent({ tools, model, retry: { breakerThreshold: 0 } }), /retry\.breakerThreshold/);
  });
});
