/**
 * Settling a question from another process than the one that asked (`toolgate approvals
 * allow|deny`, the cockpit): the answer is recorded (the first answer counts), and then what
 * the call needs happens: its asker, while it runs, resumes on the answer; when the asker is
 * gone (killed, restarted) and the call still waits, a refusal ends the call `denied` here
 * and an allow runs it here, once (the store's claim makes sure), through the caller's
 * {@link RunHere}. Works on any {@link CallStore}.
 *
 * @module
 */
import { failedResult } from '../closeout/results.js';
import type { ApprovalAnswer } from '../decisions/approval.js';
import type { CallRecord, CallStore } from './call-store.js';

/** Answers that let a call run. */
const ALLOWS: ReadonlySet<string> = new Set(['allow_once', 'allow_for_turn', 'always']);

/**
 * Runs a call whose asker is gone, in this process, as it would have run there (the same
 * tool version, arguments, workspace, session, turn and stored options), through an executor
 * on the same store.
 * @returns the exit code: 0 success, 1 failed, 2 the tool is not loaded here.
 */
export type RunHere = (call: CallRecord) => Promise<number>;

/** Where {@link settleQuestion} reports what it did: one line at a time, without a newline. */
export interface SettleReport {
  /** What happened (stdout for the CLI). */
  info(line: string): void;
  /** What did not (stderr for the CLI). */
  warn(line: string): void;
}

/** What {@link settleQuestion} did. */
export interface SettleOutcome {
  /** Whether the question exists. */
  found: boolean;
  /** Whether this answer was the first (and counts). */
  first: boolean;
  /** The answer that counts (`undefined` when none was recorded). */
  counted: string | undefined;
  /** The call's state after the answer (before any run here). */
  callState: string | undefined;
  /**
   * `resumes`: the asking process resumes the call; `denied_here`: it is gone and the call
   * ended denied; `ran_here`: it is gone and the call runs in this process; `none`: the call
   * is not waiting (or, without a {@link RunHere}, waits for a process that can run it).
   */
  next: 'resumes' | 'denied_here' | 'ran_here' | 'none';
  /** With `ran_here`: the run, resolving to its exit code (see {@link RunHere}). */
  run?: Promise<number>;
}

/**
 * Answer question `id` with `given` and do what the call needs (see the module). An
 * `ask_user` question (request kind `question`) takes only `deny` here: its reply is text,
 * given in the cockpit.
 * @param by - who answers (`cli:<pid>`, `cockpit:<pid>`).
 * @param runHere - how to run a call whose asker is gone; without it such a call stays
 *   pending, its answer recorded (`approvals allow` or a retry runs it later).
 * Rejects with the store's error when it cannot be written.
 */
export async function settleQuestion(
  store: CallStore, id: number, given: ApprovalAnswer, by: string, report: SettleReport, runHere?: RunHere,
): Promise<SettleOutcome> {
  const question = await store.approval(id);
  if (question === undefined) {
    report.warn(`no question ${id} in ${store.file} (toolgate approvals list shows the waiting ones)`);
    return { found: false, first: false, counted: undefined, callState: undefined, next: 'none' };
  }
  if (question.request.kind === 'question' && given !== 'deny') {
    report.warn(`question ${id} is the agent's question to you (ask_user): answer it in the cockpit (toolgate cockpit), or refuse it with deny`);
    return { found: true, first: false, counted: undefined, callState: undefined, next: 'none' };
  }
  const counted = (await store.answer(id, given, by))!;
  if (!counted.first) report.warn(`question ${id} was answered already (${counted.answer} by ${(await store.approval(id))?.answeredBy ?? '?'}); that answer counts`);
  else report.info(`question ${id} (${question.tool}, call ${question.callId}): ${given === 'deny' ? 'denied' : given === 'allow_once' ? 'allowed once' : `allowed (${given})`}`);
  const call = (await store.get(question.callId, question.session))!;
  const outcome: SettleOutcome = { found: true, first: counted.first, counted: counted.answer, callState: call.state, next: 'none' };
  if (call.state === 'running' && store.ownerAlive(call)) {
    // The asker saw the answer first (it checks every pollMs) and has already claimed the call.
    report.info(`process ${call.ownerPid}, which asked, resumes the call (running now)`);
    return { ...outcome, next: 'resumes' };
  }
  if (call.state !== 'pending') {
    report.info(`call ${call.callId} is ${call.state}${call.state === 'running' ? '' : ': toolgate result shows its result'}`);
    return outcome;
  }
  if (store.ownerAlive(call)) {
    report.info(`process ${call.ownerPid}, which asked, resumes the call`);
    return { ...outcome, next: 'resumes' };
  }
  if (!ALLOWS.has(counted.answer)) {
    // Refused, and nobody waits: the call ends denied here and never runs.
    await endDenied(store, call, question.request.kind === 'question');
    report.info(`process ${call.ownerPid}, which asked, is gone: call ${call.callId} ends denied and does not run`);
    return { ...outcome, next: 'denied_here' };
  }
  if (runHere === undefined) {
    report.info(`process ${call.ownerPid}, which asked, is gone: call ${call.callId} waits, allowed, for toolgate approvals allow ${id} to run it`);
    return outcome;
  }
  report.info(`process ${call.ownerPid}, which asked, is gone: running the call here`);
  return { ...outcome, next: 'ran_here', run: runHere(call) };
}

/** End a waiting call `denied` (the person refused it, or refused to answer its `ask_user` question; it never runs). */
async function endDenied(store: CallStore, call: CallRecord, question: boolean): Promise<void> {
  const message = question
    ? 'the user declined to answer (toolgate approvals deny); decide with what you have'
    : `Confirmation denied: the user did not approve this ${call.tool} call (toolgate approvals deny). Do not retry it unchanged; ask the user or take another approach.`;
  const result = failedResult('CONFIRMATION_DENIED', message, { tool: call.tool, version: call.version, callId: call.callId });
  result.confirmed = false;
  await store.finish(call, { state: 'denied', decisions: [{ decider: 'confirmation', verdict: 'deny', reason: result.output, rule: 'deny' }], result });
}
