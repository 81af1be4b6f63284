/**
 * The approval mode of a session, set while it runs (from the cockpit) and kept in the
 * ledger, so that every toolgate process of the workspace reads it: the approval-mode decider
 * reads it on every decision ({@link ledgerApprovalModes}), and it beats the call's and the
 * executor's approval mode. Changing it answers no question already asked.
 *
 * A session, for a person supervising, is what one agent run or one MCP client does: the
 * call's turn when it has one (an agent run is one turn, over several ledger sessions, one per
 * round; an MCP connection's turn is its session), else its ledger session
 * ({@link supervisedSession}); a subagent's run counts as part of its parent's run. The session
 * `*` sets the mode of every session that has none of its own.
 *
 * @module
 */
import { parseSubagentTurnId } from '../builtin/subagent.js';
import { APPROVAL_MODES, type ApprovalMode } from '../decisions/decision.js';
import type { SessionApprovalModes } from '../decisions/approval-mode.decider.js';
import type { Logger } from '../logging/logger.js';
import { SESSION_SETTING_NOW, type SessionSettingNow, type SessionSettings } from './call-store.js';

/** The name of the setting in the ledger's `session_settings`. */
const APPROVAL_MODE_SETTING = 'approval_mode';

/** The session `*`: its mode applies to every session without one of its own. */
const EVERY_SESSION = '*';

/**
 * The session a person supervises a call by: its turn when it has one (for a subagent's call,
 * the parent's turn: a child is never more permissive than its parent), else its ledger session.
 */
export function supervisedSession(session: string, turnId: string): string {
  const subagent = parseSubagentTurnId(turnId);
  if (subagent !== undefined) return subagent.parentTurnId;
  return turnId !== '' ? turnId : session;
}

/**
 * The approval mode set for `session` (or `*`), `undefined` when none is.
 * @param fallback - a session whose mode counts when `session` has none (`*` for the decider).
 */
export async function sessionApprovalMode(ledger: SessionSettings, session: string, fallback?: string): Promise<ApprovalMode | undefined> {
  return modeIn((await ledger.sessionSetting(session, APPROVAL_MODE_SETTING, fallback))?.value);
}

/** The approval mode a setting's value names, `undefined` for none (or not a mode). */
function modeIn(value: string | undefined): ApprovalMode | undefined {
  return value !== undefined && (APPROVAL_MODES as readonly string[]).includes(value) ? (value as ApprovalMode) : undefined;
}

/**
 * Set (or with `undefined`, clear) the approval mode of a session (`*` for every session
 * without its own).
 * @param by - who sets it (`cockpit:<pid>`).
 * Rejects with a TypeError for a mode that is not one of `APPROVAL_MODES`; with the store's error when it cannot be written.
 */
export async function setSessionApprovalMode(ledger: SessionSettings, session: string, mode: ApprovalMode | undefined, by: string): Promise<void> {
  if (mode !== undefined && !(APPROVAL_MODES as readonly string[]).includes(mode)) throw new TypeError(`approval mode must be one of ${APPROVAL_MODES.join(', ')}; got ${JSON.stringify(mode)}`);
  await ledger.setSessionSetting(session, APPROVAL_MODE_SETTING, mode, by);
}

/**
 * The ledger's session approval modes, for the approval-mode decider: one indexed read per
 * decision (the session's mode, else the one of `*`), not cached: a mode a person sets in one
 * process counts for the next decision of every process (a cache would need the store's change
 * feed to stay correct, and the read is one indexed lookup). A store that reads synchronously
 * (SQLite: {@link SESSION_SETTING_NOW}) answers at once, so that the decision stays synchronous;
 * another's read is awaited. A ledger that cannot be read counts as no mode set (logged), never
 * as a failed call.
 */
export function ledgerApprovalModes(ledger: SessionSettings & SessionSettingNow, logger: Logger): SessionApprovalModes {
  const unreadable = (session: string, error: unknown): undefined => {
    logger.warn({ event: 'session_mode_unreadable', session, err: (error as Error)?.message }, 'could not read the session\'s approval mode from the ledger; using the call\'s');
    return undefined;
  };
  const now = ledger[SESSION_SETTING_NOW];
  return {
    modeOf(session: string, turnId: string): ApprovalMode | undefined | Promise<ApprovalMode | undefined> {
      if (now !== undefined) {
        try {
          return modeIn(now.call(ledger, supervisedSession(session, turnId), APPROVAL_MODE_SETTING, EVERY_SESSION)?.value);
        } catch (error) {
          return unreadable(session, error);
        }
      }
      return sessionApprovalMode(ledger, supervisedSession(session, turnId), EVERY_SESSION).catch((error: unknown) => unreadable(session, error));
    },
  };
}
