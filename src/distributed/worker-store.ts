/**
 * The store as a worker's executor sees it: the shared store, with the worker's leases
 * threaded through the executor's writes. For a call the worker took (its job came:
 * {@link WorkerStore.adopt}), the executor's `check` adopts the `pending` call (`recorded`,
 * although its caller recorded it), its `claim` is `claimLease` (under the hold's token when it
 * holds the call; of two workers, one wins), a question is stored only after `takeLease`, and
 * its `finish` is fenced with the run's token (a worker whose lease lapsed and
 * whose call is `interrupted` writes nothing). Once the call parks on a question (the hold is
 * released), nothing this worker's execution writes counts; its claim re-sends the call's job
 * instead, so that whichever worker of the pool takes it resumes the call.
 *
 * @module
 */
import type { CallEnd, CallKey, CallStore, Lease, NewCall, RecordOutcome } from '../ledger/call-store.js';
import type { DecisionRecord } from '../types/result.js';
import { UnwrittenEnds } from './unwritten-ends.js';

/** The check's answer for a call this worker took (one object for every call; never written to). */
const RECORDED: RecordOutcome = Object.freeze({ kind: 'recorded' });

/** The key of a call in a map. */
export function keyString(key: CallKey): string {
  return `${key.session}\u0000${key.callId}`;
}

/** What the worker holds of a call. */
export interface Held {
  /** The hold on the `pending` call (`takeLease`), taken only when needed: before a question is stored or an end is written without a run; an allowed call is claimed straight from `pending` (`claimLease` without a token: one claim of any number wins). */
  hold?: Lease;
  /** The lease of the run, once claimed. */
  run?: Lease;
  /** The call parked on a question: its hold was released. */
  parked?: boolean;
  /** The executor wrote the call's end (`finish` or `finishSoon`, fenced by this worker's token). */
  ended?: boolean;
  /**
   * The end the executor gave `finishSoon`, being written at once with a fenced `finish`:
   * resolves to that end when it was written under this worker's token (the stored end: the
   * caller's reply), `undefined` when the fence refused it (the lease lapsed and the call was
   * swept `interrupted`) or the write failed (then queued with `finishSoon`, retried by the
   * store). Never rejects.
   */
  written?: Promise<CallEnd | undefined>;
}

/** Options of {@link WorkerStore}. */
export interface WorkerStoreOptions {
  /** The owner id of this worker's leases. */
  owner: string;
  /** Lease length, in ms. */
  leaseMs: number;
  /** Called when a parked call's execution would claim it (its answer came): re-send its job. */
  resume: (key: CallKey) => void;
}

/** The worker's view of the shared store, and the calls it holds. */
export class WorkerStore {
  /** Calls held, by {@link keyString}. */
  readonly held = new Map<string, Held>();
  /** The view the executor records in. */
  readonly view: CallStore;
  /** Ends decided here without a run that the store did not take: retried until it does. */
  private readonly unwritten: UnwrittenEnds;

  constructor(readonly store: CallStore, private readonly options: WorkerStoreOptions) {
    this.unwritten = new UnwrittenEnds(store, options);
    const overrides: Partial<CallStore> = {
      check: (key) => this.check(key),
      amend: async (call) => this.held.has(keyString(call)) || store.amend(call),
      claim: (call, decisions) => this.claim(call, decisions),
      finish: (call, end, fence) => {
        const held = this.held.get(keyString(call));
        if (held === undefined) return store.finish(call, end, fence);
        if (held.parked === true) return Promise.resolve(false);
        held.ended = true;
        // An end without a run (a refusal, a person's no): kept and retried should the store
        // not take it now.
        return this.end(call, end).catch((error: unknown) => {
          this.keep(call, end);
          throw error;
        });
      },
      ask: async (call, request) => {
        const key = { callId: call.callId, session: call.session };
        const held = this.held.get(keyString(key));
        // A question is stored by one worker only: the one holding the call.
        if (held !== undefined && held.parked !== true && !(await this.hold(key))) throw new Error(`call ${key.callId} is held by another worker`);
        return store.ask(call, request);
      },
      finishSoon: (call, end, fence) => {
        const held = this.held.get(keyString(call));
        if (held === undefined) return store.finishSoon(call, end, fence);
        const token = (held.run ?? held.hold)?.token;
        if (held.parked === true || token === undefined) return;
        held.ended = true;
        // Written now rather than on the next turn, so that whether the fence held is known
        // without reading the call back; a write that fails is queued as before (retried).
        held.written = store.finish(call, end, { token }).then((done) => (done ? end : undefined), () => {
          // Retried by the store until it answers (the end of a run is never dropped while the
          // worker lives); a store closing meanwhile names it in its warning.
          try {
            store.finishSoon(call, end, { token });
          } catch {
            // The store was closed: the call's lease lapses and it ends `interrupted`.
          }
          return undefined;
        });
      },
    };
    this.view = new Proxy(store, {
      get(target, property) {
        if (Object.hasOwn(overrides, property)) return overrides[property as keyof CallStore];
        const value = Reflect.get(target, property, target) as unknown;
        return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
      },
    });
  }

  /**
   * Take a `pending` call (its job came) to decide it here, without a write yet: an allowed
   * call is claimed at once (`claimLease`: one claim of any number wins), and the call is held
   * (`takeLease`) only before a question is stored or an end written without a run.
   */
  adopt(key: CallKey): void {
    this.held.set(keyString(key), {});
  }

  /** Hold an adopted call (once). @returns whether this worker holds or runs it (false: another has it, or it is not pending). */
  private async hold(key: CallKey): Promise<boolean> {
    const held = this.held.get(keyString(key));
    if (held === undefined) return false;
    if (held.hold !== undefined || held.run !== undefined) return true;
    const hold = await this.store.takeLease(key, { owner: this.options.owner, leaseMs: this.options.leaseMs });
    if (hold === undefined) return false;
    held.hold = hold;
    return true;
  }

  /** Park a held call (it asked a person): release its hold; it waits queued for its pool. */
  async park(key: CallKey): Promise<void> {
    const held = this.held.get(keyString(key));
    if (held === undefined || held.parked === true || held.run !== undefined) return;
    held.parked = true;
    if (held.hold !== undefined) await this.store.releaseLease(key, held.hold.token);
  }

  /** Forget a call (its execution is over). */
  forget(key: CallKey): void {
    this.held.delete(keyString(key));
  }

  /**
   * Keep the end of a held call that the store did not take (it was away past its retry), to
   * write it once the store answers (`unwritten-ends.ts`), under the hold taken for it if any.
   */
  keep(key: CallKey, end: CallEnd): void {
    const held = this.held.get(keyString(key));
    this.unwritten.add(key, end, (held?.run ?? held?.hold)?.token);
  }

  /** Stop retrying the ends kept (their calls stay `pending`: the recovery decides them again). */
  close(): void {
    this.unwritten.close();
  }

  /** End a held call that ended before the executor recorded it (unknown tool, bad arguments). */
  async end(key: CallKey, end: CallEnd): Promise<boolean> {
    const held = this.held.get(keyString(key));
    if (held === undefined || held.parked === true || !(await this.hold(key))) return false;
    return this.store.finish(key, end, { token: (held.run ?? held.hold)!.token });
  }

  private async check(key: CallKey): Promise<RecordOutcome> {
    // Held (not parked): the call was `pending` under this worker's hold a moment ago, so it is
    // this worker's to decide, without reading it again; should the hold have lapsed since (the
    // call swept `interrupted`), the fenced claim and finish refuse it.
    // Not `adopted`: the worker's request is built from the stored row, so there is nothing to compare.
    const held = this.held.get(keyString(key));
    if (held !== undefined && held.parked !== true && held.run === undefined) return RECORDED;
    const outcome = await this.store.check(key);
    if (outcome.kind === 'in_progress' && outcome.record.state === 'pending' && this.held.has(keyString(key))) return RECORDED;
    return outcome;
  }

  private async claim(call: CallKey | NewCall, decisions?: readonly DecisionRecord[]): Promise<boolean> {
    const key = { callId: call.callId, session: call.session };
    const held = this.held.get(keyString(key));
    if (held === undefined) return this.store.claim(call, decisions);
    if (held.parked === true) {
      // Answered while parked here: the call runs on whichever worker takes its job.
      this.options.resume(key);
      return false;
    }
    // Unheld (decided allow at once): claimed straight from `pending`, unless another holds it.
    const { owner, leaseMs } = this.options;
    const run = await this.store.claimLease(key, held.hold === undefined ? { owner, leaseMs } : { owner, leaseMs, token: held.hold.token }, decisions);
    if (run === undefined) return false;
    held.run = run;
    return true;
  }
}
