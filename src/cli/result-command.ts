/**
 * `toolgate result CALL_ID [--session S] [--json]`: print the whole stored output of a call
 * from the workspace's ledger (all of it, also where the model saw only part), or with
 * `--json` the result as the model saw it with the size of the whole output.
 *
 * Reads the ledger read-only. A call retention deleted is reported from its tombstone (how it
 * ended; its output is no longer kept).
 *
 * Exit codes: 0 printed; 1 no such call (or no ledger), its output was pruned, or it has no
 * result yet (pending or running); 2 usage.
 *
 * @module
 */
import { prunedResult } from '../ledger/store.js';
import { EXIT, parse, UsageError, type CliContext } from './context.js';
import { LEDGER_COMMAND_FLAGS, openCliLedgerReadOnly } from './ledger-cli.js';
import { terminalSafe } from './terminal.js';


/** Run `toolgate result`; `argv` are the arguments after `result`. */
export async function resultCommand(argv: string[], ctx: CliContext): Promise<number> {
  const { values, positionals } = parse(argv, { ...LEDGER_COMMAND_FLAGS, session: { type: 'string' } });
  const [callId, ...rest] = positionals;
  if (callId === undefined) throw new UsageError('result needs a CALL_ID (toolgate trace shows them)');
  if (rest.length) throw new UsageError(`unexpected arguments: ${rest.join(' ')}`);
  const ledger = await openCliLedgerReadOnly(values, ctx);
  if (ledger === undefined) return EXIT.failed;
  try {
    const session = values.session as string | undefined;
    const call = await ledger.get(callId, session);
    const pruned = call === undefined ? await ledger.tombstone(callId, session) : undefined;
    if (pruned !== undefined) {
      if (values.json) ctx.stdout.write(`${JSON.stringify({ state: pruned.state, session: pruned.session, pruned: true, result: prunedResult(pruned) }, null, 2)}\n`);
      else ctx.stderr.write(`toolgate: ${prunedResult(pruned).error}\n`);
      return EXIT.failed;
    }
    if (call === undefined) {
      ctx.stderr.write(`toolgate: no call ${callId}${session === undefined ? '' : ` in session ${session}`} in ${ledger.file}\n`);
      return EXIT.failed;
    }
    const stored = await ledger.result(call.callId, call.session);
    if (stored === undefined) {
      const gone = ledger.ownerAlive(call) ? '' : call.state === 'running'
        ? ` (its process ${call.ownerPid} is gone: the next toolgate that opens this ledger to write records it interrupted)`
        : ` (its process ${call.ownerPid} is gone: toolgate approvals lists its question)`;
      ctx.stderr.write(`toolgate: call ${callId} is ${call.state}: it has no result yet${gone}\n`);
      return EXIT.failed;
    }
    if (values.json) {
      ctx.stdout.write(`${JSON.stringify({ state: call.state, session: call.session, size: stored.size, result: stored.result }, null, 2)}\n`);
    } else {
      // A tool's output is the model's to choose: on a terminal, its escape sequences are shown, never acted on.
      const text = (ctx.stdout as { isTTY?: boolean }).isTTY ? terminalSafe(stored.fullOutput) : stored.fullOutput;
      ctx.stdout.write(text.endsWith('\n') ? text : `${text}\n`);
    }
    return EXIT.ok;
  } finally {
    await ledger.close();
  }
}
