/**
 * The latest progress of a recorded call, written to its ledger for the cockpit of any process
 * to show ("running 12 s, [3/5] compiling b.c"), whoever called (the SDK, an agent, MCP, the
 * CLI): the executor gives the call's tool a {@link ToolClient} that passes every message on
 * to the caller's own client, if any, and keeps the latest `ctx.progress` (or `info`-level or
 * higher `ctx.log` line) for the ledger.
 *
 * Off the call's way and bounded: the first message of a call is written at once, later ones
 * at most once every {@link PROGRESS_RECORD_MS} per call (the latest of each period, at its
 * end; a message only keeps a reference until then, its text is made when written); a message
 * is cut to {@link PROGRESS_MESSAGE_CHARS} characters (a log's last non-empty line); nothing is
 * written once the call ended; a write that fails is logged and dropped, never the call's
 * failure.
 *
 * @module
 */
import type { CallProgressDetail, CallStore } from '../ledger/call-store.js';
import type { Logger } from '../logging/logger.js';
import { TOOL_LOG_LEVELS, type ElicitAnswer, type JsonSchema, type SampleAnswer, type SampleRequest, type ToolClient, type ToolLogLevel } from '../types/tool.js';

/** How often a call's latest progress is written at most, in milliseconds. */
const PROGRESS_RECORD_MS = 1000;
/** Characters of a recorded progress message at most. */
const PROGRESS_MESSAGE_CHARS = 500;
/** Log levels recorded: `info` and above (debug lines are not progress). */
const RECORDED_FROM = TOOL_LOG_LEVELS.indexOf('info');

/** What was reported last and not written yet: a progress, or a log message's data. */
type Latest = { readonly done: number; readonly total: number | undefined; readonly message: string | undefined } | { readonly log: unknown };

/**
 * The client of one recorded call: the caller's client's handlers, and the latest progress
 * written to `ledger` (see the module). {@link stop} when the call ends.
 */
export class RecordedProgress implements ToolClient {
  readonly elicit?: (message: string, requestedSchema: JsonSchema, signal: AbortSignal) => Promise<ElicitAnswer>;
  readonly sample?: (request: SampleRequest, signal: AbortSignal) => Promise<SampleAnswer>;
  readonly services?: object;
  private latest: Latest | undefined;
  private writtenAt = 0;
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(
    private readonly ledger: CallStore,
    private readonly callId: string,
    private readonly session: string,
    /** The caller's own client, told every message first. */
    private readonly given: ToolClient | undefined,
    private readonly logger: Logger,
  ) {
    if (given?.elicit !== undefined) this.elicit = given.elicit.bind(given);
    if (given?.sample !== undefined) this.sample = given.sample.bind(given);
    if (given?.services !== undefined) this.services = given.services;
  }

  progress(done: number, total: number | undefined, message: string | undefined): void {
    this.given?.progress?.(done, total, message);
    this.note({ done, total, message });
  }

  log(level: ToolLogLevel, data: unknown, tool: string): void {
    this.given?.log?.(level, data, tool);
    if (TOOL_LOG_LEVELS.indexOf(level) >= RECORDED_FROM) this.note({ log: data });
  }

  /** The call ended: nothing more is written. */
  stop(): void {
    this.stopped = true;
    this.latest = undefined;
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
  }

  private note(latest: Latest): void {
    if (this.stopped) return;
    this.latest = latest;
    const wait = this.writtenAt + PROGRESS_RECORD_MS - Date.now();
    if (wait <= 0) this.write();
    else this.timer ??= setTimeout(() => this.write(), wait).unref();
  }

  private write(): void {
    this.timer = undefined;
    const latest = this.latest;
    if (latest === undefined || this.stopped) return;
    this.latest = undefined;
    this.writtenAt = Date.now();
    const detail = detailOf(latest);
    if (detail === undefined) return;
    this.ledger.progress(this.callId, this.session, detail).catch((error: unknown) => {
      this.logger.warn({ event: 'ledger_progress_failed', callId: this.callId, err: (error as Error)?.message }, 'could not record the progress of a call');
    });
  }
}

/** The stored detail of what was reported (`undefined` for a log line with no text). */
function detailOf(latest: Latest): CallProgressDetail | undefined {
  if (!('log' in latest)) {
    const detail: CallProgressDetail = { done: latest.done };
    if (latest.total !== undefined) detail.total = latest.total;
    if (latest.message !== undefined) detail.message = clipped(latest.message);
    return detail;
  }
  const line = lastLine(textOf(latest.log));
  return line === '' ? undefined : { message: clipped(line) };
}

function clipped(text: string): string {
  return text.length <= PROGRESS_MESSAGE_CHARS ? text : `${text.slice(0, PROGRESS_MESSAGE_CHARS - 1)}…`;
}

/** The text of a log message's data: a string as it is, anything else as JSON. */
export function textOf(data: unknown): string {
  if (typeof data === 'string') return data;
  try {
    return JSON.stringify(data) ?? String(data);
  } catch {
    return String(data);
  }
}

/** The last non-empty line of a text (only its last 64 KiB are looked at). */
export function lastLine(text: string): string {
  const tail = text.length > 65_536 ? text.slice(-65_536) : text;
  const lines = tail.split(/\r?\n/).filter((l) => l.trim() !== '');
  return lines.at(-1) ?? '';
}
