/**
 * Tasks stay within their creator's rights (security cases: privilege escalation via
 * scheduling): a task's call runs later with the options stored when it was created (session,
 * mode, approval mode, scoped write folders), so
 * - another caller who sees a detached task may not put its own arguments into it (they would
 *   run under the creator's approval mode, wider than the caller's own), nor resume or
 *   reschedule it (making the creator's call run when the creator did not choose);
 * - a caller confined to another workspace root (a per-call `workspaceRoot`) may not create a
 *   task: it would run in the tool system's workspace instead.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ToolSystem } from 'toolgate';
import { FIXTURE_SCHEMAS, FIXTURES_DIR, tempWorkspace } from '../helpers.js';

const FIXTURES = [{ directory: FIXTURES_DIR, schemas: FIXTURE_SCHEMAS }];
const idOf = (text: string | undefined): string => /"id": "(task_[0-9a-f]{16})"/.exec(text ?? '')?.[1] ?? 'none';

describe('a task stays within its creator\'s rights', () => {
  const t = tempWorkspace();
  const saved = { state: process.env.XDG_STATE_HOME, config: process.env.XDG_CONFIG_HOME };
  let tools: ToolSystem;
  before(async () => {
    process.env.XDG_STATE_HOME = path.join(t.root, 'state');
    process.env.XDG_CONFIG_HOME = path.join(t.root, 'config');
    tools = new ToolSystem({ workspace: t.ws, toolFolders: FIXTURES, executor: { policy: { user: false } } });
    await tools.start();
  });
  after(async () => {
    await tools.close();
    for (const [name, value] of [['XDG_STATE_HOME', saved.state], ['XDG_CONFIG_HOME', saved.config]] as const) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
    t.cleanup();
  });

  it('refuses new arguments for a detached task from a caller other than its creator', async () => {
    const creator = { session: 'wide', approvalMode: 'allow-all' as const };
    const made = await tools.execute({ name: 'task_create', arguments: { tool: 'append_call_id_asking', arguments: { file: 'a.txt' }, delaySeconds: 3600, detach: true }, callId: 'wide-create' }, creator);
    assert.equal(made.success, true, made.output);
    const id = idOf(made.output);
    // Another session, without allow-all (its call of append_call_id_asking would ask a person): it sees the detached task...
    const narrow = { session: 'narrow', confirmationHandler: null };
    assert.match((await tools.execute({ name: 'task_get', arguments: { id }, callId: 'narrow-get' }, narrow)).output, new RegExp(id));
    // ...but may not make it run its arguments under the creator's allow-all.
    const update = await tools.execute({ name: 'task_update', arguments: { id, arguments: { file: 'b.txt' } }, callId: 'narrow-update' }, narrow);
    assert.equal(update.success, false, update.output);
    assert.match(update.output, /Nothing was changed/);
    assert.deepEqual((await tools.executor.ledger!.task(id))!.arguments, { file: 'a.txt' });
    // The creator itself still may.
    const own = await tools.execute({ name: 'task_update', arguments: { id, arguments: { file: 'c.txt' } }, callId: 'wide-update' }, creator);
    assert.equal(own.success, true, own.output);
    await tools.execute({ name: 'task_cancel', arguments: { id }, callId: 'wide-cancel' }, creator);
  });

  it('refuses resuming or rescheduling a detached task from another session (it would run under its creator\'s rights)', async () => {
    const creator = { session: 'wide', approvalMode: 'allow-all' as const };
    const made = await tools.execute({ name: 'task_create', arguments: { tool: 'append_call_id_asking', arguments: { file: 'p.txt' }, delaySeconds: 3600, detach: true }, callId: 'wide-paused' }, creator);
    const id = idOf(made.output);
    assert.equal((await tools.execute({ name: 'task_pause', arguments: { id }, callId: 'wide-pause' }, creator)).success, true);
    const other = { session: 'other', confirmationHandler: null };
    for (const [name, args] of [['task_resume', {}], ['task_reschedule', { delaySeconds: 0 }]] as const) {
      const result = await tools.execute({ name, arguments: { id, ...args }, callId: `other-${name}` }, other);
      assert.equal(result.success, false, `${name}: ${result.output}`);
    }
    const stored = (await tools.executor.ledger!.task(id))!;
    assert.equal(stored.state, 'paused');
    assert.ok(stored.runAt > Date.now() + 3000_000, 'not brought forward');
    assert.equal((await tools.execute({ name: 'task_resume', arguments: { id }, callId: 'wide-resume' }, creator)).success, true);
    await tools.execute({ name: 'task_cancel', arguments: { id }, callId: 'wide-cancel-2' }, creator);
  });

  it('refuses a task from a caller confined to another workspace root', async () => {
    const sub = path.join(t.ws, 'sub');
    fs.mkdirSync(sub, { recursive: true });
    const before = (await tools.executor.ledger!.tasks({ limit: 1000 })).length;
    const made = await tools.execute({ name: 'task_create', arguments: { tool: 'append_call_id', arguments: { file: 'x.txt' }, delaySeconds: 3600 }, callId: 'sub-create' }, { workspaceRoot: sub });
    if (made.success) await tools.execute({ name: 'task_cancel', arguments: { id: idOf(made.output) }, callId: 'sub-cancel' }, { workspaceRoot: sub });
    assert.equal(made.success, false, made.output);
    assert.match(made.output, /Nothing was stored/);
    assert.equal((await tools.executor.ledger!.tasks({ limit: 1000 })).length, before);
  });
});
