/**
 * Running the real `git` program for the git tools: an argument array (never a shell), a
 * minimal environment, configuration that switches off everything in a repository's config
 * that would run a program, and bounded output and time.
 *
 * A repository's `.git/config` is written by whoever can write the workspace (a model can,
 * through the file tools), so every call overrides, at the command-line level that beats
 * every config file (`GIT_CONFIG_COUNT`/`GIT_CONFIG_KEY_n`/`GIT_CONFIG_VALUE_n`, see
 * git-config(1) "ENVIRONMENT"), the settings that name programs: hooks, fsmonitor, pager,
 * editor, signing programs, credential helpers, ssh, and the filter drivers of
 * `.gitattributes` (listed per repository by {@link filterDriverOverrides}, because their
 * names are free). External diff and textconv are switched off by the read tools' flags
 * (`--no-ext-diff`, `--no-textconv`). The user's global and the system config are not read.
 *
 * Plain functions, no side effects at import.
 *
 * @module
 */
import { spawn } from 'node:child_process';
import { ToolExecutionError } from '../../src/tool.js';
import { commandEnv } from '../shell/command-process.js';

/** Bytes of standard output kept from one git process; past this it is stopped and the output marked as cut. */
const MAX_GIT_OUTPUT_BYTES = 1024 * 1024;
/** Bytes of standard error kept from one git process. */
const MAX_GIT_STDERR_BYTES = 64 * 1024;
/** Milliseconds one git process may run (less when the call's deadline is nearer). */
const GIT_PROCESS_TIMEOUT_MS = 30_000;
/** Milliseconds kept between a git process's own time limit and the call's deadline, to report a clean timeout. */
const DEADLINE_MARGIN_MS = 500;

/**
 * Configuration set on every git call, overriding the repository's. Each entry neutralises a
 * setting that could run a program or read outside the repository, or keeps the output plain:
 * - `core.hooksPath=/dev/null`: no hook runs (pre-commit, post-checkout, ...; git looks for
 *   `/dev/null/<hook>`, which cannot exist);
 * - `core.fsmonitor=false`: no fsmonitor hook or daemon;
 * - `core.pager`, `core.editor`, `core.askPass`, `core.sshCommand`, `credential.helper`
 *   (empty: the list is reset), `gpg.*program`: harmless or empty programs;
 * - `commit.gpgSign`, `tag.gpgSign`, `log.showSignature`: no signing or verifying;
 * - `protocol.allow=never` (and `GIT_ALLOW_PROTOCOL`): no transport, so a lazy fetch of a
 *   partial clone cannot run a remote helper (`ext::` and the like);
 * - `submodule.recurse`, `diff.ignoreSubmodules`, `status.submoduleSummary`: no git process
 *   is started inside a submodule (whose own config would apply there);
 * - `gc.auto=0`, `maintenance.auto=false`: no background maintenance after a commit;
 * - `safe.bareRepository=explicit`: a bare repository planted in the workspace is not
 *   discovered;
 * - `blame.ignoreRevsFile` (empty: reset): blame reads no file the config names;
 * - `format.pretty`, `color.ui`, `core.quotePath`, `advice.*`: plain, readable output in the
 *   shape the tools document.
 */
export const SAFE_GIT_CONFIG: ReadonlyArray<readonly [string, string]> = Object.freeze([
  ['core.hooksPath', '/dev/null'],
  ['core.fsmonitor', 'false'],
  ['core.pager', 'cat'],
  ['core.editor', 'true'],
  ['core.askPass', ''],
  ['core.sshCommand', 'false'],
  ['credential.helper', ''],
  ['commit.gpgSign', 'false'],
  ['tag.gpgSign', 'false'],
  ['log.showSignature', 'false'],
  ['gpg.program', 'false'],
  ['gpg.ssh.program', 'false'],
  ['gpg.x509.program', 'false'],
  ['protocol.allow', 'never'],
  ['submodule.recurse', 'false'],
  ['diff.ignoreSubmodules', 'all'],
  ['status.submoduleSummary', 'false'],
  ['gc.auto', '0'],
  ['maintenance.auto', 'false'],
  ['safe.bareRepository', 'explicit'],
  ['blame.ignoreRevsFile', ''],
  ['format.pretty', 'medium'],
  ['color.ui', 'false'],
  ['core.quotePath', 'false'],
  ['advice.statusHints', 'false'],
  ['advice.detachedHead', 'false'],
  ['advice.addIgnoredFile', 'false'],
].map((entry) => Object.freeze(entry) as readonly [string, string]));

/** Variables of the host's `GIT_*` family a call keeps (identity only, when the operator passed them). */
const KEPT_GIT_VARIABLES = new Set(['GIT_AUTHOR_NAME', 'GIT_AUTHOR_EMAIL', 'GIT_COMMITTER_NAME', 'GIT_COMMITTER_EMAIL']);

/** Options of {@link gitEnv}. */
export interface GitEnvOptions {
  /**
   * Folder git's repository discovery must not climb into (`GIT_CEILING_DIRECTORIES`): the
   * parent of the workspace, so a repository above the workspace is never found.
   */
  ceiling: string;
  /** Extra `key=value` configuration after {@link SAFE_GIT_CONFIG} (the filter overrides). */
  config?: ReadonlyArray<readonly [string, string]>;
  /** Read-only call: git takes no optional locks and writes no refreshed index (`GIT_OPTIONAL_LOCKS=0`). */
  readOnly?: boolean;
}

/**
 * The whole environment of a git process: the allowlisted host variables of `commandEnv`
 * (no secrets), minus every `GIT_*` variable of the host except an identity the operator
 * passed, plus: no system or global config, no terminal prompts, pager and editor `cat` and
 * `true`, no transport protocol, the discovery ceiling, messages in the C locale (so that
 * errors can be recognised), and the configuration overrides as `GIT_CONFIG_*` variables
 * (which, unlike `-c`, take any key, also a filter name holding `=`).
 */
export function gitEnv(host: NodeJS.ProcessEnv, options: GitEnvOptions): Record<string, string> {
  const env = commandEnv(host);
  for (const name of Object.keys(env)) {
    if (name.startsWith('GIT_') && !KEPT_GIT_VARIABLES.has(name)) delete env[name];
  }
  delete env.LANGUAGE;
  Object.assign(env, {
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_SYSTEM: '/dev/null',
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_TERMINAL_PROMPT: '0',
    GIT_ASKPASS: '',
    SSH_ASKPASS: '',
    GIT_PAGER: 'cat',
    PAGER: 'cat',
    GIT_EDITOR: 'true',
    GIT_SEQUENCE_EDITOR: 'true',
    EDITOR: 'true',
    VISUAL: 'true',
    GIT_ALLOW_PROTOCOL: '',
    GIT_NO_LAZY_FETCH: '1', // git 2.45 and later: a partial clone fetches no missing object
    GIT_PROTOCOL_FROM_USER: '0',
    GIT_CEILING_DIRECTORIES: options.ceiling,
    GIT_LITERAL_PATHSPECS: '1',
    LC_ALL: 'C',
    LANG: 'C',
  });
  if (options.readOnly) env.GIT_OPTIONAL_LOCKS = '0';
  const config = [...SAFE_GIT_CONFIG, ...(options.config ?? [])];
  env.GIT_CONFIG_COUNT = String(config.length);
  config.forEach(([key, value], i) => {
    env[`GIT_CONFIG_KEY_${i}`] = key;
    env[`GIT_CONFIG_VALUE_${i}`] = value;
  });
  return env;
}

/** The suffixes of a filter driver's keys that run a program, and what each is set to. */
const FILTER_KEY_OVERRIDES: Readonly<Record<string, string>> = Object.freeze({ clean: '', smudge: '', process: '', required: 'false' });

/**
 * Overrides that switch off every filter driver a repository's configuration defines: for each
 * `filter.<name>.*` key found, `clean`, `smudge` and `process` are set empty (git then passes
 * content through unchanged) and `required` false (so the missing filter is not an error).
 * @param keys - config key names as `git config -z --name-only --get-regexp '^filter\.'` lists them.
 */
export function filterDriverOverrides(keys: readonly string[]): Array<readonly [string, string]> {
  const names = new Set<string>();
  for (const key of keys) {
    if (!key.toLowerCase().startsWith('filter.')) continue;
    const last = key.lastIndexOf('.');
    if (last <= 'filter'.length) continue; // "filter.clean": no subsection, not a driver
    names.add(key.slice('filter.'.length, last));
  }
  const overrides: Array<readonly [string, string]> = [];
  for (const name of names) {
    for (const [suffix, value] of Object.entries(FILTER_KEY_OVERRIDES)) overrides.push([`filter.${name}.${suffix}`, value]);
  }
  return overrides;
}

/** Options of {@link runGit}. */
export interface RunGitOptions {
  /** Working folder of the process (absolute). */
  cwd: string;
  /** The whole environment (see {@link gitEnv}). */
  env: Record<string, string>;
  /** Text written to standard input (a commit message); otherwise stdin is empty. */
  input?: string;
  /** Bytes of standard output kept; default {@link MAX_GIT_OUTPUT_BYTES}. */
  maxOutputBytes?: number;
  /** Milliseconds the process may run; default {@link GIT_PROCESS_TIMEOUT_MS}. */
  timeoutMs?: number;
  /** The call's signal: an abort kills the process. */
  signal?: AbortSignal;
  /** The call's deadline (epoch ms), if any: the process is stopped a little before it. */
  deadline?: number;
}

/** How a git process ended. */
export interface GitRun {
  /** Exit status, or `null` when a signal ended it. */
  code: number | null;
  /** Standard output (UTF-8, invalid bytes replaced), at most `maxOutputBytes` of it. */
  stdout: string;
  /** Standard error, at most {@link MAX_GIT_STDERR_BYTES} of it. */
  stderr: string;
  /** True when standard output passed `maxOutputBytes` and the process was stopped there. */
  cut: boolean;
  /** True when standard output contained a NUL byte (binary content). */
  binary: boolean;
}

/**
 * Run `git ...args` (no shell) in its own process group, and collect its output within bounds.
 * On abort, timeout or too much output the whole group gets SIGKILL.
 * @throws ToolExecutionError `TIMEOUT` when it outran its time, `ABORTED` when the call was
 *   stopped, `TOOL_ERROR` when git cannot be started (not installed).
 */
export function runGit(args: readonly string[], options: RunGitOptions): Promise<GitRun> {
  const maxOut = options.maxOutputBytes ?? MAX_GIT_OUTPUT_BYTES;
  let timeoutMs = options.timeoutMs ?? GIT_PROCESS_TIMEOUT_MS;
  if (options.deadline !== undefined) timeoutMs = Math.min(timeoutMs, Math.max(0, options.deadline - Date.now() - DEADLINE_MARGIN_MS));
  if (options.signal?.aborted) return Promise.reject(new ToolExecutionError('the call was stopped before git ran.', 'ABORTED'));
  return new Promise((resolve, reject) => {
    const child = spawn('git', args, {
      cwd: options.cwd,
      env: options.env,
      detached: true, // a process group of its own, so a kill reaches what git starts
      stdio: [options.input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    let outBytes = 0;
    let errBytes = 0;
    let cut = false;
    let binary = false;
    let stopped: 'timeout' | 'aborted' | undefined;
    let spawnError: NodeJS.ErrnoException | undefined;
    const kill = () => {
      if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        // already gone
      }
    };
    const onAbort = () => {
      stopped ??= 'aborted';
      kill();
    };
    const timer = setTimeout(() => {
      stopped ??= 'timeout';
      kill();
    }, timeoutMs);
    options.signal?.addEventListener('abort', onAbort, { once: true });
    child.stdout!.on('data', (chunk: Buffer) => {
      if (cut) return;
      if (!binary && chunk.includes(0)) binary = true;
      const room = maxOut - outBytes;
      if (chunk.length > room) {
        out.push(chunk.subarray(0, room));
        outBytes = maxOut;
        cut = true;
        kill();
        return;
      }
      out.push(chunk);
      outBytes += chunk.length;
    });
    child.stderr!.on('data', (chunk: Buffer) => {
      const room = MAX_GIT_STDERR_BYTES - errBytes;
      if (room <= 0) return;
      err.push(chunk.subarray(0, room));
      errBytes += Math.min(room, chunk.length);
    });
    if (child.stdin) {
      child.stdin.on('error', () => undefined); // git exited before reading everything
      child.stdin.end(options.input);
    }
    child.once('error', (error: NodeJS.ErrnoException) => {
      spawnError = error;
    });
    child.once('close', (code) => {
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
      if (spawnError !== undefined) {
        reject(new ToolExecutionError(
          spawnError.code === 'ENOENT'
            ? 'git is not installed on this machine (the git program was not found on PATH); the git tools need it.'
            : `git could not be started (${spawnError.code ?? spawnError.message}).`,
          'TOOL_ERROR',
        ));
        return;
      }
      const stderr = Buffer.concat(err).toString('utf8');
      if (stopped === 'aborted') {
        reject(new ToolExecutionError('the call was stopped while git was running; git was killed. Check git_status before retrying a change.', 'ABORTED'));
        return;
      }
      if (stopped === 'timeout') {
        reject(new ToolExecutionError(
          `git ${args.find((a) => !a.startsWith('-')) ?? ''} ran longer than ${Math.round(timeoutMs / 100) / 10} s and was killed; narrow the request (paths, a smaller max_count or line range).`,
          'TIMEOUT',
        ));
        return;
      }
      resolve({ code: cut ? 0 : code, stdout: Buffer.concat(out).toString('utf8'), stderr, cut, binary });
    });
  });
}
