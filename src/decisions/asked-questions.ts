/**
 * The questions of one call. A call may raise several (a protected path's, a policy rule's,
 * the tool's own), and one answer answers them all: so the request a person is asked shows
 * every distinct one (`ConfirmationRequest.ask`, then `also`), and every surface that asks
 * (the CLI prompt, the MCP form, `toolgate approvals`, the cockpit, the refusal the model
 * reads) prints them with the functions here: at most {@link MAX_SHOWN_QUESTIONS} in a prompt,
 * then how many more there are, never fewer silently.
 *
 * @module
 */
import type { Decision } from './decision.js';

/** One question a call raises (see `ConfirmationRequest.ask`). */
export interface AskedQuestion {
  /** The decider that asked: `protected-paths`, `policy`, `approval`, ... */
  decider: string;
  /** Why it asks, as a sentence for a person. */
  reason: string;
  /** Its rule when the decider has named rules: a policy rule's id (`file:line`), a protected path, an approval mode. */
  rule?: string;
}

/**
 * The most questions a prompt shows: the first (`ConfirmationRequest.ask`) and the others
 * (`ConfirmationRequest.also`); past it, the prompt says how many more there are.
 */
const MAX_SHOWN_QUESTIONS = 5;

/** The question an `ask` decision puts, with `reason` in place of its own when given. */
export function askedQuestion(d: Decision, reason = d.reason): AskedQuestion {
  return d.rule === undefined ? { decider: d.decider, reason } : { decider: d.decider, reason, rule: d.rule };
}

/** A reason as compared for sameness: spaces collapsed, the closing stop left out. */
function sameness(reason: string): string {
  return reason.replace(/\s+/g, ' ').replace(/[\s.]*$/, '').trim();
}

/**
 * The questions of `trail`'s `ask` decisions other than `first`, in trail order, each distinct
 * reason once (one `first` puts is not repeated): what `ConfirmationRequest.also` holds.
 */
export function otherQuestions(trail: readonly Decision[], first: Decision): AskedQuestion[] {
  const seen = new Set([sameness(first.reason)]);
  const others: AskedQuestion[] = [];
  for (const d of trail) {
    if (d.verdict !== 'ask' || d === first) continue;
    const key = sameness(d.reason);
    if (seen.has(key)) continue;
    seen.add(key);
    others.push(askedQuestion(d));
  }
  return others;
}

/**
 * The other questions of a request as stored (`also` of a ledger's JSON, a handler's request):
 * the entries that are questions (a string `reason`), others left out.
 */
export function questionsIn(also: unknown): AskedQuestion[] {
  if (!Array.isArray(also)) return [];
  const found: AskedQuestion[] = [];
  for (const q of also as unknown[]) {
    if (q === null || typeof q !== 'object') continue;
    const { decider, reason, rule } = q as Record<string, unknown>;
    if (typeof reason !== 'string') continue;
    found.push(typeof rule === 'string' ? { decider: String(decider ?? '?'), reason, rule } : { decider: String(decider ?? '?'), reason });
  }
  return found;
}

/** Who asked a question: `decider` or `decider [rule]`. */
export function questionLabel(q: { readonly decider?: unknown; readonly rule?: unknown }): string {
  return `${typeof q.decider === 'string' ? q.decider : '?'}${typeof q.rule === 'string' && q.rule !== '' ? ` [${q.rule}]` : ''}`;
}

/**
 * The other questions a prompt shows beside the first (at most {@link MAX_SHOWN_QUESTIONS} in
 * all), and how many more it leaves out (`more`: a prompt must say so).
 */
export function shownOthers(also: unknown): { shown: AskedQuestion[]; more: number } {
  const all = questionsIn(also);
  const room = MAX_SHOWN_QUESTIONS - 1;
  return { shown: all.slice(0, room), more: Math.max(0, all.length - room) };
}

/** `1 more question`, `3 more questions`. */
export function moreQuestions(more: number): string {
  return `${more} more question${more === 1 ? '' : 's'}`;
}

/**
 * Why a request asks, in sentences for the model's refusal text: `It asks because FIRST.`,
 * then `It also asks because OTHER (decider [rule]).` for each other question shown, then how
 * many more there are.
 */
export function becauseText(request: { readonly ask: AskedQuestion; readonly also?: unknown }): string {
  const { shown, more } = shownOthers(request.also);
  const lines = [`It asks because ${sameness(request.ask.reason)}.`];
  for (const q of shown) lines.push(`It also asks because ${sameness(q.reason)} (${questionLabel(q)}).`);
  if (more > 0) lines.push(`It also asks ${moreQuestions(more)}, not shown here.`);
  return lines.join(' ');
}
