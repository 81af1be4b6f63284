/**
 * A task made from `toolgate call` (a one-shot command, which runs no tasks) says so: its
 * `task_create` answer and a `task_wait` that timed out on it carry a note naming what runs
 * tasks, so a new user waiting for it is not left with a `scheduled` task and no reason.
 */
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { runCli, tempWorkspace } from '../helpers.js';

describe('task tools from toolgate call', () => {
  const tmp = tempWorkspace();
  after(() => tmp.cleanup());
  const common = ['--workspace', tmp.ws, '--state-dir', path.join(tmp.root, 'state'), '--no-policy'];

  test('task_create and a timed-out task_wait name the processes that run tasks', async () => {
    const created = await runCli(['call', 'task_create', '{"tool":"list_files","arguments":{"directory":"."},"detach":true}', ...common]);
    assert.equal(created.code, 0, created.stderr);
    const task = JSON.parse(created.stdout) as { id: string; status: string; note?: string };
    assert.equal(task.status, 'scheduled');
    assert.match(task.note ?? '', /this process runs no tasks.*toolgate mcp, toolgate agent, toolgate worker or a ToolSystem/);
    const waited = await runCli(['call', 'task_wait', JSON.stringify({ id: task.id, timeoutSeconds: 0 }), ...common]);
    assert.equal(waited.code, 0, waited.stderr);
    const view = JSON.parse(waited.stdout) as { status: string; waitEnded: string; note?: string };
    assert.equal(view.waitEnded, 'timeout');
    assert.match(view.note ?? '', /this process runs no tasks/);
  });
});
