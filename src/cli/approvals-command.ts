/**
 * `toolgate approvals [list] | show ID | allow ID | deny ID`: the questions stored in the
 * workspace's ledger that nobody has answered (`list`: each call's arguments summarised, head
 * and tail, flagged when cut; `show`: one question with every argument whole, escaped, or as
 * JSON with `--json`), and answering one from here. The first answer counts
 * (whether given here, by the asking process's own handler, or by another `approvals`).
 * When the process that asked still runs, it resumes on the answer; when it is gone (killed,
 * restarted), `allow` runs the call here, once, through an executor with the same ledger,
 * tool version, arguments, workspace and modes ({@link runStoredCall}), and `deny` ends it
 * denied. The workflow is the ledger's (`settleQuestion` in `src/ledger/resume.ts`); this
 * command supplies how a call runs from the command line.
 *
 * Exit codes: 0 done; 1 no such question, or the call it ran failed; 2 usage.
 *
 * @module
 */
import { ToolDefinitionError } from '../errors/errors.js';
import type { ApprovalRecord, CallRecord, CallStore } from '../ledger/call-store.js';
import { settleQuestion, type RunHere, type SettleReport } from '../ledger/resume.js';
import type { SandboxProfile } from '../sandbox/bubblewrap.js';
import type { ApprovalMode } from '../decisions/decision.js';
import { EXIT, logLevel, parse, policyOption, UsageError, APPROVE_FLAGS, type CliContext } from './context.js';
import { age, LEDGER_COMMAND_FLAGS, openCliLedger, openCliLedgerReadOnly } from './ledger-cli.js';
import { terminalSafe } from './terminal.js';
import { argumentsSummary, visibleJson, visibleText, wholeArguments } from '../decisions/shown-arguments.js';
import { questionLabel, questionsIn } from '../decisions/asked-questions.js';
import { cliToolSystem } from './tool-system.js';


/** Run `toolgate approvals`; `argv` are the arguments after `approvals`. */
export async function approvalsCommand(argv: string[], ctx: CliContext): Promise<number> {
  const { values, positionals } = parse(argv, { ...LEDGER_COMMAND_FLAGS, ...APPROVE_FLAGS });
  const [action = 'list', id, ...rest] = positionals;
  if (rest.length) throw new UsageError(`unexpected arguments: ${rest.join(' ')}`);
  if (action === 'list') {
    if (id !== undefined) throw new UsageError('approvals list takes no ID');
    // Listing only reads: the ledger opens read-only (no recovery, no retention).
    const ledger = await openCliLedgerReadOnly(values, ctx);
    if (ledger === undefined) {
      ctx.stdout.write(values.json === true ? '[]\n' : 'no questions are waiting\n');
      return EXIT.ok;
    }
    try {
      return await list(ledger, values.json === true, ctx);
    } finally {
      await ledger.close();
    }
  }
  if (action === 'show') {
    if (id === undefined || !/^\d+$/.test(id)) throw new UsageError('approvals show needs the question\'s ID (a number: toolgate approvals list shows them)');
    const ledger = await openCliLedgerReadOnly(values, ctx);
    try {
      const question = await ledger?.approval(Number(id));
      if (question === undefined) {
        ctx.stderr.write(`toolgate: no question ${id} in this ledger\n`);
        return EXIT.failed;
      }
      ctx.stdout.write(values.json === true ? `${visibleJson(question, 2)}\n` : showText(question));
      return EXIT.ok;
    } finally {
      await ledger?.close();
    }
  }
  if (action !== 'allow' && action !== 'deny') throw new UsageError(`approvals: unknown action ${JSON.stringify(action)} (list, show ID, allow ID, deny ID)`);
  if (id === undefined || !/^\d+$/.test(id)) throw new UsageError(`approvals ${action} needs the question's ID (a number: toolgate approvals list shows them)`);
  const ledger = await openCliLedger(values, ctx);
  try {
    const given = action === 'allow' ? 'allow_once' : 'deny';
    const outcome = await settleQuestion(ledger, Number(id), given, `cli:${process.pid}`, cliReport(ctx), (call) => runStoredCall(ledger, call, values, ctx));
    if (!outcome.found || outcome.counted === undefined) return EXIT.failed;
    return outcome.run === undefined ? EXIT.ok : await outcome.run;
  } finally {
    await ledger.close();
  }
}

/**
 * Print the questions waiting to be settled: unanswered ones, and those answered while their
 * asker lived that it never acted on before it died (ANSWER shows the answer that counts).
 */
async function list(ledger: CallStore, json: boolean, ctx: CliContext): Promise<number> {
  const pending = await ledger.pendingApprovals();
  if (json) {
    // Whole, and nothing in it rendered: a bidi or control character inside a string is
    // written as a \uXXXX escape (the JSON parses to the same values).
    ctx.stdout.write(`${visibleJson(pending, 2)}\n`);
    return EXIT.ok;
  }
  if (pending.length === 0) {
    ctx.stdout.write('no questions are waiting\n');
    return EXIT.ok;
  }
  const now = Date.now();
  let cut = false;
  const rows = pending.map((q) => {
    const summary = argumentsSummary(q.request.arguments);
    cut ||= summary.cut;
    const cells = [String(q.id), age(q.askedAt, now), q.tool, q.callId, q.ownerAlive ? 'waiting' : 'gone', q.answer ?? '-', why(q)].map((c) => visibleText(c, false));
    return [...cells, summary.cut ? `${summary.text} (cut: toolgate approvals show ${q.id})` : summary.text];
  });
  const head = ['ID', 'AGE', 'TOOL', 'CALL', 'ASKER', 'ANSWER', 'WHY', 'ARGUMENTS'];
  const widths = head.map((h, i) => Math.min(40, Math.max(h.length, ...rows.map((r) => r[i]!.length))));
  const line = (cells: string[]) => cells.map((c, i) => (i === cells.length - 1 ? c : c.slice(0, widths[i]).padEnd(widths[i]!))).join('  ');
  ctx.stdout.write(`${[line(head), ...rows.map(line)].join('\n')}\n`);
  if (cut) ctx.stdout.write('Arguments cut above have their middle left out: toolgate approvals show ID prints them whole (--json: as JSON).\n');
  return EXIT.ok;
}

/** `approvals show ID`: the question as a person is asked it, every argument whole and escaped. */
function showText(q: ApprovalRecord): string {
  const request = q.request as { version?: unknown; paths?: unknown; arguments?: Record<string, unknown>; ask?: { decider?: string; reason?: string; rule?: string }; also?: unknown };
  const lines = [`Question ${q.id}: ${visibleText(q.tool, false)} ${visibleText(String(request.version ?? ''), false)} (call ${visibleText(q.callId, false)}, session ${visibleText(q.session, false)})`];
  lines.push(`  asked: ${new Date(q.askedAt).toISOString()}, ${q.answer === undefined ? 'not answered' : `answered ${visibleText(q.answer, false)}`}; the call is ${q.callState}`);
  lines.push(`  why: ${visibleText(questionLabel(request.ask ?? {}), false)}: ${visibleText(String(request.ask?.reason ?? ''), false)}`);
  // every other question of the call, none left out: the answer answers them too
  for (const other of questionsIn(request.also)) lines.push(`  also: ${visibleText(questionLabel(other), false)}: ${visibleText(other.reason, false)}`);
  if (Array.isArray(request.paths)) for (const p of request.paths) lines.push(`  target: ${visibleText(String(p), false)}`);
  lines.push(wholeArguments(request.arguments ?? {}));
  return `${lines.join('\n')}\n`;
}

/** Who asked a question: its decider and rule, and how many other questions the call raised (`+N`: `approvals show ID` prints them). */
function why(q: ApprovalRecord): string {
  const ask = q.request.ask as { decider?: string; reason?: string; rule?: string } | undefined;
  if (ask === undefined) return '-';
  const others = questionsIn(q.request.also).length;
  return `${questionLabel(ask)}${others === 0 ? '' : ` +${others}`}`;
}

/**
 * Where the CLI reports what {@link settleQuestion} did: `info` lines on stdout, `warn` lines
 * on stderr (prefixed `toolgate: `).
 */
export function cliReport(ctx: CliContext): SettleReport {
  return {
    info: (line) => ctx.stdout.write(`${line}\n`),
    warn: (line) => ctx.stderr.write(`toolgate: ${line}\n`),
  };
}

/**
 * Run a call whose asker is gone in this process, as it would have run there: a tool system
 * from the command line's flags on `ledger`, with the call's stored tool version, arguments,
 * workspace, session, turn and modes (the {@link RunHere} of `approvals` and the cockpit).
 * The output goes to the context's streams.
 * @returns 0 success, 1 failed, 2 the tool is not loaded here.
 */
export async function runStoredCall(ledger: CallStore, call: CallRecord, values: Record<string, unknown>, ctx: CliContext): Promise<number> {
  const stored = call.options;
  if (call.pool !== undefined) {
    // A call sent to a pool runs on a worker of that pool, never here: a worker's reconciler
    // finds the answer and resumes it there.
    ctx.stdout.write(`call ${call.callId} waits for a worker of pool ${call.pool}: one resumes it with this answer\n`);
    return EXIT.ok;
  }
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
