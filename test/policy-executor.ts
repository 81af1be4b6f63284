/**
 * The set-up of the decision and regression tests that judge calls against a user's policy
 * file: an executor over the ported tools (`portedRegistry`) rooted in a {@link tempWorkspace},
 * reading a user policy file the test writes, and a person who keeps every question in `asked`
 * and answers it.
 */
import fs from 'node:fs';
import path from 'node:path';
import { after, before, beforeEach } from 'node:test';
import { ToolExecutor, type ApprovalAnswer, type ConfirmationHandler, type ConfirmationRequest, type ExecuteOptions, type ToolExecutionResult, type ToolExecutorOptions, type ToolRegistry } from 'toolgate';
import { callsTo, portedRegistry, tempWorkspace, type CallTool, type TempWorkspace } from './helpers.js';

/** What {@link policyExecutor} makes. */
export interface PolicyExecutorOptions {
  /** The user's policy file, relative to the temporary root (its folder is made); default `config/toolgate/policy.toml`. */
  userFile?: string;
  /** Text of the user's policy file, written before the executor is made; default: no file until the test writes one. */
  rules?: string;
  /** Whether the workspace's own policy file (`.toolgate/policy.toml`) counts too (`policy.workspace`); default false. */
  workspacePolicy?: boolean;
  /**
   * The person: every question is pushed to `asked`, then answered with this answer, or by this
   * handler (its answer or its throw). Default: no confirmation handler, as the executor has
   * without one.
   */
  person?: ApprovalAnswer | ConfirmationHandler;
  /** Remove everything in the workspace before each test, for files that lay it out in a `beforeEach` of their own; default false. */
  emptyEachTest?: boolean;
  /** The executor's other options (`sandbox`, `approvalMode`, ...). */
  executor?: Omit<ToolExecutorOptions, 'workspaceRoot' | 'policy' | 'confirmationHandler'>;
}

/** A test file's executor, its workspace and its user policy file (see {@link policyExecutor}). */
export interface PolicyExecutor {
  /** The temporary folders; `t.ws` is the workspace. Made when {@link policyExecutor} is called. */
  readonly t: TempWorkspace;
  /** The absolute path of the user's policy file. */
  readonly userFile: string;
  /** The questions the person was asked in this test (emptied before each test). */
  readonly asked: ConfirmationRequest[];
  /** The registry of the ported tools (from `before` on). */
  readonly registry: ToolRegistry;
  /** The executor (from `before` on; closed in `after`). */
  readonly executor: ToolExecutor;
  /** Write the user's policy file (the whole text). */
  policy: (text: string) => void;
  /** Run `command` with `run_command` under `options`. */
  run: (command: string, options?: ExecuteOptions) => Promise<ToolExecutionResult>;
  /** One call of any tool, with no options by default. */
  call: CallTool;
}

/**
 * The executor of a `describe` whose calls are judged against a user's policy file. Call it in
 * the `describe` body: it registers there a `before` (the registry, the policy file's folder and
 * `rules`, the executor), an `after` (the executor closed, the temporary folder removed) and a
 * `beforeEach` (`asked` emptied, then with `emptyEachTest` the workspace emptied), ahead of the
 * file's own hooks. The temporary folder is made at once, so that `t` and `userFile` can be
 * read in the `describe` body.
 */
export function policyExecutor(options: PolicyExecutorOptions = {}): PolicyExecutor {
  const t = tempWorkspace();
  const userFile = path.join(t.root, options.userFile ?? path.join('config', 'toolgate', 'policy.toml'));
  const asked: ConfirmationRequest[] = [];
  let registry: ToolRegistry | undefined;
  let executor: ToolExecutor | undefined;
  const { person } = options;
  const confirmationHandler: ConfirmationHandler | undefined = person === undefined ? undefined : (request, context) => {
    asked.push(request);
    return typeof person === 'function' ? person(request, context) : person;
  };

  before(async () => {
    registry = await portedRegistry();
    fs.mkdirSync(path.dirname(userFile), { recursive: true });
    if (options.rules !== undefined) fs.writeFileSync(userFile, options.rules);
    executor = new ToolExecutor(registry, {
      workspaceRoot: t.ws,
      policy: { user: userFile, workspace: options.workspacePolicy ?? false },
      ...options.executor,
      ...(confirmationHandler && { confirmationHandler }),
    });
  });
  after(async () => {
    await executor?.close();
    t.cleanup();
  });
  beforeEach(() => {
    asked.length = 0;
    if (options.emptyEachTest === true) for (const name of fs.readdirSync(t.ws)) fs.rmSync(path.join(t.ws, name), { recursive: true, force: true });
  });

  const made: PolicyExecutor = {
    t,
    userFile,
    asked,
    get registry() {
      if (registry === undefined) throw new Error('policyExecutor: the registry is made in before()');
      return registry;
    },
    get executor() {
      if (executor === undefined) throw new Error('policyExecutor: the executor is made in before()');
      return executor;
    },
    policy: (text) => fs.writeFileSync(userFile, text),
    run: (command, runOptions = {}) => made.executor.execute({ name: 'run_command', arguments: { command } }, runOptions),
    call: callsTo(() => made.executor),
  };
  return made;
}
