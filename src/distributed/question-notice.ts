/**
 * The notices `toolgate call --queue` prints while its call waits: on a worker for a person's
 * answer (without it the command sat silent until someone answered: a worker has no terminal
 * to ask on, and a new user did not know a question was waiting), and in the queue while no
 * worker of its pool takes it (a misspelled `--pool`, no worker started: silent before too).
 *
 * @module
 */
import { queuedFor, type CallJournal, type CallKey, type QuestionBook } from '../ledger/call-store.js';

/** How often the store's waiting questions are looked at, in ms. */
const LOOK_EVERY_MS = 1000;

/**
 * Watch the store for a question of the call `key` and write one notice naming it and the
 * commands that answer it; stops when `signal` aborts (the call ended). A store that fails a
 * look is looked at again at the next interval. Never throws.
 * @param storeArgument - the `--store` value as given, repeated in the commands of the notice.
 * @param write - where the notice goes (stderr).
 * @param everyMs - the interval between looks, in ms (default 1000).
 */
export async function noticeQuestion(store: Pick<QuestionBook, 'pendingApprovals'>, key: CallKey, storeArgument: string, write: (text: string) => void, signal: AbortSignal, everyMs = LOOK_EVERY_MS): Promise<void> {
  while (!signal.aborted) {
    const question = await store.pendingApprovals().then(
      (questions) => questions.find((q) => q.callId === key.callId && q.session === key.session && q.answer === undefined),
      () => undefined,
    );
    if (question !== undefined) {
      const where = `--store ${shellWord(storeArgument)}`;
      write(`toolgate: call ${key.callId} waits on a worker for a person's answer (question ${question.id}, ${question.tool}); a worker has no terminal to ask on.\n`
        + `toolgate: answer it from any terminal: toolgate approvals allow ${question.id} ${where} (or deny ${question.id}), or in the cockpit: toolgate cockpit ${where}. Ctrl-C cancels the call.\n`);
      return;
    }
    await pause(everyMs, signal);
  }
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
export async function noticeUnclaimed(store: Pick<CallJournal, 'get'> & Pick<QuestionBook, 'pendingApprovals'>, key: CallKey, storeArgument: string, write: (text: string) => void, signal: AbortSignal, afterMs = UNCLAIMED_AFTER_MS, everyMs = LOOK_EVERY_MS): Promise<void> {
  let since: number | undefined;
  while (!signal.aborted) {
    const record = await store.get(key.callId, key.session).catch(() => undefined);
    // (A call parked on a question is pending, in its pool, with no lease too: not untaken.)
    const pool = record === undefined ? undefined : queuedFor(record);
    const asking = pool !== undefined && await waitsOnQuestion(store, key);
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

/** Does the call `key` wait for a person's answer (an unanswered question; `true` when the store cannot say)? */
async function waitsOnQuestion(store: Pick<QuestionBook, 'pendingApprovals'>, key: CallKey): Promise<boolean> {
  return store.pendingApprovals().then(
    (questions) => questions.some((q) => q.callId === key.callId && q.session === key.session && q.answer === undefined),
    () => true,
  );
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
