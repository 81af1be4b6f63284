/**
 * The call journal: the one place the executor talks to the durable ledger. Every touch point
 * of a call's life is a method here, in the order a call meets them:
 * {@link CallJournal.record} (before the deciders: the exactly-once check),
 * {@link CallJournal.claim} (before the dispatcher runs the call) and
 * {@link CallJournal.closeOut} (its end, decisions and result); the questions and the session
 * approval modes the deciders read come from here too. It talks to any {@link CallStore}
 * (asynchronous: record and claim are awaited on the call's way; the end of a call that ran
 * is queued with `finishSoon`, so the caller's result never waits for that commit).
 *
 * @module
 */
import fs from 'node:fs';
import { isDeepStrictEqual } from 'node:util';
import type { OutputStore } from '../closeout/output-store.js';
import { ledgerKeepsText, ledgerView } from '../closeout/projection.js';
import { toolFailure } from '../closeout/results.js';
import { withKeptNote } from '../closeout/closeout.js';
import type { DurableQuestions } from '../decisions/approval.js';
import type { SessionApprovalModes } from '../decisions/approval-mode.decider.js';
import { codesWhere } from '../errors/error-codes.js';
import { ToolgateOptionError, type ToolErrorCode } from '../errors/errors.js';
import { ledgerQuestions } from '../ledger/questions.js';
import { ledgerApprovalModes } from '../ledger/session-approval-modes.js';
import type { CallStatus, CallStore, NewCall, StoredCallOptions } from '../ledger/call-store.js';
import { Ledger, type LedgerOptions } from '../ledger/store.js';
import { argumentsSha256 } from '../ledger/tombstones.js';
import type { Logger } from '../logging/logger.js';
import { DEFAULT_SANDBOX } from '../sandbox/bubblewrap.js';
import type { DecisionRecord, ToolExecutionResult } from '../types/result.js';
import { clip } from '../util/values.js';
import type { CallState } from './call-state.js';
import { RecordedProgress } from './call-progress-record.js';

/** A call's result, now or once the journal's writes it waits for are done. */
export type CallResult = ToolExecutionResult | Promise<ToolExecutionResult>;

/** Why the journal stopped a call: the result code and message it fails with. */
export interface JournalRefusal {
  readonly code: ToolErrorCode;
  readonly message: string;
}

/** Error codes of a gate's refusal (`stage: 'gate'` in `ERROR_CODES`): a recorded call refused with one of them, unrun, ends `denied`. */
const DENIALS = codesWhere((e) => e.stage === 'gate');

/**
 * Whether a decider's `deny` ended the call, whatever its code: the visibility decider refuses
 * a caller tool its caller lent nothing with `UNKNOWN_TOOL`, a request-stage code, and that
 * refusal is a denial too.
 */
function refusedByDecider(result: ToolExecutionResult): boolean {
  return result.decisions?.some((decision) => decision.verdict === 'deny') ?? false;
}

/** Records calls in a durable ledger (docs/ledger.md). */
export class CallJournal {
  /** The ledger's questions, for the decision pipeline. */
  readonly questions: DurableQuestions;

  private constructor(
    /** The store calls are recorded in. */
    readonly ledger: CallStore,
    /** Whether the journal opened it (and closes it). */
    private readonly owns: boolean,
    private readonly outputs: OutputStore | undefined,
    /** Whole outputs go to the ledger, the output store's temporary folder only carrying them there. */
    private readonly outputsInLedger: boolean,
    private readonly logger: Logger,
  ) {
    this.questions = ledgerQuestions(ledger);
  }

  /**
   * The journal of the executor's `ledger` option, or `undefined` without one.
   * @param option - a call store (a {@link Ledger}, or another {@link CallStore}) used as given
   *   (the caller closes it), options to open a ledger (closed by {@link close}), or
   *   `false`/`undefined` for none.
   * @param workspaceRoot - the executor's `workspaceRoot`, whose ledger is opened by default.
   * @param outputs - the output store; with `outputsInLedger`, whole outputs move to the ledger.
   * @throws ToolgateOptionError when the ledger cannot be opened.
   */
  static open(option: CallStore | LedgerOptions | false | undefined, workspaceRoot: string | undefined, outputs: OutputStore | undefined, outputsInLedger: boolean, logger: Logger): CallJournal | undefined {
    if (option === undefined || option === false) return undefined;
    if (isCallStore(option)) return new CallJournal(option, false, outputs, outputsInLedger, logger);
    let ledger: Ledger;
    try {
      ledger = Ledger.open({ workspace: workspaceRoot, ...option });
    } catch (error) {
      throw ToolgateOptionError.fromBadOption('ledger', `could not be opened: ${(error as Error).message}`);
    }
    return new CallJournal(ledger, true, outputs, outputsInLedger, logger);
  }

  /** The approval modes sessions chose (`toolgate approvals mode`), for the approval-mode decider. */
  sessionApprovalModes(): SessionApprovalModes {
    return ledgerApprovalModes(this.ledger, this.logger);
  }

  /**
   * Record a call whose arguments are valid (before the deciders): read only, the call is
   * written with its next state change (one commit fewer).
   * @returns `undefined` when the call goes on (`state.entry` is set: recorded, or taken over
   *   from a process that is gone); `{ result }`, the stored result of a call that ended before
   *   (exactly once: the caller retried); else a refusal: `CALL_IN_PROGRESS` for a call a live
   *   process handles, `INVALID_ARGUMENTS` for a call id used before for another request,
   *   `INTERNAL` when the ledger cannot be read or written (the call does not run unrecorded).
   *   Never rejects.
   */
  async record(state: CallState): Promise<{ result: ToolExecutionResult } | JournalRefusal | undefined> {
    const { ledger } = this;
    const { session } = state;
    const stored: StoredCallOptions = {};
    if (state.mode !== undefined) stored.mode = state.mode.name;
    if (state.approvalMode !== undefined) stored.approvalMode = state.approvalMode;
    if (state.scopedWriteDirs.length !== 0) stored.scopedWriteDirs = state.scopedWriteDirs;
    if (state.options.timeoutMs !== undefined) stored.timeoutMs = state.options.timeoutMs;
    if (state.sandbox !== DEFAULT_SANDBOX) {
      stored.sandbox = state.sandbox.profile;
      stored.sandboxNetwork = state.sandbox.network;
    }
    const entry: NewCall = {
      callId: state.callId, session, tool: state.tool.name, version: state.tool.version, arguments: state.args,
      workspace: state.workspaceRoot, turn: state.turnId, options: stored,
    };
    let outcome;
    try {
      outcome = await ledger.check(entry);
    } catch (error) {
      return { code: 'INTERNAL', message: `the call was not run: the ledger ${ledger.file} could not be read (${messageOf(error)}).` };
    }
    if (outcome.kind === 'ended') {
      // A retry repeats the call; the same id with another tool or other arguments is another
      // request, which must not be answered with the first one's result.
      let earlier, pruned;
      try {
        earlier = await ledger.get(state.callId, session);
        // A call retention deleted left a tombstone: its tool and a hash of its arguments.
        pruned = earlier === undefined ? await ledger.tombstone(state.callId, session) : undefined;
      } catch (error) {
        return { code: 'INTERNAL', message: `the call was not run: the ledger ${ledger.file} could not be read (${messageOf(error)}).` };
      }
      const other = earlier !== undefined
        ? earlier.tool !== entry.tool || !isDeepStrictEqual(earlier.arguments, entry.arguments)
        : pruned !== undefined && (pruned.tool !== entry.tool || pruned.argumentsSha256 !== argumentsSha256(entry.arguments));
      if (other) {
        return { code: 'INVALID_ARGUMENTS', message: `call id ${state.callId} of session ${session} was used before for another request (${earlier?.tool ?? pruned?.tool} with other arguments); it was not run. A retry repeats the same call; a new call needs a new call id.` };
      }
      // Marked for `toolgate trace` off the call's way (a replay waits for no write).
      if (!ledger.readonly) void ledger.replayed?.({ callId: state.callId, session }).catch((error: unknown) => this.logger.warn({ event: 'ledger_write_failed', tool: state.tool.name, callId: state.callId, err: messageOf(error) }, 'the ledger could not mark a replayed call'));
      return { result: outcome.result };
    }
    if (outcome.kind === 'taken_over' || (outcome.kind === 'recorded' && outcome.adopted === true)) {
      // A stored call goes on with what was stored for it (its question and the answer that
      // question got): the same id with another tool, revision or arguments is another
      // request, which that answer must not run.
      let earlier;
      try {
        earlier = await ledger.get(state.callId, session);
      } catch (error) {
        return { code: 'INTERNAL', message: `the call was not run: the ledger ${ledger.file} could not be read (${messageOf(error)}).` };
      }
      if (earlier !== undefined && (earlier.tool !== entry.tool || earlier.version !== entry.version || !isDeepStrictEqual(earlier.arguments, entry.arguments))) {
        return { code: 'INVALID_ARGUMENTS', message: `call id ${state.callId} of session ${session} is stored for another request (${earlier.tool} ${earlier.version} with other arguments); it was not run. A new call needs a new call id.` };
      }
    }
    if (outcome.kind === 'in_progress') {
      const { record } = outcome;
      return {
        code: 'CALL_IN_PROGRESS',
        message: `call ${state.callId} of session ${session} is already being handled (${record.state}, process ${record.ownerPid}); it was not started again. Its result is stored when it ends: \`toolgate result ${state.callId}\` prints it.`,
      };
    }
    if (outcome.kind === 'recorded') {
      // Recorded ahead by its caller (an MCP task, before its id was answered): store what
      // this call checked, so that a later process runs it the same way.
      try {
        await ledger.amend(entry);
      } catch (error) {
        return { code: 'INTERNAL', message: `the call was not run: the ledger ${ledger.file} could not be written (${messageOf(error)}).` };
      }
    }
    state.entry = entry;
    return undefined;
  }

  /**
   * Claim a recorded call before it is dispatched, with its decisions: the claim commits
   * before the runner starts, so a crash from here on leaves a `running` row that recovery
   * marks `interrupted`; nothing runs it again.
   * @returns `undefined` when claimed (`state.claimed`), else a refusal: `CALL_IN_PROGRESS`
   *   when another process claimed or ended it meanwhile (its row is left alone), `INTERNAL`
   *   when the ledger cannot be written. Never rejects.
   */
  async claim(state: CallState, decisions: DecisionRecord[] | undefined): Promise<JournalRefusal | undefined> {
    let claimed: boolean;
    try {
      claimed = await this.ledger.claim(state.entry!, decisions);
    } catch (error) {
      return { code: 'INTERNAL', message: `the call was not run: the ledger ${this.ledger.file} could not claim it (${messageOf(error)}).` };
    }
    state.claimed = claimed;
    if (claimed) return undefined;
    const { session } = state.entry!;
    state.entry = undefined; // someone else's now: leave its row alone
    return { code: 'CALL_IN_PROGRESS', message: `call ${state.callId} of session ${session} was claimed or ended by another process meanwhile; it was not started again.` };
  }

  /**
   * Give a claimed call the client that records its latest progress in the ledger
   * (`call-progress-record.ts`), for the cockpit: a tool of the `main` runner always (a wrapper
   * object, no relay), a tool in a worker thread or child process when its caller gave a client
   * (its messages are relayed then anyway; without one, relaying would cost every call a
   * message round, so such a tool's progress goes nowhere, as before).
   * @returns `state`.
   */
  recordProgress(state: CallState): CallState {
    const given = state.options.client;
    if (given !== undefined || state.tool.runner === 'main') state.recording = new RecordedProgress(this.ledger, state.callId, state.entry!.session, given, this.logger);
    return state;
  }

  /**
   * Write a recorded call's end: its state (`done`, `denied` for a gate's refusal of a call
   * that did not run, else `failed`), its decisions and its result, with the whole output when
   * the result shows part of it. A call whose wait for an answer was ended by the executor
   * closing is left `pending`: its question survives for `toolgate approvals` (a claimed one
   * that never ran, the executor having closed while its claim was on the way, ends `failed`). A ledger that
   * cannot be written is logged; the caller still gets the result.
   * @param closed - whether the executor is closing.
   * @returns `result` (without `fullOutput` when the ledger took the whole output over): at
   *   once for a call that ran (its end is queued, `finishSoon`), else once its end is
   *   committed (a promise that never rejects).
   */
  closeOut(state: CallState, result: ToolExecutionResult, closed: boolean): CallResult {
    const entry = state.entry!;
    state.entry = undefined;
    state.recording?.stop();
    if (closed && !state.claimed && result.errorCode === 'ABORTED' && result.stopReason === 'not_run') return result;
    const status: Exclude<CallStatus, 'pending' | 'running'> = result.success ? 'done' : result.stopReason === 'not_run' && (DENIALS.has(result.errorCode!) || refusedByDecider(result)) ? 'denied' : 'failed';
    let fullOutput: string | undefined;
    if (result.fullOutput !== undefined && ledgerKeepsText(state.tool)) {
      try {
        fullOutput = fs.readFileSync(result.fullOutput.path, 'utf8');
      } catch {
        // the output store dropped it (its cap): the ledger keeps what the model saw
      }
      if (this.outputsInLedger && fullOutput !== undefined) {
        // The ledger keeps it now; the temporary file was only the way there. The model is told
        // how to get it (in the note that says what was cut).
        this.outputs!.discard(result.fullOutput.path);
        delete result.fullOutput;
        result.output = withKeptNote(result.output, keptInLedger(state.callId, fullOutput), state.tool.maxOutputLength, state.tool.truncation);
      }
    }
    const failed = (error: unknown) => {
      this.logger.error({ event: 'ledger_write_failed', tool: state.tool.name, callId: state.callId, err: (error as Error)?.message }, 'the ledger could not record the end of a call');
      return result;
    };
    // A call that ran ends in a group commit (with the next claim, or on the next turn); a
    // call that never ran is written before its result is given (nothing else may be coming
    // to carry it).
    const end = { state: status, decisions: state.claimed ? undefined : result.decisions, result: ledgerView(state.tool, result), fullOutput };
    try {
      if (state.claimed) this.ledger.finishSoon(entry, end);
      else return this.ledger.finish(entry, end).then(() => result, failed);
    } catch (error) {
      return failed(error);
    }
    return result;
  }

  /**
   * Leave a recorded call waiting: its caller's framework suspended the run while the call's
   * question is open (`isSuspension`), in its confirmation handler (the call is `pending`) or
   * in the run of a `main`-runner tool that asked (the call is claimed: it goes back to
   * `pending`, to be claimed and run again when resumed). The call stays `pending` with its
   * question, nothing is refused; when the framework resumes the run, the same call is adopted
   * by its next check here ({@link CallStore.suspend}). A ledger that cannot be written is logged.
   * @returns `undefined` when the call waits (or, not claimed, could not be marked: it is
   *   `pending` anyway); for a claimed call the store could not put back to waiting, the failed
   *   result it was ended with instead (it must not stay `running`). Never rejects.
   */
  async suspend(state: CallState): Promise<ToolExecutionResult | undefined> {
    const entry = state.entry!;
    state.entry = undefined;
    state.recording?.stop();
    const claimed = state.claimed;
    let waits = false;
    try {
      waits = (await this.ledger.suspend?.(entry, claimed ? { claimed: true } : undefined)) === true;
    } catch (error) {
      this.logger.error({ event: 'ledger_write_failed', tool: state.tool.name, callId: state.callId, err: (error as Error)?.message }, 'the ledger could not record a suspended call');
    }
    if (waits || !claimed) return undefined;
    const result = toolFailure(state.tool, 'INTERNAL', `${state.tool.name} asked a question that a later request answers, but the ledger ${this.ledger.file} could not leave the call waiting for it; the call ended here. Call it again.`, { callId: state.callId, stopReason: 'error' });
    try {
      await this.ledger.finish(entry, { state: 'failed', decisions: undefined, result: ledgerView(state.tool, result) });
    } catch (error) {
      this.logger.error({ event: 'ledger_write_failed', tool: state.tool.name, callId: state.callId, err: (error as Error)?.message }, 'the ledger could not record the end of a call');
    }
    return result;
  }

  /** Close the ledger when the journal opened it, else write what is queued (the caller closes it). Rejects with the store's error. */
  close(): Promise<void> {
    return this.owns ? this.ledger.close() : this.ledger.flush();
  }
}

/** Whether the `ledger` option is a store itself (not options to open one). */
function isCallStore(option: CallStore | LedgerOptions): option is CallStore {
  return option instanceof Ledger || typeof (option as Partial<CallStore>).claim === 'function';
}

function messageOf(error: unknown): string {
  return clip((error as Error)?.message ?? String(error), 500);
}

/**
 * Where the ledger keeps a call's whole output, and how much of it: said to the model in the
 * truncation note. (The ledger keeps its first `maxOutputBytes`, 8 MiB unless set otherwise.)
 */
function keptInLedger(callId: string, whole: string): string {
  return `the whole output (${whole.length} characters, ${Buffer.byteLength(whole, 'utf8')} bytes) is kept by call id ${callId}: \`toolgate result ${callId}\` prints it (the ledger keeps its first 8 MiB unless its maxOutputBytes is set otherwise)`;
}
