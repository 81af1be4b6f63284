/**
 * What a gate decides. A decision to stop is a value with a reason (never a bare boolean),
 * so later approval modes and audits can carry it as it is.
 *
 * @module
 */
import type { ToolErrorCode } from '../errors/errors.js';

/** Names of the gates, in the order the executor runs them. */
export type GateName = 'mode' | 'policy' | 'confirmation' | 'rate-limit';

/** A gate's decision to stop a call. `undefined` from a gate means "pass". */
export interface GateDenial {
  /** Which gate stopped the call. */
  readonly gate: GateName;
  /** Result code: `MODE_DENIED`, `POLICY_DENIED`, `CONFIRMATION_REQUIRED`, `CONFIRMATION_DENIED`, `RATE_LIMITED`. */
  readonly code: ToolErrorCode;
  /** Readable reason, shown to the model. */
  readonly reason: string;
}
