/**
 * Waiting in tests for an event, never for a fixed time: a loaded 2-core CI machine makes
 * every fixed sleep too short some day, and every step of another process slower than on a
 * quiet desk. Each wait has a generous bound and fails naming what it waited for and what it
 * saw, so a red run says which event never came.
 *
 * - {@link waitFor}: poll a predicate until it gives a value.
 * - {@link wholeNumberIn}: the number another process wrote to a file, once it is all there
 *   (a file made with `writeFileSync` or `echo > file` exists before its bytes do).
 * - {@link textFrom}: the whole text a stream has given so far, for waits on output that may
 *   arrive in pieces (never look for a word in one chunk).
 */
import fs from 'node:fs';
import type { Readable } from 'node:stream';

/** Options of {@link waitFor}. */
export interface WaitOptions {
  /** What is awaited, for the error ("timed out after 30 s waiting for <what>"). */
  what: string;
  /** The longest wait, in ms (default 30 000: an event, not a speed, is tested). */
  timeoutMs?: number;
  /** How often to look, in ms (default 25). */
  intervalMs?: number;
  /** Said with the error: what was seen last (a file's text, a process's output). */
  seen?: () => string;
}

/**
 * Resolve with the first truthy value `check` gives (looked at every `intervalMs`), or reject
 * after `timeoutMs` with "timed out after N s waiting for <what>" (and what `seen` says).
 * An exception from `check` rejects at once.
 */
export async function waitFor<T>(check: () => T | Promise<T>, options: WaitOptions): Promise<NonNullable<T>> {
  const { what, timeoutMs = 30_000, intervalMs = 25, seen } = options;
  const end = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== null && value !== false && value !== 0 && value !== '') return value as NonNullable<T>;
    if (Date.now() > end) throw new Error(`timed out after ${Math.round(timeoutMs / 1000)} s waiting for ${what}${seen ? `; seen: ${seen().slice(-2000)}` : ''}`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

/**
 * The positive whole number in `file` (a process id, a port), or `undefined` while the file is
 * missing, empty or holds only part of it: digits alone are not enough when the writer adds a
 * newline (`echo $$ > f`), so with `newline` the number counts only once its line has ended.
 */
export function wholeNumberIn(file: string, options: { newline?: boolean } = {}): number | undefined {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
  const whole = options.newline === true ? /^(\d+)\n$/.exec(text) : /^(\d+)\n?$/.exec(text);
  const value = whole ? Number(whole[1]) : NaN;
  return Number.isSafeInteger(value) && value > 0 ? value : undefined;
}

/**
 * Gather the text of `stream` as it comes: `text()` is everything so far, and `waitFor(pattern)`
 * resolves once the whole text so far matches (a word split over two chunks is still found),
 * rejecting when the stream ends first or after `timeoutMs`, with the text it saw.
 */
export function textFrom(stream: Readable): { text(): string; waitFor(pattern: RegExp | string, what?: string, timeoutMs?: number): Promise<string> } {
  let text = '';
  let ended = false;
  const waiters = new Set<() => void>();
  const wake = (): void => {
    for (const waiter of [...waiters]) waiter();
  };
  stream.on('data', (chunk: Buffer | string) => {
    text += chunk.toString();
    wake();
  });
  stream.once('close', () => {
    ended = true;
    wake();
  });
  stream.once('end', () => {
    ended = true;
    wake();
  });
  return {
    text: () => text,
    waitFor: (pattern, what = String(pattern), timeoutMs = 30_000) => new Promise<string>((resolve, reject) => {
      const matches = (): boolean => (typeof pattern === 'string' ? text.includes(pattern) : pattern.test(text));
      let timer: NodeJS.Timeout | undefined;
      const done = (): void => {
        waiters.delete(check);
        clearTimeout(timer);
      };
      const check = (): void => {
        if (matches()) {
          done();
          resolve(text);
        } else if (ended) {
          done();
          reject(new Error(`the stream ended before ${what}; it gave: ${text.slice(-2000)}`));
        }
      };
      timer = setTimeout(() => {
        done();
        reject(new Error(`timed out after ${Math.round(timeoutMs / 1000)} s waiting for ${what}; seen: ${text.slice(-2000)}`));
      }, timeoutMs);
      waiters.add(check);
      check();
    }),
  };
}

/**
 * Call `answer` once for every `prompt` in the text of `stream`, found in the whole text so far
 * (a prompt split over two chunks, or two prompts in one chunk, are each answered once).
 */
export function onEachPrompt(stream: Readable, prompt: string, answer: () => void): void {
  let text = '';
  let answered = 0;
  stream.on('data', (chunk: Buffer | string) => {
    text += chunk.toString();
    for (const asked = text.split(prompt).length - 1; answered < asked; answered++) answer();
  });
}
