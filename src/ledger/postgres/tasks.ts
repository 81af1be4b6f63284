/**
 * Scheduled tasks in the PostgreSQL store (`scheduled_tasks`, migration 2; see
 * `../scheduled-tasks.ts`). A change is one conditional `UPDATE` in a transaction holding
 * the store's write lock, so that of two schedulers (on any machines) racing to start a task
 * exactly one wins.
 *
 * @module
 */
import type { PgDatabase } from './database.js';
import { taskChangeSql, taskOfRow, type NewTask, type TaskChange, type TaskFilter, type TaskRecord, type TaskRow, type TaskState } from '../scheduled-tasks.js';

/** The scheduled tasks of one PostgreSQL store. */
export class PgTasks {
  constructor(private readonly db: PgDatabase) {}

  async create(task: NewTask): Promise<TaskRecord> {
    const now = Date.now();
    const [row] = await this.db.tx((q) => q<TaskRow>(`INSERT INTO scheduled_tasks (id, workspace, session, scope, detached, tool, version, arguments, options, title, state, run_at, call_id, created_at, updated_at)
      VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $14) RETURNING *`, [
      task.id, task.workspace, task.session, task.scope, task.detached, task.tool, task.version, JSON.stringify(task.arguments),
      JSON.stringify(task.options), task.title, task.state, task.runAt, task.callId, now,
    ]));
    return taskOfRow(row!);
  }

  async get(id: string): Promise<TaskRecord | undefined> {
    const [row] = await this.db.read<TaskRow>('SELECT * FROM scheduled_tasks WHERE id = $1', [id]);
    return row === undefined ? undefined : taskOfRow(row);
  }

  async list(filter: TaskFilter = {}): Promise<TaskRecord[]> {
    const where: string[] = [];
    const values: unknown[] = [];
    const put = (sql: (p: string) => string, value: unknown) => {
      values.push(value);
      where.push(sql(`$${values.length}`));
    };
    if (filter.workspace !== undefined) put((p) => `workspace = ${p}`, filter.workspace);
    if (filter.scopeOrDetached !== undefined) put((p) => `(scope = ${p} OR detached)`, filter.scopeOrDetached);
    if (filter.states !== undefined) put((p) => `state = ANY(${p}::text[])`, [...filter.states]);
    if (filter.dueBy !== undefined) put((p) => `run_at <= ${p}`, filter.dueBy);
    const limit = Math.max(1, Math.min(filter.limit ?? 100, 10_000));
    const rows = await this.db.read<TaskRow>(`SELECT * FROM scheduled_tasks${where.length ? ` WHERE ${where.join(' AND ')}` : ''} ORDER BY run_at, created_at, id LIMIT ${limit}`, values);
    return rows.map(taskOfRow);
  }

  async update(id: string, from: readonly TaskState[], change: TaskChange): Promise<TaskRecord | undefined> {
    if (from.length === 0) return undefined;
    const { set, values } = taskChangeSql(change, Date.now(), (i) => `$${i}`, (b) => b);
    const n = values.length;
    const [row] = await this.db.tx((q) => q<TaskRow>(`UPDATE scheduled_tasks SET ${set} WHERE id = $${n + 1} AND state = ANY($${n + 2}::text[]) RETURNING *`, [...values, id, [...from]]));
    return row === undefined ? undefined : taskOfRow(row);
  }
}
