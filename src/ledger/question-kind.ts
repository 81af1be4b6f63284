/**
 * The two threads of questions a call may have (see {@link questionKind}), told apart by the
 * stored request alone, for the call stores' question books (`sqlite/questions.ts`,
 * `postgres/questions.ts`). Dependency-free.
 *
 * @module
 */

/**
 * The kind of a question: `question` for an `ask_user` question (its request's `kind`), else
 * `approval` (a gate asked about the call). A call may have both (`ask_user` over MCP, approved
 * in one round and asking in the next): each kind is its own thread of questions.
 * @param request - the request, or its stored JSON.
 */
export function questionKind(request: unknown): 'approval' | 'question' {
  let value = request;
  if (typeof request === 'string') {
    try {
      value = JSON.parse(request);
    } catch {
      return 'approval';
    }
  }
  return value !== null && typeof value === 'object' && (value as { kind?: unknown }).kind === 'question' ? 'question' : 'approval';
}
