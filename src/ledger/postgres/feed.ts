/**
 * The live view of the PostgreSQL store (the cockpit): the event feed of every call, stored
 * outputs by pages, session settings, and the MCP tasks' requestors. Event ids grow in commit
 * order (writers hold the store's lock), so a cursor never skips an event.
 *
 * @module
 */
import type { LedgerFeedEvent, OutputPage, SessionSetting } from '../call-store.js';
import { named, NOW_MS, type PgDatabase } from './database.js';

/** A session's setting (or the fallback session's): read on every decision (the approval mode), prepared once per connection. */
const SESSION_SETTING = named('SELECT session, value, set_by, set_at FROM session_settings WHERE name = $1 AND session IN ($2, $3) ORDER BY session = $2 DESC LIMIT 1');

/** The feed, settings and task bindings of one PostgreSQL store handle. */
export class PgFeed {
  constructor(private readonly db: PgDatabase, private readonly settle: () => Promise<void>) {}

  async eventsAfter(afterId: number, limit = 500): Promise<LedgerFeedEvent[]> {
    await this.settle();
    const rows = await this.db.read<{ id: number; at: number; kind: string; detail: string | null; call_id: string; session: string }>(
      'SELECT events.id, events.at, events.kind, events.detail, calls.call_id, calls.session FROM events JOIN calls ON calls.id = events.call WHERE events.id > $1 ORDER BY events.id LIMIT $2',
      [afterId, limit]);
    return rows.map((e) => ({ id: e.id, at: e.at, kind: e.kind, detail: e.detail === null ? undefined : JSON.parse(e.detail), callId: e.call_id, session: e.session }));
  }

  async lastEventId(): Promise<number> {
    await this.settle();
    const [row] = await this.db.read<{ id: number | null }>('SELECT max(id) AS id FROM events');
    return row?.id ?? 0;
  }

  async outputPage(callId: string, session: string, offset: number, maxBytes: number): Promise<OutputPage | undefined> {
    await this.settle();
    const [head] = await this.db.read<{ id: number; size: number }>(
      'SELECT r.call AS id, r.size FROM results r JOIN calls c ON c.id = r.call WHERE c.call_id = $1 AND c.session = $2', [callId, session]);
    if (head === undefined) return undefined;
    const { size } = head;
    const from = Math.max(0, Math.min(Math.floor(offset), size));
    // 3 bytes before and after the window: enough to find the character starts around it.
    const lead = Math.min(from, 3);
    const [slice] = await this.db.read<{ part: Buffer | null }>('SELECT substring(full_output from $1 for $2) AS part FROM results WHERE call = $3',
      [from - lead + 1, Math.max(0, Math.floor(maxBytes)) + lead + 4, head.id]);
    const bytes = slice?.part ?? Buffer.alloc(0);
    let start = lead;
    while (start > 0 && isContinuation(bytes[start])) start--;
    let end = Math.min(lead + maxBytes, bytes.length);
    if (end <= start) end = Math.min(start + 4, bytes.length);
    while (end < bytes.length && end > start + 1 && isContinuation(bytes[end])) end--;
    const pageStart = from - lead + start;
    const next = pageStart + (end - start);
    return { text: bytes.subarray(start, end).toString('utf8'), offset: pageStart, next: next >= size ? undefined : next, size };
  }

  async sessionSetting(session: string, name: string, fallback?: string): Promise<SessionSetting | undefined> {
    const [row] = await this.db.read<{ session: string; value: string; set_by: string; set_at: number }>(SESSION_SETTING, [name, session, fallback ?? session]);
    return row === undefined ? undefined : { session: row.session, name, value: row.value, setBy: row.set_by, setAt: row.set_at };
  }

  async sessionSettings(): Promise<SessionSetting[]> {
    const rows = await this.db.read<{ session: string; name: string; value: string; set_by: string; set_at: number }>('SELECT * FROM session_settings ORDER BY set_at DESC');
    return rows.map((row) => ({ session: row.session, name: row.name, value: row.value, setBy: row.set_by, setAt: row.set_at }));
  }

  async setSessionSetting(session: string, name: string, value: string | undefined, by: string): Promise<void> {
    await this.db.tx(async (q) => {
      if (value === undefined) await q('DELETE FROM session_settings WHERE session = $1 AND name = $2', [session, name]);
      else {
        await q(`INSERT INTO session_settings (session, name, value, set_by, set_at) VALUES ($1, $2, $3, $4, ${NOW_MS})
          ON CONFLICT (session, name) DO UPDATE SET value = excluded.value, set_by = excluded.set_by, set_at = excluded.set_at`, [session, name, value, by]);
      }
    });
  }

  async bindTask(callId: string, session: string, requestor: string): Promise<void> {
    await this.db.tx((q) => q('INSERT INTO task_requestors (call_id, session, requestor) VALUES ($1, $2, $3)', [callId, session, requestor]));
  }

  async unbindTask(callId: string, session: string): Promise<void> {
    try {
      await this.db.tx((q) => q('DELETE FROM task_requestors WHERE call_id = $1 AND session = $2', [callId, session]));
    } catch {
      // A binding left behind names a task id nobody was given.
    }
  }

  async taskRequestor(callId: string, session: string): Promise<string | undefined> {
    const [row] = await this.db.read<{ requestor: string }>('SELECT requestor FROM task_requestors WHERE call_id = $1 AND session = $2', [callId, session]);
    return row?.requestor;
  }

  async tasksOf(session: string, requestor: string): Promise<Set<string>> {
    const rows = await this.db.read<{ call_id: string }>('SELECT call_id FROM task_requestors WHERE session = $1 AND requestor = $2', [session, requestor]);
    return new Set(rows.map((r) => r.call_id));
  }
}

/** Whether a byte continues a UTF-8 character (`10xxxxxx`). */
function isContinuation(byte: number | undefined): boolean {
  return byte !== undefined && (byte & 0xc0) === 0x80;
}
