/**
 * The live view of the SQLite ledger (the cockpit): the event feed of every call, stored
 * outputs by pages, and session settings. Prepared on first use, so that they stay out of
 * the call path.
 *
 * @module
 */
import type { CallFeed, LedgerFeedEvent, OutputPage, SessionSetting, SessionSettings } from '../call-store.js';
import type { SqliteCalls } from './calls.js';
import type { Connection } from './database.js';
import type { WriteQueue } from './write-queue.js';
import type { Synchronous } from './rows.js';

function statements(db: Connection) {
  return {
    eventsAfter: db.prepare<[number, number], { id: number; at: number; kind: string; detail: string | null; call_id: string; session: string }>(
      'SELECT events.id, events.at, events.kind, events.detail, calls.call_id, calls.session FROM events JOIN calls ON calls.id = events.call WHERE events.id > ? ORDER BY events.id LIMIT ?'),
    lastEvent: db.prepare<[], { id: number }>('SELECT max(id) AS id FROM events'),
    resultSize: db.prepare<[number], { size: number }>('SELECT size FROM results WHERE call = ?'),
    outputSlice: db.prepare<[number, number, number], { part: Buffer | null }>('SELECT substr(full_output, ?, ?) AS part FROM results WHERE call = ?'),
    setting: db.prepare<[string, string, string, string], { session: string; value: string; set_by: string; set_at: number }>(
      'SELECT session, value, set_by, set_at FROM session_settings WHERE name = ? AND session IN (?, ?) ORDER BY session = ? DESC LIMIT 1'),
    settings: db.prepare<[], { session: string; name: string; value: string; set_by: string; set_at: number }>('SELECT * FROM session_settings ORDER BY set_at DESC'),
    putSetting: db.prepare('INSERT INTO session_settings (session, name, value, set_by, set_at) VALUES (?, ?, ?, ?, ?) ON CONFLICT (session, name) DO UPDATE SET value = excluded.value, set_by = excluded.set_by, set_at = excluded.set_at'),
    clearSetting: db.prepare('DELETE FROM session_settings WHERE session = ? AND name = ?'),
  };
}

/** The feed and settings of one ledger connection. */
export class SqliteFeed implements Synchronous<CallFeed & SessionSettings> {
  private prepared: ReturnType<typeof statements> | undefined;

  constructor(private readonly db: Connection, private readonly calls: SqliteCalls, private readonly writes: WriteQueue) {}

  private get sql(): ReturnType<typeof statements> {
    return (this.prepared ??= statements(this.db));
  }

  eventsAfter(afterId: number, limit = 500): LedgerFeedEvent[] {
    this.writes.flush();
    return this.sql.eventsAfter.all(afterId, limit).map((e) => ({
      id: e.id, at: e.at, kind: e.kind, detail: e.detail === null ? undefined : JSON.parse(e.detail), callId: e.call_id, session: e.session,
    }));
  }

  lastEventId(): number {
    this.writes.flush();
    return this.sql.lastEvent.get()?.id ?? 0;
  }

  outputPage(callId: string, session: string, offset: number, maxBytes: number): OutputPage | undefined {
    this.writes.flush();
    const id = this.calls.idOf(callId, session);
    if (id === undefined) return undefined;
    const size = this.sql.resultSize.get(id)?.size;
    if (size === undefined) return undefined;
    const from = Math.max(0, Math.min(Math.floor(offset), size));
    // 3 bytes before and after the window: enough to find the character starts around it.
    const lead = Math.min(from, 3);
    const bytes = this.sql.outputSlice.get(from - lead + 1, maxBytes + lead + 4, id)?.part ?? Buffer.alloc(0);
    let start = lead;
    while (start > 0 && isContinuation(bytes[start])) start--;
    let end = Math.min(lead + maxBytes, bytes.length);
    if (end <= start) end = Math.min(start + 4, bytes.length);
    while (end < bytes.length && end > start + 1 && isContinuation(bytes[end])) end--;
    const pageStart = from - lead + start;
    const next = pageStart + (end - start);
    return { text: bytes.subarray(start, end).toString('utf8'), offset: pageStart, next: next >= size ? undefined : next, size };
  }

  sessionSetting(session: string, name: string, fallback?: string): SessionSetting | undefined {
    const row = this.sql.setting.get(name, session, fallback ?? session, session);
    return row === undefined ? undefined : { session: row.session, name, value: row.value, setBy: row.set_by, setAt: row.set_at };
  }

  sessionSettings(): SessionSetting[] {
    return this.sql.settings.all().map((row) => ({ session: row.session, name: row.name, value: row.value, setBy: row.set_by, setAt: row.set_at }));
  }

  setSessionSetting(session: string, name: string, value: string | undefined, by: string): void {
    const now = Date.now();
    this.writes.immediate(() => {
      if (value === undefined) this.sql.clearSetting.run(session, name);
      else this.sql.putSetting.run(session, name, value, by, now);
    });
  }
}

/** Whether a byte continues a UTF-8 character (`10xxxxxx`). */
function isContinuation(byte: number | undefined): boolean {
  return byte !== undefined && (byte & 0xc0) === 0x80;
}
