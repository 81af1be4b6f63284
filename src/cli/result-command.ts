/**
 * `toolgate result CALL_ID [--session S] [--json]`: print the whole stored output of a call
 * from the workspace's ledger (all of it, also where the model saw only part), or with
 * `--json` the result as the model saw it with the size of the whole output.
 *
 * Exit codes: 0 printed; 1 no such call, or it has no result yet (pending or running); 2 usage.
 *
 * @module
 */
import { EXIT, parse, UsageError, type CliContext } from './context.js';
import { LEDGER_COMMAND_FLAGS, openCliLedger } from './ledger-cli.js';


/** Run `toolgate result`; `argv` are the arguments after `result`. */
export async function resultCommand(argv: string[], ctx: CliContext): Promise<number> {
  const { values, positionals } = parse(argv, { ...LEDGER_COMMAND_FLAGS, session: { type: 'string' } });
  const [callId, ...rest] = positionals;
  if (callId === undefined) throw new UsageError('result needs a CALL_ID (toolgate trace shows them)');
  if (rest.length) throw new UsageError(`unexpected arguments: ${rest.join(' ')}`);
  const ledger = openCliLedger(values, ctx);
  try {
    const session = values.session as string | undefined;
    const call = ledger.get(callId, session);
    if (call === undefined) {
      ctx.stderr.write(`toolgate: no call ${callId}${session === undefined ? '' : ` in session ${session}`} in ${ledger.file}\n`);
      return EXIT.failed;
    }
    const stored = ledger.result(call.callId, call.session);
    if (stored === undefined) {
      ctx.stderr.write(`toolgate: call ${callId} is ${call.state}: it has no result yet\n`);
      return EXIT.failed;
    }
    if (values.json) {
      ctx.stdout.write(`${JSON.stringify({ state: call.state, session: call.session, size: stored.size, result: stored.result }, null, 2)}\n`);
    } else {
      ctx.stdout.write(stored.fullOutput.endsWith('\n') ? stored.fullOutput : `${stored.fullOutput}\n`);
    }
    return EXIT.ok;
  } finally {
    ledger.close();
  }
}
