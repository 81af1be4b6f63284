/**
 * `toolgate trace [--session S] [--call ID] [--json] [--limit N]`: the calls of the
 * workspace's ledger, newest first, each with its state, decision path (`decider:verdict`),
 * timings (waiting from recorded to started, running from started to ended), result status
 * and the size of its whole output, and how often a retry of its call id was answered with its
 * stored result (`replayed Nx`). Reads the ledger read-only: a `pending` or `running` call
 * whose process is gone is shown as such (`owner gone`), and is recovered (a `running` one
 * becomes `interrupted`) by the next toolgate process that opens the ledger to write.
 *
 * @module
 */
import { queuedFor, type CallRecord, type CallStore, type LedgerEvent } from '../ledger/call-store.js';
import { clip } from '../util/values.js';
import { EXIT, parse, UsageError, type CliContext } from './context.js';
import { bytes, LEDGER_COMMAND_FLAGS, openCliLedgerReadOnly } from './ledger-cli.js';
import { terminalSafe } from './terminal.js';


/** One call as `trace --json` prints it. */
interface TracedCall extends CallRecord {
  decisions: string[];
  /** ms from recorded to started (the gates and any question), when it started. */
  waitMs: number | undefined;
  /** ms from started to ended, when it ended. */
  runMs: number | undefined;
  /** `ok`, the error code, or `-` without a result. */
  status: string;
  /** For a `pending` or `running` call: whether the process that handles it still runs. */
  ownerAlive?: boolean;
  /** For a call sent to a pool that no worker holds yet: the pool it waits in (docs/distributed.md). */
  waitingForPool?: string;
  /** For a call parked on a question nobody answered yet: the question's id (`toolgate approvals allow ID`). */
  waitingForAnswer?: number;
  /** How many retries of its call id were answered with its stored result, without running again (events `replayed`). */
  replays: number;
  /** For an `ask_user` call: the question, the answer once given (its output, or the stored reply), and who answered when a stored question was answered. */
  asked?: { question: string; answer?: string; by?: string };
}

/** Longest question or answer `trace` prints on a call's line (characters). */
const SHOWN_CHARS = 200;

/** Run `toolgate trace`; `argv` are the arguments after `trace`. */
export async function traceCommand(argv: string[], ctx: CliContext): Promise<number> {
  const { values, positionals } = parse(argv, { ...LEDGER_COMMAND_FLAGS, session: { type: 'string' }, call: { type: 'string' }, limit: { type: 'string' } });
  if (positionals.length) throw new UsageError(`trace takes no positional arguments; got ${positionals.join(' ')}`);
  const limit = values.limit === undefined ? 200 : Number(values.limit);
  if (!Number.isInteger(limit) || limit < 1) throw new UsageError(`--limit must be a positive integer; got ${JSON.stringify(values.limit)}`);
  const ledger = await openCliLedgerReadOnly(values, ctx);
  if (ledger === undefined) {
    ctx.stdout.write(values.json ? '[]\n' : 'no calls recorded\n');
    return EXIT.ok;
  }
  try {
    const listed = await ledger.list({ session: values.session as string | undefined, callId: values.call as string | undefined, limit });
    // A queued call parked on a question is pending with no worker's lease too: told apart by its question.
    const open = listed.some((c) => c.state === 'pending') ? await ledger.pendingApprovals().catch(() => []) : [];
    const questions = new Map(open.filter((q) => q.answer === undefined).map((q) => [`${q.session}\u0000${q.callId}`, q.id]));
    const calls = await Promise.all(listed.map((c) => traced(ledger, c, questions.get(`${c.session}\u0000${c.callId}`))));
    if (values.json) {
      ctx.stdout.write(`${JSON.stringify(calls, null, 2)}\n`);
      return EXIT.ok;
    }
    if (calls.length === 0) {
      ctx.stdout.write('no calls recorded\n');
      return EXIT.ok;
    }
    for (const c of calls) {
      const timing = `wait ${c.waitMs === undefined ? '-' : `${c.waitMs} ms`}, run ${c.runMs === undefined ? '-' : `${c.runMs} ms`}`;
      const line = `${new Date(c.createdAt).toISOString()}  ${c.callId}  ${c.tool}${c.version === '' ? '' : `@${c.version}`}  ${c.state}${whyWaiting(c)}  ${timing}  ${c.status}  ${bytes(c.resultSize)}  `
        + `session ${c.session}  ${c.decisions.length === 0 ? 'no decisions' : c.decisions.join(' ')}`
        + (c.replays === 0 ? '' : `  replayed ${c.replays}x (stored result returned, not run again)`)
        + (c.asked === undefined ? '' : `  question ${JSON.stringify(clip(c.asked.question, SHOWN_CHARS))} answer ${c.asked.answer === undefined ? '-' : JSON.stringify(clip(c.asked.answer, SHOWN_CHARS))}${c.asked.by === undefined ? '' : ` (by ${c.asked.by})`}`);
      ctx.stdout.write(`${terminalSafe(line, false)}\n`);
    }
    return EXIT.ok;
  } finally {
    await ledger.close();
  }
}

/** What a call not ended waits for, as trace shows it after its state (` (owner gone)`), or nothing. */
function whyWaiting(c: TracedCall): string {
  const gone = c.ownerAlive === false ? 'owner gone' : undefined;
  if (c.waitingForAnswer !== undefined) return ` (waiting for an answer: question ${c.waitingForAnswer}${gone === undefined ? '' : `; ${gone}`})`;
  if (c.waitingForPool !== undefined) return ` (waiting for a worker of pool ${c.waitingForPool})`;
  return gone === undefined ? '' : ` (${gone})`;
}

async function traced(ledger: CallStore, call: CallRecord, question: number | undefined): Promise<TracedCall> {
  const [stored, events] = await Promise.all([ledger.decisions(call.callId, call.session), ledger.events(call.callId, call.session)]);
  const decisions = stored.map((d) => `${d.decider}:${d.verdict}${d.rule === undefined ? '' : `:${d.rule}`}`);
  const replays = events.filter((e) => e.kind === 'replayed').length;
  const asked = call.tool === 'ask_user' && typeof call.arguments.question === 'string' ? await askedOf(ledger, call, events) : undefined;
  const open = call.state === 'pending' || call.state === 'running';
  const pool = question === undefined ? queuedFor(call) : undefined;
  return {
    ...call, decisions, replays,
    ...(open ? { ownerAlive: ledger.ownerAlive(call) } : {}),
    ...(pool === undefined ? {} : { waitingForPool: pool }),
    ...(question === undefined || call.state !== 'pending' ? {} : { waitingForAnswer: question }),
    ...(asked === undefined ? {} : { asked }),
    waitMs: call.startedAt === undefined ? undefined : call.startedAt - call.createdAt,
    runMs: call.startedAt === undefined || call.endedAt === undefined ? undefined : call.endedAt - call.startedAt,
    status: call.endedAt === undefined ? '-' : call.errorCode ?? 'ok',
  };
}

/** An `ask_user` call's question and answer: its output once done, else the reply stored for its question (`deny` for a refusal). */
async function askedOf(ledger: CallStore, call: CallRecord, events: readonly LedgerEvent[]): Promise<NonNullable<TracedCall['asked']>> {
  const asked: NonNullable<TracedCall['asked']> = { question: call.arguments.question as string };
  const answered = events.filter((e) => e.kind === 'answered').at(-1)?.detail as { answer?: unknown; by?: unknown } | undefined;
  if (typeof answered?.by === 'string') asked.by = answered.by;
  if (call.state === 'done') {
    const stored = await ledger.result(call.callId, call.session);
    if (stored !== undefined) asked.answer = stored.result.output;
  } else if (typeof answered?.answer === 'string') {
    asked.answer = answered.answer;
  }
  return asked;
}
