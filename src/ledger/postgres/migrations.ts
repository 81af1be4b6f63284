/**
 * The PostgreSQL store's schema, as migrations: `PG_MIGRATIONS[i]` takes a schema from version
 * `i` to `i + 1` (recorded in `schema_migrations`), inside one transaction, with the schema as
 * the connection's `search_path`. Never edit a migration that has shipped; add one.
 *
 * The tables are the SQLite ledger's (`../migrations.ts`, which documents each), as of its
 * migration 6, in PostgreSQL's types: times are `bigint` milliseconds since the epoch, flags
 * `boolean`, whole outputs `bytea`. Differences: `task_requestors` rows of a deleted call are
 * deleted by retention itself (no trigger), and two partial indexes serve the lease sweep and
 * the feed of open calls (`calls_open`) and retention (`calls_ended`). Migration 2 adds
 * `scheduled_tasks` (the SQLite ledger's migration 7). Migration 3 adds `memory_notes`, the memory
 * tools' notes (`memory.ts`; on SQLite they are a file of their own, `../sqlite/memory.ts`).
 *
 * @module
 */

/** The migrations, in order; the schema version is how many have run. */
export const PG_MIGRATIONS: readonly string[] = Object.freeze([
  `
  CREATE TABLE calls (
    id bigserial PRIMARY KEY,
    call_id text NOT NULL,
    session text NOT NULL,
    tool text NOT NULL,
    version text NOT NULL,
    arguments text NOT NULL,
    workspace text NOT NULL,
    turn text NOT NULL DEFAULT '',
    options text NOT NULL DEFAULT '{}',
    state text NOT NULL CHECK (state IN ('pending', 'running', 'done', 'failed', 'interrupted', 'denied')),
    owner text NOT NULL,
    owner_host text,
    owner_pid integer NOT NULL,
    owner_start text,
    lease_token text,
    lease_expires_at bigint,
    pool text,
    cancel_requested boolean NOT NULL DEFAULT false,
    created_at bigint NOT NULL,
    started_at bigint,
    ended_at bigint,
    error_code text,
    output_bytes bigint,
    stored_bytes bigint,
    UNIQUE (call_id, session)
  );
  CREATE INDEX calls_open ON calls (state, lease_expires_at) WHERE state IN ('pending', 'running');
  CREATE INDEX calls_ended ON calls (id, stored_bytes) WHERE state IN ('done', 'failed', 'interrupted', 'denied');
  CREATE TABLE decisions (
    call bigint NOT NULL REFERENCES calls (id) ON DELETE CASCADE,
    seq integer NOT NULL,
    decider text NOT NULL,
    verdict text NOT NULL,
    reason text NOT NULL,
    rule text,
    file text,
    line integer,
    PRIMARY KEY (call, seq)
  );
  CREATE TABLE approvals (
    id bigserial PRIMARY KEY,
    call bigint NOT NULL REFERENCES calls (id) ON DELETE CASCADE,
    request text NOT NULL,
    asked_at bigint NOT NULL,
    answer text,
    answered_by text,
    answered_at bigint
  );
  CREATE INDEX approvals_by_call ON approvals (call);
  CREATE INDEX approvals_pending ON approvals (id) WHERE answer IS NULL;
  CREATE TABLE events (
    id bigserial PRIMARY KEY,
    call bigint NOT NULL REFERENCES calls (id) ON DELETE CASCADE,
    at bigint NOT NULL,
    kind text NOT NULL,
    detail text
  );
  CREATE INDEX events_by_call ON events (call);
  CREATE TABLE results (
    call bigint PRIMARY KEY REFERENCES calls (id) ON DELETE CASCADE,
    success boolean NOT NULL,
    result text NOT NULL,
    full_output bytea,
    size bigint NOT NULL,
    stored_at bigint NOT NULL
  );
  CREATE TABLE tombstones (
    id bigserial PRIMARY KEY,
    call_id text NOT NULL,
    session text NOT NULL,
    tool text NOT NULL,
    version text NOT NULL,
    arguments_sha256 text NOT NULL,
    state text NOT NULL CHECK (state IN ('done', 'failed', 'interrupted', 'denied')),
    error_code text,
    ended_at bigint,
    pruned_at bigint NOT NULL,
    UNIQUE (call_id, session)
  );
  CREATE TABLE session_settings (
    session text NOT NULL,
    name text NOT NULL,
    value text NOT NULL,
    set_by text NOT NULL,
    set_at bigint NOT NULL,
    PRIMARY KEY (session, name)
  );
  CREATE TABLE task_requestors (
    call_id text NOT NULL,
    session text NOT NULL,
    requestor text NOT NULL,
    PRIMARY KEY (call_id, session)
  );
  `,
  `
  CREATE TABLE scheduled_tasks (
    id text PRIMARY KEY,
    workspace text NOT NULL,
    session text NOT NULL,
    scope text NOT NULL,
    detached boolean NOT NULL DEFAULT false,
    tool text NOT NULL,
    version text NOT NULL,
    arguments text NOT NULL,
    options text NOT NULL DEFAULT '{}',
    title text NOT NULL DEFAULT '',
    state text NOT NULL CHECK (state IN ('scheduled', 'paused', 'cancelled', 'started')),
    run_at bigint NOT NULL,
    call_id text NOT NULL,
    created_at bigint NOT NULL,
    updated_at bigint NOT NULL,
    started_by text
  );
  CREATE INDEX scheduled_tasks_due ON scheduled_tasks (state, run_at);
  `,
  // 3, memory: the notes of the memory tools (postgres/memory.ts), of every workspace.
  `
  CREATE TABLE memory_notes (
    id bigserial PRIMARY KEY,
    workspace text NOT NULL,
    scope text NOT NULL,
    text text NOT NULL,
    tags text[] NOT NULL DEFAULT '{}',
    created_at bigint NOT NULL,
    search tsvector NOT NULL
  );
  CREATE INDEX memory_notes_scope ON memory_notes (workspace, scope, id);
  CREATE INDEX memory_notes_search ON memory_notes USING gin (search);
  `,
]);
