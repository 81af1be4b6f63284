/**
 * What bash really does with a command line (the differential test's second half): the line
 * runs as `bash -c LINE` inside toolgate's sandbox (`sandboxLauncher`, the default
 * `workspace-write` profile) on a scratch copy of a small workspace, under `strace -f` (around
 * the whole launcher: bubblewrap's namespaces do not hide its children from the tracer). The
 * run gives the programs executed (every successful `execve` after the sandbox's own) and the
 * files changed in the workspace (a snapshot before and after: a temporary file made and
 * removed within the run is no effect), with the traced writes (`openat` for writing, `creat`,
 * `rename*`, `unlink*`, `mkdir*`, `link*`, `symlink*`, `truncate`) that say which process did it.
 *
 * @module
 */
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sandboxLauncher } from '../../src/tool.js';
import { DEFAULT_SANDBOX } from '../../src/internal.js';
import { WORKSPACE_FILES } from './differential-lines.js';

/** The tracer (Debian's strace package). */
export const STRACE = '/usr/bin/strace';

/** The system calls traced. */
const TRACED = 'execve,openat,creat,rename,renameat,renameat2,unlink,unlinkat,mkdir,mkdirat,rmdir,link,linkat,symlink,symlinkat,truncate';

/** `$0` of the traced bash: marks its own execve apart from any bash the line starts. */
const ROOT_MARK = 'toolgate-differential';

/** Milliseconds one line may run. */
const LINE_TIMEOUT_MS = 10_000;

/** One program executed. */
export interface Executed {
  /** The file executed, as the kernel got it (`/usr/bin/touch`). */
  readonly file: string;
  /** Its argv as strace shows it (strings longer than 512 characters cut). */
  readonly argv: readonly string[];
}

/** What one line did. */
export interface Traced {
  /** Programs executed by the line (the sandbox's own and the line's bash left out). */
  readonly executed: readonly Executed[];
  /** Workspace-relative paths whose state changed (made, removed, content, mode or kind). */
  readonly changed: readonly string[];
  /** Traced writing calls, as strace printed them (for messages). */
  readonly writes: readonly string[];
  /** bash's exit status (null when it was killed at the line timeout). */
  readonly status: number | null;
  /** Whether the line's bash was seen to start inside the sandbox (else nothing was compared). */
  readonly ran: boolean;
}

/** Whether the tracer and the sandbox work here. */
export function traceAvailable(): string | undefined {
  if (!fs.existsSync(STRACE)) return `${STRACE} is missing (Debian package strace)`;
  try {
    sandboxLauncher(DEFAULT_SANDBOX, { workspace: os.tmpdir(), cwd: os.tmpdir() }, 'the differential test');
  } catch (error) {
    return (error as Error).message;
  }
  return undefined;
}

/** A template workspace: {@link WORKSPACE_FILES}, archives of `data/`, and a git repository with two commits. */
export function makeTemplate(root: string): string {
  const ws = path.join(root, 'template');
  fs.mkdirSync(ws, { recursive: true });
  for (const [name, spec] of Object.entries(WORKSPACE_FILES)) {
    const file = path.join(ws, name);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    if (typeof spec === 'string') fs.writeFileSync(file, spec);
    else fs.writeFileSync(file, spec.content, { mode: spec.mode });
  }
  fs.mkdirSync(path.join(ws, 'new'));
  const run = (file: string, args: string[]) => execFileSync(file, args, { cwd: ws, stdio: 'ignore', env: { PATH: '/usr/bin:/bin', HOME: root, GIT_CONFIG_NOSYSTEM: '1' } });
  run('tar', ['cf', 'a.tar', 'data']);
  run('zip', ['-q', 'a.zip', 'f']);
  execFileSync('sh', ['-c', 'gzip -c f > a.gz'], { cwd: ws });
  const git = ['-c', 'user.name=t', '-c', 'user.email=t@example.com', '-c', 'init.defaultBranch=main'];
  run('git', [...git, 'init', '-q']);
  run('git', [...git, 'add', 'notes.txt', 'f', 'data']);
  run('git', [...git, 'commit', '-q', '-m', 'one']);
  fs.appendFileSync(path.join(ws, 'notes.txt'), 'more\n');
  run('git', [...git, 'commit', '-q', '-am', 'two']);
  // Fewer files to copy for every line: one pack, no sample hooks, no reflogs.
  run('git', ['repack', '-adq']);
  run('git', ['prune-packed']);
  for (const dir of ['hooks', 'logs']) fs.rmSync(path.join(ws, '.git', dir), { recursive: true, force: true });
  fs.mkdirSync(path.join(ws, '.git', 'hooks'));
  return ws;
}

/** Snapshots of scratch copies that their last line left as they were, by work folder. */
const clean = new Map<string, Map<string, string>>();

/** Run `line` on a fresh copy of `template` inside the sandbox under strace; `work` is a folder of its own for this run. */
export async function traceLine(line: string, template: string, work: string): Promise<Traced> {
  const ws = path.join(work, 'ws');
  // A scratch copy the last line left unchanged is still the template's copy: kept.
  let before = clean.get(work);
  if (before === undefined) {
    fs.rmSync(work, { recursive: true, force: true });
    fs.mkdirSync(work, { recursive: true });
    fs.cpSync(template, ws, { recursive: true, preserveTimestamps: true });
    before = snapshot(ws);
  } else {
    for (const name of fs.readdirSync(work)) if (name.startsWith('trace.')) fs.rmSync(path.join(work, name));
  }
  clean.delete(work);
  const prefix = path.join(work, 'trace');
  // From bubblewrap on: the parent-death guard before it checks that its parent is this
  // process, and strace sits in between (the line's processes die with the tracer's group).
  const full = sandboxLauncher(DEFAULT_SANDBOX, { workspace: ws, cwd: ws }, 'the differential test');
  const launcher = full.slice(Math.max(0, full.findIndex((w) => path.basename(w) === 'bwrap')));
  const argv = ['-f', '-ff', '-qq', '-s', '512', '-o', prefix, '-e', `trace=${TRACED}`, ...launcher, '/bin/bash', '-c', line, ROOT_MARK];
  const env = { PATH: '/usr/local/bin:/usr/bin:/bin', HOME: '/tmp', LANG: 'C.UTF-8', TERM: 'dumb' };
  const status = await new Promise<number | null>((resolve) => {
    const child = spawn(STRACE, argv, { cwd: ws, env, stdio: 'ignore', detached: true });
    const timer = setTimeout(() => {
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        // gone
      }
    }, LINE_TIMEOUT_MS);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve(code);
    });
    child.on('error', () => resolve(null));
  });
  const { executed, writes, ran } = readTraces(work, launcher);
  const changed = diff(before, snapshot(ws));
  if (changed.length === 0 && status !== null) clean.set(work, before);
  return { executed, changed, writes, status, ran };
}

/** The execs and writes in strace's per-process files `trace.PID`. */
function readTraces(work: string, launcher: readonly string[]): { executed: Executed[]; writes: string[]; ran: boolean } {
  const executed: Executed[] = [];
  const writes: string[] = [];
  let ran = false;
  const own = new Set(launcher.filter((w) => w.startsWith('/')));
  for (const name of fs.readdirSync(work)) {
    if (!name.startsWith('trace.')) continue;
    const text = fs.readFileSync(path.join(work, name), 'utf8');
    for (const entry of text.split('\n')) {
      const exec = /^execve\("((?:[^"\\]|\\.)*)", \[(.*)\], .*\) = 0$/.exec(entry);
      if (exec !== null) {
        const file = unescape(exec[1]!);
        const args = [...exec[2]!.matchAll(/"((?:[^"\\]|\\.)*)"(\.\.\.)?/g)].map((m) => unescape(m[1]!));
        if (own.has(file) && (!file.endsWith('/sh') || args.includes('toolgate-child'))) continue;
        if (args.includes(ROOT_MARK) && args[1] === '-c') {
          ran = true;
          continue;
        }
        executed.push({ file, argv: args });
        continue;
      }
      if (/^(openat\(.*O_(WRONLY|RDWR|CREAT|TRUNC)|creat|rename|unlink|mkdir|rmdir|link|symlink|truncate)/.test(entry) && !/= -1 /.test(entry)) writes.push(entry);
    }
  }
  return { executed, writes, ran };
}

function unescape(s: string): string {
  return s.replace(/\\(x[0-9a-f]{2}|[0-7]{1,3}|.)/g, (_m, e: string) => {
    if (e.startsWith('x')) return String.fromCharCode(parseInt(e.slice(1), 16));
    if (/^[0-7]+$/.test(e)) return String.fromCharCode(parseInt(e, 8));
    return ({ n: '\n', t: '\t', r: '\r', v: '\v', f: '\f' } as Record<string, string>)[e] ?? e;
  });
}

/** path -> kind, mode, size, mtime, link target: what a change shows in. */
function snapshot(root: string): Map<string, string> {
  const state = new Map<string, string>();
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      const st = fs.lstatSync(full, { bigint: true });
      const rel = path.relative(root, full);
      const link = entry.isSymbolicLink() ? fs.readlinkSync(full) : '';
      state.set(rel, `${st.mode}:${entry.isDirectory() ? '' : st.size}:${entry.isDirectory() ? '' : st.mtimeNs}:${link}`);
      if (entry.isDirectory()) walk(full);
    }
  };
  walk(root);
  return state;
}

function diff(before: Map<string, string>, after: Map<string, string>): string[] {
  const changed: string[] = [];
  for (const [p, s] of after) if (before.get(p) !== s) changed.push(p);
  for (const p of before.keys()) if (!after.has(p)) changed.push(p);
  return changed.sort();
}
