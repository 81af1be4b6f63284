/**
 * Scheduled tasks in the SQLite ledger (`scheduled_tasks`, migration 7; see
 * `../scheduled-tasks.ts`). Each write is one statement, committed before it returns; a
 * change is conditional on the task's state, so that two processes racing to start a task
 * see one of them win (SQLite serialises the writes).
 *
 * @module
 */
import type { Connection } from './database.js';
import { taskChangeSql, taskOfRow, type NewTask, type TaskChange, type TaskFilter, type TaskRecord, type TaskRow, type TaskState } from '../scheduled-tasks.js';

/** The scheduled tasks of one SQLite connection. */
export class SqliteTasks {
  constructor(private readonly db: Connection, private readonly file: string, private readonly readonly: boolean) {}

  /** Whether the file has the table (a file opened read-only may be older). */
  private has(): boolean {
    return this.db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'scheduled_tasks'").get() !== undefined;
  }

  private writable(): void {
    if (this.readonly) throw new Error(`the ledger ${this.file} is open read-only: it cannot store tasks`);
    if (!this.has()) throw new Error(`the ledger ${this.file} has no scheduled_tasks table: it cannot store tasks`);
  }

  create(task: NewTask): TaskRecord {
    this.writable();
    const now = Date.now();
    this.db.prepare(`INSERT INTO scheduled_tasks (id, workspace, session, scope, detached, tool, version, arguments, options, title, state, run_at, call_id, created_at, updated_at)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`).run(
      task.id, task.workspace, task.session, task.scope, task.detached ? 1 : 0, task.tool, task.version, JSON.stringify(task.arguments),
      JSON.stringify(task.options), task.title, task.state, task.runAt, task.callId, now, now,
    );
    return this.get(task.id)!;
  }

  get(id: string): TaskRecord | undefined {
    if (!this.has()) return undefined;
    const row = this.db.prepare('SELECT * FROM scheduled_tasks WHERE id = ?').get(id) as TaskRow | undefined;
    return row === undefined ? undefined : taskOfRow(row);
  }

  list(filter: TaskFilter = {}): TaskRecord[] {
    if (!this.has()) return [];
    const where: string[] = [];
    const values: unknown[] = [];
    if (filter.workspace !== undefined) where.push('workspace = ?') && values.push(filter.workspace);
    if (filter.scopeOrDetached !== undefined) where.push('(scope = ? OR detached = 1)') && values.push(filter.scopeOrDetached);
    if (filter.states !== undefined) {
      where.push(`state IN (${filter.states.map(() => '?').join(', ') || "''"})`);
      values.push(...filter.states);
    }
    if (filter.dueBy !== undefined) where.push('run_at <= ?') && values.push(filter.dueBy);
    const limit = Math.max(1, Math.min(filter.limit ?? 100, 10_000));
    const sql = `SELECT * FROM scheduled_tasks${where.length ? ` WHERE ${where.join(' AND ')}` : ''} ORDER BY run_at, created_at, id LIMIT ${limit}`;
    return (this.db.prepare(sql).all(...values) as TaskRow[]).map(taskOfRow);
  }

  update(id: string, from: readonly TaskState[], change: TaskChange): TaskRecord | undefined {
    this.writable();
    if (from.length === 0) return undefined;
    const { set, values } = taskChangeSql(change, Date.now(), () => '?', (b) => (b ? 1 : 0));
    const info = this.db.prepare(`UPDATE scheduled_tasks SET ${set} WHERE id = ? AND state IN (${from.map(() => '?').join(', ')})`).run(...values, id, ...from);
    return info.changes === 1 ? this.get(id) : undefined;
  }
}
