/**
 * The task domain (issue 35 item 2): through GeneralAgent with a scripted model and lazy
 * domains, the model requests `task`, creates a task and waits for it, and sees its result; a
 * task scheduled 2 s ahead runs after the process that scheduled it is killed, once, even
 * with two new processes racing for it; bad input (a time in the past, an unknown tool,
 * arguments that fail the schema, a wait past the bound, cancelling a finished task) is a
 * structured error that stores nothing; a task's call is denied when the policy denies its
 * tool, both when it is created and when it runs.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { GeneralAgent, ToolSystem } from 'toolgate';
import { hostId } from '../../src/ledger/owner.js';
import { FIXTURE_SCHEMAS, FIXTURES_DIR, runCli, tempWorkspace } from '../helpers.js';
import { finalAnswer, offeredTools, ScriptedModel, toolCalls, toolMessages } from './scripted-model.js';

const INDEX = fileURLToPath(new URL('../../src/index.js', import.meta.url));
const FIXTURES = [{ directory: FIXTURES_DIR, schemas: FIXTURE_SCHEMAS }];

/** Until `check` is true (polled), at most `ms` (a bound against a hang, not a timing assertion). */
async function until(check: () => boolean | Promise<boolean>, ms = 30_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error('gave up waiting');
    await sleep(50);
  }
}

const idOf = (text: string | undefined): string => /"id": "(task_[0-9a-f]{16})"/.exec(text ?? '')?.[1] ?? 'none';

describe('the task domain', () => {
  const t = tempWorkspace();
  const state = path.join(t.root, 'state');
  const config = path.join(t.root, 'config');
  const saved = { state: process.env.XDG_STATE_HOME, config: process.env.XDG_CONFIG_HOME };
  let tools: ToolSystem;
  const children: ChildProcess[] = [];
  before(async () => {
    process.env.XDG_STATE_HOME = state;
    process.env.XDG_CONFIG_HOME = config;
    // The SDK reads policy files only when asked to: the workspace's here (the user's is left out).
    tools = new ToolSystem({ workspace: t.ws, toolFolders: FIXTURES, executor: { policy: { user: false } } });
    await tools.start();
  });
  after(async () => {
    for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await tools.close();
    for (const [name, value] of [['XDG_STATE_HOME', saved.state], ['XDG_CONFIG_HOME', saved.config]] as const) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
    t.cleanup();
  });
  const storedTasks = async () => (await tools.executor.ledger!.tasks({ workspace: tools.workspace, limit: 1000 })).length;

  it('is requested, a task is created and waited for, and its result seen by the model', async () => {
    const model = new ScriptedModel([
      toolCalls(['r', 'request_tools', { domains: ['task'], reason: 'run something in the background' }]),
      toolCalls(['c', 'task_create', { tool: 'append_call_id', arguments: { file: 'agent.txt' }, title: 'append a line' }]),
      (request) => toolCalls(['w', 'task_wait', { id: idOf(toolMessages(request).get('c')), timeoutSeconds: 60 }]),
      finalAnswer('done'),
    ]);
    const run = await new GeneralAgent({ tools, model, lazyDomains: true }).run('append a line in the background and tell me when it is done');
    assert.equal(run.stopReason, 'final');
    assert.ok(!offeredTools(model.requests[0]).includes('task_create'), 'hidden before request_tools');
    assert.ok(offeredTools(model.requests[1]).includes('task_wait'), 'offered after request_tools');
    for (const r of run.results) assert.equal(r.success, true, `${r.tool}: ${r.output}`);
    const created = toolMessages(model.requests[2]!).get('c')!;
    assert.match(created, /"status": "scheduled"|"status": "starting"|"status": "running"|"status": "done"/);
    const waited = JSON.parse(toolMessages(model.requests[3]!).get('w')!) as { status: string; waitEnded: string; result: { success: boolean; output: string } };
    assert.equal(waited.status, 'done');
    assert.equal(waited.waitEnded, 'finished');
    assert.equal(waited.result.success, true);
    assert.match(waited.result.output, /appended task_/);
    assert.equal(fs.readFileSync(path.join(t.ws, 'agent.txt'), 'utf8').trim().split('\n').length, 1);
  });

  it('runs a task scheduled 2 s ahead after the process that scheduled it was killed, once', async () => {
    const env = { ...process.env, XDG_STATE_HOME: state, XDG_CONFIG_HOME: config };
    const setup = `import { ToolSystem } from ${JSON.stringify(INDEX)};
      const tools = new ToolSystem({ workspace: process.argv[1], toolFolders: [{ directory: ${JSON.stringify(FIXTURES_DIR)}, schemas: ${JSON.stringify(FIXTURE_SCHEMAS)} }] });
      await tools.start();`;
    const scheduler = spawn(process.execPath, ['--input-type=module', '-e', `${setup}
      const result = await tools.execute({ name: 'task_create', arguments: { tool: 'append_call_id', arguments: { file: 'restart.txt' }, delaySeconds: 2, detach: true }, callId: 'schedule' });
      process.stdout.write(JSON.stringify(result) + '\\n');
      setInterval(() => undefined, 1000);`, t.ws], { env, stdio: ['ignore', 'pipe', 'inherit'] });
    children.push(scheduler);
    let out = '';
    scheduler.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString()));
    await until(() => out.includes('\n'));
    scheduler.kill('SIGKILL');
    await new Promise((resolve) => scheduler.once('exit', resolve));
    const created = JSON.parse(out) as { success: boolean; output: string };
    assert.equal(created.success, true, created.output);
    const marker = path.join(t.ws, 'restart.txt');
    assert.equal(fs.existsSync(marker), false, 'not run before the kill');
    // Two new processes on the same state folder race for the task; it runs once.
    // Each stays until the race is over: the task claimed and its call done in the store (a
    // second start would then be refused by its call id), not for the marker plus 1.5 s.
    const runners = [0, 1].map(() => spawn(process.execPath, ['--input-type=module', '-e', `${setup}
      const ledger = tools.executor.ledger;
      for (const end = Date.now() + 60_000; Date.now() < end;) {
        const task = (await ledger.tasks({ workspace: tools.workspace, limit: 1000 })).find((t) => t.id === process.argv[2]);
        if (task?.state === 'started' && (await ledger.get(task.callId, task.session))?.state === 'done') break;
        await new Promise((r) => setTimeout(r, 50));
      }
      await tools.close();`, t.ws, idOf(created.output)], { env, stdio: ['ignore', 'inherit', 'inherit'] }));
    children.push(...runners);
    await Promise.all(runners.map((child) => new Promise((resolve) => child.once('exit', resolve))));
    const lines = fs.readFileSync(marker, 'utf8').trim().split('\n');
    assert.equal(lines.length, 1, lines.join(' | '));
    assert.match(lines[0]!, new RegExp(`^${idOf(created.output)} `));
    assert.ok(runners.some((child) => lines[0]!.endsWith(` ${child.pid}`)), 'run by one of the new processes');
  });

  it('schedules again a task whose scheduler died between starting it and recording its call', async () => {
    const store = tools.executor.ledger!;
    const id = 'task_00000000000000ee';
    await store.createTask({
      id, workspace: tools.workspace, session: 'lost', scope: 'lost', detached: true, tool: 'append_call_id', version: '1.0.0', arguments: { file: 'lost.txt' },
      options: { mode: 'default' }, title: '', state: 'scheduled', runAt: Date.now() + 3_600_000, callId: id,
    });
    // Started by a process of this host that is gone (pid 0 is nobody's), and no call recorded.
    assert.ok(await store.updateTask(id, ['scheduled'], { state: 'started', startedBy: `${hostId()}:0:0`, runAt: Date.now() }));
    const restarted = new ToolSystem({ workspace: t.ws, toolFolders: FIXTURES });
    await restarted.start();
    try {
      await until(() => fs.existsSync(path.join(t.ws, 'lost.txt')));
      await until(async () => (await store.get(id, 'lost'))?.state === 'done');
      assert.equal(fs.readFileSync(path.join(t.ws, 'lost.txt'), 'utf8').trim().split('\n').length, 1);
    } finally {
      await restarted.close();
    }
  });

  it('refuses bad input with a structured error, storing nothing', async () => {
    const before = await storedTasks();
    const cases: Array<[Record<string, unknown>, RegExp]> = [
      [{ tool: 'append_call_id', arguments: { file: 'x.txt' }, at: '2001-01-01T00:00:00Z' }, /in the past/],
      [{ tool: 'append_call_id', arguments: { file: 'x.txt' }, at: 'tomorrow' }, /not an ISO 8601 time/],
      [{ tool: 'append_call_id', arguments: { file: 'x.txt' }, at: '2999-01-01T00:00:00Z', delaySeconds: 5 }, /not both/],
      [{ tool: 'no_such_tool', arguments: {} }, /no tool "no_such_tool"/],
      [{ tool: 'append_call_id', arguments: { file: 5 } }, /would be refused \(INVALID_ARGUMENTS\)/],
      [{ tool: 'task_list', arguments: {} }, /cannot run as a task/],
    ];
    for (const [i, [args, message]] of cases.entries()) {
      const result = await tools.execute({ name: 'task_create', arguments: args, callId: `bad-${i}` });
      assert.equal(result.success, false, JSON.stringify(args));
      assert.equal(result.errorCode, 'INVALID_ARGUMENTS', result.output);
      assert.match(result.error ?? result.output, message);
      assert.match(result.error ?? result.output, /Nothing was (stored|changed)/);
    }
    const tooLong = await tools.execute({ name: 'task_wait', arguments: { id: 'task_0000000000000000', timeoutSeconds: 301 }, callId: 'bad-wait' });
    assert.equal(tooLong.errorCode, 'INVALID_ARGUMENTS', tooLong.output);
    assert.match(tooLong.error ?? tooLong.output, /300/);
    assert.equal(await storedTasks(), before, 'nothing stored');

    const made = await tools.execute({ name: 'task_create', arguments: { tool: 'append_call_id', arguments: { file: 'finished.txt' } }, callId: 'finish-me' });
    assert.equal(made.success, true, made.output);
    const id = idOf(made.output);
    const waited = await tools.execute({ name: 'task_wait', arguments: { id, timeoutSeconds: 60 }, callId: 'wait-finished' });
    assert.match(waited.output, /"status": "done"/);
    const cancel = await tools.execute({ name: 'task_cancel', arguments: { id }, callId: 'cancel-finished' });
    assert.equal(cancel.success, false);
    assert.equal(cancel.errorCode, 'TOOL_ERROR');
    assert.match(cancel.error ?? cancel.output, /has finished \(done\).*Nothing was changed/);
    const again = await tools.execute({ name: 'task_reschedule', arguments: { id, delaySeconds: 10 }, callId: 'reschedule-finished' });
    assert.match(again.error ?? again.output, /cannot be rescheduled.*Nothing was changed/);
    assert.match((await tools.execute({ name: 'task_get', arguments: { id }, callId: 'get-finished' })).output, /"status": "done"/);
    const unknown = await tools.execute({ name: 'task_get', arguments: { id: 'task_ffffffffffffffff' }, callId: 'get-unknown' });
    assert.match(unknown.error ?? unknown.output, /no task/);
  });

  it('pauses, resumes, reschedules, updates, lists, detaches and cancels a task before it runs', async () => {
    const made = await tools.execute({ name: 'task_create', arguments: { tool: 'append_call_id', arguments: { file: 'later.txt' }, delaySeconds: 3600 }, callId: 'later' });
    const id = idOf(made.output);
    const step = async (name: string, args: Record<string, unknown>, callId: string) => {
      const result = await tools.execute({ name, arguments: { id, ...args }, callId });
      assert.equal(result.success, true, `${name}: ${result.output}`);
      return result.output;
    };
    assert.match(await step('task_pause', {}, 'p'), /"status": "paused"/);
    assert.match((await tools.execute({ name: 'task_pause', arguments: { id }, callId: 'p2' })).output, /is paused, so it cannot be paused/);
    assert.match(await step('task_resume', {}, 'r'), /"status": "scheduled"/);
    assert.match(await step('task_update', { title: 'renamed', arguments: { file: 'later2.txt' } }, 'u'), /"title": "renamed"[\s\S]*later2\.txt/);
    assert.match(await step('task_reschedule', { at: new Date(Date.now() + 7_200_000).toISOString() }, 'rs'), /"status": "scheduled"/);
    assert.match((await tools.execute({ name: 'task_list', arguments: {}, callId: 'l' })).output, new RegExp(id));
    assert.match(await step('task_detach', {}, 'd'), /"detached": true/);
    assert.match(await step('task_cancel', {}, 'x'), /"status": "cancelled"/);
    assert.match((await tools.execute({ name: 'task_resume', arguments: { id }, callId: 'r2' })).output, /is cancelled/);
    // Another turn does not see an attached task of this one.
    const other = await tools.execute({ name: 'task_create', arguments: { tool: 'append_call_id', arguments: { file: 'z.txt' }, delaySeconds: 3600 }, callId: 'mine' }, { turnId: 'turn-a' });
    const hidden = await tools.execute({ name: 'task_get', arguments: { id: idOf(other.output) }, callId: 'theirs' }, { turnId: 'turn-b' });
    assert.match(hidden.error ?? hidden.output, /no task/);
    await tools.execute({ name: 'task_cancel', arguments: { id: idOf(other.output) }, callId: 'mine-x' }, { turnId: 'turn-a' });
  });

  it('asks a person when its call asks: a question in the ledger, answered with toolgate approvals allow', async () => {
    const made = await tools.execute({ name: 'task_create', arguments: { tool: 'append_call_id_asking', arguments: { file: 'asked.txt' } }, callId: 'ask-task' });
    assert.equal(made.success, true, made.output);
    assert.match(made.output, /will ask a person when it runs/);
    const id = idOf(made.output);
    let view = '';
    let n = 0;
    await until(async () => /waiting_for_approval/.test((view = (await tools.execute({ name: 'task_get', arguments: { id }, callId: `ask-get-${n++}` })).output)));
    const approvalId = /"approvalId": (\d+)/.exec(view)![1]!;
    assert.equal(fs.existsSync(path.join(t.ws, 'asked.txt')), false, 'not run before the answer');
    const allowed = await runCli(['approvals', 'allow', approvalId, '--workspace', t.ws, '--state-dir', path.join(state, 'toolgate')]);
    assert.equal(allowed.code, 0, allowed.stderr);
    const waited = await tools.execute({ name: 'task_wait', arguments: { id, timeoutSeconds: 60 }, callId: 'ask-wait' });
    assert.match(waited.output, /"status": "done"/);
    assert.equal(fs.readFileSync(path.join(t.ws, 'asked.txt'), 'utf8').trim().split('\n').length, 1);
  });

  it('denies a task\'s call when the policy denies its tool: when created, and when it runs', async () => {
    const policy = path.join(t.ws, '.toolgate', 'policy.toml');
    fs.mkdirSync(path.dirname(policy), { recursive: true });
    const before = await storedTasks();
    try {
      fs.writeFileSync(policy, '[[rules]]\ntool = "append_call_id"\naction = "deny"\nreason = "no appending here"\n');
      const refused = await tools.execute({ name: 'task_create', arguments: { tool: 'append_call_id', arguments: { file: 'denied.txt' } }, callId: 'deny-now' });
      assert.equal(refused.success, false);
      assert.match(refused.error ?? refused.output, /would be refused \(POLICY_DENIED\).*Nothing was stored/);
      assert.equal(await storedTasks(), before, 'nothing stored');
      // Allowed when created, denied when it runs: the call is decided then.
      fs.rmSync(policy);
      const made = await tools.execute({ name: 'task_create', arguments: { tool: 'append_call_id', arguments: { file: 'denied.txt' }, delaySeconds: 1 }, callId: 'deny-later' });
      assert.equal(made.success, true, made.output);
      fs.writeFileSync(policy, '[[rules]]\ntool = "append_call_id"\naction = "deny"\nreason = "no appending here"\n');
      const waited = await tools.execute({ name: 'task_wait', arguments: { id: idOf(made.output), timeoutSeconds: 60 }, callId: 'deny-wait' });
      assert.match(waited.output, /"status": "denied"/);
      assert.match(waited.output, /POLICY_DENIED/);
      assert.equal(fs.existsSync(path.join(t.ws, 'denied.txt')), false, 'the tool never ran');
    } finally {
      fs.rmSync(policy, { force: true });
    }
  });
});
