/**
 * A running command's output, streamed to whoever waits for the call while it runs: at most
 * one report per {@link PROGRESS_INTERVAL_MS}, each a `ctx.progress` (the characters written so
 * far, which only grow; no total, no message) and a `ctx.log` at `info` (the output since the
 * last report, its last {@link LOG_TAIL_CHARS} characters). The text goes in the log message
 * only, so a caller that shows both (the CLI's `--stream`, an MCP client) sees each line once.
 * A log message holds whole lines: a line the command has begun but not ended waits for its
 * end (`printf partial; sleep 1; echo hi` is one line, `partialhi`, not two), or for
 * {@link HOLD_MS} (a prompt waiting for input is shown), or for the command's end.
 * A caller without a client gets nothing (the context drops them); the call's result still
 * holds the whole (bounded) output.
 *
 * @module
 */
import { stripVTControlCharacters } from 'node:util';
import type { ToolContext } from '../../src/tool.js';
import type { CommandProcess } from './command-process.js';

/** Milliseconds between two reports, at least. */
const PROGRESS_INTERVAL_MS = 500;
/** Characters of new output a log message carries, at most (the last ones). */
const LOG_TAIL_CHARS = 2000;
/** Milliseconds a line begun but not ended is held back before it is reported as it is. */
const HOLD_MS = 2000;

/**
 * Report `proc`'s output through `ctx` as it arrives, until the returned function is called
 * (which sends what is still unreported).
 */
export function streamOutput(proc: CommandProcess, ctx: Pick<ToolContext, 'progress' | 'log'>): () => void {
  let pending = '';
  let written = 0;
  let lastAt = 0;
  /** Since when `pending` ends in a line not ended yet (ms since the epoch; 0: it does not). */
  let partialSince = 0;
  let timer: NodeJS.Timeout | undefined;
  const later = (ms: number) => {
    timer = setTimeout(report, Math.max(0, ms));
    timer.unref();
  };
  /** Report the whole lines of `pending` (everything, with `all` or once a begun line was held long enough). */
  const report = (all = false) => {
    timer = undefined;
    if (pending === '') return;
    const now = Date.now();
    const whole = pending.lastIndexOf('\n') + 1;
    let text: string;
    if (all || (whole === 0 && now - partialSince >= HOLD_MS)) {
      text = pending;
      pending = '';
      partialSince = 0;
    } else if (whole > 0) {
      text = pending.slice(0, whole);
      pending = pending.slice(whole);
      partialSince = pending === '' ? 0 : now;
    } else {
      // Only a begun line: look again at the next interval (or when its hold ends).
      later(Math.min(PROGRESS_INTERVAL_MS, partialSince + HOLD_MS - now));
      return;
    }
    lastAt = now;
    ctx.progress(written);
    ctx.log('info', stripVTControlCharacters(text));
    // A begun line left behind (`Password: ` after whole lines) shows once its hold ends, not at the next output.
    if (pending !== '' && timer === undefined) later(HOLD_MS);
  };
  const stop = proc.onOutput((text) => {
    written += text.length;
    pending = (pending + text).slice(-LOG_TAIL_CHARS);
    if (pending.endsWith('\n')) partialSince = 0;
    else if (partialSince === 0) partialSince = Date.now();
    if (timer === undefined) later(lastAt + PROGRESS_INTERVAL_MS - Date.now());
  });
  return () => {
    stop();
    clearTimeout(timer);
    report(true);
  };
}
