/**
 * Close-out through the executor: stop reasons and their priority, reported failures with the
 * exit status outside the cut (T6), kept full outputs (T7), empty output (T8), and images.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ToolExecutor, type ToolExecutionResult } from 'toolgate';
import { byStopPriority } from '../../src/closeout/results.js';
import type { RunOutcome } from '../../src/runner/runner.js';
import { ONE_PIXEL_PNG } from '../fixtures/behaviour.tool.js';
import { callsTo, fixtureRegistry, tempWorkspace } from '../helpers.js';

let tmp: ReturnType<typeof tempWorkspace>;
let executor: ToolExecutor;

before(async () => {
  tmp = tempWorkspace();
  executor = new ToolExecutor(await fixtureRegistry(), { workspaceRoot: tmp.ws });
});

after(async () => {
  await executor?.close();
  tmp?.cleanup();
});

const call = callsTo(() => executor);

describe('stop reasons', () => {
  test('completed, not_run, error, timeout and interrupted', async () => {
    assert.equal((await call('return_nothing')).stopReason, 'completed');
    assert.equal((await call('no_such_tool')).stopReason, 'not_run');
    assert.equal((await call('fail_always', { message: 'x' })).stopReason, 'error');
    assert.equal((await call('sleep_briefly', { ms: 5000 })).stopReason, 'timeout');
    const controller = new AbortController();
    const pending = call('wait_for_abort', {}, { signal: controller.signal });
    setTimeout(() => controller.abort(), 50);
    assert.equal((await pending).stopReason, 'interrupted');
  });

  test('a user interrupt outranks the error a tool throws when it is interrupted', async () => {
    const controller = new AbortController();
    const pending = call('throw_on_abort', {}, { signal: controller.signal });
    setTimeout(() => controller.abort(), 50);
    const result = await pending;
    assert.equal(result.errorCode, 'ABORTED');
    assert.equal(result.stopReason, 'interrupted');
  });

  test('a timeout outranks the error a tool throws when it is stopped', async () => {
    const result = await executor.execute({ name: 'throw_on_abort', arguments: {} }, { timeoutMs: 100 });
    assert.equal(result.errorCode, 'TIMEOUT');
    assert.equal(result.stopReason, 'timeout');
  });
});

describe('byStopPriority', () => {
  const error: RunOutcome = { kind: 'error', error: { name: 'Error', message: 'x' }, notes: [] };
  test('an interrupt outranks a timeout, a thrown error, a crash, memory and invalid output', () => {
    const outcomes: RunOutcome[] = [{ kind: 'timeout', timeoutMs: 5 }, error, { kind: 'crashed', message: 'x' }, { kind: 'memory', memoryMb: 1, message: 'x' }, { kind: 'invalid-output', message: 'x' }];
    for (const outcome of outcomes) {
      assert.deepEqual(byStopPriority(outcome, true), { kind: 'aborted' }, outcome.kind);
      assert.equal(byStopPriority(outcome, false), outcome, `${outcome.kind} without an interrupt`);
    }
  });
  test('a workspace escape stays an escape; a finished call and a call that never ran stay as they are', () => {
    const escape: RunOutcome = { kind: 'error', error: { name: 'PathTraversalError', message: 'x', code: 'PATH_TRAVERSAL' }, notes: [] };
    assert.equal(byStopPriority(escape, true), escape);
    const ok: RunOutcome = { kind: 'ok', value: 1, notes: [] };
    assert.equal(byStopPriority(ok, true), ok);
    const unavailable: RunOutcome = { kind: 'unavailable', code: 'OVERLOADED', message: 'x' };
    assert.equal(byStopPriority(unavailable, true), unavailable);
  });
});

describe('T6: a failure whose only message is on its last, very long line', () => {
  test('the result is a failure; the exit status and the failure are outside the cut; the last line is kept (head-tail)', async () => {
    const result = await call('fail_like_a_command', { lines: 500 });
    assert.equal(result.success, false);
    assert.equal(result.errorCode, 'TOOL_ERROR');
    assert.equal(result.stopReason, 'reported_error');
    assert.equal(result.error, 'the command exited with status 1');
    assert.match(result.output, /^compiling module\n/);
    assert.match(result.output, /omitted from the middle of \d+; limit 1000 characters/);
    assert.match(result.output, /THE END\n\[exit status 1\]\n\[fail_like_a_command reported a failure: the command exited with status 1\]$/);
  });
});

describe('T7: several MiB of output', () => {
  test('the model sees the cap with counts; the whole output is kept in a file the caller can read', async () => {
    const chars = 5 * 1024 * 1024;
    const result = await call('print_long_output', { chars });
    assert.equal(result.success, true);
    assert.match(result.output, /\[output truncated: \d+ of 5242880 characters \(\d+ lines?\) omitted; limit 1000 characters\]/);
    assert.ok(result.output.length < 1200);
    assert.ok(result.fullOutput, 'fullOutput is set');
    assert.equal(result.fullOutput.characters, chars);
    assert.equal(fs.statSync(result.fullOutput.path).size, chars);
    assert.equal((fs.statSync(result.fullOutput.path).mode & 0o777).toString(8), '600');
  });

  test('a caller folder keeps outputs after close; the cap deletes the oldest first; the temporary folder goes with close()', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'toolgate-kept-'));
    const own = new ToolExecutor(await fixtureRegistry(), { workspaceRoot: tmp.ws, outputStore: { dir, maxFiles: 2 } });
    const paths: string[] = [];
    for (let i = 0; i < 3; i++) paths.push((await own.execute({ name: 'print_long_output', arguments: { chars: 5000 } })).fullOutput!.path);
    await own.close();
    assert.deepEqual(paths.map((p) => fs.existsSync(p)), [false, true, true]);
    fs.rmSync(dir, { recursive: true, force: true });

    const temp = new ToolExecutor(await fixtureRegistry(), { workspaceRoot: tmp.ws });
    const kept = (await temp.execute({ name: 'print_long_output', arguments: { chars: 5000 } })).fullOutput!.path;
    assert.ok(fs.existsSync(kept));
    await temp.close();
    assert.ok(!fs.existsSync(path.dirname(kept)), 'the temporary folder is removed by close()');
  });

  test('a store that keeps nothing leaves no folder behind', async () => {
    const mine = () => fs.readdirSync(os.tmpdir()).filter((name) => name.startsWith(`toolgate-output-${process.pid}-`));
    const before = mine();
    const own = new ToolExecutor(await fixtureRegistry(), { workspaceRoot: tmp.ws });
    fs.writeFileSync(path.join(tmp.ws, 'small.txt'), 'small\n');
    await own.execute({ name: 'read_file', arguments: { filepath: 'small.txt' } });
    assert.deepEqual(mine(), before);
    await own.close();
  });

  test('outputStore: false keeps nothing', async () => {
    const own = new ToolExecutor(await fixtureRegistry(), { workspaceRoot: tmp.ws, outputStore: false });
    const result = await own.execute({ name: 'print_long_output', arguments: { chars: 5000 } });
    assert.equal(result.fullOutput, undefined);
    await own.close();
  });

  test('output within the cap is not kept', async () => {
    assert.equal((await call('print_long_output', { chars: 10 })).fullOutput, undefined);
  });
});

describe('T8 and images', () => {
  test('empty output is [no output], with the exit status note still present', async () => {
    const result = await call('return_nothing');
    assert.equal(result.output, '[no output]\n[exit status 0]');
  });

  test('images are carried on the result and announced after the text', async () => {
    const result = await call('attach_images', { count: 2 });
    assert.equal(result.success, true, result.output);
    assert.deepEqual(result.images, [ONE_PIXEL_PNG, ONE_PIXEL_PNG]);
    assert.match(result.output, /^a caption\n\[image 1 of 2 attached: image\/png, \d+ characters as a data URL\]\n\[image 2 of 2 attached/);
  });

  test('anything but an image data URL, or too many images, fails the call with a clear message', async () => {
    const bad = await call('attach_images', { count: 1, raw: 'data:text/html;base64,PGI+' });
    assert.equal(bad.success, false);
    assert.match(bad.output, /attachImage\(\) takes a base64 data URL/);
    const many = await call('attach_images', { count: 9 });
    assert.equal(many.success, false);
    assert.match(many.output, /at most 8 images/);
  });
});
