/**
 * Questions in the PostgreSQL store: asked about a call, answered once (the first answer wins
 * by a conditional update), listed while they wait. An answer notifies the question's topic,
 * waking its waiters in every process.
 *
 * @module
 */
import type { ApprovalRecord, CallKey, CountedAnswer, NewCall } from '../call-store.js';
import { questionKind } from '../question-kind.js';
import { callTopic, questionTopic } from '../waits.js';
import type { PgCalls } from './calls.js';
import { NOW_MS, type PgDatabase } from './database.js';
import { approvalOf, type PgApprovalRow } from './rows.js';

const QUESTION = `SELECT approvals.*, calls.call_id, calls.session, calls.tool, calls.state, calls.owner_pid, calls.owner_start, calls.owner_host, calls.lease_expires_at`;

/** The questions of one PostgreSQL store handle. */
export class PgQuestions {
  constructor(private readonly db: PgDatabase, private readonly calls: PgCalls, private readonly settle: () => Promise<void>) {}

  async ask(call: CallKey | NewCall, request: unknown): Promise<number> {
    const granted: Parameters<PgCalls['hold']>[0][number][] = [];
    const id = await this.db.tx(async (q, notify) => {
      const callRow = await this.calls.rowOf(q, call, notify, true, granted);
      if (callRow === undefined) throw new Error(`call store: call ${call.callId} of session ${call.session} is not recorded`);
      const kind = questionKind(request);
      const asked = await q<{ id: number; answer: string | null; request: string }>('SELECT id, answer, request FROM approvals WHERE call = $1 ORDER BY id DESC', [callRow]);
      const last = asked.find((row) => questionKind(row.request) === kind);
      if (last !== undefined && last.answer !== 'cancelled') return last.id;
      const [row] = await q<{ id: number }>(`INSERT INTO approvals (call, request, asked_at) VALUES ($1, $2, ${NOW_MS}) RETURNING id`, [callRow, JSON.stringify(request)]);
      await this.calls.event(q, callRow, 'asked', { approval: row!.id });
      notify(callTopic(call));
      return row!.id;
    });
    this.calls.hold(granted);
    return id;
  }

  async answer(approvalId: number, answer: string, by: string): Promise<CountedAnswer | undefined> {
    if (!Number.isSafeInteger(approvalId)) return undefined;
    return this.db.tx(async (q, notify) => {
      const [row] = await q<{ answer: string | null; call: number; call_id: string; session: string }>(
        'SELECT approvals.answer, approvals.call, calls.call_id, calls.session FROM approvals JOIN calls ON calls.id = approvals.call WHERE approvals.id = $1 FOR UPDATE OF approvals', [approvalId]);
      if (row === undefined) return undefined;
      if (row.answer !== null) return { answer: row.answer, first: false };
      await q(`UPDATE approvals SET answer = $1, answered_by = $2, answered_at = ${NOW_MS} WHERE id = $3 AND answer IS NULL`, [answer, by, approvalId]);
      await this.calls.event(q, row.call, 'answered', { approval: approvalId, answer, by });
      notify(questionTopic(approvalId));
      notify(callTopic({ callId: row.call_id, session: row.session }));
      return { answer, first: true };
    });
  }

  async answeredQuestion(callId: string, session: string): Promise<string | undefined> {
    await this.settle();
    const rows = await this.db.read<{ answer: string | null; request: string }>(
      'SELECT a.answer, a.request FROM approvals a JOIN calls c ON c.id = a.call WHERE c.call_id = $1 AND c.session = $2 ORDER BY a.id DESC', [callId, session]);
    const row = rows.find((r) => questionKind(r.request) === 'approval');
    return row === undefined || row.answer === null || row.answer === 'cancelled' ? undefined : row.answer;
  }

  async answerOf(approvalId: number): Promise<string | undefined> {
    if (!Number.isSafeInteger(approvalId)) return undefined;
    await this.settle();
    const [row] = await this.db.read<{ answer: string | null }>('SELECT answer FROM approvals WHERE id = $1', [approvalId]);
    return row?.answer ?? undefined;
  }

  async approval(approvalId: number): Promise<ApprovalRecord | undefined> {
    if (!Number.isSafeInteger(approvalId)) return undefined;
    await this.settle();
    const [row] = await this.db.read<PgApprovalRow>(`${QUESTION} FROM approvals JOIN calls ON calls.id = approvals.call WHERE approvals.id = $1`, [approvalId]);
    return row === undefined ? undefined : approvalOf(row);
  }

  async pendingApprovals(): Promise<ApprovalRecord[]> {
    await this.settle();
    // Unanswered questions, and answered ones of calls still pending (the caller keeps those whose asker is gone).
    const rows = await this.db.read<PgApprovalRow>(`${QUESTION} FROM approvals JOIN calls ON calls.id = approvals.call WHERE approvals.answer IS NULL
      UNION ALL
      ${QUESTION} FROM calls JOIN approvals ON approvals.call = calls.id WHERE calls.state = 'pending' AND approvals.answer IS NOT NULL AND approvals.answer <> 'cancelled'
        AND approvals.id = (SELECT max(id) FROM approvals AS latest WHERE latest.call = calls.id)
      ORDER BY 1`);
    return rows.map(approvalOf).filter((q) => q.answer === undefined || !q.ownerAlive);
  }
}
