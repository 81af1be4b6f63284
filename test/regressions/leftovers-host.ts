// A host process for nothing-left-behind.test.ts (run with TMPDIR pointed at a test folder):
//   node leftovers-host.js write WORKSPACE    keeps a cut output (an output store folder), then
//                                             writes 200 MiB with write_file; the test kills it
//                                             with SIGKILL in the middle of that write;
//   node leftovers-host.js idle WORKSPACE     starts with `sweepLeftovers: false`, waits a
//                                             second and ends: nothing may be removed;
//   node leftovers-host.js restart WORKSPACE  starts again (logging at info level on stderr,
//                                             where the executor's own sweep reports), waits
//                                             for that sweep and prints its report as JSON.
import fs from 'node:fs';
import path from 'node:path';
import { ToolSystem } from 'toolgate';

const [mode, workspace] = process.argv.slice(2);
if (workspace === undefined) throw new Error('usage: leftovers-host.js write|idle|restart WORKSPACE');
const tools = new ToolSystem({
  workspace,
  ported: false,
  // The output store under TMPDIR is what the test inspects (a ledger would keep outputs instead).
  ledger: false,
  logLevel: mode === 'restart' ? 'info' : 'silent',
  // 200 MiB arguments pass a bound raised for them (the default is 64 MiB).
  executor: { maxArgumentBytes: 256 * 1024 * 1024, sweepLeftovers: mode !== 'idle' },
});
await tools.start();
if (mode === 'write') {
  fs.writeFileSync(path.join(workspace, 'long.txt'), 'a line of a long file\n'.repeat(5000));
  const read = await tools.executor.call('read_file', { filepath: 'long.txt' });
  process.stdout.write(`store ${read.fullOutput === undefined ? '' : path.dirname(read.fullOutput.path)}\n`);
  const written = await tools.executor.call('write_file', { filepath: 'big.txt', content: 'x'.repeat(200 * 1024 * 1024) }, { confirm: true, timeoutMs: 0 });
  process.stdout.write(`written ${written.success} ${written.error ?? ''}\n`);
} else if (mode === 'idle') {
  await new Promise((resolve) => setTimeout(resolve, 1000));
} else {
  // The executor started the sweep when it was made; this waits for that same sweep (its
  // report is logged before this line runs). Imported here and optional, so that this host
  // runs on code without the sweep too (the test then fails on what is left).
  const leftovers = await import('../../src/workspace/leftovers.js').catch(() => undefined);
  const report = leftovers === undefined ? {} : await leftovers.sweepStaleOnce();
  process.stdout.write(`${JSON.stringify(report)}\n`);
}
await tools.close();
