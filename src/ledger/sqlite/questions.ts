/**
 * Questions in the SQLite ledger: asked about a call, answered once (the first answer wins by
 * a conditional update), listed while they wait.
 *
 * @module
 */
import type { ApprovalRecord, CallKey, CountedAnswer, NewCall, QuestionBook } from '../call-store.js';
import { questionKind } from '../question-kind.js';
import type { SqliteCalls } from './calls.js';
import type { Connection } from './database.js';
import { approvalOf, type ApprovalRow, type Synchronous } from './rows.js';
import type { WriteQueue } from './write-queue.js';

/** @param leases - whether the file has the lease columns (migration 6; an older file read only has not). */
function statements(db: Connection, leases: boolean) {
  const question = `SELECT approvals.*, calls.call_id, calls.session, calls.tool, calls.state, calls.owner_pid, calls.owner_start, ${
    leases ? 'calls.owner_host, calls.lease_expires_at' : 'NULL AS owner_host, NULL AS lease_expires_at'}`;
  return {
    insertApproval: db.prepare('INSERT INTO approvals (call, request, asked_at) VALUES (?, ?, ?)'),
    // A call's questions, newest first (a handful at most: its approval, and an ask_user question).
    questionsOfCall: db.prepare<[number], { id: number; answer: string | null; request: string }>('SELECT id, answer, request FROM approvals WHERE call = ? ORDER BY id DESC'),
    answerApproval: db.prepare('UPDATE approvals SET answer = ?, answered_by = ?, answered_at = ? WHERE id = ? AND answer IS NULL'),
    answerOf: db.prepare<[number], { answer: string | null; call: number }>('SELECT answer, call FROM approvals WHERE id = ?'),
    approval: db.prepare<[number], ApprovalRow>(`${question} FROM approvals JOIN calls ON calls.id = approvals.call WHERE approvals.id = ?`),
    // Unanswered questions (by the partial index), and answered ones of calls still pending
    // (the caller keeps those whose asker is gone: answered, never acted on).
    pendingApprovals: db.prepare<[], ApprovalRow>(`${question} FROM approvals JOIN calls ON calls.id = approvals.call WHERE approvals.answer IS NULL
      UNION ALL
      ${question} FROM calls JOIN approvals ON approvals.call = calls.id WHERE calls.state = 'pending' AND approvals.answer IS NOT NULL AND approvals.answer <> 'cancelled'
        AND approvals.id = (SELECT max(id) FROM approvals AS latest WHERE latest.call = calls.id)
      ORDER BY 1`),
  };
}

/** The questions of one ledger connection. */
export class SqliteQuestions implements Synchronous<Omit<QuestionBook, 'pollMs'>> {
  private readonly sql: ReturnType<typeof statements>;

  constructor(db: Connection, private readonly calls: SqliteCalls, private readonly writes: WriteQueue, leases: boolean) {
    this.sql = statements(db, leases);
  }

  ask(call: CallKey | NewCall, request: unknown): number {
    const now = Date.now();
    return this.writes.immediate(() => {
      const id = this.calls.rowOf(call, now);
      if (id === undefined) throw new Error(`ledger: call ${call.callId} of session ${call.session} is not recorded`);
      const kind = questionKind(request);
      const last = this.sql.questionsOfCall.all(id).find((q) => questionKind(q.request) === kind);
      if (last !== undefined && last.answer !== 'cancelled') return last.id;
      const question = Number(this.sql.insertApproval.run(id, JSON.stringify(request), now).lastInsertRowid);
      this.calls.event(id, now, 'asked', { approval: question });
      return question;
    });
  }

  answer(approvalId: number, answer: string, by: string): CountedAnswer | undefined {
    const now = Date.now();
    return this.writes.immediate(() => {
      const row = this.sql.answerOf.get(approvalId);
      if (row === undefined) return undefined;
      if (this.sql.answerApproval.run(answer, by, now, approvalId).changes === 1) {
        this.calls.event(row.call, now, 'answered', { approval: approvalId, answer, by });
        return { answer, first: true };
      }
      return { answer: this.sql.answerOf.get(approvalId)!.answer!, first: false };
    });
  }

  answeredQuestion(callId: string, session: string): string | undefined {
    this.writes.flush();
    const id = this.calls.idOf(callId, session);
    if (id === undefined) return undefined;
    const answer = this.sql.questionsOfCall.all(id).find((q) => questionKind(q.request) === 'approval')?.answer;
    return answer === null || answer === 'cancelled' ? undefined : answer;
  }

  answerOf(approvalId: number): string | undefined {
    this.writes.flush();
    return this.sql.answerOf.get(approvalId)?.answer ?? undefined;
  }

  approval(approvalId: number): ApprovalRecord | undefined {
    this.writes.flush();
    const row = this.sql.approval.get(approvalId);
    return row === undefined ? undefined : approvalOf(row);
  }

  pendingApprovals(): ApprovalRecord[] {
    this.writes.flush();
    return this.sql.pendingApprovals.all().map(approvalOf).filter((q) => q.answer === undefined || !q.ownerAlive);
  }
}
