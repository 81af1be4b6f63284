/**
 * `toolgate mcp`'s own line on stderr for every question that waits for an answer given
 * elsewhere (a client without elicitation): the server logs it as the warning event
 * `mcp_question_waits`, which the default log level (`error`) hides and the client may not
 * show, so the person running the server would see a call wait and not why. The line names
 * the exact `toolgate approvals allow ID` (with this server's `--workspace`, `--state-dir` or
 * `--store`) to run.
 *
 * @module
 */
import path from 'node:path';
import type { Logger } from '../logging/logger.js';

/** A word as a POSIX shell reads it back (quoted unless plain). */
function shellWord(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/** The options after `toolgate approvals allow ID` that reach the ledger of a `toolgate mcp` run with `values` in `cwd`. */
export function approvalsWhere(values: Record<string, unknown>, cwd: string, workspace: string): string {
  const where: string[] = [];
  if (workspace !== cwd) where.push('--workspace', shellWord(workspace));
  if (values['state-dir'] !== undefined) where.push('--state-dir', shellWord(path.resolve(cwd, values['state-dir'] as string)));
  if (typeof values.store === 'string') where.push('--store', shellWord(values.store));
  return where.map((w) => ` ${w}`).join('');
}

/**
 * `logger`, whose `warn` also writes one plain line to `write` for each `mcp_question_waits`
 * event: `toolgate mcp: question N (TOOL) waits: toolgate approvals allow N ...`.
 */
export function questionsOnStderr(logger: Logger, write: (line: string) => void, where: string): Logger {
  return new Proxy(logger, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver) as unknown;
      if (prop !== 'warn' || typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        const event = args[0] as { event?: unknown; tool?: unknown; question?: unknown } | undefined;
        if (event?.event === 'mcp_question_waits' && typeof event.question === 'number') {
          const id = event.question;
          write(`toolgate mcp: question ${id} (${String(event.tool)}) waits for an answer: toolgate approvals allow ${id}${where} (or deny ${id})\n`);
        }
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
}
