/**
 * A process that asks and waits (spawned by `ledger-cli.test.ts`): a `ToolExecutor` with a
 * ledger in `STATE_DIR` runs one `append_marker` call in `WORKSPACE` under the `always-ask`
 * approval mode, with a confirmation handler that never answers. It prints `asked` when the
 * handler is called, then the result as JSON if the call ever ends (an answer given in the
 * ledger by another process).
 *
 * Usage: node ledger-asker.js STATE_DIR WORKSPACE CALL_ID MARKER
 */
import { fileURLToPath } from 'node:url';
import { loadTools, ToolExecutor } from 'toolgate';

// Not through helpers.ts: its temporary state folder would outlive a process killed with -9.
const FIXTURES_DIR = fileURLToPath(new URL('../fixtures/', import.meta.url));
const FIXTURE_SCHEMAS = fileURLToPath(new URL('../../../test/fixtures/tool-schemas.json', import.meta.url));

const [stateDir, workspace, callId, marker] = process.argv.slice(2) as [string, string, string, string];
const { registry } = await loadTools({ directories: [FIXTURES_DIR], schemas: FIXTURE_SCHEMAS });
const executor = new ToolExecutor(registry, {
  workspaceRoot: workspace, ledger: { dir: stateDir, workspace }, session: 'asker', approvalMode: 'always-ask', sweepLeftovers: false,
  confirmationHandler: () => {
    process.stdout.write('asked\n');
    return new Promise<boolean>(() => {});
  },
});
const result = await executor.call('append_marker', { filepath: 'runs.txt', marker }, { callId });
process.stdout.write(`${JSON.stringify(result)}\n`);
await executor.close();
