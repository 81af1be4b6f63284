/**
 * The ledger's schema, as migrations: `MIGRATIONS[i]` takes a file from `PRAGMA user_version`
 * `i` to `i + 1`, inside one transaction. Never edit a migration that has shipped; add one.
 *
 * Tables (times are milliseconds since the epoch):
 * - `calls`: one row per call id and session (the idempotency key); its tool, version,
 *   arguments (JSON), workspace, turn and per-call options (JSON: what a later process needs
 *   to run it the same way), its state (`pending -> running -> done | failed | interrupted |
 *   denied`), the owner process (pid and start time), and when it was recorded, started and
 *   ended;
 * - `decisions`: the decision path of a call, in order;
 * - `approvals`: questions put to a person, with the request shown (JSON); the first answer
 *   wins (`answer` is set only while it is NULL);
 * - `events`: append-only, one row per state change, decision, question and answer;
 * - `results`: the model-visible result (JSON) and the whole output (a blob), with its size in bytes;
 * - `tombstones` (migration 2): what retention leaves of a call it deleted: call id, session,
 *   tool, a SHA-256 of its arguments (RFC 8785 canonical JSON) and its final state, so that a
 *   retry of a pruned call id is answered "already ran" and never runs again. Bounded by age
 *   and count (see `Ledger.prune`).
 * - `session_settings` (migration 3): settings a person changes for a session while it runs (the
 *   cockpit's approval mode), one row per session and name, with who set it and when.
 * - migration 4, for retention off the call path: `calls.output_bytes` (bytes of the stored
 *   output) and `calls.stored_bytes` (those plus the result JSON), so that sizes are read from
 *   the small `calls` rows and never from the results' blobs (reading a column after a blob
 *   walks its whole overflow chain; so the backfill reads `length(full_output)`, which
 *   SQLite answers from the record's header); a partial index of the ended calls with their bytes (and state, so that it covers), so
 *   that counting and summing them reads only that index; and an index of events by call, so
 *   that deleting a call (its events by cascade) is a lookup, not a scan of every event.
  `,
  `
 * - `task_requestors` (migration 4): who asked for each MCP task (`src/ledger/task-requestors.ts`):
 *   the call's id and session and an opaque requestor key (`local` for stdio, a hash of the
 *   HTTP session and token otherwise); only that requestor finds the task. A trigger drops the
 *   row when retention deletes its call.
 *
 * - migration 6, for owners that are not one process tree (`CallLeases` in `call-store.ts`):
 *   `calls.owner` (the owner id: `host:pid:start`, or a worker's id), `calls.owner_host` (the
 *   host of the owning process), `calls.lease_token` and `calls.lease_expires_at` (a lease:
 *   its random token, fencing the owner's writes, and when it lapses; NULL without a lease),
 *   and `calls.pool` (the pool of workers a call is queued for; NULL for a call handled where
 *   it was recorded).
 * - `scheduled_tasks` (migration 7): background work of the `task` domain (`scheduled-tasks.ts`):
 *   one row per task (its tool, arguments and call options as JSON, scope, state, when it is
 *   due, the call id it runs as, and who started it), indexed by state and due time for the
 *   scheduler's look for due tasks.
 * - migration 8, one page less in every commit that writes an event (a call's record, claim
 *   and end each wrote the last leaf of `events_by_call` as well: a WAL frame of two `pwrite`s,
 *   and a page more for the other process to read again; see docs/bench.md): the index is gone,
 *   and `calls.first_event` and `calls.last_event` (the ids of a call's first and latest event,
 *   kept by the trigger `events_bound_their_call` in the same commit as the event, on the
 *   `calls` row that commit mostly writes anyway) bound a call's events instead: its trail and
 *   retention's delete read that range of `events` by id. `events` is rebuilt without its
 *   foreign key, whose cascade needed the index (retention deletes a call's events itself).
 *
 * Few indexes on purpose: every index is one more page written per commit, and a commit's
 * cost is its page writes. Lookups by session scan a table bounded by retention (10,000 calls
 * by default); the two indexes of migration 4 are what retention needs to run in small steps.
 *
 * @module
 */

/** The migrations, in order; the schema version of a file is how many have run. */
export const MIGRATIONS: readonly string[] = Object.freeze([
  `
  CREATE TABLE calls (
    id INTEGER PRIMARY KEY,
    call_id TEXT NOT NULL,
    session TEXT NOT NULL,
    tool TEXT NOT NULL,
    version TEXT NOT NULL,
    arguments TEXT NOT NULL,
    workspace TEXT NOT NULL,
    turn TEXT NOT NULL DEFAULT '',
    options TEXT NOT NULL DEFAULT '{}',
    state TEXT NOT NULL CHECK (state IN ('pending', 'running', 'done', 'failed', 'interrupted', 'denied')),
    owner_pid INTEGER NOT NULL,
    owner_start TEXT,
    cancel_requested INTEGER NOT NULL DEFAULT 0,
    created_at INTEGER NOT NULL,
    started_at INTEGER,
    ended_at INTEGER,
    error_code TEXT,
    UNIQUE (call_id, session)
  );
  CREATE TABLE decisions (
    call INTEGER NOT NULL REFERENCES calls (id) ON DELETE CASCADE,
    seq INTEGER NOT NULL,
    decider TEXT NOT NULL,
    verdict TEXT NOT NULL,
    reason TEXT NOT NULL,
    rule TEXT,
    file TEXT,
    line INTEGER,
    PRIMARY KEY (call, seq)
  ) WITHOUT ROWID;
  CREATE TABLE approvals (
    id INTEGER PRIMARY KEY,
    call INTEGER NOT NULL REFERENCES calls (id) ON DELETE CASCADE,
    request TEXT NOT NULL,
    asked_at INTEGER NOT NULL,
    answer TEXT,
    answered_by TEXT,
    answered_at INTEGER
  );
  CREATE INDEX approvals_by_call ON approvals (call);
  CREATE INDEX approvals_pending ON approvals (id) WHERE answer IS NULL;
  CREATE TABLE events (
    id INTEGER PRIMARY KEY,
    call INTEGER NOT NULL REFERENCES calls (id) ON DELETE CASCADE,
    at INTEGER NOT NULL,
    kind TEXT NOT NULL,
    detail TEXT
  );
  CREATE TABLE results (
    call INTEGER PRIMARY KEY REFERENCES calls (id) ON DELETE CASCADE,
    success INTEGER NOT NULL,
    result TEXT NOT NULL,
    full_output BLOB,
    size INTEGER NOT NULL,
    stored_at INTEGER NOT NULL
  );
  `,
  `
  CREATE TABLE tombstones (
    id INTEGER PRIMARY KEY,
    call_id TEXT NOT NULL,
    session TEXT NOT NULL,
    tool TEXT NOT NULL,
    version TEXT NOT NULL,
    arguments_sha256 TEXT NOT NULL,
    state TEXT NOT NULL CHECK (state IN ('done', 'failed', 'interrupted', 'denied')),
    error_code TEXT,
    ended_at INTEGER,
    pruned_at INTEGER NOT NULL,
    UNIQUE (call_id, session)
  );
  `,
  `
  CREATE TABLE session_settings (
    session TEXT NOT NULL,
    name TEXT NOT NULL,
    value TEXT NOT NULL,
    set_by TEXT NOT NULL,
    set_at INTEGER NOT NULL,
    PRIMARY KEY (session, name)
  ) WITHOUT ROWID;
  `,
  `
  ALTER TABLE calls ADD COLUMN output_bytes INTEGER;
  ALTER TABLE calls ADD COLUMN stored_bytes INTEGER;
  UPDATE calls SET output_bytes = (SELECT length(full_output) FROM results WHERE results.call = calls.id),
    stored_bytes = (SELECT length(full_output) + length(CAST(result AS BLOB)) FROM results WHERE results.call = calls.id)
    WHERE state IN ('done', 'failed', 'interrupted', 'denied');
  CREATE INDEX calls_ended ON calls (id, stored_bytes, state) WHERE state IN ('done', 'failed', 'interrupted', 'denied');
  CREATE INDEX events_by_call ON events (call);
  `,
  `
  CREATE TABLE task_requestors (
    call_id TEXT NOT NULL,
    session TEXT NOT NULL,
    requestor TEXT NOT NULL,
    PRIMARY KEY (call_id, session)
  ) WITHOUT ROWID;
  CREATE TRIGGER task_requestors_of_deleted_calls AFTER DELETE ON calls BEGIN
    DELETE FROM task_requestors WHERE call_id = old.call_id AND session = old.session;
  END;
  `,
  `
  ALTER TABLE calls ADD COLUMN owner TEXT;
  ALTER TABLE calls ADD COLUMN owner_host TEXT;
  ALTER TABLE calls ADD COLUMN lease_token TEXT;
  ALTER TABLE calls ADD COLUMN lease_expires_at INTEGER;
  ALTER TABLE calls ADD COLUMN pool TEXT;
  `,
  `
  CREATE TABLE scheduled_tasks (
    id TEXT PRIMARY KEY,
    workspace TEXT NOT NULL,
    session TEXT NOT NULL,
    scope TEXT NOT NULL,
    detached INTEGER NOT NULL DEFAULT 0,
    tool TEXT NOT NULL,
    version TEXT NOT NULL,
    arguments TEXT NOT NULL,
    options TEXT NOT NULL DEFAULT '{}',
    title TEXT NOT NULL DEFAULT '',
    state TEXT NOT NULL CHECK (state IN ('scheduled', 'paused', 'cancelled', 'started')),
    run_at INTEGER NOT NULL,
    call_id TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    started_by TEXT
  ) WITHOUT ROWID;
  CREATE INDEX scheduled_tasks_due ON scheduled_tasks (state, run_at);
  `,
  `
  ALTER TABLE calls ADD COLUMN first_event INTEGER;
  ALTER TABLE calls ADD COLUMN last_event INTEGER;
  UPDATE calls SET first_event = (SELECT min(id) FROM events WHERE events.call = calls.id),
    last_event = (SELECT max(id) FROM events WHERE events.call = calls.id);
  CREATE TABLE events_v8 (
    id INTEGER PRIMARY KEY,
    call INTEGER NOT NULL,
    at INTEGER NOT NULL,
    kind TEXT NOT NULL,
    detail TEXT
  );
  INSERT INTO events_v8 (id, call, at, kind, detail) SELECT id, call, at, kind, detail FROM events ORDER BY id;
  DROP TABLE events;
  ALTER TABLE events_v8 RENAME TO events;
  CREATE TRIGGER events_bound_their_call AFTER INSERT ON events BEGIN
    UPDATE calls SET first_event = coalesce(first_event, new.id), last_event = new.id WHERE id = new.call;
  END;
  `,
]);
