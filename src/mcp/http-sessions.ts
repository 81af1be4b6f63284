/**
 * The sessions of `toolgate mcp --http`: at most `maxSessions` at once, and each closed after
 * `sessionIdleMs` without a request. A client that initializes and goes away without
 * `DELETE` (most do) would otherwise keep its session, its MCP server object and its event
 * store until the process ends.
 *
 * A session is idle when none of its requests is open (a client holding an SSE stream open is
 * there, however long it waits). When a new session would pass the cap, the session idle for
 * longest is closed to make room; when every session has a request open, the new one is
 * refused (HTTP 503) instead.
 *
 * @module
 */

/** Default most sessions at once. */
export const DEFAULT_MAX_SESSIONS = 100;
/** Default time without a request after which a session is closed, in ms (30 minutes). */
export const DEFAULT_SESSION_IDLE_MS = 30 * 60_000;

/** Limits of the HTTP sessions; every option documents its default. */
export interface HttpSessionLimits {
  /** Most sessions at once (1 to 100000). Default {@link DEFAULT_MAX_SESSIONS}. */
  maxSessions?: number;
  /** Milliseconds without a request after which a session is closed (at least 1000). Default {@link DEFAULT_SESSION_IDLE_MS}. */
  sessionIdleMs?: number;
}

/** What a session holds: something to close. */
interface Closable {
  close(): Promise<void>;
}

interface Entry<T> {
  value: T;
  /** `Date.now()` of its last request's end (or start, while one is open). */
  lastActive: number;
  /** Its requests open now. */
  open: number;
}

/** The sessions of one HTTP server, least recently active first. */
export class HttpSessions<T extends Closable> {
  private readonly entries = new Map<string, Entry<T>>();
  private readonly timer: NodeJS.Timeout;
  readonly maxSessions: number;
  readonly idleMs: number;

  /**
   * @param onEvict - told of every session closed for the cap or for idleness (for the log).
   * @throws RangeError when a limit is out of range (the caller names the option).
   */
  constructor(limits: HttpSessionLimits = {}, private readonly onEvict: (id: string, why: 'idle' | 'cap') => void = () => undefined) {
    this.maxSessions = limits.maxSessions ?? DEFAULT_MAX_SESSIONS;
    this.idleMs = limits.sessionIdleMs ?? DEFAULT_SESSION_IDLE_MS;
    if (!Number.isInteger(this.maxSessions) || this.maxSessions < 1 || this.maxSessions > 100_000) throw new RangeError(`maxSessions must be an integer from 1 to 100000; got ${this.maxSessions}`);
    if (!Number.isInteger(this.idleMs) || this.idleMs < 1000) throw new RangeError(`sessionIdleMs must be an integer of at least 1000; got ${this.idleMs}`);
    this.timer = setInterval(() => this.sweep(), Math.min(60_000, Math.max(250, Math.floor(this.idleMs / 4))));
    this.timer.unref();
  }

  /** Sessions now. */
  get size(): number {
    return this.entries.size;
  }

  /** Session ids, least recently active first. */
  ids(): string[] {
    return [...this.entries.keys()];
  }

  get(id: string): T | undefined {
    return this.entries.get(id)?.value;
  }

  values(): T[] {
    return [...this.entries.values()].map((e) => e.value);
  }

  /**
   * A request of session `id` starts: it counts as active until the returned function is
   * called (when the response ends).
   */
  begin(id: string): () => void {
    const entry = this.entries.get(id);
    if (entry === undefined) return () => undefined;
    entry.open++;
    this.touch(id, entry);
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      entry.open--;
      if (this.entries.get(id) === entry) this.touch(id, entry);
    };
  }

  /**
   * Make room for one more session: close the session idle for longest when the cap is
   * reached.
   * @returns false when the cap is reached and every session has a request open.
   */
  makeRoom(): boolean {
    if (this.entries.size < this.maxSessions) return true;
    for (const [id, entry] of this.entries) {
      if (entry.open > 0) continue;
      this.evict(id, 'cap');
      return true;
    }
    return false;
  }

  /** Add a session (after {@link makeRoom}). */
  add(id: string, value: T): void {
    this.entries.set(id, { value, lastActive: Date.now(), open: 0 });
  }

  /** Forget a session (it closed). */
  delete(id: string): void {
    this.entries.delete(id);
  }

  /** Close the sessions idle for longer than `sessionIdleMs`. */
  sweep(now = Date.now()): void {
    for (const [id, entry] of [...this.entries]) {
      if (entry.open === 0 && now - entry.lastActive >= this.idleMs) this.evict(id, 'idle');
    }
  }

  /** Stop the idle timer and close every session. */
  async close(): Promise<void> {
    clearInterval(this.timer);
    const all = this.values();
    this.entries.clear();
    await Promise.all(all.map((value) => value.close().catch(() => undefined)));
  }

  private touch(id: string, entry: Entry<T>): void {
    entry.lastActive = Date.now();
    // Re-insert: the map stays ordered by last activity.
    this.entries.delete(id);
    this.entries.set(id, entry);
  }

  private evict(id: string, why: 'idle' | 'cap'): void {
    const entry = this.entries.get(id);
    if (entry === undefined) return;
    this.entries.delete(id);
    this.onEvict(id, why);
    void entry.value.close().catch(() => undefined);
  }
}
