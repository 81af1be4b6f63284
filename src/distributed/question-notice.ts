/**
 * The notice `toolgate call --queue` prints when its call waits on a worker for a person's
 * answer: without it the command sat silent until someone answered (a worker has no terminal
 * to ask on), and a new user did not know a question was waiting.
 *
 * @module
 */
import type { CallKey, QuestionBook } from '../ledger/call-store.js';

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
    await new Promise<void>((resolve) => {
      const timer = setTimeout(done, everyMs);
      signal.addEventListener('abort', done, { once: true });
      function done(): void {
        clearTimeout(timer);
        signal.removeEventListener('abort', done);
        resolve();
      }
    });
  }
}

/** A word as a POSIX shell reads it back (quoted unless plain). */
function shellWord(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}
