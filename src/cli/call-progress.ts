/**
 * What `toolgate call` shows while its call runs: the tool's progress and log messages
 * (`ctx.progress`, `ctx.log`), through the {@link ToolClient} the call is given.
 * - `--stream`: each message as a line on stderr as it comes (`[progress 2/5] copying`,
 *   `[progress 120]` with no total, `[info] text`, each line of a log message marked), so that
 *   stdout keeps the result alone;
 * - else, on a terminal (stderr is a TTY): one live line, redrawn in place, with the time since
 *   the call started and the last message; erased before anything else is written (the
 *   confirmation question pauses it). Not with `--stream`: its lines are the display, and a
 *   line redrawn between them would run into them wherever the terminal's output is kept as
 *   text (a log of the session, a captured pseudo-terminal).
 *
 * @module
 */
import type { ToolClient, ToolLogLevel } from '../types/tool.js';
import { TOOL_LOG_LEVELS } from '../types/tool.js';
import type { CliIo } from './context.js';
import { terminalSafe } from './terminal.js';
import { lastLine, textOf } from '../executor/call-progress-record.js';

/** How often the live line is redrawn, in milliseconds (the elapsed time moves on). */
const REDRAW_MS = 250;

/** The live line is redrawn for a message at most this often (ms). */
const MIN_REDRAW_MS = 50;

/** With no message yet, the live line appears only once the call has taken this long (ms): a fast call shows none. */
const QUIET_MS = 1000;

/** Log levels shown unless the CLI's `--log-level` is `debug` or `trace`. */
const SHOWN_FROM = TOOL_LOG_LEVELS.indexOf('info');

/** Options of {@link callProgress}. */
export interface CallProgressOptions {
  /** Tool name, shown at the start of the live line. */
  tool: string;
  /** Write each message as a line on stderr (`--stream`). */
  stream: boolean;
  /** Show `debug` messages too. */
  debug: boolean;
}

/** The progress display of one call. */
export interface CallProgress {
  /** The handlers the call's tool reports to (the `client` execute option). */
  readonly client: ToolClient;
  /** Start the elapsed time and the live line. */
  start(): void;
  /** Erase the live line and stop drawing it until {@link resume} (a question is asked meanwhile). */
  pause(): void;
  /** Draw the live line again after {@link pause}. */
  resume(): void;
  /** Erase the live line for good (before the result is written). */
  stop(): void;
}

/** The progress display for a call: see the module's description. */
export function callProgress(io: CliIo, options: CallProgressOptions): CallProgress {
  const err = io.stderr as NodeJS.WritableStream & { isTTY?: boolean; columns?: number };
  const tty = err.isTTY === true;
  /** The live line: on a terminal, unless --stream writes each message as a line. */
  const live = tty && !options.stream;
  let started = Date.now();
  let last = '';
  let heard = false;
  let drawn = false;
  let paused = false;
  let stopped = true;
  let timer: NodeJS.Timeout | undefined;
  let drawnAt = 0;

  const erase = () => {
    if (!drawn) return;
    err.write('\r\u001b[2K');
    drawn = false;
  };
  const draw = () => {
    if (!live || paused || stopped) return;
    const elapsed = Date.now() - started;
    if (!heard && elapsed < QUIET_MS) return;
    const head = `${options.tool} ${(elapsed / 1000).toFixed(1)} s`;
    const width = Math.max(20, (err.columns || 80) - 1);
    const shown = terminalSafe(last, false);
    const line = shown === '' ? head : `${head}  ${shown}`;
    err.write(`\r\u001b[2K${line.length > width ? `${line.slice(0, width - 1)}…` : line}`);
    drawn = true;
    drawnAt = Date.now();
  };
  /** A message came: written as a line with --stream, and the live line shows it. */
  const heardOf = (message: string, line: string) => {
    heard = true;
    if (message !== '') last = message;
    if (options.stream && !stopped) {
      erase();
      err.write(`${tty ? terminalSafe(line) : line}\n`);
    }
    // A tool that logs every line of a big output: the redraw timer catches up.
    if (!drawn || Date.now() - drawnAt >= MIN_REDRAW_MS) draw();
  };

  const client: ToolClient = {
    progress(done, total, message) {
      const amount = total === undefined ? `${done}` : `${done}/${total}`;
      heardOf(`[${amount}]${message === undefined ? '' : ` ${lastLine(message)}`}`, `[progress ${amount}]${message === undefined ? '' : ` ${message}`}`);
    },
    log(level: ToolLogLevel, data: unknown) {
      if (!options.debug && TOOL_LOG_LEVELS.indexOf(level) < SHOWN_FROM) return;
      const text = textOf(data);
      // Each line of a message marked, so that every line of stderr says what it is.
      heardOf(lastLine(text), text.replace(/\n$/, '').split('\n').map((line) => `[${level}] ${line}`).join('\n'));
    },
  };
  return {
    client,
    start() {
      started = Date.now();
      stopped = false;
      if (live) timer = setInterval(draw, REDRAW_MS).unref();
    },
    pause() {
      paused = true;
      erase();
    },
    resume() {
      paused = false;
      draw();
    },
    stop() {
      stopped = true;
      if (timer !== undefined) clearInterval(timer);
      erase();
    },
  };
}
