/**
 * Shared test helpers: the fixture registry, temporary workspaces, and the CLI runner.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import assert from 'node:assert/strict';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { loadBuiltinTools, loadPortedTools, loadTools, PathTraversalError, ToolExecutor, ToolRegistry, type ConfirmationHandler, type ExecuteOptions, type ToolExecutionResult } from 'toolgate';
import { NoAnswerError } from '../src/decisions/approval.js';

/**
 * The ledgers of the CLI runs of a test file (`toolgate call`, `mcp` and `agent` keep one by
 * default, in `$XDG_STATE_HOME/toolgate`) go to a temporary state folder, removed when the
 * file's process exits, never to the user's.
 */
if (!(process.env.XDG_STATE_HOME ?? '').includes('toolgate-test-state-')) {
  const stateHome = fs.mkdtempSync(path.join(os.tmpdir(), 'toolgate-test-state-'));
  process.env.XDG_STATE_HOME = stateHome;
  process.on('exit', () => fs.rmSync(stateHome, { recursive: true, force: true }));
}

/** Repository root (tests run from dist/test). */
export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
/** Compiled fixture tools. */
export const FIXTURES_DIR = path.join(REPO_ROOT, 'dist/test/fixtures');
/** Generated schema file of the fixtures. */
export const FIXTURE_SCHEMAS = path.join(REPO_ROOT, 'test/fixtures/tool-schemas.json');
/** The toolgate command. */
export const BIN = path.join(REPO_ROOT, 'bin/toolgate.js');

/** A registry with the builtin tools and every fixture tool. */
export async function fixtureRegistry(): Promise<ToolRegistry> {
  const { registry } = await loadBuiltinTools();
  await loadTools({ directories: [FIXTURES_DIR], schemas: FIXTURE_SCHEMAS, registry });
  return registry;
}

/** A registry with the builtin tools, the ported library (tools-ported/) and every fixture tool. */
export async function portedRegistry(): Promise<ToolRegistry> {
  const registry = await fixtureRegistry();
  await loadPortedTools(registry);
  return registry;
}

/** What {@link tempWorkspace} makes. */
export interface TempWorkspace {
  root: string;
  ws: string;
  outside: string;
  sentinel: string;
  cleanup: () => void;
}

/**
 * A temporary folder laid out as `/tmp/x/proj` (the workspace) with siblings `proj-evil`,
 * `proj_backup` and a sentinel file outside, removed by `cleanup()`.
 */
export function tempWorkspace(): TempWorkspace {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'toolgate-test-'));
  const ws = path.join(root, 'proj');
  fs.mkdirSync(ws);
  fs.mkdirSync(path.join(root, 'proj-evil'));
  fs.mkdirSync(path.join(root, 'proj_backup'));
  fs.writeFileSync(path.join(root, 'proj-evil', 'x'), 'evil sibling\n');
  fs.writeFileSync(path.join(root, 'proj_backup', 'x'), 'backup sibling\n');
  const outside = path.join(root, 'outside');
  fs.mkdirSync(outside);
  const sentinel = path.join(outside, 'sentinel.txt');
  fs.writeFileSync(sentinel, 'SENTINEL CONTENT\n');
  return { root, ws, outside, sentinel, cleanup: () => fs.rmSync(root, { recursive: true, force: true }) };
}

/** A {@link tempWorkspace} and an executor over the ported tools rooted in it (one test file's set-up). */
export async function portedWorkspace(): Promise<{ tmp: TempWorkspace; ws: string; executor: ToolExecutor }> {
  const tmp = tempWorkspace();
  return { tmp, ws: tmp.ws, executor: new ToolExecutor(await portedRegistry(), { workspaceRoot: tmp.ws }) };
}

/** Undo {@link portedWorkspace} (safe when its set-up failed half-way). */
export async function closePortedWorkspace(made: { tmp?: TempWorkspace; executor?: ToolExecutor }): Promise<void> {
  await made.executor?.close();
  made.tmp?.cleanup();
}

/**
 * Assert that nothing outside the workspace of a {@link tempWorkspace} changed: the sentinel
 * keeps its content and is alone in `outside/`, the siblings `proj-evil` and `proj_backup` hold
 * only their file, unchanged, and nothing was added next to them.
 */
export function assertOutsideUnchanged(tmp: TempWorkspace): void {
  assert.equal(fs.readFileSync(tmp.sentinel, 'utf8'), 'SENTINEL CONTENT\n', 'the sentinel outside the workspace must be unchanged');
  assert.deepEqual(fs.readdirSync(tmp.outside).sort(), ['sentinel.txt'], 'nothing may be created outside the workspace');
  assert.deepEqual(fs.readdirSync(tmp.root).sort(), ['outside', 'proj', 'proj-evil', 'proj_backup'], 'nothing may be created next to the workspace');
  assert.deepEqual(fs.readdirSync(path.join(tmp.root, 'proj-evil')), ['x']);
  assert.equal(fs.readFileSync(path.join(tmp.root, 'proj-evil', 'x'), 'utf8'), 'evil sibling\n');
  assert.deepEqual(fs.readdirSync(path.join(tmp.root, 'proj_backup')), ['x']);
  assert.equal(fs.readFileSync(path.join(tmp.root, 'proj_backup', 'x'), 'utf8'), 'backup sibling\n');
}

/** Write `content` at `rel` inside `root`, making folders (set-up, not through a tool); returns the path. */
export function putFile(root: string, rel: string, content: string | Uint8Array): string {
  const file = path.join(root, rel);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, content);
  return file;
}

/** Whether anything (a link included, dangling or not) is at `rel` inside `root`. */
export function existsIn(root: string, rel: string): boolean {
  try {
    fs.lstatSync(path.join(root, rel));
    return true;
  } catch {
    return false;
  }
}

/**
 * A person who answers one kind of question, for test files that run commands without a
 * sandbox on purpose (where bubblewrap is missing, as CI runs the whole suite once): without a
 * sandbox, a program whose code the analysis cannot see (`bash`, `python3 -c`, a function the
 * line defines) may write `.git`, `.toolgate` or toolgate's own files, so it asks a person, and
 * `confirm: true` does not answer (src/decisions/protected-paths.decider.ts). This handler says
 * `allow_once` to that question, and only to it (beside it, the call may raise only the tool's
 * own question, which `confirm: true` answers): any other question is left unanswered
 * ({@link NoAnswerError}: `CONFIRMATION_REQUIRED`, as when nobody can be asked), so a test of
 * what asks or is refused still sees it.
 */
export const unsandboxedProgramsPerson: ConfirmationHandler = (request) => {
  // The answer answers every question shown: beside that one, only the tool's own (which `confirm: true` answers).
  const others = (request.also ?? []).every((q) => q.decider === 'approval' && (q.rule === undefined || q.rule === 'read-only'));
  if (others && /with no sandbox, nothing keeps \.git, \.toolgate and toolgate's own files read-only/.test(request.ask.reason)) return 'allow_once';
  throw new NoAnswerError(`nobody answers this question in the test: ${[request.ask, ...(request.also ?? [])].map((q) => q.reason).join(' / ')}`);
};

/** One call through a test file's executor: tool name, arguments (an object or JSON text), options over the defaults. */
export type CallTool = (name: string, args?: unknown, options?: ExecuteOptions) => Promise<ToolExecutionResult>;

/**
 * The `call` of a test file: runs one call through `executor` (a getter, since files make their
 * executor in `before`) with `defaults` under the call's own options, e.g. `{ confirm: true }`
 * for files whose tools write.
 */
export function callsTo(executor: () => ToolExecutor, defaults: ExecuteOptions = {}): CallTool {
  return (name, args = {}, options = {}) => executor().execute({ name, arguments: args }, { ...defaults, ...options });
}

/** Assert a successful call (the message names the tool and shows its output) and return it. */
export function assertOk(result: ToolExecutionResult): ToolExecutionResult {
  assert.equal(result.success, true, `${result.tool}: ${result.output}`);
  return result;
}

/** Assert a failed call with the given error code (TOOL_ERROR by default) whose output matches `pattern`. */
export function assertFailed(result: ToolExecutionResult, pattern: RegExp, code = 'TOOL_ERROR'): void {
  assert.equal(result.success, false, `expected a failure, got: ${result.output}`);
  assert.equal(result.errorCode, code, result.output);
  assert.match(result.output, pattern);
}

/** Result of running the CLI. */
export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Run `toolgate ARGS...` as a child process with no TTY (stdin is /dev/null unless `input`
 * is given), and wait for it to exit.
 */
export function runCli(args: string[], options: { cwd?: string; input?: string; env?: NodeJS.ProcessEnv } = {}): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      cwd: options.cwd ?? REPO_ROOT,
      env: options.env ?? process.env,
      stdio: [options.input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (d) => (stdout += d));
    child.stderr!.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    if (options.input !== undefined) child.stdin!.end(options.input);
  });
}

/**
 * Assert that a call throws PathTraversalError (code PATH_TRAVERSAL) and that its message
 * leaks nothing of `secret`, the content of a file outside the workspace (default: the
 * sentinel of {@link tempWorkspace}).
 */
export async function assertTraversal(promise: Promise<unknown>, label: string, secret = 'SENTINEL CONTENT'): Promise<void> {
  let caught: unknown;
  try {
    await promise;
  } catch (error) {
    caught = error;
  }
  assert.ok(caught instanceof PathTraversalError, `${label}: expected a PathTraversalError, got ${caught === undefined ? 'a result' : String(caught)}`);
  assert.equal(caught.code, 'PATH_TRAVERSAL', `${label}: error code`);
  assert.ok(!caught.message.includes(secret), `${label}: the error must not carry the content of the file outside`);
}

/**
 * Connect an MCP server (the SDK's `Server`, ours from `createMcpServer` or a fixture) to one end
 * of the SDK's linked in-memory transport pair, and return the other end for a client or a
 * bridge (`transportFor`). Closing either end closes both.
 */
export async function inMemoryTransport(server: { connect(transport: Transport): Promise<void> }): Promise<Transport> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  return clientSide;
}
