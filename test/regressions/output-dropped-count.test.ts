// Regression (case T7's family, attack s19): a command writing 3 MB kept the first and last
// 512 KiB in its buffer, which marked the dropped middle in the text; the result's own
// truncation (16,000 characters) then cut that marker away and stated "1032686 characters
// omitted from the middle of 1048686", about a third of what was lost. What the buffer
// dropped is now stated in a note, outside every truncation.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ToolExecutor } from 'toolgate';
import { bubblewrapAvailable } from '../../src/internal.js';
import { portedRegistry, tempWorkspace, type TempWorkspace } from '../helpers.js';

const SANDBOX = bubblewrapAvailable() ? {} : { sandbox: 'none' as const };
const WRITTEN = 3_000_000;

describe('T7 family: what a command\'s output buffer dropped is counted', () => {
  let t: TempWorkspace;
  let executor: ToolExecutor;
  before(async () => {
    t = tempWorkspace();
    executor = new ToolExecutor(await portedRegistry(), { workspaceRoot: t.ws, ...SANDBOX });
  });
  after(async () => {
    await executor.close();
    t.cleanup();
  });

  test(`T7: run_command writing ${WRITTEN} characters says how many the buffer dropped, and the exit status`, async () => {
    const r = await executor.execute({ name: 'run_command', arguments: { command: `head -c ${WRITTEN} /dev/zero | tr '\\0' x; echo; echo LAST-LINE-ERROR; exit 1` } }, { confirm: true });
    assert.equal(r.success, false);
    const out = String(r.output);
    assert.match(out, /LAST-LINE-ERROR/);
    assert.match(out, /\[exit status 1\]/);
    const dropped = /\[output: (\d+) characters the command wrote were dropped/.exec(out);
    assert.ok(dropped !== null, `no count of what the buffer dropped: ${out.slice(-600)}`);
    // The buffer keeps 512 KiB at each end: the rest was dropped (a login shell's own notices may add a little).
    const expected = WRITTEN + 1 + 'LAST-LINE-ERROR\n'.length - 1024 * 1024;
    assert.ok(Number(dropped[1]) >= expected && Number(dropped[1]) < expected + 4096, dropped[0]);
  });
});
