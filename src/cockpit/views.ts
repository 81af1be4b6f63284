/**
 * What the cockpit shows, read from a ledger as plain JSON: the questions waiting for a
 * person, the calls of the timeline (state, timings, decision path), the sessions with their
 * approval mode. Nothing here writes.
 *
 * @module
 */
import type { ApprovalRecord, CallRecord, CallStore } from '../ledger/call-store.js';
import { sessionApprovalMode, supervisedSession } from '../ledger/session-approval-modes.js';
import { visibleJson, visibleText } from '../decisions/shown-arguments.js';
import { questionLabel, questionsIn, type AskedQuestion } from '../decisions/asked-questions.js';

/** A waiting question as the page shows it. */
export interface QuestionView {
  id: number;
  /** `approval` (may this call run?) or `question` (an `ask_user` question: a free answer or choices). */
  kind: 'approval' | 'question';
  tool: string;
  version: string;
  callId: string;
  session: string;
  /** The session a person supervises it by (turn, else ledger session). */
  supervised: string;
  workspace: string;
  /** Workspace-relative paths the call names. */
  paths: string[];
  /** The complete input. */
  arguments: unknown;
  description: string;
  /** The decider, reason and rule (or mode) that asked: the question shown first. */
  ask: { decider: string; reason: string; rule?: string } | undefined;
  /** The call's other questions (an answer answers them all), each once, in the order asked; `[]` for none. */
  also: AskedQuestion[];
  /** The answers that may be given. */
  offers: string[];
  /** For `question`: the text, the choices and whether several may be picked. */
  question?: { text: string; choices?: string[]; multi?: boolean };
  askedAt: number;
  /**
   * What the page shows, nothing in it rendered that could hide or disguise text (control,
   * bidi, zero-width characters and long space runs escaped: `shown-arguments.ts`): the input
   * whole as indented JSON, the paths, the reason (`why`) and each other question's (`also`,
   * every one), the description, and for a `question` its text and choices' labels
   * (`question.choices` are the values an answer sends).
   */
  shown: { arguments: string; paths: string[]; why: string; also: string[]; description: string; callId: string; supervised: string; workspace: string; question?: string; choices?: string[] };
  /** Whether the process that asked still runs (else an allow runs the call in the cockpit's process). */
  askerAlive: boolean;
}

/** One call of the timeline. */
export interface CallView {
  callId: string;
  session: string;
  supervised: string;
  tool: string;
  version: string;
  state: string;
  createdAt: number;
  startedAt: number | undefined;
  endedAt: number | undefined;
  /** ms from started to ended, once ended. */
  durationMs: number | undefined;
  errorCode: string | undefined;
  /** `decider:verdict[:rule]`, in order. */
  decisions: string[];
  /** Bytes of the stored whole output, once ended. */
  resultSize: number | undefined;
  /** A running call's latest progress as recorded (`[2/5] copying`, or a log line), if any. */
  progress?: string;
}

/** The text of a recorded `progress` event's detail. */
function progressText(detail: unknown): string | undefined {
  if (typeof detail !== 'object' || detail === null) return undefined;
  const { done, total, message } = detail as { done?: unknown; total?: unknown; message?: unknown };
  const amount = typeof done === 'number' ? `[${done}${typeof total === 'number' ? `/${total}` : ''}]` : '';
  const text = [amount, typeof message === 'string' ? message : ''].filter((s) => s !== '').join(' ');
  return text === '' ? undefined : text;
}

/** A session as the page lists it. */
export interface SessionView {
  session: string;
  /** The approval mode set for it in the ledger (`undefined`: the call's or the executor's). */
  mode: string | undefined;
  lastCallAt: number | undefined;
  calls: number;
  /** Calls of it not ended yet (being decided, waiting for an answer, running). */
  active: number;
}

/** The sessions the page lists, and how many older ones it leaves out. */
export interface SessionList {
  sessions: SessionView[];
  /** Sessions left out: none of them has a mode set or a call not ended, and newer ones are shown. */
  older: number;
}

/** Sessions listed however old: `*`, those with a mode set, and those with a call not ended. */
function kept(view: SessionView): boolean {
  return view.session === '*' || view.mode !== undefined || view.active !== 0;
}

/**
 * The sessions worth a row ({@link sessionsOf}'s, newest first): every kept one, and the
 * newest `recent` others; the rest only counted (each MCP connection and each `toolgate call`
 * is a session: listing them all would grow the page without end).
 */
export function recentSessions(views: readonly SessionView[], recent = 10): SessionList {
  const sessions: SessionView[] = [];
  let others = 0;
  let older = 0;
  for (const view of views) {
    if (kept(view)) sessions.push(view);
    else if (others++ < recent) sessions.push(view);
    else older += 1;
  }
  return { sessions, older };
}

/**
 * The waiting questions of the ledger, oldest first: those of calls still pending (an
 * `ask_user` question only while the agent that asked runs: nobody else could use the answer).
 */
export async function questionsOf(ledger: CallStore): Promise<QuestionView[]> {
  const waiting = (await ledger.pendingApprovals()).filter((q) => q.callState === 'pending' && (q.request.kind !== 'question' || q.ownerAlive));
  return Promise.all(waiting.map((q) => questionView(ledger, q)));
}

async function questionView(ledger: CallStore, q: ApprovalRecord): Promise<QuestionView> {
  const call = await ledger.get(q.callId, q.session);
  const request = q.request;
  const strings = (value: unknown): string[] => (Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : []);
  const view: QuestionView = {
    id: q.id, kind: request.kind === 'question' ? 'question' : 'approval', tool: q.tool, version: call?.version ?? String(request.version ?? ''),
    callId: q.callId, session: q.session, supervised: supervisedSession(q.session, call?.turn ?? ''), workspace: call?.workspace ?? '',
    paths: strings(request.paths), arguments: request.arguments ?? call?.arguments, description: typeof request.description === 'string' ? request.description : '',
    ask: request.ask as QuestionView['ask'], also: questionsIn(request.also), offers: strings(request.offers), askedAt: q.askedAt, askerAlive: q.ownerAlive,
    shown: { arguments: '', paths: [], why: '', also: [], description: '', callId: '', supervised: '', workspace: '' },
  };
  const ask = view.ask;
  view.shown = {
    arguments: visibleJson(view.arguments ?? {}, 2), paths: view.paths.map((p) => visibleText(p, false)),
    why: ask === undefined ? '' : visibleText(`${questionLabel(ask)}: ${ask.reason}`, false), description: visibleText(view.description),
    also: view.also.map((other) => visibleText(`${questionLabel(other)}: ${other.reason}`, false)),
    callId: visibleText(view.callId, false), supervised: visibleText(view.supervised, false), workspace: visibleText(view.workspace, false),
  };
  if (view.kind === 'question') {
    const args = (request.arguments ?? {}) as { question?: unknown; choices?: unknown; multi?: unknown };
    view.question = { text: String(args.question ?? '') };
    if (Array.isArray(args.choices)) view.question.choices = strings(args.choices);
    if (args.multi === true) view.question.multi = true;
    view.shown.question = visibleText(view.question.text);
    if (view.question.choices !== undefined) view.shown.choices = view.question.choices.map((c) => visibleText(c, false));
  }
  return view;
}

/** One call of the timeline, with its decision path. */
export async function callView(ledger: CallStore, call: CallRecord): Promise<CallView> {
  const decisions = await ledger.decisions(call.callId, call.session);
  const latest = call.state === 'running' ? (await ledger.events(call.callId, call.session)).filter((e) => e.kind === 'progress').at(-1) : undefined;
  const progress = latest === undefined ? undefined : progressText(latest.detail);
  return {
    ...(progress === undefined ? {} : { progress }),
    callId: call.callId, session: call.session, supervised: supervisedSession(call.session, call.turn), tool: call.tool, version: call.version, state: call.state,
    createdAt: call.createdAt, startedAt: call.startedAt, endedAt: call.endedAt,
    durationMs: call.startedAt === undefined || call.endedAt === undefined ? undefined : call.endedAt - call.startedAt,
    errorCode: call.errorCode,
    decisions: decisions.map((d) => `${d.decider}:${d.verdict}${d.rule === undefined ? '' : `:${d.rule}`}`),
    resultSize: call.resultSize,
  };
}

/** The sessions of the latest `limit` calls, newest first, with the sessions that have a mode set; `*` first. */
export async function sessionsOf(ledger: CallStore, limit = 500): Promise<SessionView[]> {
  const byName = new Map<string, SessionView>();
  for (const call of await ledger.list({ limit })) {
    const name = supervisedSession(call.session, call.turn);
    const view = byName.get(name) ?? { session: name, mode: undefined, lastCallAt: call.createdAt, calls: 0, active: 0 };
    view.calls += 1;
    if (call.state === 'pending' || call.state === 'running') view.active += 1;
    byName.set(name, view);
  }
  for (const setting of await ledger.sessionSettings()) {
    if (!byName.has(setting.session)) byName.set(setting.session, { session: setting.session, mode: undefined, lastCallAt: undefined, calls: 0, active: 0 });
  }
  if (!byName.has('*')) byName.set('*', { session: '*', mode: undefined, lastCallAt: undefined, calls: 0, active: 0 });
  const views = [...byName.values()];
  await Promise.all(views.map(async (view) => { view.mode = await sessionApprovalMode(ledger, view.session); }));
  return views.sort((a, b) => (a.session === '*' ? -1 : b.session === '*' ? 1 : (b.lastCallAt ?? 0) - (a.lastCallAt ?? 0)));
}
