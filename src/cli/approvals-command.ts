/**
 * `toolgate approvals [list] | allow ID | deny ID`: the questions stored in the workspace's
 * ledger that nobody has answered, and answering one from here. The first answer counts
 * (whether given here, by the asking process's own handler, or by another `approvals`).
 * When the process that asked still runs, it resumes on the answer; when it is gone (killed,
 * restarted), `allow` and `deny` run the call here, once, through an executor with the same
 * ledger, tool version, arguments, workspace and modes, and store its result.
 *
 * Exit codes: 0 done; 1 no such question, or the call it ran failed; 2 usage.
 *
 * @module
 */
import { failedResult } from '../closeout/results.js';
import { ToolDefinitionError } from '../errors/errors.js';
import type { ApprovalRecord, CallRecord, Ledger } from '../ledger/store.js';
import type { ApprovalAnswer } from '../decisions/approval.js';
import type { SandboxProfile } from '../sandbox/bubblewrap.js';
import type { ApprovalMode } from '../decisions/decision.js';
import { EXIT, logLevel, parse, policyOption, UsageError, APPROVE_FLAGS, type CliContext } from './context.js';
import { age, argumentSummary, LEDGER_COMMAND_FLAGS, openCliLedger, openCliLedgerReadOnly } from './ledger-cli.js';
import { terminalSafe } from './terminal.js';
import { cliToolSystem } from './tool-system.js';


/** Run `toolgate approvals`; `argv` are the arguments after `approvals`. */
export async function approvalsCommand(argv: string[], ctx: CliContext): Promise<number> {
  const { values, positionals } = parse(argv, { ...LEDGER_COMMAND_FLAGS, ...APPROVE_FLAGS });
  const [action = 'list', id, ...rest] = positionals;
  if (rest.length) throw new UsageError(`unexpected arguments: ${rest.join(' ')}`);
  if (action === 'list') {
    if (id !== undefined) throw new UsageError('approvals list takes no ID');
    // Listing only reads: the ledger opens read-only (no recovery, no retention).
    const ledger = openCliLedgerReadOnly(values, ctx);
    if (ledger === undefined) {
      ctx.stdout.write(values.json === true ? '[]\n' : 'no questions are waiting\n');
      return EXIT.ok;
    }
    try {
      return list(ledger, values.json === true, ctx);
    } finally {
      ledger.close();
    }
  }
  if (action !== 'allow' && action !== 'deny') throw new UsageError(`approvals: unknown action ${JSON.stringify(action)} (list, allow ID, deny ID)`);
  if (id === undefined || !/^\d+$/.test(id)) throw new UsageError(`approvals ${action} needs the question's ID (a number: toolgate approvals list shows them)`);
  const ledger = openCliLedger(values, ctx);
  try {
    const outcome = await answerQuestion(ledger, Number(id), action === 'allow' ? 'allow_once' : 'deny', `cli:${process.pid}`, values, ctx);
    if (!outcome.found || outcome.counted === undefined) return EXIT.failed;
    return outcome.run === undefined ? EXIT.ok : await outcome.run;
  } finally {
    ledger.close();
  }
}

/**
 * Print the questions waiting to be settled: unanswered ones, and those answered while their
 * asker lived that it never acted on before it died (ANSWER shows the answer that counts).
 */
function list(ledger: Ledger, json: boolean, ctx: CliContext): number {
  const pending = ledger.pendingApprovals();
  if (json) {
    ctx.stdout.write(`${JSON.stringify(pending, null, 2)}\n`);
    return EXIT.ok;
  }
  if (pending.length === 0) {
    ctx.stdout.write('no questions are waiting\n');
    return EXIT.ok;
  }
  const now = Date.now();
  const rows = pending.map((q) => [String(q.id), age(q.askedAt, now), q.tool, q.callId, q.ownerAlive ? 'waiting' : 'gone', q.answer ?? '-', why(q), argumentSummary(q.request.arguments)]);
  const head = ['ID', 'AGE', 'TOOL', 'CALL', 'ASKER', 'ANSWER', 'WHY', 'ARGUMENTS'];
  const widths = head.map((h, i) => Math.min(40, Math.max(h.length, ...rows.map((r) => r[i]!.length))));
  const line = (cells: string[]) => cells.map((c, i) => (i === cells.length - 1 ? c : c.slice(0, widths[i]).padEnd(widths[i]!))).join('  ');
  ctx.stdout.write(`${[line(head), ...rows.map(line)].map((l) => terminalSafe(l, false)).join('\n')}\n`);
  return EXIT.ok;
}

/** Why a question was asked: its decider and reason. */
function why(q: ApprovalRecord): string {
  const ask = q.request.ask as { decider?: string; reason?: string; rule?: string } | undefined;
  return ask === undefined ? '-' : `${ask.decider ?? '?'}${ask.rule === undefined ? '' : ` [${ask.rule}]`}`;
}

/** What {@link answerQuestion} did. */
export interface AnswerOutcome {
  /** Whether the question exists. */
  found: boolean;
  /** Whether this answer was the first (and counts). */
  first: boolean;
  /** The answer that counts. */
  counted: string | undefined;
  /** The call's state after the answer (before any run here). */
  callState: string | undefined;
  /** `resumes`: the asking process resumes the call; `denied_here`: it is gone and the call ended denied; `ran_here`: it is gone and the call runs in this process; `none`: the call is not waiting. */
  next: 'resumes' | 'denied_here' | 'ran_here' | 'none';
  /** With `ran_here`: the run, resolving to the exit code (0 success, 1 failed, 2 tool not loaded here). */
  run?: Promise<number>;
}

/**
 * Answer question `id` with `given`, as `toolgate approvals allow|deny` and the cockpit do;
 * the first answer counts. When the process that asked is gone and the call still waits, an
 * allow runs it here (the ledger's claim makes that happen once) and a deny ends it denied.
 * Messages go to the context's streams.
 * @param by - who answers (`cli:<pid>`, `cockpit:<pid>`).
 */
export async function answerQuestion(
  ledger: Ledger, id: number, given: ApprovalAnswer, by: string, values: Record<string, unknown>, ctx: CliContext,
): Promise<AnswerOutcome> {
  const question = ledger.approval(id);
  if (question === undefined) {
    ctx.stderr.write(`toolgate: no question ${id} in ${ledger.file} (toolgate approvals list shows the waiting ones)\n`);
    return { found: false, first: false, counted: undefined, callState: undefined, next: 'none' };
  }
  if (question.request.kind === 'question' && given !== 'deny') {
    ctx.stderr.write(`toolgate: question ${id} is the agent's question to you (ask_user): answer it in the cockpit (toolgate cockpit), or refuse it with deny\n`);
    return { found: true, first: false, counted: undefined, callState: undefined, next: 'none' };
  }
  const counted = ledger.answer(id, given, by)!;
  if (!counted.first) ctx.stderr.write(`toolgate: question ${id} was answered already (${counted.answer} by ${ledger.approval(id)?.answeredBy ?? '?'}); that answer counts\n`);
  else ctx.stdout.write(`question ${id} (${question.tool}, call ${question.callId}): ${given === 'deny' ? 'denied' : given === 'allow_once' ? 'allowed once' : `allowed (${given})`}\n`);
  const call = ledger.get(question.callId, question.session)!;
  const outcome: AnswerOutcome = { found: true, first: counted.first, counted: counted.answer, callState: call.state, next: 'none' };
  if (call.state === 'running' && ledger.ownerAlive(call)) {
    // The asker saw the answer first (it checks every pollMs) and has already claimed the call.
    ctx.stdout.write(`process ${call.ownerPid}, which asked, resumes the call (running now)\n`);
    return { ...outcome, next: 'resumes' };
  }
  if (call.state !== 'pending') {
    ctx.stdout.write(`call ${call.callId} is ${call.state}${call.state === 'running' ? '' : ': toolgate result shows its result'}\n`);
    return outcome;
  }
  if (ledger.ownerAlive(call)) {
    ctx.stdout.write(`process ${call.ownerPid}, which asked, resumes the call\n`);
    return { ...outcome, next: 'resumes' };
  }
  if (counted.answer !== 'allow_once' && counted.answer !== 'allow_for_turn' && counted.answer !== 'always') {
    // Refused, and nobody waits: the call ends denied here and never runs.
    const result = failedResult('CONFIRMATION_DENIED', `Confirmation denied: the user did not approve this ${call.tool} call (toolgate approvals deny). Do not retry it unchanged; ask the user or take another approach.`, { tool: call.tool, version: call.version, callId: call.callId });
    result.confirmed = false;
    ledger.finish(call, { state: 'denied', decisions: [{ decider: 'confirmation', verdict: 'deny', reason: result.output, rule: 'deny' }], result });
    ctx.stdout.write(`process ${call.ownerPid}, which asked, is gone: call ${call.callId} ends denied and does not run\n`);
    return { ...outcome, next: 'denied_here' };
  }
  return { ...outcome, next: 'ran_here', run: runHere(ledger, call, values, ctx) };
}

/** Run a call whose asker is gone in this process, as it would have run there. */
async function runHere(ledger: Ledger, call: CallRecord, values: Record<string, unknown>, ctx: CliContext): Promise<number> {
  // The asking process is gone: run the call here, as it would have run there.
  ctx.stdout.write(`process ${call.ownerPid}, which asked, is gone: running the call here\n`);
  const stored = call.options;
  let system;
  try {
    system = cliToolSystem(values, ctx, {
      workspace: call.workspace,
      logLevel: logLevel(values),
      executor: {
        ledger, session: call.session, outputStore: {},
        policy: policyOption(values, ctx),
        approvalMode: stored.approvalMode as ApprovalMode | undefined,
        sandbox: stored.sandbox as SandboxProfile | undefined,
        sandboxNetwork: stored.sandboxNetwork,
      },
    });
    await system.start();
  } catch (error) {
    if (error instanceof ToolDefinitionError) throw new UsageError(error.message);
    throw error;
  }
  try {
    if (system.registry.get(call.tool, call.version) === undefined) {
      ctx.stderr.write(`toolgate: ${call.tool}@${call.version} is not loaded here: give the --tools DIR --schemas FILE the asking process had\n`);
      return EXIT.usage;
    }
    const result = await system.execute({ name: call.tool, arguments: call.arguments, callId: call.callId, version: call.version }, {
      session: call.session, turnId: call.turn, mode: stored.mode, scopedWriteDirs: stored.scopedWriteDirs, approvalMode: stored.approvalMode as ApprovalMode | undefined,
      timeoutMs: stored.timeoutMs,
    });
    const text = terminalSafe(result.output, false);
    (result.success ? ctx.stdout : ctx.stderr).write(text.endsWith('\n') ? text : `${text}\n`);
    return result.success ? EXIT.ok : EXIT.failed;
  } finally {
    await system.close();
  }
}
