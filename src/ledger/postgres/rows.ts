/**
 * The rows of the PostgreSQL store's tables as `pg` returns them (bigint parsed to numbers,
 * booleans as booleans, bytea as Buffers), and what they become for callers.
 *
 * @module
 */
import type { ApprovalRecord, CallRecord, CallStatus, TombstoneRecord } from '../call-store.js';
import { ownerAlive } from '../owner.js';
import { storedOptions } from '../stored-options.js';

export type EndState = Exclude<CallStatus, 'pending' | 'running'>;

export interface PgCallRow {
  id: number; call_id: string; session: string; tool: string; version: string; arguments: string; workspace: string; turn: string; options: string;
  state: CallStatus; owner: string; owner_host: string | null; owner_pid: number; owner_start: string | null; lease_token: string | null;
  lease_expires_at: number | null; pool: string | null; cancel_requested: boolean; created_at: number; started_at: number | null;
  ended_at: number | null; error_code: string | null; output_bytes: number | null; stored_bytes: number | null;
  /** The server's time when read (ms), where the query asks for it. */
  now?: number;
}

export interface PgApprovalRow {
  id: number; call_id: string; session: string; tool: string; request: string; asked_at: number; answer: string | null; answered_by: string | null;
  answered_at: number | null; state: CallStatus; owner_pid: number; owner_start: string | null; owner_host: string | null; lease_expires_at: number | null;
}

export interface PgTombstoneRow {
  id: number; call_id: string; session: string; tool: string; version: string; arguments_sha256: string; state: EndState;
  error_code: string | null; ended_at: number | null; pruned_at: number;
}

/** The SQL list of the states a call ends in. */
export const ENDED_SQL = `('done', 'failed', 'interrupted', 'denied')`;

/** Whether a row's owner is still there, at `now` (the server's time when it was read). */
export function rowAlive(row: Pick<PgCallRow, 'owner_pid' | 'owner_start' | 'owner_host' | 'lease_expires_at'>, now: number): boolean {
  return ownerAlive({ ownerPid: row.owner_pid, ownerStart: row.owner_start ?? undefined, ownerHost: row.owner_host ?? undefined, leaseExpiresAt: row.lease_expires_at ?? undefined }, now);
}

export function callOf(row: PgCallRow): CallRecord {
  return {
    callId: row.call_id, session: row.session, tool: row.tool, version: row.version, arguments: JSON.parse(row.arguments) as Record<string, unknown>,
    workspace: row.workspace, turn: row.turn, options: storedOptions(row.options), state: row.state, ownerPid: row.owner_pid,
    ownerStart: row.owner_start ?? undefined, owner: row.owner, ownerHost: row.owner_host ?? undefined, leaseExpiresAt: row.lease_expires_at ?? undefined,
    pool: row.pool ?? undefined, cancelRequested: row.cancel_requested, createdAt: row.created_at, startedAt: row.started_at ?? undefined,
    endedAt: row.ended_at ?? undefined, errorCode: row.error_code ?? undefined, resultSize: row.output_bytes ?? undefined,
  };
}

export function approvalOf(row: PgApprovalRow): ApprovalRecord {
  return {
    id: row.id, callId: row.call_id, session: row.session, tool: row.tool, request: JSON.parse(row.request) as Record<string, unknown>, askedAt: row.asked_at,
    answer: row.answer ?? undefined, answeredBy: row.answered_by ?? undefined, answeredAt: row.answered_at ?? undefined, callState: row.state,
    ownerAlive: rowAlive(row, Date.now()),
  };
}

export function tombstoneOf(row: PgTombstoneRow): TombstoneRecord {
  return {
    callId: row.call_id, session: row.session, tool: row.tool, version: row.version, argumentsSha256: row.arguments_sha256, state: row.state,
    errorCode: row.error_code ?? undefined, endedAt: row.ended_at ?? undefined, prunedAt: row.pruned_at,
  };
}

/** A map key of a call. */
export function keyOf(call: { callId: string; session: string }): string {
  return `${call.session}\u0000${call.callId}`;
}
