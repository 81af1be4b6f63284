/**
 * A running command's output, streamed to whoever waits for the call while it runs: at most
 * one report per {@link PROGRESS_INTERVAL_MS}, each a `ctx.progress` (the characters written so
 * far, which only grow; no total, no message) and a `ctx.log` at `info` (the output since the
 * last report, its last {@link LOG_TAIL_CHARS} characters). The text goes in the log message
 * only, so a caller that shows both (the CLI's `--stream`, an MCP client) sees each line once.
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

/**
 * Report `proc`'s output through `ctx` as it arrives, until the returned function is called
 * (which sends what is still unreported).
 */
export function streamOutput(proc: CommandProcess, ctx: Pick<ToolContext, 'progress' | 'log'>): () => void {
  let pending = '';
  let written = 0;
  let lastAt = 0;
  let timer: NodeJS.Timeout | undefined;
  const report = () => {
    timer = undefined;
    if (pending === '') return;
    lastAt = Date.now();
    const text = stripVTControlCharacters(pending);
    pending = '';
    ctx.progress(written);
    ctx.log('info', text);
  };
  const stop = proc.onOutput((text) => {
    written += text.length;
    pending = (pending + text).slice(-LOG_TAIL_CHARS);
    if (timer === undefined) {
      timer = setTimeout(report, Math.max(0, lastAt + PROGRESS_INTERVAL_MS - Date.now()));
      timer.unref();
    }
  });
  return () => {
    stop();
    clearTimeout(timer);
    report();
  };
}
