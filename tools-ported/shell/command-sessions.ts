/**
 * The command sessions that `exec_command` leaves running and `input_command` drives: at most
 * {@link MAX_SESSIONS} at once. When full, exited sessions are evicted first, then idle ones
 * by least recent use (an evicted running session is stopped: TERM, then KILL, to its whole
 * process group). One table per host process; each session belongs to the tool instance that
 * started it (one per executor), which stops its sessions when its executor closes. Every
 * session is killed when the host process exits.
 *
 * @module
 */
import crypto from 'node:crypto';
import { CommandProcess, type CommandStartOptions } from './command-process.js';

/** Sessions kept at once. */
const MAX_SESSIONS = 64;
/** Characters of a session's input kept for the decisions on later input ({@link CommandSession.written}). */
const MAX_WRITTEN = 64 * 1024;

/** A command session. */
export interface CommandSession {
  /** The id models use (`process_id`). */
  readonly id: string;
  readonly command: string;
  readonly process: CommandProcess;
  /** Milliseconds since the epoch of the last exec or input call on it. */
  lastUsed: number;
  /** Milliseconds since the epoch when it started. */
  readonly startedAt: number;
  /** True while a call is waiting on it (never evicted then). */
  busy: boolean;
  /** The tool instance that started it. */
  readonly owner: object;
  /** The workspace it runs for: only calls on the same workspace see it. */
  readonly scope: string;
  /**
   * What input_command wrote to its standard input, oldest first, at most the last
   * {@link MAX_WRITTEN} characters: later input is judged with the line it continues.
   */
  written: string;
  /** True once `written` lost its start to the cap. */
  truncated: boolean;
}

/** The table of command sessions. */
export class CommandSessions {
  private readonly sessions = new Map<string, CommandSession>();
  /** @param maxSessions - sessions kept at once (default {@link MAX_SESSIONS}). */
  constructor(private readonly maxSessions = MAX_SESSIONS) {}
  private exitHook = false;
  private readonly onExit = () => {
    for (const session of this.sessions.values()) session.process.killNow();
  };

  /** Stop the sessions `owner` started, and forget them. */
  async stopOwnedBy(owner: object, reason: string): Promise<void> {
    const owned = [...this.sessions.values()].filter((s) => s.owner === owner);
    for (const session of owned) this.sessions.delete(session.id);
    await Promise.all(owned.map((s) => s.process.stop(reason)));
  }

  /** Stop every session and forget them. */
  async stopAll(reason: string): Promise<void> {
    const all = [...this.sessions.values()];
    this.sessions.clear();
    await Promise.all(all.map((s) => s.process.stop(reason)));
  }

  get size(): number {
    return this.sessions.size;
  }

  /**
   * Start a command as a new session, evicting one when the table is full.
   * @throws Error when the table is full of sessions that are in use.
   */
  start(options: CommandStartOptions, owner: object, scope = ''): CommandSession {
    if (!this.exitHook) {
      process.on('exit', this.onExit);
      this.exitHook = true;
    }
    if (this.sessions.size >= this.maxSessions) this.evictOne();
    const session: CommandSession = {
      id: `cmd_${crypto.randomBytes(6).toString('hex')}`,
      command: options.command,
      process: CommandProcess.start({ pauseAtUnread: 1024 * 1024, ...options, owner }),
      lastUsed: Date.now(),
      startedAt: Date.now(),
      busy: false,
      owner,
      scope,
      written: '',
      truncated: false,
    };
    this.sessions.set(session.id, session);
    return session;
  }

  /** The session `id` of workspace `scope`, if there is one. */
  get(id: string, scope = ''): CommandSession | undefined {
    const session = this.sessions.get(id);
    if (session === undefined || session.scope !== scope) return undefined;
    session.lastUsed = Date.now();
    return session;
  }

  /**
   * The session `id` of workspace `scope`, if there is one and it is still running, without
   * counting as a use: what the decision on an input_command call looks at.
   */
  peek(id: string, scope = ''): CommandSession | undefined {
    const session = this.sessions.get(id);
    return session === undefined || session.scope !== scope || !session.process.running ? undefined : session;
  }

  /** Record `chars` as written to the session's input (see {@link CommandSession.written}). */
  static noteWritten(session: CommandSession, chars: string): void {
    const all = session.written + chars;
    if (all.length > MAX_WRITTEN) {
      session.written = all.slice(all.length - MAX_WRITTEN);
      session.truncated = true;
    } else {
      session.written = all;
    }
  }

  /** Forget a session (after its exit was reported). */
  remove(id: string): void {
    this.sessions.delete(id);
  }

  /** Ids and commands of the sessions, for error messages. */
  list(scope = ''): Array<{ id: string; command: string; running: boolean; startedAt: number }> {
    return [...this.sessions.values()]
      .filter((s) => s.scope === scope)
      .map((s) => ({ id: s.id, command: s.command, running: s.process.running, startedAt: s.startedAt }));
  }

  private evictOne(): void {
    const candidates = [...this.sessions.values()].filter((s) => !s.busy);
    const exited = candidates.filter((s) => !s.process.running).sort((a, b) => a.lastUsed - b.lastUsed);
    const idle = candidates.filter((s) => s.process.running).sort((a, b) => a.lastUsed - b.lastUsed);
    const victim = exited[0] ?? idle[0];
    if (victim === undefined) throw new Error(`${this.maxSessions} command sessions are in use; wait for one to finish`);
    this.sessions.delete(victim.id);
    void victim.process.stop('evicted: too many command sessions');
  }
}

/** The table shared by exec_command and input_command in this process. */
export const commandSessions = new CommandSessions();
