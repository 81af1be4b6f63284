/**
 * What `toolgate call` tells the user, after the result, when a call that asks was refused for
 * want of anyone to ask (`CONFIRMATION_REQUIRED` off a terminal): `--yes` for a question an
 * advance approval answers; for one only a person answers (`DecisionRecord.person`: a protected
 * path, a line the analysis cannot read without a sandbox, `always-ask`), that `--yes` does not,
 * and where such a question is asked; and for a line without a sandbox, how to stop being asked
 * each time (bubblewrap, or the user's allow rule naming the program).
 *
 * @module
 */
import { ADVANCE_NOT_ENOUGH } from '../decisions/approval.js';
import { grantableProgramOf } from '../decisions/understood-programs.js';
import type { DecisionRecord, ToolExecutionResult } from '../types/result.js';

/** What the hint needs besides the result. */
export interface ConfirmationHintOptions {
  /** Whether the call was approved in advance (`--yes`). */
  readonly yes: boolean;
  /** The user's policy file (`~/.config/toolgate/policy.toml` or `$XDG_CONFIG_HOME`'s), named in the grant's example. */
  readonly userPolicyFile: string;
}

/** The rule of the protected-paths question about a line whose writes the analysis cannot see without a sandbox. */
const UNSEEN_PATH = 'unseen-path';

/** Why only a person answers `asked`, in a few words and parentheses, or nothing when the record does not say. */
function whyPerson(asked: DecisionRecord): string {
  if (asked.decider === 'protected-paths') return asked.rule === UNSEEN_PATH ? ' (with no sandbox, a line whose program the analysis cannot read)' : ' (a protected path)';
  if (asked.rule === 'always-ask') return ' (the always-ask approval mode)';
  if (asked.decider === 'policy' && asked.rule !== undefined) return ` (the policy rule ${asked.rule})`;
  return '';
}

/**
 * The lines (each ending in a newline) to print on stderr after `result`, a
 * `CONFIRMATION_REQUIRED` refusal of `toolgate call` with no terminal to ask on.
 */
export function confirmationHint(result: ToolExecutionResult, options: ConfirmationHintOptions): string {
  // A result whose decisions lost the flag (a stored one, read back from the ledger's table)
  // still says so in its error when --yes was refused.
  const asked = result.decisions?.find((d) => d.verdict === 'ask' && d.person === true)
    ?? (result.error?.includes(ADVANCE_NOT_ENOUGH) === true ? result.decisions?.find((d) => d.verdict === 'ask') ?? { decider: 'confirmation', verdict: 'ask', reason: '' } : undefined);
  if (asked === undefined) return 'toolgate: re-run with --yes to approve this call (no terminal to ask on).\n';
  const why = whyPerson(asked);
  const lines = [options.yes
    ? `toolgate: --yes does not answer this question${why}: a person answers it; run the call on a terminal.`
    : `toolgate: only a person answers this question${why}, not --yes: run the call on a terminal, where it is asked.`];
  if (asked.decider === 'protected-paths' && asked.rule === UNSEEN_PATH) {
    const program = grantableProgramOf(asked.reason);
    const sandbox = 'run them in the sandbox, without --dangerously-disable-sandbox (bubblewrap: apt-get install bubblewrap where it is missing)';
    if (program === undefined) {
      lines.push(`toolgate: without a sandbox this asks every time. To run such lines unasked, ${sandbox}; docs/policy.md, "Without a sandbox".`);
    } else {
      lines.push(
        `toolgate: without a sandbox this asks every time. To run such lines unasked, ${sandbox}; or, for a program you trust, put an allow rule naming it in your policy file, ${options.userPolicyFile} (add allow_options = ["*"] for any options and arguments; docs/policy.md, "Without a sandbox"):`,
        '  [[rules]]', `  command = ${JSON.stringify(program)}`, '  action = "allow"',
      );
    }
  }
  return lines.map((line) => `${line}\n`).join('');
}
