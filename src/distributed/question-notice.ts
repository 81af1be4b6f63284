/**
 * The notices `toolgate call --queue` prints while its call waits: on a worker for a person's
 * answer (without it the command sat silent until someone answered: a worker has no terminal
 * to ask on, and a new user did not know a question was waiting), and in the queue while no
 * worker of its pool takes it (a misspelled `--pool`, no worker started: silent before too).
 *
 * @module
 */
import { queuedFor, type ApprovalRecord, type CallJournal, type CallKey, type CallRecord, type QuestionBook } from '../ledger/call-store.js';

/** What the notices read of the store: one call, its event log and one question (never every question waiting). */
type CallReads = Pick<CallJournal, 'get' | 'events'> & Pick<QuestionBook, 'approval'>;

/** How often the call's question (or its state) is looked at, in ms. */
const LOOK_EVERY_MS = 1000;

/**
 * Watch the store for a question of the call `key` and write one notice naming it and the
 * commands that answer it; stops when `signal` aborts (the call ended). A store that fails a
 * look is looked at again at the next interval. Never throws.
 * @param storeArgument - the `--store` value as given, repeated in the commands of the notice.
 * @param write - where the notice goes (stderr).
 * @param everyMs - the interval between looks, in ms (default 1000).
 */
export async function noticeQuestion(store: CallReads, key: CallKey, storeArgument: string, write: (text: string) => void, signal: AbortSignal, everyMs = LOOK_EVERY_MS): Promise<void> {
  while (!signal.aborted) {
    const question = await openQuestion(store, key).catch(() => undefined);
    if (question !== undefined) {
      const where = `--store ${shellWord(storeArgument)}`;
      write(`toolgate: call ${key.callId} waits on a worker for a person's answer (question ${question.id}, ${question.tool}); a worker has no terminal to ask on.\n`
        + `toolgate: answer it from any terminal: toolgate approvals allow ${question.id} ${where} (or deny ${question.id}), or in the cockpit: toolgate cockpit ${where}. Ctrl-C cancels the call.\n`);
      return;
    }
    await pause(everyMs, signal);
  }
}

/**
 * The unanswered question of the call `key`, read from that call alone: its record, then
 * (while it is `pending`: a queued call asks before it is claimed, and parks so) its event
 * log's latest `asked` and that question. `undefined` when it has none.
 * @param record - the call's record when just read.
 */
async function openQuestion(store: CallReads, key: CallKey, record?: CallRecord): Promise<ApprovalRecord | undefined> {
  const call = record ?? await store.get(key.callId, key.session);
  if (call?.state !== 'pending') return undefined;
  let id: unknown;
  for (const event of await store.events(key.callId, key.session)) if (event.kind === 'asked') id = (event.detail as { approval?: unknown } | null)?.approval;
  if (typeof id !== 'number') return undefined;
  const question = await store.approval(id);
  return question?.answer === undefined ? question : undefined;
}

/** How long a call waits in the queue untaken before {@link noticeUnclaimed} says so, in ms. */
const UNCLAIMED_AFTER_MS = 3000;

/**
 * Watch the store for the call `key` waiting in its pool's queue with no worker taking it
 * ({@link queuedFor}, and no question of it waiting for an answer), and once it has waited `afterMs` so, write one notice naming the pool and
 * what makes it run; stops when `signal` aborts (the call ended). A store that fails a look is
 * looked at again at the next interval. Never throws.
 * @param storeArgument - the `--store` value as given, repeated in the commands of the notice.
 * @param write - where the notice goes (stderr).
 * @param afterMs - how long the call waits untaken before the notice (default 3000).
 * @param everyMs - the interval between looks, in ms (default 1000).
 */
export async function noticeUnclaimed(store: CallReads, key: CallKey, storeArgument: string, write: (text: string) => void, signal: AbortSignal, afterMs = UNCLAIMED_AFTER_MS, everyMs = LOOK_EVERY_MS): Promise<void> {
  let since: number | undefined;
  while (!signal.aborted) {
    const record = await store.get(key.callId, key.session).catch(() => undefined);
    // (A call parked on a question is pending, in its pool, with no lease too: not untaken.)
    const pool = record === undefined ? undefined : queuedFor(record);
    const asking = pool !== undefined && await openQuestion(store, key, record).then((q) => q !== undefined, () => true);
    if (pool === undefined || asking) since = undefined;
    else if (since === undefined) since = Date.now();
    else if (Date.now() - since >= afterMs) {
      const where = `--store ${shellWord(storeArgument)}`;
      write(`toolgate: call ${key.callId} waits in the queue of pool ${pool}: no worker of that pool has taken it (toolgate trace ${where} shows it pending).\n`
        + `toolgate: it runs once a worker of the pool takes it: toolgate worker --pool ${shellWord(pool)} ${where} --queue QUEUE --workspace DIR, the --queue of this command. Ctrl-C cancels the call.\n`);
      return;
    }
    await pause(everyMs, signal);
  }
}

/** Wait `ms`, or less when `signal` aborts. */
function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise<void>((resolve) => {
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
    function done(): void {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
  });
}

/** A word as a POSIX shell reads it back (quoted unless plain). */
function shellWord(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}
