/**
 * The sandbox of the shell and Python tools (src/sandbox/bubblewrap.ts), through a real
 * executor: what a command cannot do under the default profile (read a host process's
 * environment, reach a loopback listener of the host, write outside the workspace or into
 * `.git`, leave toolgate's pids cgroup, outlive a host killed with SIGKILL: cases R7 and R11),
 * the `read-only` profile and scoped write folders, and the refusal where bubblewrap is missing.
 *
 * Absence is simulated with `TOOLGATE_BWRAP` naming a missing binary, so both branches run on
 * a machine with bubblewrap. On a machine without it, the tests that need it check the refusal
 * instead (see the `describe` names); `TOOLGATE_BWRAP=/nonexistent npm test` runs that branch here.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { SandboxUnavailableError, ToolExecutor, ToolgateOptionError, type ToolExecutionResult } from 'toolgate';
import { sandboxLauncher } from '../../src/tool.js';
import { BWRAP_ENV, bubblewrapAvailable } from '../../src/internal.js';
import { processLimitAvailable } from '../../tools-ported/shell/command-process.js';
import { portedRegistry, tempWorkspace, type TempWorkspace } from '../helpers.js';
import { waitFor } from '../wait.js';

const HAS_BWRAP = bubblewrapAvailable();
const SECRET = `sk-openai-sandbox-test-${crypto.randomBytes(6).toString('hex')}`;

let tmp: TempWorkspace;
let executor: ToolExecutor;
let realHome: string | undefined;

before(async () => {
  tmp = tempWorkspace();
  process.env.OPENAI_API_KEY = SECRET;
  // Commands run as login shells: an empty home keeps the machine's profile out of the tests.
  realHome = process.env.HOME;
  process.env.HOME = path.join(tmp.root, 'home');
  fs.mkdirSync(process.env.HOME);
  executor = new ToolExecutor(await portedRegistry(), { workspaceRoot: tmp.ws });
});

after(async () => {
  await executor?.close();
  delete process.env.OPENAI_API_KEY;
  if (realHome === undefined) delete process.env.HOME;
  else process.env.HOME = realHome;
  tmp?.cleanup();
});

function run(command: string, on: ToolExecutor = executor): Promise<ToolExecutionResult> {
  // approved by a person: a protected path's question is not answered by confirm: true alone (session 21); the kernel barrier is what is tested
  return on.execute({ name: 'run_command', arguments: { command } }, { confirm: true, confirmationHandler: () => 'allow_once' });
}

/** Pids of processes (other than this one) whose command line holds `tag`, from /proc. */
function pidsWith(tag: string): number[] {
  const found: number[] = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      if (fs.readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes(tag)) found.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return found;
}

async function until(check: () => boolean, ms: number): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (check()) return true;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return check();
}

/** Run `work` with `TOOLGATE_BWRAP` naming a binary that does not exist: a machine without bubblewrap. */
async function withoutBubblewrap<T>(work: () => Promise<T>): Promise<T> {
  const saved = process.env[BWRAP_ENV];
  process.env[BWRAP_ENV] = path.join(tmp.root, 'no-such-dir', 'bwrap');
  try {
    return await work();
  } finally {
    if (saved === undefined) delete process.env[BWRAP_ENV];
    else process.env[BWRAP_ENV] = saved;
  }
}

function assertRefused(result: ToolExecutionResult, label: string): void {
  assert.equal(result.success, false, `${label}: ${result.output}`);
  assert.equal(result.errorCode, 'SANDBOX_UNAVAILABLE', `${label}: ${result.output}`);
  assert.match(result.output, /sandbox unavailable/, label);
  assert.match(result.output, /Debian package `bubblewrap`/, label);
  assert.match(result.output, /--dangerously-disable-sandbox/, label);
}

describe('without bubblewrap (TOOLGATE_BWRAP names a missing binary)', () => {
  test('run_command, exec_command and execute_python refuse with a result naming the Debian package; the host goes on', async () => {
    await withoutBubblewrap(async () => {
      const own = new ToolExecutor(await portedRegistry(), { workspaceRoot: tmp.ws });
      try {
        const tag = `tgrefuse${crypto.randomBytes(4).toString('hex')}`;
        assertRefused(await run(`touch ${tag}; sleep 30; : ${tag}`, own), 'run_command');
        assertRefused(await own.execute({ name: 'exec_command', arguments: { cmd: `sleep 30; : ${tag}` } }, { confirm: true }), 'exec_command');
        assertRefused(await own.execute({ name: 'execute_python', arguments: { code: 'print(1)' } }, { confirm: true }), 'execute_python');
        assert.equal(pidsWith(tag).length, 0, 'nothing was started');
        assert.ok(!fs.existsSync(path.join(tmp.ws, tag)), 'the command did not run');
      } finally {
        await own.close();
      }
    });
  });

  test('sandboxLauncher throws SandboxUnavailableError for every profile but none', async () => {
    await withoutBubblewrap(async () => {
      const mounts = { workspace: tmp.ws, cwd: tmp.ws };
      for (const profile of ['workspace-write', 'read-only'] as const) {
        assert.throws(() => sandboxLauncher({ profile, network: false }, mounts, 'a test'), (error: unknown) => error instanceof SandboxUnavailableError && error.code === 'SANDBOX_UNAVAILABLE');
      }
      assert.deepEqual(sandboxLauncher({ profile: 'none', network: false }, mounts, 'a test'), []);
    });
  });

  test('with the profile none chosen explicitly, run_command and execute_python run without a sandbox', async () => {
    await withoutBubblewrap(async () => {
      const own = new ToolExecutor(await portedRegistry(), { workspaceRoot: tmp.ws, sandbox: 'none' });
      try {
        const shell = await run('echo unconfined', own);
        assert.equal(shell.output, 'unconfined\n[exit status 0]');
        const python = await own.execute({ name: 'execute_python', arguments: { code: 'print(6 * 7)' } }, { confirm: true });
        assert.equal(python.success, true, python.output);
        assert.match(python.output, /^42\n/);
        assert.match(python.output, /ran without a sandbox \(the profile none was chosen\)/, 'the result says the code was not confined');
      } finally {
        await own.close();
      }
    });
  });
});

describe('the sandbox options', () => {
  test('a profile that does not exist, or a sandboxNetwork that is not a boolean, fails the constructor naming the option', async () => {
    const registry = await portedRegistry();
    assert.throws(() => new ToolExecutor(registry, { sandbox: 'off' as never }), (error: unknown) => error instanceof ToolgateOptionError && /options\.sandbox must be one of workspace-write, read-only, none/.test(error.message));
    assert.throws(() => new ToolExecutor(registry, { sandboxNetwork: 'yes' as never }), (error: unknown) => error instanceof ToolgateOptionError && /options\.sandboxNetwork must be a boolean/.test(error.message));
  });
});

if (!HAS_BWRAP) {
  describe('bubblewrap is not installed on this machine', () => {
    test('so the shell and Python tools refuse under the default profile (the security checks below need bubblewrap)', async () => {
      assertRefused(await run('cat /proc/$PPID/environ'), 'run_command');
      assertRefused(await executor.execute({ name: 'exec_command', arguments: { cmd: 'sleep 1' } }, { confirm: true }), 'exec_command');
      assertRefused(await executor.execute({ name: 'execute_python', arguments: { code: 'print(1)' } }, { confirm: true }), 'execute_python');
    });
  });
} else {
  describe('with bubblewrap: what a command cannot do under workspace-write', () => {
    test('R11: no host process, and no host environment, is in sight; walking /proc/*/environ finds no secret', async () => {
      // /proc shows the environment a process started with: a host process that started with the key.
      const holder = spawn('sleep', ['60'], { env: { ...process.env, OPENAI_API_KEY: SECRET }, stdio: 'ignore' });
      let result: ToolExecutionResult;
      try {
        assert.ok(fs.readFileSync(`/proc/${holder.pid}/environ`, 'utf8').includes(SECRET), 'the host holds the key where /proc shows it');
        result = await run(`test -e /proc/${process.pid} && echo host-visible || echo host-hidden; cat /proc/$PPID/environ | tr '\\0' '\\n'; cat /proc/[0-9]*/environ 2>/dev/null | tr '\\0' '\\n' | sort -u`);
      } finally {
        holder.kill('SIGKILL');
      }
      assert.equal(result.success, true, result.output);
      assert.match(result.output, /^host-hidden\n/);
      assert.ok(!result.output.includes(SECRET), 'the host\'s OPENAI_API_KEY came through');
      assert.ok(!result.output.includes('OPENAI_API_KEY'), 'the host\'s OPENAI_API_KEY came through');
      assert.match(result.output, /^PATH=/m, 'the environments it can read are the allowlisted ones');
    });

    test('a loopback listener of the host is out of reach (and reachable with sandboxNetwork: true)', async () => {
      const connections: string[] = [];
      const server = net.createServer((socket) => {
        connections.push('connected');
        socket.end('hello from the host\n');
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      const { port } = server.address() as AddressInfo;
      const probe = `if exec 3<>/dev/tcp/127.0.0.1/${port}; then echo reached; head -1 <&3; else echo unreachable; fi`;
      const open = new ToolExecutor(await portedRegistry(), { workspaceRoot: tmp.ws, sandboxNetwork: true });
      try {
        const cut = await run(probe);
        assert.match(cut.output, /^unreachable\n/m, cut.output);
        assert.equal(connections.length, 0, 'the host listener saw no connection');
        // The check can fail: with the network allowed the same command reaches the listener.
        const allowed = await run(probe, open);
        assert.match(allowed.output, /reached\nhello from the host/, allowed.output);
        assert.equal(connections.length, 1);
      } finally {
        await open.close();
        await new Promise<void>((resolve) => server.close(() => resolve()));
      }
    });

    test('a Unix socket the host listens on outside /tmp and /run (here: in the workspace) is out of reach', async () => {
      const ws = fs.realpathSync(tmp.ws);
      const socketPath = path.join(ws, 'host.sock');
      const connections: string[] = [];
      const server = net.createServer((socket) => {
        connections.push('connected');
        socket.end();
      });
      await new Promise<void>((resolve) => server.listen(socketPath, resolve));
      try {
        const connect = `${JSON.stringify(process.execPath)} -e "require('net').connect('host.sock').on('connect', () => console.log('connected')).on('error', (e) => console.log('refused', e.code))"`;
        const result = await run(connect);
        assert.match(result.output, /^refused E\w+$/m, result.output);
        assert.equal(connections.length, 0, 'the host socket saw no connection');
        // The check can fail: without a sandbox the same command connects.
        const open = new ToolExecutor(await portedRegistry(), { workspaceRoot: tmp.ws, sandbox: 'none' });
        try {
          assert.match((await run(connect, open)).output, /^connected$/m);
        } finally {
          await open.close();
        }
      } finally {
        await new Promise<void>((resolve) => server.close(() => resolve()));
      }
    });

    test('writes: inside the workspace yes; outside it, in the host\'s /tmp, on the root file system, into .git (hooks, config, commondir, objects) no', async () => {
      const ws = fs.realpathSync(tmp.ws);
      fs.mkdirSync(path.join(ws, '.git', 'hooks'), { recursive: true });
      fs.writeFileSync(path.join(ws, '.git', 'config'), '[core]\n\tbare = false\n');
      const hostFile = `/var/toolgate-sandbox-test-${crypto.randomBytes(4).toString('hex')}`;
      const attempts = [
        'echo ok > inside.txt && echo inside-ok',
        `echo pwned > ${path.join(tmp.outside, 'pwned')} || echo outside-refused`,
        `echo pwned > ${path.join(tmp.root, 'proj-evil', 'x')} || echo sibling-refused`,
        `echo pwned > ${hostFile} || echo root-refused`,
        'printf "#!/bin/sh\\necho hooked\\n" > .git/hooks/pre-commit || echo hook-refused',
        'echo "[core]\\n\\thooksPath = /tmp" >> .git/config || echo config-refused',
        'mv .git .git-old || echo rename-refused',
        'rm -rf .git/hooks || echo remove-refused',
      ];
      const result = await run(attempts.join('; '));
      for (const word of ['inside-ok', 'outside-refused', 'sibling-refused', 'root-refused', 'hook-refused', 'config-refused', 'rename-refused', 'remove-refused']) {
        assert.match(result.output, new RegExp(`^${word}$`, 'm'), `${word}: ${result.output}`);
      }
      assert.equal(fs.readFileSync(path.join(ws, 'inside.txt'), 'utf8'), 'ok\n');
      assert.ok(!fs.existsSync(path.join(tmp.outside, 'pwned')));
      assert.equal(fs.readFileSync(path.join(tmp.root, 'proj-evil', 'x'), 'utf8'), 'evil sibling\n');
      assert.ok(!fs.existsSync(hostFile));
      assert.ok(!fs.existsSync(path.join(ws, '.git', 'hooks', 'pre-commit')));
      assert.equal(fs.readFileSync(path.join(ws, '.git', 'config'), 'utf8'), '[core]\n\tbare = false\n');
      assert.ok(fs.existsSync(path.join(ws, '.git', 'hooks')) && !fs.existsSync(path.join(ws, '.git-old')));
      // The whole of .git is read-only: git also takes programs from what `commondir` names.
      const commondir = await run('mkdir -p evil && printf "[core]\\n\\tfsmonitor = touch /tmp/pwned\\n" > evil/config && (echo ../evil > .git/commondir) 2>/dev/null || echo commondir-refused; (mkdir -p .git/objects && echo x > .git/objects/probe) 2>/dev/null || echo objects-refused');
      assert.match(commondir.output, /^commondir-refused$/m, commondir.output);
      assert.match(commondir.output, /^objects-refused$/m, commondir.output);
      assert.ok(!fs.existsSync(path.join(ws, '.git', 'commondir')));
      fs.rmSync(path.join(ws, 'evil'), { recursive: true, force: true });
      fs.rmSync(path.join(ws, '.git'), { recursive: true, force: true });
      fs.rmSync(path.join(ws, 'inside.txt'));
    });

    test('kernel settings in /proc are read-only, and the private tmpfs folders are bounded', async () => {
      // Checked with access(W_OK), never by writing: a write that got through would change the host.
      const result = await run('[ -w /proc/sys/kernel/core_pattern ] && echo proc-sys-writable || echo proc-sys-read-only; dd if=/dev/zero of=/dev/shm/fill bs=1M count=80 2>/dev/null; echo "shm $(($(stat -c %s /dev/shm/fill) / 1048576)) MiB"; rm -f /dev/shm/fill');
      assert.match(result.output, /^proc-sys-read-only$/m, result.output);
      const mib = Number(/^shm (\d+) MiB$/m.exec(result.output)?.[1]);
      assert.ok(mib <= 64, `/dev/shm took ${mib} MiB: ${result.output}`);
    });

    test('a repository without a hooks folder or a config file: the command cannot create them', async () => {
      const ws = fs.realpathSync(tmp.ws);
      fs.mkdirSync(path.join(ws, '.git'));
      try {
        const result = await run('(mkdir -p .git/hooks && echo "echo hooked" > .git/hooks/post-checkout) 2>/dev/null || echo hook-refused; (echo "[core]" > .git/config) 2>/dev/null || echo config-refused');
        assert.match(result.output, /^hook-refused\nconfig-refused$/m, result.output);
        assert.deepEqual(fs.readdirSync(path.join(ws, '.git')), [], 'nothing was created in .git');
      } finally {
        fs.rmSync(path.join(ws, '.git'), { recursive: true, force: true });
      }
    });

    test('the workspace\'s .toolgate folder (policy file, artifact records) cannot be changed, renamed or replaced by a command', async () => {
      const ws = fs.realpathSync(tmp.ws);
      fs.mkdirSync(path.join(ws, '.toolgate', 'artifacts'), { recursive: true });
      fs.writeFileSync(path.join(ws, '.toolgate', 'policy.toml'), '# narrow\n');
      try {
        const result = await run('(echo planted > .toolgate/artifacts/record.json) 2>/dev/null || echo record-refused; (echo "" > .toolgate/policy.toml) 2>/dev/null || echo policy-refused; mv .toolgate .toolgate-old 2>/dev/null || echo rename-refused');
        assert.match(result.output, /^record-refused\npolicy-refused\nrename-refused$/m, result.output);
        assert.deepEqual(fs.readdirSync(path.join(ws, '.toolgate', 'artifacts')), []);
        assert.equal(fs.readFileSync(path.join(ws, '.toolgate', 'policy.toml'), 'utf8'), '# narrow\n');
        assert.ok(!fs.existsSync(path.join(ws, '.toolgate-old')));
      } finally {
        fs.rmSync(path.join(ws, '.toolgate'), { recursive: true, force: true });
      }
    });

    test('a .git file (a worktree\'s pointer to its repository) cannot be rewritten', async () => {
      const ws = fs.realpathSync(tmp.ws);
      fs.writeFileSync(path.join(ws, '.git'), 'gitdir: /nowhere\n');
      try {
        const result = await run('echo "gitdir: /tmp/evil" > .git || echo pointer-refused; mv .git .git-old || echo rename-refused');
        assert.match(result.output, /^pointer-refused$/m, result.output);
        assert.match(result.output, /^rename-refused$/m, result.output);
        assert.equal(fs.readFileSync(path.join(ws, '.git'), 'utf8'), 'gitdir: /nowhere\n');
      } finally {
        fs.rmSync(path.join(ws, '.git'), { force: true });
      }
    });

    const limited = processLimitAvailable();
    test('no capabilities, /sys read-only: a command cannot move itself out of toolgate\'s pids cgroup', { skip: limited ? false : 'no pids cgroup on this machine' }, async () => {
      const tag = `tgcgroup${crypto.randomBytes(4).toString('hex')}`;
      const escape = [
        'grep CapEff /proc/self/status',
        'for f in /sys/fs/cgroup/pids/cgroup.procs /sys/fs/cgroup/cgroup.procs; do echo $$ > $f && echo "moved via $f"; done',
        // Says it tried (a file), then stays until the test has looked (another file): events,
        // not a 500 ms guess at the loop's end and a 3 s guess at how long the look takes.
        `: > ${tag}.tried`,
        `for i in $(seq 600); do [ -e ${tag}.looked ] && break; sleep 0.1; done; : ${tag}`,
      ].join('; ');
      const pending = run(escape);
      let looked = 0;
      try {
        await waitFor(() => fs.existsSync(path.join(tmp.ws, `${tag}.tried`)), { what: 'the command to try to leave its cgroup' });
        for (const pid of pidsWith(tag)) {
          let groups: string;
          try {
            groups = fs.readFileSync(`/proc/${pid}/cgroup`, 'utf8');
          } catch {
            continue; // ended meanwhile
          }
          const pids = /^\d+:pids:(.*)$/m.exec(groups)?.[1] ?? /^0::(.*)$/m.exec(groups)?.[1] ?? '';
          assert.match(pids, /\/toolgate-\d+-\d+$/, `process ${pid} is in ${pids}`);
          looked++;
        }
      } finally {
        fs.writeFileSync(path.join(tmp.ws, `${tag}.looked`), '');
      }
      assert.ok(looked > 0, 'the command was still running when its cgroup was read');
      const result = await pending;
      assert.match(result.output, /^CapEff:\s+0+$/m, result.output);
      assert.doesNotMatch(result.output, /moved via/, result.output);
    });

    test('R7: a host killed with SIGKILL during an exec_command session and a run_command with background children leaves nothing behind once the kernel has torn it down', async () => {
      const tag = `tgkill9${crypto.randomBytes(4).toString('hex')}`;
      const src = new URL('../../src/index.js', import.meta.url).href;
      const script = `import { ToolExecutor, loadBuiltinTools, loadPortedTools } from ${JSON.stringify(src)};
        const { registry } = await loadBuiltinTools();
        await loadPortedTools(registry);
        const executor = new ToolExecutor(registry, { workspaceRoot: ${JSON.stringify(tmp.ws)} });
        const session = await executor.execute({ name: 'exec_command', arguments: { cmd: 'sleep 300 & while :; do sleep 1; done; : ${tag}-session', yield_time_ms: 250 } }, { confirm: true });
        console.log(session.output.includes('still running') ? 'session running' : 'session: ' + session.output);
        executor.execute({ name: 'run_command', arguments: { command: '(sleep 300; : ${tag}-bg) & sleep 300; : ${tag}-run' } }, { confirm: true });
        setInterval(() => {}, 1000);`;
      const host = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
      try {
        let said = '';
        host.stdout!.on('data', (chunk: Buffer) => {
          said += chunk.toString();
        });
        assert.ok(await until(() => said.includes('session') && pidsWith(`${tag}-bg`).length > 0 && pidsWith(`${tag}-run`).length > 0, 30_000), `the host started its commands (${said})`);
        assert.match(said, /session running/);
        const before = pidsWith(tag);
        assert.ok(before.length >= 3, `processes of the commands: ${before.join(', ')}`);
        host.kill('SIGKILL');
        // The parent-death signal and bwrap's --die-with-parent act at once; on a loaded 2-core
        // machine tearing the namespaces down has taken more than 2 s, so poll for up to 15 s.
        await until(() => pidsWith(tag).length === 0, 15_000);
        assert.deepEqual(pidsWith(tag), [], 'nothing of the session or the run is left after the host died');
      } finally {
        host.kill('SIGKILL');
        for (const pid of pidsWith(tag)) {
          try {
            process.kill(pid, 'SIGKILL');
          } catch {
            // gone
          }
        }
      }
    });
  });

  describe('with bubblewrap: the other profiles and scoped write folders', () => {
    test('read-only: the workspace is readable, nothing is writable but the sandbox\'s own /tmp', async () => {
      fs.writeFileSync(path.join(tmp.ws, 'readme.txt'), 'readable\n');
      const own = new ToolExecutor(await portedRegistry(), { workspaceRoot: tmp.ws, sandbox: 'read-only' });
      try {
        const result = await run('cat readme.txt; (echo x > new.txt) 2>/dev/null || echo write-refused; echo t > /tmp/t && cat /tmp/t', own);
        assert.match(result.output, /^readable\nwrite-refused\nt\n/m, result.output);
        assert.ok(!fs.existsSync(path.join(tmp.ws, 'new.txt')));
      } finally {
        await own.close();
        fs.rmSync(path.join(tmp.ws, 'readme.txt'));
      }
    });

    test('scoped write folders: only those are writable (the launcher as the shell tools build it)', () => {
      const ws = fs.realpathSync(tmp.ws);
      const scoped = path.join(ws, 'plans');
      fs.mkdirSync(scoped, { recursive: true });
      const launcher = sandboxLauncher({ profile: 'workspace-write', network: false }, { workspace: ws, writable: [scoped], cwd: ws }, 'a test');
      const out = spawnSync(launcher[0]!, [...launcher.slice(1), 'bash', '-c', 'echo a > plans/a.txt && echo scoped-ok; echo b > b.txt || echo root-refused'], { encoding: 'utf8' });
      assert.match(out.stdout, /^scoped-ok\nroot-refused\n$/, out.stdout + out.stderr);
      assert.ok(fs.existsSync(path.join(scoped, 'a.txt')) && !fs.existsSync(path.join(ws, 'b.txt')));
      fs.rmSync(scoped, { recursive: true });
    });
  });
}
