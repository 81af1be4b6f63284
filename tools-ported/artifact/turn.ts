/**
 * The turn a call belongs to, as the artifact tools bind files to it.
 *
 * @module
 */
import type { ToolContext } from '../../src/tool.js';

/** The turn of calls whose caller lent none (an MCP session without lazy domains, a bare `execute`). */
const DEFAULT_TURN = 'default';

/**
 * The call's turn id: what an agent's tool-call handler lends its calls with the caller
 * services (`turnId`, read here by shape: the services are opaque to tools, and only the
 * `main` runner hands them over), else {@link DEFAULT_TURN}.
 */
export function turnOf(ctx: ToolContext): string {
  const services = ctx.client?.services as { turnId?: unknown } | undefined;
  const turn = services?.turnId;
  return typeof turn === 'string' && turn !== '' ? turn : DEFAULT_TURN;
}
