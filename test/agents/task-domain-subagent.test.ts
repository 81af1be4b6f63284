/**
 * A subagent run as a task (issue 35 item 2): through GeneralAgent with scripted models and
 * lazy domains, the parent requests `task`, creates a task that is a subagent run, waits for
 * it and sees the subagent's answer; the subagent's own call is decided and recorded as the
 * parent's calls are (its turn names the task's call). A caller that cannot start subagents
 * (no `subagents` option) cannot make one a task; `tool` with `subagent` is bad input; either
 * way nothing is stored. A subagent task due after its agent's process (here: tool system) is
 * gone ends failed (`CLIENT_UNAVAILABLE`), never run by another agent; while that process
 * runs, other processes leave it to it.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { GeneralAgent, ToolSystem } from 'toolgate';
import { hostId } from '../../src/ledger/owner.js';
import { FIXTURES, idOf, taskSystem } from './task-system.js';
import { finalAnswer, offeredTools, ScriptedModel, toolCalls, toolMessages } from './scripted-model.js';


describe('a subagent run as a task', () => {
  const system = taskSystem();
  const t = system.t;
  let tools: ToolSystem;
  before(async () => {
    tools = await system.start();
  });
  after(() => system.stop());

  it('is created by an agent, runs as its run_subagent call, and its answer is seen by the model', async () => {
    const child = new ScriptedModel([
      toolCalls(['a', 'append_call_id', { file: 'sub.txt' }]),
      finalAnswer('the line is appended'),
    ]);
    const parent = new ScriptedModel([
      toolCalls(['r', 'request_tools', { domains: ['task'], reason: 'delegate in the background' }]),
      toolCalls(['c', 'task_create', { subagent: { prompt: 'Append a line to sub.txt with append_call_id, then say so.', model_id: 'helper' }, title: 'delegated', delaySeconds: 1 }]),
      (request) => toolCalls(['w', 'task_wait', { id: idOf(toolMessages(request).get('c')), timeoutSeconds: 60 }]),
      finalAnswer('done'),
    ]);
    const agent = new GeneralAgent({ tools, model: parent, lazyDomains: true, subagents: { models: { helper: child } } });
    const run = await agent.run('delegate appending a line, in the background');
    assert.equal(run.stopReason, 'final');
    assert.ok(offeredTools(parent.requests[1]).includes('task_create'));
    for (const r of run.results) assert.equal(r.success, true, `${r.tool}: ${r.output}`);
    const created = JSON.parse(toolMessages(parent.requests[2]!).get('c')!) as { id: string; tool: string; status: string };
    assert.equal(created.tool, 'run_subagent');
    const waited = JSON.parse(toolMessages(parent.requests[3]!).get('w')!) as { status: string; waitEnded: string; result: { success: boolean; output: string } };
    assert.equal(waited.status, 'done', JSON.stringify(waited));
    assert.equal(waited.result.success, true);
    assert.match(waited.result.output, /the line is appended/);
    assert.equal(fs.readFileSync(path.join(t.ws, 'sub.txt'), 'utf8').trim().split('\n').length, 1);
    // The subagent's call is in the ledger, under a turn that names the task's call.
    const calls = await tools.executor.ledger!.list({ limit: 1000 });
    const childCall = calls.find((c) => c.tool === 'append_call_id' && c.turn.includes(created.id));
    assert.ok(childCall, calls.map((c) => `${c.tool} ${c.turn}`).join(' | '));
    assert.equal(childCall.state, 'done');
  });

  it('is refused for a caller that cannot start subagents, and with a tool besides; nothing is stored', async () => {
    const before = (await tools.executor.ledger!.tasks({ limit: 1000 })).length;
    const none = await tools.execute({ name: 'task_create', arguments: { subagent: { prompt: 'do it' } }, callId: 'no-driver' });
    assert.equal(none.success, false, none.output);
    assert.match(none.output, /needs an agent with subagents/);
    const both = await tools.execute({ name: 'task_create', arguments: { tool: 'append_call_id', subagent: { prompt: 'do it' } }, callId: 'both' });
    assert.equal(both.errorCode, 'INVALID_ARGUMENTS', both.output);
    const neither = await tools.execute({ name: 'task_create', arguments: { delaySeconds: 5 }, callId: 'neither' });
    assert.equal(neither.errorCode, 'INVALID_ARGUMENTS', neither.output);
    assert.equal((await tools.executor.ledger!.tasks({ limit: 1000 })).length, before);
  });

  it('ends failed, unrun, when it comes due after its agent\'s tool system is gone', async () => {
    const first = new ToolSystem({ workspace: t.ws, toolFolders: FIXTURES, executor: { policy: { user: false } }, runTasks: false });
    await first.start();
    const child = new ScriptedModel([toolCalls(['a', 'append_call_id', { file: 'never.txt' }]), finalAnswer('appended')]);
    const parent = new ScriptedModel([
      toolCalls(['r', 'request_tools', { domains: ['task'], reason: 'later' }]),
      toolCalls(['c', 'task_create', { subagent: { prompt: 'Append a line to never.txt.', model_id: 'helper' }, delaySeconds: 3600 }]),
      finalAnswer('scheduled'),
    ]);
    await new GeneralAgent({ tools: first, model: parent, lazyDomains: true, subagents: { models: { helper: child } } }).run('schedule it');
    const id = idOf(toolMessages(parent.requests[2]!).get('c'));
    await first.close();
    const store = tools.executor.ledger!;
    const task = (await store.task(id))!;
    assert.ok(await store.updateTask(id, ['scheduled'], { runAt: Date.now() }));
    // A tool system started now runs it at once (as may this test's own, at its next look), without the agent that made it.
    const second = new ToolSystem({ workspace: t.ws, toolFolders: FIXTURES, executor: { policy: { user: false } } });
    await second.start();
    const deadline = Date.now() + 60_000;
    while ((await store.get(id, task.session))?.state !== 'failed' && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    await second.close();
    const call = await store.get(id, task.session);
    assert.equal(call?.state, 'failed');
    assert.equal((await store.result(id, task.session))?.result.errorCode, 'CLIENT_UNAVAILABLE');
    assert.equal(fs.existsSync(path.join(t.ws, 'never.txt')), false);
    assert.equal(child.requests.length, 0, 'no subagent ran');
  });

  it('is left to the process of its agent while that process runs; once it is gone, it ends unrun', async () => {
    const store = tools.executor.ledger!;
    const holder = spawn(process.execPath, ['-e', 'setInterval(() => undefined, 1000)'], { stdio: 'ignore' });
    try {
      const now = Date.now();
      const held = 'task_00000000000000d1';
      const plain = 'task_00000000000000d2';
      await store.createTask({
        id: held, workspace: tools.workspace, session: 'held', scope: 'held', detached: false, tool: 'run_subagent', version: '1.0.0', arguments: { prompt: 'x' },
        options: { mode: 'default', holder: `${hostId()}:${holder.pid}:0` }, title: '', state: 'scheduled', runAt: now - 2, callId: held,
      });
      await store.createTask({
        id: plain, workspace: tools.workspace, session: 'held', scope: 'held', detached: false, tool: 'append_call_id', version: '1.0.0', arguments: { file: 'plain.txt' },
        options: { mode: 'default' }, title: '', state: 'scheduled', runAt: now - 1, callId: plain,
      });
      const other = new ToolSystem({ workspace: t.ws, toolFolders: FIXTURES, executor: { policy: { user: false } } });
      await other.start();
      try {
        // Its first look took both due tasks in turn: the plain one ran, the held one was left.
        const deadline = Date.now() + 60_000;
        while ((await store.get(plain, 'held'))?.state !== 'done' && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
        assert.equal((await store.get(plain, 'held'))?.state, 'done');
        assert.equal((await store.task(held))?.state, 'scheduled', 'left to its agent\'s process');
        const gone = new Promise((resolve) => holder.once('exit', resolve));
        holder.kill('SIGKILL');
        await gone;
        while ((await store.get(held, 'held'))?.state !== 'failed' && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
        assert.equal((await store.result(held, 'held'))?.result.errorCode, 'CLIENT_UNAVAILABLE');
      } finally {
        await other.close();
      }
    } finally {
      if (holder.exitCode === null && holder.signalCode === null) holder.kill('SIGKILL');
    }
  });
});
