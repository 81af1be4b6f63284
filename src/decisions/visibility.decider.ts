/**
 * Visibility decider: the one place a call is refused for what its caller can see, asked
 * first (a tool the caller cannot see is refused before any rule is read about it).
 *
 * - **Caller tools** (`ask_user`, `request_tools`, `run_subagent`, `input_subagent`;
 *   `src/builtin/caller-tools.ts`): a call whose caller did not lend what the tool answers
 *   with (a question handler, lazy domains, subagents; `CallerServices`) is denied
 *   `UNKNOWN_TOOL`, with a message saying why (`ask_user is unavailable: nobody can be
 *   asked...`, `run_subagent is not available to a subagent...`).
 * - **Lazy domains** (`src/registry/lazy-visibility.ts`): a call of a tool whose domain the
 *   session's lazy visibility still hides is denied `TOOL_HIDDEN`, naming `request_tools` and
 *   the domain; but only where the mode would run the tool at all: a tool the mode never runs
 *   is left to the mode decider's `MODE_DENIED`, as without lazy visibility.
 *
 * What the caller lent reaches this decider with the call (`PreparedCall.client`, read with
 * `servicesOf`). A call with neither costs two property reads. Visibility is not
 * authorization: an `allow` is never said here; a visible tool's call still passes every
 * other decider.
 *
 * The tool system's `tags` selection is not decided here: a tool outside it does not exist
 * for the caller (`UNKNOWN_TOOL` before its arguments are read, as for a name no registry has).
 *
 * @module
 */
import { callerToolUnavailable } from '../builtin/caller-tools.js';
import { servicesOf } from '../builtin/caller-services.js';
import { isCallerTool, isOfferedInMode } from '../registry/visibility.js';
import { deny, type Decider, type Decision, type PreparedCall } from './decision.js';

const NAME = 'visibility';

/** The visibility step of the pipeline. */
export class VisibilityDecider implements Decider {
  readonly name = NAME;

  /** @param scopedWriteTools - the executor's narrowing of the `scopedWrite` tools (whether a read-only mode would run a tool). */
  constructor(private readonly scopedWriteTools: ReadonlySet<string> | undefined) {}

  decide(call: PreparedCall): Decision | undefined {
    const { tool, client } = call;
    if (isCallerTool(tool)) {
      const missing = callerToolUnavailable(tool.name, servicesOf(client));
      return missing === undefined ? undefined : deny(NAME, 'UNKNOWN_TOOL', missing);
    }
    if (client === undefined) return undefined;
    const visibility = servicesOf(client)?.visibility;
    if (visibility === undefined || !isOfferedInMode(tool, call.mode, call.scopedWriteDirs, this.scopedWriteTools)) return undefined;
    const hidden = visibility.hiddenMessage(tool);
    return hidden === undefined ? undefined : deny(NAME, 'TOOL_HIDDEN', hidden, `domain ${visibility.domainOf(tool)}`);
  }
}
