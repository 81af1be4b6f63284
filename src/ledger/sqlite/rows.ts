/**
 * The rows of the ledger's tables as the driver returns them, and what they become for
 * callers ({@link callOf}, {@link approvalOf}, {@link tombstoneOf}).
 *
 * @module
 */
import type { ApprovalRecord, CallRecord, CallStatus, TombstoneRecord } from '../call-store.js';
import { hostId, ownerAlive } from '../owner.js';
import { storedOptions } from '../stored-options.js';

export type EndState = Exclude<CallStatus, 'pending' | 'running'>;

/**
 * The synchronous form of a part of the call store's interface: each method returning a
 * promise returns its value instead. The SQLite parts are synchronous (better-sqlite3);
 * `Ledger` exposes them through the asynchronous interface.
 */
export type Synchronous<T> = {
  [K in keyof T]: NonNullable<T[K]> extends (...args: infer A) => Promise<infer R> ? (...args: A) => R : T[K];
};

export interface CallRow {
  id: number; call_id: string; session: string; tool: string; version: string; arguments: string; workspace: string; turn: string; options: string;
  state: CallStatus; owner_pid: number; owner_start: string | null; cancel_requested: number; created_at: number; started_at: number | null;
  ended_at: number | null; error_code: string | null; size?: number | null;
  /** Migration 6 on (absent in an older file read only). */
  owner?: string | null; owner_host?: string | null; lease_token?: string | null; lease_expires_at?: number | null; pool?: string | null;
}

export interface ApprovalRow {
  id: number; call_id: string; session: string; tool: string; request: string; asked_at: number; answer: string | null; answered_by: string | null;
  answered_at: number | null; state: CallStatus; owner_pid: number; owner_start: string | null;
  owner_host: string | null; lease_expires_at: number | null;
}

export interface TombstoneRow {
  id: number; call_id: string; session: string; tool: string; version: string; arguments_sha256: string; state: EndState;
  error_code: string | null; ended_at: number | null; pruned_at: number;
}

/**
 * The columns of a call row with its output's size: from `calls.output_bytes` (migration 4 on:
 * `sizes`), so that a list never reads the results' blobs; from `results` for an older file read-only.
 */
export function callColumns(sizes: boolean): string {
  return sizes
    ? 'calls.*, calls.output_bytes AS size'
    : 'calls.*, (SELECT size FROM results WHERE results.call = calls.id) AS size';
}

/** The SQL list of the states a call ends in (matches the partial index `calls_ended`). */
export const ENDED_SQL = `('done', 'failed', 'interrupted', 'denied')`;

export function callOf(row: CallRow): CallRecord {
  return {
    callId: row.call_id, session: row.session, tool: row.tool, version: row.version, arguments: JSON.parse(row.arguments) as Record<string, unknown>,
    workspace: row.workspace, turn: row.turn, options: storedOptions(row.options), state: row.state, ownerPid: row.owner_pid,
    ownerStart: row.owner_start ?? undefined, cancelRequested: row.cancel_requested === 1, createdAt: row.created_at, startedAt: row.started_at ?? undefined,
    endedAt: row.ended_at ?? undefined, errorCode: row.error_code ?? undefined, resultSize: row.size ?? undefined,
    // A call recorded before migration 6 was recorded on this host by a process.
    owner: row.owner ?? `${row.owner_host ?? hostId()}:${row.owner_pid}:${row.owner_start ?? '0'}`, ownerHost: row.owner_host ?? undefined,
    leaseExpiresAt: row.lease_expires_at ?? undefined, pool: row.pool ?? undefined,
  };
}

export function approvalOf(row: ApprovalRow): ApprovalRecord {
  return {
    id: row.id, callId: row.call_id, session: row.session, tool: row.tool, request: JSON.parse(row.request) as Record<string, unknown>, askedAt: row.asked_at,
    answer: row.answer ?? undefined, answeredBy: row.answered_by ?? undefined, answeredAt: row.answered_at ?? undefined, callState: row.state,
    ownerAlive: ownerAlive({ ownerPid: row.owner_pid, ownerStart: row.owner_start ?? undefined, ownerHost: row.owner_host ?? undefined, leaseExpiresAt: row.lease_expires_at ?? undefined }),
  };
}

export function tombstoneOf(row: TombstoneRow): TombstoneRecord {
  return {
    callId: row.call_id, session: row.session, tool: row.tool, version: row.version, argumentsSha256: row.arguments_sha256, state: row.state,
    errorCode: row.error_code ?? undefined, endedAt: row.ended_at ?? undefined, prunedAt: row.pruned_at,
  };
}

/** A map key of a call. */
export function keyOf(call: { callId: string; session: string }): string {
  return `${call.session}\u0000${call.callId}`;
}
