/**
 * The Python sandbox of execute_python (src/sandbox/), driven directly: output caps and
 * timeouts, the catalogue of known escape routes (cases S1 and S2 of the security checklist,
 * R2 of the output cases), isolation, and sessions. The tool through a real executor is
 * test/tools/execute-python.test.ts (a file of its own, so that the two run side by side).
 *
 * Each interpreter takes a few seconds to load, so the escape catalogue runs in one named
 * session (state carried from one attempt to the next only makes later attempts stronger);
 * a few entries also run through the tool in fresh interpreters (in the tool's file).
 *
 * Where bubblewrap is missing, the interpreter is never started unconfined unless the profile
 * `none` was chosen: the escape catalogue then checks the refusal, and the other tests choose
 * `none` explicitly (`TOOLGATE_BWRAP=/nonexistent` runs that branch on a machine with it).
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { SandboxUnavailableError, ToolExecutionError } from 'toolgate';
import { bubblewrapAvailable } from '../../../src/internal.js';
import { pythonOutput } from '../../../tools/execute-python.tool.js';
import { PythonSandbox, type PythonRunResult } from '../../../tools-ported/common/python-sandbox.js';
import { PYTHON_ESCAPE_VECTORS, renderEscapeVector, STRIP_SECOND_LAYER } from '../../fixtures/python-escape-vectors.js';
import { SECRET_TEXT, startHostTargets, type HostTargets } from './host-targets.js';
import { textFrom, waitFor } from '../../wait.js';

let sandbox: PythonSandbox;
let targets: HostTargets;
let socketPath: string;
let url: string;
let hits: string[];
let secretFile: string;
let markerDir: string;

const HAS_BWRAP = bubblewrapAvailable();
/** The profile of the tests that are not about isolation: the default, or none where bubblewrap is missing. */
const PROFILE = HAS_BWRAP ? 'workspace-write' : 'none';

before(async () => {
  targets = await startHostTargets();
  ({ secretFile, markerDir, url, socketPath, hits } = targets);
  sandbox = new PythonSandbox({ maxOutputChars: 20_000, sandbox: PROFILE });
});

after(async () => {
  sandbox?.close();
  await targets?.close();
});

/** Whether `ancestor` is on the chain of parents of `pid` (false once either is gone). */
function descendsFrom(pid: number, ancestor: number): boolean {
  const parentOf = (p: number) => Number(fs.readFileSync(`/proc/${p}/stat`, 'utf8').replace(/^.*\) /s, '').split(' ')[1]);
  try {
    for (let p = pid; p > 1; p = parentOf(p)) if (p === ancestor) return true;
  } catch {
    // gone meanwhile
  }
  return false;
}

/** CPU time (user and system, in clock ticks) process `pid` has used so far; 0 once it is gone. */
function cpuTicks(pid: number): number {
  try {
    const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /s, '').split(' ');
    return Number(fields[11]) + Number(fields[12]);
  } catch {
    return 0;
  }
}

/** Interpreter processes of the sandbox still running on this machine (by their entry file, from /proc). */
function interpreterPids(): number[] {
  const pids: number[] = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (fs.readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes('python-child.cjs')) pids.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return pids;
}

describe('the sandbox directly', () => {
  test('R2: endless output is capped at the sandbox limit, the timeout still fires, and the host keeps only the cap', async () => {
    const before = process.memoryUsage().rss;
    const result = await sandbox.run('while True:\n    print("y" * 1000)', { timeoutMs: 1500 });
    assert.equal(result.status, 'timeout');
    assert.equal(result.stdout.length, 20_000, 'output kept up to the cap only');
    assert.ok(result.stdout.startsWith('yyyy'), 'the head is kept');
    assert.ok(process.memoryUsage().rss - before < 200 * 1024 * 1024, 'host memory stays bounded');
  });

  test('S2: an endless loop is stopped by its timeout (its interpreter killed), not before, and the next run works', async () => {
    const result = await sandbox.run('while True: pass', { timeoutMs: 1000 });
    // A run answers once its interpreter has ended ('ended' in the reply): a timeout status is
    // the killed interpreter, stopped by the timer (the reason), not by anything else.
    assert.equal(result.status, 'timeout');
    assert.equal(result.reason, 'timed out after 1000 ms');
    assert.ok(result.runMs >= 950, `stopped after ${result.runMs} ms, before its timeout`); // timers may fire a millisecond early by Date.now()
    const next = await sandbox.run('print("next")', { timeoutMs: 10_000 });
    assert.equal(next.status, 'ok');
    assert.equal(next.stdout, 'next\n');
  });

  test('output past the cap of a finished run is counted', async () => {
    const result = await sandbox.run('print("z" * 50_000)', { timeoutMs: 10_000 });
    assert.equal(result.status, 'ok');
    assert.equal(result.stdout.length, 20_000);
    assert.equal(result.stdoutOmitted, 50_001 - 20_000);
    const text = pythonOutput(result, 10, () => undefined);
    assert.match(text, /\[30001 more characters of standard output were dropped\]$/);
  });

  test('an aborted run kills its interpreter and says aborted', async () => {
    const controller = new AbortController();
    const running = sandbox.run('while True: pass', { timeoutMs: 0, signal: controller.signal });
    setTimeout(() => controller.abort(), 300);
    const result = await running;
    assert.equal(result.status, 'aborted');
  });

  test('a closed sandbox refuses runs', async () => {
    const own = new PythonSandbox({ sandbox: PROFILE });
    const result = await own.run('print(1)', { timeoutMs: 5000 });
    assert.equal(result.status, 'ok');
    own.close();
    await assert.rejects(own.run('print(1)', { timeoutMs: 5000 }), /closed/);
  });

  test('pythonOutput states each ending clearly, and warns when the network was not isolated', () => {
    const base: PythonRunResult = { status: 'ok', stdout: 'hi\n', stderr: '', stdoutOmitted: 0, stderrOmitted: 0, runMs: 3, waitMs: 0, networkIsolated: false, isolation: 'none', session: false };
    const notes: string[] = [];
    assert.equal(pythonOutput(base, 15, (n) => notes.push(n)), 'hi\n');
    assert.match(notes[0]!, /ran without a sandbox \(the profile none was chosen\)/);
    for (const [status, code] of [['timeout', 'TIMEOUT'], ['memory', 'MEMORY_LIMIT'], ['aborted', 'ABORTED'], ['crashed', 'TOOL_ERROR']] as const) {
      assert.throws(
        () => pythonOutput({ ...base, status, networkIsolated: true, isolation: 'bubblewrap' }, 15, () => undefined),
        (error: unknown) => error instanceof ToolExecutionError && error.code === code && error.message.includes('hi'),
        status,
      );
    }
  });
});

describe('S1: the escape catalogue', () => {
  test('the catalogue has at least ten entries with unique ids', () => {
    assert.ok(PYTHON_ESCAPE_VECTORS.length >= 10);
    assert.equal(new Set(PYTHON_ESCAPE_VECTORS.map((v) => v.id)).size, PYTHON_ESCAPE_VECTORS.length);
  });

  test('control: without the sandbox, the constructor-chain route does write a file on the host', async () => {
    // Proves the marker checks below can fail: plain Pyodide in a plain Node process.
    const pyodideDir = path.dirname(createRequire(import.meta.url).resolve('pyodide/package.json'));
    const marker = path.join(markerDir, 'control-marker');
    const vector = PYTHON_ESCAPE_VECTORS.find((v) => v.id === 'pyodide-js-constructor-chain')!;
    const code = renderEscapeVector(vector, { marker, secret: secretFile, url, socket: socketPath });
    const script = `const { loadPyodide } = await import(${JSON.stringify(`file://${pyodideDir}/pyodide.mjs`)});
      const py = await loadPyodide();
      await py.runPythonAsync(${JSON.stringify(code)});`;
    const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', timeout: 60_000 });
    assert.equal(run.status, 0, run.stderr);
    assert.equal(fs.readFileSync(marker, 'utf8'), 'escaped');
    fs.rmSync(marker);
  });

  for (const vector of PYTHON_ESCAPE_VECTORS) {
    test(`S1 ${vector.id}: ${vector.route} -> no effect on the host`, async () => {
      const marker = path.join(markerDir, `${vector.id}.marker`);
      const hitsBefore = hits.length;
      const code = renderEscapeVector(vector, { marker, secret: secretFile, url, socket: socketPath });
      if (!HAS_BWRAP) {
        // No bubblewrap here: the default profile refuses to start an interpreter at all.
        await assert.rejects(new PythonSandbox({ standby: false }).run(code, { timeoutMs: 15_000 }), (error: unknown) => error instanceof SandboxUnavailableError && error.code === 'SANDBOX_UNAVAILABLE' && /bubblewrap/.test(error.message));
        assert.ok(!fs.existsSync(marker) && hits.length === hitsBefore);
        return;
      }
      const result = await sandbox.run(code, { timeoutMs: 15_000, session: 'escape-catalogue' });
      const seen = `${result.stdout}\n${result.stderr}\n${result.error?.traceback ?? ''}\n${result.reason ?? ''}`;
      assert.ok(!fs.existsSync(marker), `${vector.id}: the marker must not exist on the host`);
      assert.ok(!seen.includes(SECRET_TEXT), `${vector.id}: the secret's content must not come back`);
      assert.ok(['ok', 'error', 'crashed'].includes(result.status), `${vector.id}: ended as ${result.status}: ${seen}`);
      assert.equal(result.isolation, 'bubblewrap');
      assert.equal(hits.length, hitsBefore, `${vector.id}: no host server or socket may be reached (${hits.join(', ')})`);
      // The result a model would see is clear: it says how the run ended.
      let message: string;
      try {
        message = pythonOutput(result, 15, () => undefined);
      } catch (error) {
        assert.ok(error instanceof ToolExecutionError);
        message = error.message;
      }
      if (result.status === 'error') assert.match(message, new RegExp(`Python raised ${result.error!.type}`));
      if (result.status === 'crashed') assert.match(message, /interpreter crashed/);
    });
  }

  test('the second layer alone refuses the bridge modules', async () => {
    for (const module of ['js', 'pyodide_js', 'pyodide.code', 'pyodide.ffi']) {
      const result = await sandbox.run(`import ${module}`, { timeoutMs: 10_000, session: 'second-layer' });
      assert.equal(result.status, 'error', module);
      assert.match(result.error!.message, /not available in this sandbox|halted/, module);
    }
    assert.ok(STRIP_SECOND_LAYER.includes('meta_path'));
  });

  test('closing a sandbox ends its interpreters, the standby included', async () => {
    // In a host process of its own: other test files start interpreters at the same time, and
    // this file's shared sandbox may be loading a standby, so only the host's descendants count.
    const script = `import { PythonSandbox } from ${JSON.stringify(new URL('../../../tools-ported/common/python-sandbox.js', import.meta.url).href)};
      const sb = new PythonSandbox({ sandbox: ${JSON.stringify(PROFILE)} });
      await sb.run('print(1)', { timeoutMs: 20000 });
      console.log('ran');
      process.stdin.once('data', () => { sb.close(); console.log('closed'); });
      setInterval(() => {}, 1000);`;
    const host = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['pipe', 'pipe', 'inherit'] });
    try {
      const said = (line: string) => new Promise<void>((resolve, reject) => {
        let seen = '';
        const onData = (chunk: Buffer) => {
          seen += chunk.toString();
          if (seen.includes(`${line}\n`)) {
            host.stdout!.off('data', onData);
            resolve();
          }
        };
        host.stdout!.on('data', onData);
        host.once('exit', (code) => reject(new Error(`the host exited (${code}) before saying ${line}`)));
      });
      await said('ran');
      // The standby is spawned at the end of the run; on a busy machine it may not have reached exec yet.
      const during = await waitFor(() => {
        const pids = interpreterPids().filter((pid) => descendsFrom(pid, host.pid!));
        return pids.length > 0 ? pids : undefined;
      }, { what: 'a standby interpreter to be loading for the next call', intervalMs: 100 });
      host.stdin!.write('close\n');
      await said('closed');
      // Gone, not gone within 5 s: the bound is for a loaded machine.
      await waitFor(() => interpreterPids().filter((pid) => during.includes(pid)).length === 0, { what: 'no interpreter of the closed sandbox to be left', intervalMs: 100, seen: () => interpreterPids().filter((pid) => during.includes(pid)).join(', ') });
    } finally {
      host.kill('SIGKILL');
    }
  });
});

describe('isolation on this machine', () => {
  test('bubblewrap when it is installed and works, else unavailable (never a weaker fallback); none only when chosen', async () => {
    const kind = await new PythonSandbox({ standby: false }).isolation();
    const has = (cmd: string) => spawnSync('sh', ['-c', `command -v ${cmd}`]).status === 0;
    if (has('bwrap') && process.env.TOOLGATE_BWRAP === undefined) assert.equal(kind, 'bubblewrap', 'bwrap is installed (CI installs it): it must be used');
    assert.equal(kind, HAS_BWRAP ? 'bubblewrap' : 'unavailable');
    assert.equal(await new PythonSandbox({ standby: false, sandbox: 'none' }).isolation(), 'none');
    assert.ok(os.platform() === 'linux' || kind !== 'bubblewrap');
  });

  test('the interpreter dies with its host: a host killed mid-run leaves no interpreter', async () => {
    const tag = `hostdeath${process.pid}`;
    // The session's interpreter answers a first run, so it has loaded: the host says so, then
    // starts the endless run in it (no fixed wait for the interpreter to load and start spinning).
    const script = `import { PythonSandbox } from ${JSON.stringify(new URL('../../../tools-ported/common/python-sandbox.js', import.meta.url).href)};
      const sb = new PythonSandbox({ standby: false, sandbox: ${JSON.stringify(PROFILE)} });
      const first = await sb.run('print("loaded")', { timeoutMs: 60000, session: 'spin' });
      sb.run('while True: pass  # ${tag}', { timeoutMs: 60000, session: 'spin' });
      console.log(first.stdout.trim());
      setInterval(() => {}, 1000);`;
    const host = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
    let before: number[];
    try {
      // The host loaded an interpreter and ran code in it.
      await textFrom(host.stdout!).waitFor('loaded', 'the host to say its interpreter loaded', 60_000);
      before = interpreterPids().filter((pid) => descendsFrom(pid, host.pid!));
      assert.ok(before.length > 0, 'the host started an interpreter');
      // The endless run is under way: the interpreter spends CPU (0.2 s of it), no fixed wait.
      const spent = before.map(cpuTicks);
      await waitFor(() => before.some((pid, i) => cpuTicks(pid) - spent[i]! >= 20), { what: 'the endless run to spin in the interpreter', intervalMs: 100 });
    } finally {
      host.kill('SIGKILL');
    }
    await waitFor(() => interpreterPids().filter((pid) => before.includes(pid)).length === 0, { what: 'the interpreter of a dead host to be gone', intervalMs: 100, seen: () => interpreterPids().filter((pid) => before.includes(pid)).join(', ') });
  });
});

describe('sessions under load', () => {
  test('two runs on one session at once go one after the other, each with its own output', async () => {
    const [first, second] = await Promise.all([
      sandbox.run('import time\ntime.sleep(0.5)\nprint("first")', { timeoutMs: 10_000, session: 'shared' }),
      sandbox.run('print("second")', { timeoutMs: 10_000, session: 'shared' }),
    ]);
    assert.equal(first.status, 'ok');
    assert.equal(first.stdout, 'first\n');
    assert.equal(second.status, 'ok');
    assert.equal(second.stdout, 'second\n');
  });

  test('a running session is never evicted: with every session running, a new one is refused', async () => {
    const own = new PythonSandbox({ maxSessions: 1, standby: false, sandbox: PROFILE });
    // Session a is running from the call on, while its interpreter loads (seconds) and then
    // sleeps: b is asked for well within that.
    const long = own.run('import time\ntime.sleep(0.5)\nprint("done")', { timeoutMs: 20_000, session: 'a' });
    await new Promise((resolve) => setTimeout(resolve, 200));
    await assert.rejects(own.run('print(1)', { timeoutMs: 5000, session: 'b' }), /all 1 Python sessions are running/);
    assert.equal((await long).stdout, 'done\n');
    const next = await own.run('print(2)', { timeoutMs: 20_000, session: 'b' });
    assert.equal(next.stdout, '2\n', 'an idle session is evicted for a new one');
    own.close();
  });

  test('output without a final newline is kept; tasks left running are cancelled when the run ends', async () => {
    const noNewline = await sandbox.run('print(6 * 7, end="")', { timeoutMs: 10_000, session: 'tasks' });
    assert.equal(noNewline.stdout, '42');
    await sandbox.run('import asyncio\nasync def burn():\n    while True:\n        await asyncio.sleep(0)\nt = asyncio.ensure_future(burn())', { timeoutMs: 10_000, session: 'tasks' });
    const after = await sandbox.run('print(t.cancelled() or t.done())', { timeoutMs: 10_000, session: 'tasks' });
    assert.equal(after.stdout, 'True\n');
  });

  test('a huge exception message is capped', async () => {
    const result = await sandbox.run('raise ValueError("A" * 10_000_000)', { timeoutMs: 20_000 });
    assert.equal(result.status, 'error');
    assert.ok(result.error!.message.length < 3000 && result.error!.traceback.length < 25_000);
  });
});
