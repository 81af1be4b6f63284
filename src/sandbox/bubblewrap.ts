/**
 * The sandbox of the processes tools start (shell commands, the Python interpreter): a
 * bubblewrap (`bwrap`) command line that runs a program with the workspace writable (but
 * never toolgate's own policy, config and state), the rest of the file system read-only, private `/tmp`, `/run`, `/dev` and `/proc`, a PID namespace of
 * its own (no host process, and so no host environment, in sight), no network unless the
 * policy allows it, no capabilities, and a parent-death signal.
 *
 * Profiles ({@link SandboxProfile}): `workspace-write` (the default), `read-only`, and `none`,
 * which a user must choose explicitly. Where bubblewrap is missing or cannot make a sandbox,
 * a tool that needs one refuses ({@link SandboxUnavailableError}, naming the Debian package
 * `bubblewrap`) unless the profile is `none`.
 *
 * Dependency-free (Node's own modules), so tool modules can import it through `toolgate/tool`.
 *
 * @module
 */
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { SandboxUnavailableError } from '../errors/errors.js';
import { findExecutable, parentDeathLauncher } from './executables.js';
import { homeDotfileSeals, homeDotfileTargets } from './home-dotfile-mounts.js';
import { ownStateProtections } from './own-state-paths.js';

/**
 * How a tool's processes are confined:
 * - `workspace-write`: the workspace (or only the call's scoped write folders) writable,
 *   everything else read-only or absent; the default;
 * - `read-only`: the workspace readable, nothing writable but the sandbox's own `/tmp`;
 * - `none`: no sandbox at all. Only an explicit choice of the user (`sandbox: 'none'`, the
 *   CLI's `--dangerously-disable-sandbox`) selects it.
 */
export type SandboxProfile = 'workspace-write' | 'read-only' | 'none';

/** Every profile, the default first. */
export const SANDBOX_PROFILES: readonly SandboxProfile[] = Object.freeze(['workspace-write', 'read-only', 'none']);

/** What a tool's processes may do: the profile, and whether they may reach the network. */
export interface SandboxPolicy {
  /** The profile; see {@link SandboxProfile}. */
  readonly profile: SandboxProfile;
  /** The processes share the host's network (loopback included); default false: no network at all. */
  readonly network: boolean;
}

/**
 * The policy when nobody chose one: `workspace-write`, no network.
 *
 * @internal
 */
export const DEFAULT_SANDBOX: SandboxPolicy = Object.freeze({ profile: 'workspace-write', network: false });

/**
 * Environment variable naming the bubblewrap binary to use (a path or a name on `PATH`); default `bwrap`.
 *
 * @internal
 */
export const BWRAP_ENV = 'TOOLGATE_BWRAP';

/**
 * The Debian (and Ubuntu) package that installs `bwrap`.
 *
 * @internal
 */
export const BUBBLEWRAP_PACKAGE = 'bubblewrap';

/** Host folders replaced by an empty private tmpfs: their Unix sockets and files stay out of reach. */
const HIDDEN_FOLDERS = ['/tmp', '/var/tmp', '/run', '/var/run', '/dev/shm'];

/**
 * Bytes each private tmpfs may hold (tmpfs pages are the host's memory, and the kernel's
 * out-of-memory killer cannot free them): 512 MiB for `/tmp` and `/var/tmp`, 64 MiB for the rest.
 */
const PRIVATE_TMPFS_BYTES: Readonly<Record<string, number>> = Object.freeze({ '/tmp': 512 * 1024 * 1024, '/var/tmp': 512 * 1024 * 1024 });
const DEFAULT_TMPFS_BYTES = 64 * 1024 * 1024;

/** Entries of `/proc` that change the kernel (sysctls, SysRq, interrupts, buses), read-only in the sandbox as bwrap makes them for unprivileged users. */
const PROC_READ_ONLY = ['sys', 'sysrq-trigger', 'irq', 'bus', 'fs'];

/**
 * What {@link probeBubblewrap} found.
 *
 * @internal
 */
export interface BubblewrapProbe {
  /** The binary, as found (absolute when it was found on `PATH`). */
  readonly binary: string;
  /** True when it made a sandbox with every feature the profiles use. */
  readonly works: boolean;
  /** Why it does not work, when it does not. */
  readonly problem?: string;
}

const probes = new Map<string, BubblewrapProbe>();


/**
 * Whether bubblewrap is here and works: the binary named by {@link BWRAP_ENV} (default
 * `bwrap` on `PATH`) is run once with the namespaces and mounts the profiles use. Probed once
 * per binary name and process (synchronously: it takes a few milliseconds).
 *
 * @internal
 */
export function probeBubblewrap(): BubblewrapProbe {
  const wanted = process.env[BWRAP_ENV] || 'bwrap';
  const known = probes.get(wanted);
  if (known !== undefined) return known;
  let found: BubblewrapProbe;
  const binary = findExecutable(wanted);
  if (process.platform !== 'linux') {
    found = { binary: wanted, works: false, problem: 'bubblewrap runs on Linux only' };
  } else if (binary === undefined) {
    found = { binary: wanted, works: false, problem: `${wanted} was not found${wanted.includes('/') ? '' : ' on PATH'}` };
  } else {
    const flags = ['--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', '--tmpfs', '/tmp', '--unshare-pid', '--unshare-ipc', '--unshare-net', '--unshare-cgroup-try', '--cap-drop', 'ALL', '--die-with-parent', '--', 'true'];
    // node:child_process is required here, on the first probe: every command loads this
    // module (through toolgate/tool), and `toolgate --version` has no process to start.
    const { spawnSync } = createRequire(import.meta.url)('node:child_process') as typeof import('node:child_process');
    const run = spawnSync(binary, flags, { stdio: ['ignore', 'ignore', 'pipe'], encoding: 'utf8', timeout: 10_000 });
    const why = run.error?.message ?? (run.status === 0 ? undefined : (run.stderr.trim().split('\n').at(-1) || `exit status ${run.status ?? run.signal}`));
    found = why === undefined ? { binary, works: true } : { binary, works: false, problem: `${binary} is installed but cannot make a sandbox here (${why})` };
  }
  probes.set(wanted, found);
  return found;
}

/**
 * True when bubblewrap works here (see {@link probeBubblewrap}).
 *
 * @internal
 */
export function bubblewrapAvailable(): boolean {
  return probeBubblewrap().works;
}

/** Where a sandboxed program runs and what it may write. */
export interface SandboxMounts {
  /** Real path of the workspace root (readable; writable in `workspace-write`). */
  workspace: string;
  /**
   * Real paths of the only folders that are writable (a read-only mode's scoped write
   * folders, `ctx.workspace.writeRoots`). Default: the workspace. Ignored by `read-only`.
   */
  writable?: readonly string[];
  /** The program's working folder (absolute; inside the workspace). */
  cwd: string;
  /**
   * Real paths inside the workspace the program must not read (what the call's deny path
   * rules withhold): a folder is covered by an empty read-only tmpfs, a file by `/dev/null`
   * (read-only), a link by covering what it leads to, inside the workspace or outside it
   * (see {@link hiddenPathCover}). Default: none.
   */
  hidden?: readonly string[];
  /**
   * Real paths of the home folder's dotfiles that run code (`~/.bashrc`, `~/.ssh`, ...) a
   * person granted this call to write, when a writable folder holds the home folder: each
   * entry of `HOME_RUN_CODE_ENTRIES` one of these holds whole stays writable; every other is
   * bound read-only. Default: none.
   */
  homeWritable?: readonly string[];
}

/** Bytes the empty tmpfs over a hidden folder may hold (it is read-only: nothing is written there). */
const HIDDEN_PATH_TMPFS_BYTES = 4096;

/** The `__SO_ACCEPTCON` flag of `/proc/net/unix`: the socket is listening. */
const LISTENING = 0x10000;

/**
 * Paths of the Unix sockets listening in this network namespace now (from `/proc/net/unix`)
 * that the sandbox would show: outside the hidden folders, or inside the workspace.
 * Connecting to one needs no write access, so a read-only mount does not keep a command from
 * it; each is covered with `/dev/null` instead.
 */
function listeningSockets(workspace: string): string[] {
  let table: string;
  try {
    table = fs.readFileSync('/proc/net/unix', 'utf8');
  } catch {
    return [];
  }
  const found = new Set<string>();
  for (const line of table.split('\n').slice(1)) {
    // Num RefCount Protocol Flags Type St Inode Path
    const fields = line.trim().split(/\s+/);
    if (fields.length < 8 || (Number.parseInt(fields[3]!, 16) & LISTENING) === 0) continue;
    const socket = fields.slice(7).join(' ');
    if (!socket.startsWith('/')) continue;
    if (!socket.startsWith(`${workspace}/`) && HIDDEN_FOLDERS.some((dir) => socket.startsWith(`${dir}/`))) continue;
    try {
      if (fs.lstatSync(socket).isSocket()) found.add(socket);
    } catch {
      // gone, or in another mount namespace's view
    }
  }
  return [...found];
}

/**
 * `<root>/.git` protections, for each writable root that holds a repository: `.git` (a folder,
 * or a worktree's pointer file) bound read-only onto itself, as Codex does. Git takes programs
 * to run from many files there (`config`, `hooks/`, `commondir` naming another folder whose
 * `config` and `hooks` then count, `config.worktree`, `info/attributes` filters), so anything
 * less than the whole of it leaves a way to make the user's next `git status` on the host run
 * a command. A mount point cannot be renamed or removed either, so a new `.git` cannot replace
 * it. Commands that must write to the repository fail there; the git tools (`git_add`,
 * `git_commit`, ...) run on the host with those programs turned off.
 */
function gitProtections(roots: readonly string[]): string[] {
  const args: string[] = [];
  for (const root of roots) {
    const git = path.join(root, '.git');
    let stat: fs.Stats;
    try {
      stat = fs.lstatSync(git);
    } catch {
      continue; // no repository here (one made during the call is the command's own: see docs/sandbox.md)
    }
    if (stat.isFile() || stat.isDirectory()) args.push('--ro-bind', git, git);
  }
  return args;
}

/**
 * `<root>/.toolgate` bound read-only onto itself, for each writable root that has that folder:
 * the workspace's policy file and its artifact store (records and registered files) are
 * toolgate's to write, through its own tools, never a command's (a command could otherwise
 * plant or rewrite an artifact record, or swap the folder for a link). A link there is left
 * alone: toolgate refuses to read one (`policy-set.ts`, `artifact-store.ts`). A `.toolgate` a
 * command makes during the call, where none was, is the command's own and toolgate reads its
 * records as untrusted (see docs/sandbox.md).
 */
function ownFolderProtections(roots: readonly string[]): string[] {
  const args: string[] = [];
  for (const root of roots) {
    const own = path.join(root, '.toolgate');
    try {
      if (fs.lstatSync(own).isDirectory()) args.push('--ro-bind', own, own);
    } catch {
      // none here
    }
  }
  return args;
}

/**
 * The mounts that hide `hidden` (a path the call's rules withhold) from the command: an empty
 * read-only tmpfs over a folder, `/dev/null` over a file. A link cannot be covered where it
 * is (a mount follows it; bwrap refuses a link as a destination), so what it leads to is
 * covered instead, inside the workspace or outside it: the real path of its last target
 * (`.env -> ~/.secrets/env`: that file), a folder with a tmpfs, anything else with
 * `/dev/null`. The command then reads nothing through the name, nor at the target's own path
 * (which `readlink` would show it). A link that leads nowhere has nothing to hide; a path gone
 * since it was listed neither.
 */
function hiddenPathCover(hidden: string): string[] {
  let covered = hidden;
  let stat: fs.Stats;
  try {
    stat = fs.lstatSync(hidden);
    if (stat.isSymbolicLink()) {
      covered = fs.realpathSync(hidden);
      stat = fs.statSync(covered);
    }
  } catch {
    return []; // gone, or a link that leads nowhere
  }
  if (stat.isDirectory()) return ['--size', String(HIDDEN_PATH_TMPFS_BYTES), '--tmpfs', covered, '--remount-ro', covered];
  if (stat.isFile() || covered !== hidden) return ['--ro-bind', '/dev/null', covered];
  return [];
}

/**
 * The bubblewrap command line of `profile`'s sandbox, ending with `--`.
 *
 * Mounts, in order: `/` read-only; a new `/dev` and `/proc`; empty private `/tmp`,
 * `/var/tmp`, `/run` and `/dev/shm` (host sockets there are out of reach: connecting to a
 * Unix socket works on a read-only mount); with network, the host's resolver file again if
 * it lives under `/run`; the workspace (or the `writable` folders) writable, read-only in
 * `read-only`; toolgate's own files inside a writable root read-only (`own-state-paths.ts`),
 * and the home folder's dotfiles that run code, with the folders that hold a link on the way
 * to one sealed (`home-dotfile-mounts.ts`); `.git` and `.toolgate` protections in each
 * writable root; `/dev/null` over every Unix
 * socket listening elsewhere (see {@link listeningSockets}); `mounts.hidden` covered (an
 * empty read-only tmpfs over a folder, `/dev/null` over a file, what a link leads to). Namespaces: PID, IPC, UTS, cgroup
 * (where the kernel has one), network unless `network`. All capabilities dropped.
 */
function sandboxArgv(bwrap: string, profile: Exclude<SandboxProfile, 'none'>, mounts: SandboxMounts, network: boolean): string[] {
  const args = [bwrap, '--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc'];
  // Run as the host's root, bwrap leaves these writable in the new /proc (it covers them only
  // when it cannot write them itself), and uid 0 writes them without capabilities: a command
  // could set kernel.core_pattern to a program of its own that the kernel then runs as root on
  // the host. Bound read-only over the new /proc's (from the host's: the same kernel settings).
  for (const entry of PROC_READ_ONLY) {
    if (fs.existsSync(`/proc/${entry}`)) args.push('--ro-bind', `/proc/${entry}`, `/proc/${entry}`);
  }
  for (const dir of HIDDEN_FOLDERS) {
    try {
      if (fs.lstatSync(dir).isDirectory()) args.push('--size', String(PRIVATE_TMPFS_BYTES[dir] ?? DEFAULT_TMPFS_BYTES), '--tmpfs', dir);
    } catch {
      // not on this machine
    }
  }
  if (network) {
    // A resolver file that links into /run (systemd-resolved) would be hidden with it.
    try {
      const resolv = fs.realpathSync('/etc/resolv.conf');
      if (HIDDEN_FOLDERS.some((dir) => resolv.startsWith(`${dir}/`))) args.push('--ro-bind', resolv, resolv);
    } catch {
      // no resolver file
    }
  }
  let writable: readonly string[] = [];
  if (profile === 'read-only') {
    args.push('--ro-bind', mounts.workspace, mounts.workspace);
  } else {
    writable = [...(mounts.writable ?? [mounts.workspace])].sort((a, b) => a.length - b.length);
    // The workspace itself first (read-only) when only some of its folders are writable: it
    // may lie under a hidden folder such as /tmp.
    if (!writable.includes(mounts.workspace)) args.push('--ro-bind', mounts.workspace, mounts.workspace);
    for (const dir of writable) args.push('--bind', dir, dir);
    // toolgate's own policy, config and state, and the home folder's dotfiles that run code
    // (a workspace at the home folder): read-only, whatever the command's words name. Before
    // `.git` and `.toolgate`: a folder sealed there (the home folder) binds its entries again.
    const homeTargets = homeDotfileTargets(writable, mounts.homeWritable);
    args.push(...ownStateProtections(writable, process.env, homeTargets, homeDotfileSeals(writable, mounts.homeWritable)));
    args.push(...gitProtections(writable), ...ownFolderProtections(writable));
  }
  for (const socket of listeningSockets(mounts.workspace)) args.push('--ro-bind', '/dev/null', socket);
  for (const hidden of mounts.hidden ?? []) args.push(...hiddenPathCover(hidden));
  args.push('--unshare-pid', '--unshare-ipc', '--unshare-uts', '--unshare-cgroup-try');
  if (!network) args.push('--unshare-net');
  args.push('--cap-drop', 'ALL', '--die-with-parent', '--setenv', 'TMPDIR', '/tmp', '--chdir', mounts.cwd, '--');
  return args;
}



/**
 * The launcher prefix for a policy: for a sandboxed profile, the bubblewrap command line
 * that runs a program (appended after it) in the sandbox; `[]` for `none` (the program runs
 * as it is). The prefix ends with `--`.
 *
 * The caller spawns it with the environment it means the program to have (bwrap passes its
 * own on; `TMPDIR` is set to the private `/tmp`), from the thread that must outlive the
 * program (the parent-death signal is tied to it), and in a session of its own
 * (`detached: true`) so the program has no terminal. It may run the prefix through an `exec`
 * of its own (the shell tools' wrapper does), as long as the process stays a child of this one.
 * @param who - the tool (or component) that needs the sandbox, for the refusal's message.
 * @throws SandboxUnavailableError when the policy needs bubblewrap and it does not work here:
 *   the message names the Debian package and the explicit way to run without a sandbox.
 */
export function sandboxLauncher(policy: SandboxPolicy, mounts: SandboxMounts, who: string): string[] {
  if (policy.profile === 'none') return [];
  const probe = probeBubblewrap();
  if (!probe.works) throw SandboxUnavailableError.fromMissingBubblewrap(who, probe.problem ?? 'bubblewrap does not work here', BUBBLEWRAP_PACKAGE);
  return [...parentDeathLauncher(), ...sandboxArgv(probe.binary, policy.profile, mounts, policy.network)];
}
