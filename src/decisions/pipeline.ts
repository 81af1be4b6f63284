/**
 * The decision pipeline: the deciders of `deciders.ts`, asked in order about one prepared
 * call, their decisions combined, an `ask` answered, and every wait bounded.
 *
 * Combination (documented in docs/policy.md's table, and the same for every decider):
 * 1. the first `deny` ends the pipeline: later deciders are not asked, and the call is refused
 *    with that decision's code and reason. Deny beats everything: rules, remembered answers,
 *    approval modes;
 * 2. otherwise, an `ask` that is `fresh` (a policy file's `always_ask`, the `always-ask`
 *    approval mode) goes to a person: nothing remembered, no `allow` and no advance approval
 *    (the caller's `confirm`, the CLI's `--yes`) settles it; an `ask` that is `person` (a
 *    protected path's) is settled by no advance approval either, but a person's remembered
 *    answer to this exact request settles it (step 3);
 * 3. otherwise, an `ask` is settled by a remembered answer to this exact request (an `allow`
 *    with `answersAsk`), or else goes to a person: ask beats allow. An `allow` rule lifts only
 *    the default question (a tool's `requiresConfirmation`, the `read-only` approval mode's),
 *    which the approval decider then does not ask (`approval-mode.decider.ts`);
 * 4. otherwise the call is allowed; `undefined` (no opinion) counts as `allow`. Every `allow`
 *    that confines writes (`writeRoots`) applies: a write must be inside a folder of each, so
 *    the folders kept are those inside some folder of every confinement; when none is left
 *    the call is denied.
 * An `ask` that goes to a person is answered by `approval.ts` (the caller's `confirm`, else
 * the confirmation handler, else `CONFIRMATION_REQUIRED`), which turns it into `allow` or
 * `deny`. The one answer settles every `ask` of the call, so the request shows each distinct
 * question (`ConfirmationRequest.ask`, then `also`), and offers what the narrowest allows: once
 * only when any is `fresh`, no advance approval when any is `person`. After a yes, the deciders whose inputs may have changed meanwhile
 * (`recheckAfterAnswer`: policy files) are asked again, and a `deny` from them wins; then every
 * decider with an `answered` hook (remembered approvals) is told the answer.
 *
 * Waits: a decider that answers with a promise, and the answer to an `ask`, end early with a
 * `deny` (code `ABORTED`) when the call's signal aborts or the executor closes; a decider's
 * `waitLimit` ends its wait with what it says a late answer counts as.
 *
 * The pipeline stays synchronous while every decider answers synchronously (the common case
 * costs no promise and no microtask); that fast path is private to this file.
 *
 * @module
 */
import { performance } from 'node:perf_hooks';
import type { Logger } from '../logging/logger.js';
import { frozenCopy, isThenable } from '../util/values.js';
import { isInside } from '../workspace/workspace.js';
import { ANSWER_STEP, answerAsk, isSuspension, personOnlyReason, type ApprovalAnswer, type ConfirmationHandler, type ConfirmationRequest, type DurableCallKey, type DurableQuestions } from './approval.js';
import { askedQuestion, otherQuestions } from './asked-questions.js';
import { deny, type Decider, type Decision, type PreparedCall } from './decision.js';

/** What the pipeline decided about one call. */
export interface Decided {
  /** The decision that counts: `allow` or `deny` (an `ask` has been answered by then). */
  readonly final: Decision;
  /** Every decision made on the way, in order (deciders that had no opinion are left out), ending with the answer to an `ask`. */
  readonly trail: readonly Decision[];
  /** On `allow`: the folders writes are confined to, when a decider confined them. */
  readonly writeRoots?: readonly string[];
  /**
   * Milliseconds spent waiting for the answer to an `ask` (a person's decision), when there
   * was one: the executor does not count it against the call's timeout.
   */
  readonly answerWaitMs?: number;
  /** When an `ask` was answered: the question it put (to the handler, or that nobody could be asked). */
  readonly question?: ConfirmationRequest;
}

/** How an `ask` may be answered for one call. */
export interface AskOptions {
  /** The caller approved the call in advance. */
  confirm: boolean | undefined;
  /** Who is asked otherwise; `undefined` when nobody can be. */
  handler: ConfirmationHandler | undefined;
  /**
   * Where questions are stored so that they outlive this process (a durable ledger): a
   * question is stored before the handler is asked, and an answer given there counts as the
   * handler's. `undefined` without a ledger.
   */
  questions?: DurableQuestions | undefined;
  /** The call as the store knows it (its call id and session); required with `questions`. */
  call?: DurableCallKey | undefined;
}

/** The answers offered when the pipeline has no `offers` function, or the question is fresh. */
const ONCE_ONLY: readonly ApprovalAnswer[] = Object.freeze(['allow_once', 'deny']);
const NO_DECISIONS: readonly Decision[] = Object.freeze([]);

/** The shared result of a call nobody objected to (never written to). */
const ALLOWED: Decided = Object.freeze({ final: Object.freeze({ verdict: 'allow', decider: 'pipeline', reason: 'no decider objected' }), trail: Object.freeze([]) as readonly Decision[] });

/**
 * `reason` followed by the reason of every `allow` in `trail` that lifts nothing (not a grant,
 * a remembered answer or a write confinement: a workspace policy file's allow rule, an allow
 * of a command too long to show), so the question says why a rule that matched did not settle it.
 */
function withUnlifted(reason: string, trail: readonly Decision[]): string {
  const unlifted = trail.filter((d) => d.verdict === 'allow' && d.grants !== true && d.answersAsk !== true && d.writeRoots === undefined);
  if (unlifted.length === 0) return reason;
  return `${reason.replace(/[\s.]*$/, '')}. ${unlifted.map((d) => `Note: ${d.reason.replace(/[\s.]*$/, '')}.`).join(' ')}`;
}

/** Runs the deciders in order. One per executor. */
export class DecisionPipeline {
  /**
   * @param deciders - in the order they are asked (see `deciders.ts`).
   * @param closing - aborted when the executor closes: ends every wait.
   * @param offers - the answers a person may give about `call` (see
   *   `ConfirmationRequest.offers`); default `allow_once` and `deny` only.
   */
  constructor(
    private readonly deciders: readonly Decider[],
    private readonly logger: Logger,
    private readonly closing: AbortSignal,
    private readonly offers: (call: PreparedCall) => readonly ApprovalAnswer[] = () => ONCE_ONLY,
  ) {}

  /**
   * Decide about `call`.
   * @param signal - the call's signal: aborting it ends any wait with `deny` / `ABORTED`.
   * @returns the decision, synchronously when every decider answered synchronously and
   *   nothing had to be asked, else a promise. Never throws or rejects because of a decider
   *   (each decider's contract), except for a bug in toolgate itself.
   */
  decide(call: PreparedCall, ask: AskOptions, signal: AbortSignal | undefined): Decided | Promise<Decided> {
    return this.from(0, undefined, call, ask, signal);
  }

  /** Go on from decider `index`, with the decisions so far in `trail`. */
  private from(index: number, trail: Decision[] | undefined, call: PreparedCall, ask: AskOptions, signal: AbortSignal | undefined): Decided | Promise<Decided> {
    for (let i = index; i < this.deciders.length; i++) {
      const decider = this.deciders[i]!;
      const said = decider.decide(call, trail ?? NO_DECISIONS);
      if (isThenable(said)) {
        const limit = decider.waitLimit;
        return this.bounded(said, decider.name, signal, limit?.ms ?? 0, limit?.onTimeout).then((decision) => {
          const next = record(trail, decision);
          if (decision?.verdict === 'deny') return finish(next!, decision);
          return this.from(i + 1, next, call, ask, signal);
        });
      }
      if (said === undefined) continue;
      trail = record(trail, said);
      if (said.verdict === 'deny') return finish(trail!, said);
    }
    if (trail === undefined) return ALLOWED;
    let asked: Decision | undefined;
    let fresh: Decision | undefined;
    let person: Decision | undefined;
    let remembered: Decision | undefined;
    for (const d of trail) {
      if (d.verdict === 'ask') {
        asked ??= d;
        if (d.fresh === true) fresh ??= d;
        if (d.person === true) person ??= d;
      } else if (d.answersAsk === true) remembered ??= d;
    }
    if (asked === undefined) return finish(trail, trail[trail.length - 1]!);
    if (fresh === undefined && remembered !== undefined) return finish(trail, remembered);
    // the question shown first is one that only a person answers, when there is one; the
    // others follow it (`ConfirmationRequest.also`): the answer settles them all
    return this.answer(fresh ?? person ?? asked, fresh !== undefined, person !== undefined, trail, call, ask, signal);
  }

  /**
   * Answer the `ask`, bounded by the call's signal and the executor closing; after a yes, ask
   * again the deciders that recheck; then tell the deciders that learn from answers.
   */
  private async answer(asked: Decision, fresh: boolean, person: boolean, trail: Decision[], call: PreparedCall, ask: AskOptions, signal: AbortSignal | undefined): Promise<Decided> {
    const { tool, workspace } = call;
    const also = otherQuestions(trail, asked);
    const request: ConfirmationRequest = {
      tool: tool.name, version: tool.version, arguments: frozenCopy(call.args), callId: call.callId, description: tool.description,
      paths: call.paths.map((p) => workspace.relative(p.real)),
      ask: askedQuestion(asked, withUnlifted(asked.reason, trail)),
      // the answer answers every question of the call: each is shown
      ...(also.length === 0 ? {} : { also }),
      offers: fresh ? ONCE_ONLY : this.offers(call),
      ...(tool.commandArguments.length === 0 ? {} : { commandArguments: [...tool.commandArguments] }),
    };
    // Whatever ends the wait, the answer is the confirmation step's.
    const askedAt = performance.now();
    const durable = ask.questions === undefined || ask.call === undefined ? undefined : { questions: ask.questions, call: ask.call, signals: [signal, this.closing] };
    // An advance approval (`--yes`) answers no question that must go to a person (issue 30,
    // item 6; a protected path's): with nobody to ask, the refusal says so.
    const advanceRefused = (fresh || person) && ask.confirm === true;
    const answered = (await this.bounded(answerAsk(request, fresh || person ? undefined : ask.confirm, ask.handler, this.logger, durable), ANSWER_STEP, signal, 0, undefined))!;
    const answer = advanceRefused && answered.code === 'CONFIRMATION_REQUIRED' ? { ...answered, reason: personOnlyReason(request) } : answered;
    const answerWaitMs = performance.now() - askedAt;
    trail.push(answer);
    if (answer.verdict === 'allow') {
      const refusal = await this.recheck(trail, call, signal);
      if (refusal !== undefined) {
        trail.push(refusal);
        return { final: refusal, trail, answerWaitMs, question: request };
      }
    }
    // A refusal for want of anyone to ask is not a person's answer: nothing to learn from it.
    if (answer.code !== 'CONFIRMATION_REQUIRED' && answer.code !== 'ABORTED') {
      for (const decider of this.deciders) decider.answered?.(call, answer);
    }
    return { ...finish(trail, answer), answerWaitMs, question: request };
  }

  /**
   * Ask the deciders that recheck (`recheckAfterAnswer`: the policy files) again; their first
   * `deny`, if any. The pipeline does it after a person's yes; the executor after any other
   * wait between the decision and the start (rate-limit admission).
   */
  async recheck(trail: readonly Decision[], call: PreparedCall, signal: AbortSignal | undefined): Promise<Decision | undefined> {
    for (const decider of this.deciders) {
      if (decider.recheckAfterAnswer !== true) continue;
      const said = decider.decide(call, trail);
      const decision = isThenable(said) ? await this.bounded(said, decider.name, signal, decider.waitLimit?.ms ?? 0, decider.waitLimit?.onTimeout) : said;
      if (decision?.verdict === 'deny') return decision;
    }
    return undefined;
  }

  /**
   * Wait for `pending`, ending early with `deny` / `ABORTED` when `signal` aborts or the
   * executor closes, or, with `timeoutMs > 0`, with `onTimeout()` when it takes longer. A
   * rejection (a rate limiter stopped by close) is a `deny` / `ABORTED` naming the step; a
   * suspension (`isSuspension`: a LangGraph interrupt in a confirmation handler) rejects.
   */
  bounded(
    pending: PromiseLike<Decision | undefined>, step: string, signal: AbortSignal | undefined, timeoutMs: number, onTimeout: (() => Decision | undefined) | undefined,
  ): Promise<Decision | undefined> {
    const closing = this.closing;
    return new Promise((resolve, reject) => {
      let timer: NodeJS.Timeout | undefined;
      const done = (value: Decision | undefined) => {
        if (timer !== undefined) clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        closing.removeEventListener('abort', onAbort);
        resolve(value);
      };
      const onAbort = () => done(deny(step, 'ABORTED', closing.aborted ? 'the executor was closed while the call waited at a gate.' : 'the call was aborted while it waited at a gate.'));
      if (signal?.aborted || closing.aborted) return onAbort();
      signal?.addEventListener('abort', onAbort, { once: true });
      closing.addEventListener('abort', onAbort, { once: true });
      if (timeoutMs > 0) timer = setTimeout(() => done(onTimeout?.()), timeoutMs);
      Promise.resolve(pending).then(done, (error: unknown) => {
        if (isSuspension(error)) {
          // The caller's framework pauses the run (a LangGraph interrupt in a handler): thrown on.
          if (timer !== undefined) clearTimeout(timer);
          signal?.removeEventListener('abort', onAbort);
          closing.removeEventListener('abort', onAbort);
          reject(error);
          return;
        }
        done(deny(step, 'ABORTED', `the call could not pass the ${step} gate: ${(error as Error)?.message ?? String(error)}`));
      });
    });
  }
}

function record(trail: Decision[] | undefined, decision: Decision | undefined): Decision[] | undefined {
  if (decision === undefined) return trail;
  (trail ??= []).push(decision);
  return trail;
}

/** The pipeline's result ending in `final`, with the write confinements of every `allow` combined. */
function finish(trail: Decision[], final: Decision): Decided {
  if (final.verdict === 'deny') return { final, trail };
  const confining = trail.filter((d) => d.verdict === 'allow' && d.writeRoots !== undefined);
  if (confining.length === 0) return { final, trail };
  const writeRoots = combineConfinements(confining.map((d) => d.writeRoots!));
  if (writeRoots.length === 0) {
    const refusal = deny(confining[0]!.decider, 'MODE_DENIED', `the folders this call may write in, as ${confining.map((d) => d.decider).join(' and ')} confine them, have nothing in common; nothing may be written.`);
    trail.push(refusal);
    return { final: refusal, trail };
  }
  return { final, trail, writeRoots };
}

/**
 * The folders a write may go to when it must be inside a folder of each set: the folders (of
 * any set) that lie inside some folder of every set. A path is inside one of them exactly when
 * it is inside a folder of every set.
 */
export function combineConfinements(sets: ReadonlyArray<readonly string[]>): string[] {
  if (sets.length === 1) return [...sets[0]!];
  const kept = new Set<string>();
  for (const set of sets) {
    for (const root of set) {
      if (sets.every((other) => other.some((o) => isInside(o, root)))) kept.add(root);
    }
  }
  return [...kept];
}
