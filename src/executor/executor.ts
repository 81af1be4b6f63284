/**
 * The executor: one model tool call from raw arguments to a {@link ToolExecutionResult},
 * through validation, the gate chain, a runner and the close-out.
 *
 * @module
 */
import { performance } from 'node:perf_hooks';
import crypto from 'node:crypto';
import pLimit from 'p-limit';
import { PathTraversalError, type ToolErrorCode } from '../errors.js';
import { closeOut } from '../closeout/closeout.js';
import { confirmationGate, type ConfirmationHandler } from '../gates/confirmation.gate.js';
import type { GateDenial } from '../gates/gate.js';
import { modeGate } from '../gates/mode.gate.js';
import { policyGate, type PolicyHook } from '../gates/policy.gate.js';
import { RateLimitGate } from '../gates/rate-limit.gate.js';
import { createLogger, redactSecrets, type Logger } from '../logging/logger.js';
import { resolveMode, type AgentMode } from '../modes/modes.js';
import { RegisteredTool } from '../registry/registered-tool.js';
import type { ToolRegistry } from '../registry/registry.js';
import { MainRunner } from '../runner/main-runner.js';
import { PoolRunner, type PoolRunnerOptions } from '../runner/pool-runner.js';
import { errorCodeOf, rebuildPathTraversal, type RunOutcome } from '../runner/protocol.js';
import { dropNullOptionals, pathValues } from '../schema/path-arguments.js';
import type { ToolCallRequest, ToolExecutionResult } from '../types.js';
import { workspaceFor } from '../workspace/workspace.js';
import { parseArguments } from './arguments.js';

/** Options of a {@link ToolExecutor}; every option documents its default. */
export interface ToolExecutorOptions {
  /** Workspace root when a call gives none. Default: `process.cwd()` at call time. */
  workspaceRoot?: string;
  /** pino logger for call events. Default: silent. */
  logger?: Logger;
  /** Policy hook consulted after the mode gate. Default: none. */
  policyHook?: PolicyHook;
  /** Asked when a call needs confirmation and was not given `confirm: true`. Default: none. */
  confirmationHandler?: ConfirmationHandler;
  /** Worker threads per pool. Default `max(2, available parallelism)`. */
  poolSize?: number;
  /** Memory cap in MiB of workers for tools that declare none. Default 1024. */
  defaultMemoryMb?: number;
  /** Calls a pool worker holds at once; see {@link PoolRunnerOptions.callsPerWorker}. Default 2. */
  callsPerWorker?: number;
  /**
   * Names of the tools read-only modes may let write inside scoped folders. Only tools that
   * declare `scopedWrite` qualify; this list narrows them further. Default: every tool that
   * declares `scopedWrite`.
   */
  scopedWriteTools?: Iterable<string>;
  /** Longest wait, in ms, for a rate-limited call's turn before it is refused. Default 10000. */
  rateLimitMaxWaitMs?: number;
  /** Concurrency bound of {@link ToolExecutor.executeMany}. Default 8. */
  concurrency?: number;
}

/** Per-call options. */
export interface ExecuteOptions {
  /** Agent mode: `default`, `explore`, `plan`, or a custom {@link AgentMode}. Default `default`. An unknown name is denied. */
  mode?: string | AgentMode;
  /** Extra scoped write folders for read-only modes (workspace-relative). Default none. */
  scopedWriteDirs?: readonly string[];
  /** The user already approved this call. Default false. */
  confirm?: boolean;
  /** Overrides the executor's confirmation handler for this call; `null` disables it. */
  confirmationHandler?: ConfirmationHandler | null;
  /** Timeout in ms for this call, overriding the tool's; `<= 0` disables. */
  timeoutMs?: number;
  /** Workspace root for this call (request-scoped override). */
  workspaceRoot?: string;
  /** Aborts the call: the result is `ABORTED`, and the tool is stopped. */
  signal?: AbortSignal;
}

/** Options of {@link ToolExecutor.executeMany}. */
export interface ExecuteManyOptions extends ExecuteOptions {
  /** Read-only calls run at most this many at once. Default: the executor's `concurrency`. */
  concurrency?: number;
}

const CALL_ID_PREFIX = `tg_${crypto.randomBytes(4).toString('hex')}_`;

/**
 * Runs tool calls. Never throws for a call except {@link PathTraversalError}: every other
 * failure (unknown tool, bad arguments, a gate, a timeout, a crash) is a result.
 *
 * Call {@link ToolExecutor.close} when done, to end worker threads.
 */
export class ToolExecutor {
  readonly registry: ToolRegistry;
  private readonly logger: Logger;
  private readonly logInfo: boolean;
  private readonly logDebug: boolean;
  private readonly options: ToolExecutorOptions;
  private readonly scopedWriteTools: ReadonlySet<string> | undefined;
  private readonly mainRunner = new MainRunner();
  private poolRunner: PoolRunner | undefined;
  private rateLimit: RateLimitGate | undefined;
  private callCounter = 0;

  /**
   * @param registry - where tools are resolved.
   * @throws RangeError when an option is out of range (the message names it).
   */
  constructor(registry: ToolRegistry, options: ToolExecutorOptions = {}) {
    this.registry = registry;
    this.options = options;
    this.logger = options.logger ?? createLogger('silent');
    this.logInfo = this.logger.isLevelEnabled('info');
    this.logDebug = this.logger.isLevelEnabled('debug');
    this.scopedWriteTools = options.scopedWriteTools === undefined ? undefined : new Set(options.scopedWriteTools);
    if (options.concurrency !== undefined && (!Number.isInteger(options.concurrency) || options.concurrency < 1)) {
      throw new RangeError(`options.concurrency must be a positive integer; got ${options.concurrency}`);
    }
    if (options.rateLimitMaxWaitMs !== undefined) this.rateLimit = new RateLimitGate(options.rateLimitMaxWaitMs);
    if (options.poolSize !== undefined || options.defaultMemoryMb !== undefined || options.callsPerWorker !== undefined) this.poolRunner = this.createPoolRunner();
  }

  private createPoolRunner(): PoolRunner {
    const preload = () => this.registry.list({ allVersions: true }).flatMap((t) => (t.runner === 'pool' && t.moduleUrl ? [t.moduleUrl] : []));
    return new PoolRunner({ poolSize: this.options.poolSize, defaultMemoryMb: this.options.defaultMemoryMb, callsPerWorker: this.options.callsPerWorker, preload });
  }

  private pool(): PoolRunner {
    return (this.poolRunner ??= this.createPoolRunner());
  }

  private closed = false;

  /** Start the default worker pool now, so the first call does not wait for threads. */
  warmUp(): void {
    this.pool().warmUp();
  }

  /**
   * Run one tool call.
   * @param call - `{ name, arguments, callId?, version? }` as the model sent it.
   * @returns the result; see {@link ToolExecutionResult}.
   * @throws PathTraversalError when a path argument leaves the workspace.
   */
  async execute(call: ToolCallRequest, options: ExecuteOptions = {}): Promise<ToolExecutionResult> {
    const started = performance.now();
    const callId = typeof call?.callId === 'string' && call.callId !== '' ? call.callId : `${CALL_ID_PREFIX}${++this.callCounter}`;
    const name = typeof call?.name === 'string' ? call.name : String(call?.name);
    const found = this.registry.resolve(name, call?.version);
    if (!(found instanceof RegisteredTool)) {
      return this.finish(started, { success: false, output: `Error: ${found.message}`, error: found.message, errorCode: found.code, confirmed: true, tool: name, callId });
    }
    const tool = found;
    const base = { tool: tool.name, version: tool.version, callId };
    if (this.closed) {
      return this.finish(started, { success: false, output: 'Error: the executor is closed; no more calls run.', error: 'the executor is closed; no more calls run.', errorCode: 'ABORTED', confirmed: true, ...base });
    }
    const fail = (code: ToolErrorCode, message: string, extra?: Partial<ToolExecutionResult>) =>
      this.finish(started, { success: false, output: `Error: ${message}`, error: message, errorCode: code, confirmed: true, ...base, ...extra }, undefined, call?.arguments);

    const parsed = parseArguments(call?.arguments);
    if (!parsed.ok) return fail('INVALID_ARGUMENTS', `Invalid arguments for ${tool.name}: ${parsed.message}.`);
    const repairs = parsed.repairs.length ? parsed.repairs : undefined;
    const args = dropNullOptionals(tool.inputSchema, parsed.value) as Record<string, unknown>;
    const problem = tool.validateInput(args);
    if (problem !== undefined) {
      return fail('INVALID_ARGUMENTS', `Invalid arguments for ${tool.name}: ${problem}. Expected ${signatureOf(tool)}.`, { repairs });
    }

    const root = options.workspaceRoot ?? this.options.workspaceRoot ?? process.cwd();
    if (tool.pathArguments.length !== 0) {
      const workspace = workspaceFor(root);
      for (const p of pathValues(args, tool.pathArguments)) {
        try {
          workspace.resolve(p);
        } catch (error) {
          if (error instanceof PathTraversalError) throw this.traversal(error, tool, callId);
          return fail('INVALID_PATH', (error as Error).message, { repairs });
        }
      }
    }

    // Gate chain: mode, policy, confirmation, rate limit.
    const modeName = typeof options.mode === 'string' ? options.mode : options.mode?.name ?? 'default';
    const mode = resolveMode(options.mode);
    let denial: GateDenial | undefined;
    if (mode === undefined || mode.readOnly) {
      denial = modeGate({
        tool, args, mode, modeName, scopedWriteDirs: options.scopedWriteDirs ?? [], scopedWriteTools: this.scopedWriteTools, workspace: workspaceFor(root),
      });
    }
    if (denial === undefined && this.options.policyHook !== undefined) {
      const verdict = policyGate(this.options.policyHook, { tool: tool.name, version: tool.version, arguments: args, mode: modeName, callId, readOnly: tool.readOnly }, this.logger);
      denial = verdict instanceof Promise ? await verdict : verdict;
    }
    if (denial === undefined && tool.requiresConfirmation) {
      const handler = options.confirmationHandler === null ? undefined : options.confirmationHandler ?? this.options.confirmationHandler;
      denial = await confirmationGate({ tool: tool.name, version: tool.version, arguments: args, callId, description: tool.description }, options.confirm, handler, this.logger);
    }
    if (denial === undefined && tool.rateLimitRpm !== undefined) {
      denial = await (this.rateLimit ??= new RateLimitGate()).acquire(tool.key, tool.name, tool.rateLimitRpm);
    }
    if (denial !== undefined) {
      const confirmed = denial.gate !== 'confirmation';
      return this.finish(started, { success: false, output: `Error: ${denial.reason}`, error: denial.reason, errorCode: denial.code, confirmed, ...base, repairs }, denial.gate, args);
    }

    const timeoutMs = options.timeoutMs ?? tool.timeoutMs;
    const running =
      tool.runner === 'main'
        ? this.mainRunner.run({ target: tool.target, key: tool.key, name: tool.name, version: tool.version, args, workspaceRoot: root, callId, timeoutMs, signal: options.signal })
        : this.pool().run({ moduleUrl: tool.moduleUrl!, exportName: tool.exportName, key: tool.key, args, workspaceRoot: root, callId, memoryMb: tool.memoryMb, timeoutMs, signal: options.signal });
    const outcome: RunOutcome = running instanceof Promise ? await running : running;

    switch (outcome.kind) {
      case 'ok': {
        const invalid = tool.validateOutput(outcome.value);
        if (invalid !== undefined) {
          return fail('INVALID_OUTPUT', `${tool.name} returned output that does not match its output schema: ${invalid}. This is a bug in the tool, not in the call.`, { repairs });
        }
        const output = closeOut(outcome.value, outcome.notes, tool.maxOutputLength, tool.truncation);
        const result: ToolExecutionResult = { success: true, output, durationMs: 0, confirmed: true, tool: tool.name, version: tool.version, callId };
        if (typeof outcome.value !== 'string' && outcome.value !== undefined && outcome.value !== null) result.structured = outcome.value;
        if (repairs) result.repairs = repairs;
        return this.finish(started, result, undefined, args);
      }
      case 'error': {
        const traversal = rebuildPathTraversal(outcome.error);
        if (traversal !== undefined) throw this.traversal(traversal, tool, callId);
        const notes = outcome.notes.length ? `\n${outcome.notes.join('\n')}` : '';
        return fail(errorCodeOf(outcome.error), `${tool.name} failed: ${outcome.error.message}${notes}`, { repairs });
      }
      case 'timeout':
        return fail('TIMEOUT', `${tool.name} timed out after ${formatSeconds(outcome.timeoutMs)} s (limit ${outcome.timeoutMs} ms) and was stopped; try a smaller request.`, { repairs });
      case 'aborted':
        return fail('ABORTED', `${tool.name} was aborted by the caller before it finished.`, { repairs });
      case 'memory':
        return fail('MEMORY_LIMIT', `${tool.name} exceeded its memory cap of ${outcome.memoryMb} MB and was stopped; try a smaller request.`, { repairs });
      case 'crashed':
        return fail('WORKER_CRASHED', `${tool.name} crashed: ${outcome.message}.`, { repairs });
    }
  }

  /**
   * Convenience form of {@link execute}.
   * @param args - arguments object or JSON text.
   */
  call(name: string, args?: unknown, options?: ExecuteOptions & { callId?: string; version?: string }): Promise<ToolExecutionResult> {
    return this.execute({ name, arguments: args, callId: options?.callId, version: options?.version }, options);
  }

  /**
   * Run a batch of calls (one model turn). Read-only calls run concurrently, at most
   * `concurrency` at once; a call to a tool that writes waits for every earlier call and runs
   * alone, so writes happen in the order the model gave. Results come back in call order.
   * @throws PathTraversalError after the batch settles, when any call tried to escape.
   */
  async executeMany(calls: readonly ToolCallRequest[], options: ExecuteManyOptions = {}): Promise<ToolExecutionResult[]> {
    const limit = pLimit(options.concurrency ?? this.options.concurrency ?? 8);
    const results = new Array<ToolExecutionResult>(calls.length);
    let escape: PathTraversalError | undefined;
    const run = async (i: number) => {
      try {
        results[i] = await this.execute(calls[i]!, options);
      } catch (error) {
        if (error instanceof PathTraversalError) {
          escape ??= error;
          const c = calls[i]!;
          results[i] = { success: false, output: `Error: ${error.message}`, error: error.message, errorCode: 'PATH_TRAVERSAL', durationMs: 0, confirmed: true, tool: String(c.name), callId: c.callId ?? '' };
        } else {
          throw error;
        }
      }
    };
    let pending: Promise<void>[] = [];
    for (let i = 0; i < calls.length; i++) {
      const tool = this.registry.get(String(calls[i]!.name), calls[i]!.version);
      if (tool !== undefined && !tool.readOnly) {
        await Promise.all(pending);
        pending = [];
        await run(i);
      } else {
        pending.push(limit(() => run(i)));
      }
    }
    await Promise.all(pending);
    if (escape !== undefined) throw escape;
    return results;
  }

  /** End worker threads and rate limiters. Calls in flight in workers end as `WORKER_CRASHED`; later calls return `ABORTED`. */
  async close(): Promise<void> {
    this.closed = true;
    await Promise.all([this.poolRunner?.close(), this.rateLimit?.close()]);
  }

  private traversal(error: PathTraversalError, tool: RegisteredTool, callId: string): PathTraversalError {
    this.logger.warn({ event: 'tool_call', tool: tool.name, version: tool.version, callId, gate: 'workspace', success: false, errorCode: 'PATH_TRAVERSAL', path: error.path }, 'path traversal refused');
    return error;
  }

  private finish(started: number, result: Omit<ToolExecutionResult, 'durationMs'> & { durationMs?: number }, gate?: string, args?: unknown): ToolExecutionResult {
    result.durationMs = performance.now() - started;
    if (this.logInfo) {
      const event: Record<string, unknown> = {
        event: 'tool_call', tool: result.tool, version: result.version, callId: result.callId, gate: gate ?? (result.errorCode === 'UNKNOWN_TOOL' || result.errorCode === 'VERSION_NOT_FOUND' || result.errorCode === 'INVALID_ARGUMENTS' || result.errorCode === 'INVALID_PATH' ? 'validation' : 'passed'),
        durationMs: Math.round(result.durationMs * 1000) / 1000, success: result.success, errorCode: result.errorCode,
      };
      if (this.logDebug && args !== undefined) {
        // Raw JSON text that failed to parse cannot be redacted key by key: log its size only.
        event.arguments = typeof args === 'string' ? `[unparsed arguments, ${args.length} characters]` : redactSecrets(args);
      }
      if (result.success) this.logger.info(event, 'tool call');
      else this.logger.info(event, 'tool call failed');
    }
    return result as ToolExecutionResult;
  }
}

function formatSeconds(ms: number): string {
  const s = ms / 1000;
  return Number.isInteger(s) ? String(s) : s.toFixed(s < 1 ? 3 : 1);
}

/** `read_file(filepath: string, max_lines?: number)`: a compact signature for error messages. */
function signatureOf(tool: RegisteredTool): string {
  const props = (tool.inputSchema.properties ?? {}) as Record<string, Record<string, unknown>>;
  const required = new Set((tool.inputSchema.required as string[] | undefined) ?? []);
  const parts = Object.entries(props).map(([k, s]) => `${k}${required.has(k) ? '' : '?'}: ${typeName(s)}`);
  return `${tool.name}(${parts.join(', ')})`;
}

function typeName(schema: Record<string, unknown>): string {
  if (Array.isArray(schema.enum)) return schema.enum.map((v) => JSON.stringify(v)).join(' | ');
  if (Array.isArray(schema.type)) return schema.type.join(' | ');
  if (schema.type === 'array' && schema.items && typeof schema.items === 'object') return `${typeName(schema.items as Record<string, unknown>)}[]`;
  if (typeof schema.type === 'string') return schema.type;
  if (Array.isArray(schema.anyOf)) return (schema.anyOf as Record<string, unknown>[]).map(typeName).join(' | ');
  return 'any';
}
