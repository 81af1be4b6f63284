/**
 * Who asked for each MCP task, kept in the ledger (`task_requestors`, migration 5) beside the
 * task's call, so that the binding outlives the process as the task does: `tasks/get`,
 * `tasks/result`, `tasks/cancel` and `tasks/list` find a task only for the requestor that
 * created it, in this process or any later one.
 *
 * A requestor is an opaque key the MCP server gives (`local` for stdio, a hash of the HTTP
 * session id and the server's token): nothing in it reads back as a secret. A task with no
 * binding (recorded before migration 5, or by a process that died between its binding and
 * its record) belongs to nobody: no requestor finds it (fail closed).
 *
 * Writes commit before they return (one statement each). A trigger of migration 5 deletes a
 * binding when retention deletes its call.
 *
 * @module
 */
/** What this module needs of the SQLite ledger (`Ledger`, which calls it: named by shape, not imported, so the two do not import each other). */
interface Ledger {
  readonly file: string;
  connection(): { prepare(sql: string): unknown };
  schemaVersion(): number;
}

/** What this module needs of the ledger's SQLite connection (better-sqlite3's shape). */
interface Statement {
  run(...params: unknown[]): unknown;
  get(...params: unknown[]): unknown;
  all(...params: unknown[]): unknown[];
}

/** Whether the ledger has `task_requestors` (found by name, not by schema number: migrations of other concerns come and go around it). */
function hasTable(ledger: Ledger): boolean {
  const row = (ledger.connection().prepare("SELECT 1 AS found FROM sqlite_master WHERE type = 'table' AND name = 'task_requestors'") as unknown as Statement).get();
  return row !== undefined;
}

function prepared(ledger: Ledger, sql: string): Statement | undefined {
  // A read-only ledger of an older schema has no table: no task is anyone's there.
  if (!hasTable(ledger)) return undefined;
  return ledger.connection().prepare(sql) as unknown as Statement;
}

/**
 * Bind a task's call to its requestor, before the call is recorded (so that no recorded task
 * is ever unbound but by a crash, which leaves it nobody's).
 * @throws the driver's error when the ledger cannot be written; nothing is bound then.
 */
export function bindTask(ledger: Ledger, callId: string, session: string, requestor: string): void {
  const statement = prepared(ledger, 'INSERT INTO task_requestors (call_id, session, requestor) VALUES (?, ?, ?)');
  if (statement === undefined) throw new Error(`the ledger ${ledger.file} has no task_requestors table (schema version ${ledger.schemaVersion()}, opened read-only?): it cannot bind MCP tasks`);
  statement.run(callId, session, requestor);
}

/** Undo {@link bindTask} (the call could not be recorded). Never throws. */
export function unbindTask(ledger: Ledger, callId: string, session: string): void {
  try {
    prepared(ledger, 'DELETE FROM task_requestors WHERE call_id = ? AND session = ?')?.run(callId, session);
  } catch {
    // A binding left behind names a task id nobody was given.
  }
}

/** The requestor a task is bound to; `undefined` when it is bound to none. */
export function taskRequestor(ledger: Ledger, callId: string, session: string): string | undefined {
  const row = prepared(ledger, 'SELECT requestor FROM task_requestors WHERE call_id = ? AND session = ?')?.get(callId, session) as { requestor: string } | undefined;
  return row?.requestor;
}

/** The call ids of `session` bound to `requestor`. */
export function tasksOf(ledger: Ledger, session: string, requestor: string): Set<string> {
  const rows = (prepared(ledger, 'SELECT call_id FROM task_requestors WHERE session = ? AND requestor = ?')?.all(session, requestor) ?? []) as Array<{ call_id: string }>;
  return new Set(rows.map((r) => r.call_id));
}
