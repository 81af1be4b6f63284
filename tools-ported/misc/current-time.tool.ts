import { tool, ToolExecutionError, type Tool } from '../../src/tool.js';

/** Arguments of current_time. */
export interface CurrentTimeInput {
  /**
   * An IANA time zone name such as `Europe/Paris`, `America/New_York`, `Asia/Kolkata` or
   * `UTC`. Default: the host's time zone.
   * @maxLength 100
   */
  timezone?: string;
}

/** What current_time reports. */
export interface CurrentTimeOutput {
  /** ISO 8601 date and time with the zone's offset, to the second (`2026-03-01T14:05:09+01:00`). */
  iso: string;
  /** The IANA time zone used (canonical spelling as the runtime knows it). */
  timezone: string;
  /** Offset from UTC as `+HH:MM` or `-HH:MM`. */
  utc_offset: string;
  /** The time for people, e.g. `Sunday, 1 March 2026 at 14:05:09 CET`. */
  human: string;
  /** Milliseconds since 1970-01-01T00:00:00Z. */
  unix_ms: number;
}

/**
 * Tell the current date and time in an IANA time zone (the host's by default): ISO 8601 with
 * the UTC offset, the zone, and a readable form with the weekday. Use it whenever the answer
 * depends on today's date or the time somewhere; do not guess dates.
 */
@tool({ name: 'current_time', version: '1.0.0', kind: 'internal', readOnly: true, tags: ['misc', 'ported'], timeoutMs: 5_000 })
export class CurrentTimeTool implements Tool<CurrentTimeInput, CurrentTimeOutput> {
  run(args: CurrentTimeInput): CurrentTimeOutput {
    return currentTime(args.timezone);
  }
}


/** Some valid zone names close to `wanted` (same region, or sharing a part of the name). */
function suggestions(wanted: string): string[] {
  const all = typeof Intl.supportedValuesOf === 'function' ? Intl.supportedValuesOf('timeZone') : [];
  const lower = wanted.toLowerCase();
  const last = lower.split('/').pop() ?? lower;
  const region = lower.includes('/') ? lower.split('/')[0]! : '';
  const hits = all.filter((z) => {
    const zl = z.toLowerCase();
    return (last.length >= 3 && zl.includes(last.replace(/\s+/g, '_'))) || (region !== '' && zl.startsWith(`${region}/`));
  });
  return hits.slice(0, 8);
}

/**
 * The time now in `timezone` (default: the host's zone).
 * @param now - the instant to describe (for tests); default the current time.
 * @throws ToolExecutionError for a name that is not an IANA time zone, naming some close
 *   valid names and how to find the rest.
 */
export function currentTime(timezone?: string, now = new Date()): CurrentTimeOutput {
  let format: Intl.DateTimeFormat;
  try {
    format = new Intl.DateTimeFormat('en-GB', {
      timeZone: timezone === undefined || timezone.trim() === '' ? undefined : timezone.trim(),
      year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit',
      hourCycle: 'h23', timeZoneName: 'longOffset',
    });
  } catch {
    const close = suggestions(timezone ?? '');
    throw new ToolExecutionError(
      `${JSON.stringify((timezone ?? '').slice(0, 100))} is not an IANA time zone name. Use names like "Europe/Paris", "America/New_York", "Asia/Tokyo" or "UTC" ` +
        `(the full list is the tz database, e.g. https://en.wikipedia.org/wiki/List_of_tz_database_time_zones)${close.length ? `; close matches: ${close.join(', ')}` : ''}.`,
    );
  }
  const zone = format.resolvedOptions().timeZone;
  const parts = Object.fromEntries(format.formatToParts(now).map((p) => [p.type, p.value])) as Record<string, string>;
  // longOffset gives "GMT", "GMT+01:00" or "GMT-03:30".
  const gmt = parts.timeZoneName ?? 'GMT';
  const utcOffset = gmt === 'GMT' ? '+00:00' : gmt.slice(3);
  const iso = `${parts.year}-${parts.month}-${parts.day}T${parts.hour}:${parts.minute}:${parts.second}${utcOffset}`;
  const human = new Intl.DateTimeFormat('en-GB', { timeZone: zone, dateStyle: 'full', timeStyle: 'long' }).format(now);
  return { iso, timezone: zone, utc_offset: utcOffset, human, unix_ms: now.getTime() };
}

