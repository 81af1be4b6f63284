/**
 * `toolgate mcp --queue` and `toolgate agent --queue` refuse the flags a worker never sees
 * (`--yes`, `--mode`, the sandbox and policy flags), as `toolgate call --queue` does, with one
 * shared check: before, both took them and ignored them (a worker decides every call with its
 * own options), so `--yes` left calls waiting for an answer the user thought given. The same
 * check refuses `agent --agent explore|plan --queue` (a mode the workers never see).
 */
import assert from 'node:assert/strict';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { runCli, tempWorkspace } from '../helpers.js';

describe('--queue refuses the flags a worker never sees', () => {
  const t = tempWorkspace();
  after(t.cleanup);
  const store = path.join(t.root, 'store.sqlite');
  // Port 9 (discard): nothing is reached, the flags are refused first.
  const queue = ['--store', store, '--queue', 'redis://127.0.0.1:9', '--workspace', t.ws];

  for (const [command, args] of [['mcp', ['mcp', '--http']], ['agent', ['agent', 'do it']], ['call', ['call', 'read_file', '{"filepath":"a"}']]] as const) {
    test(`toolgate ${command} --queue`, { timeout: 60_000 }, async () => {
      const yes = await runCli([...args, ...queue, '--yes', '--dangerously-disable-sandbox', '--no-policy']);
      assert.equal(yes.code, 2, yes.stderr);
      assert.match(yes.stderr, new RegExp(`--yes, --no-policy, --dangerously-disable-sandbox cannot go with --queue: a worker of the pool decides and runs the call with its own policy files, sandbox and approval options \\(those of toolgate worker\\), and its progress does not reach toolgate ${command}`));
      assert.match(yes.stderr, /toolgate approvals allow ID --store STORE/);
      const mode = await runCli([...args, ...queue, '--sandbox', 'read-only', ...(command === 'agent' ? ['--approve', 'ask'] : ['--mode', 'explore'])]);
      assert.equal(mode.code, 2, mode.stderr);
      assert.match(mode.stderr, command === 'agent' ? /--approve, --sandbox cannot go with --queue/ : /--mode, --sandbox cannot go with --queue/);
    });
  }

  // The agent's mode (read-only; plan writes only in its plan folder) would bound the calls it
  // makes here; a worker decides them with its own policy: refused, not dropped silently.
  for (const kind of ['explore', 'plan'] as const) {
    test(`toolgate agent --agent ${kind} --queue`, { timeout: 60_000 }, async () => {
      const run = await runCli(['agent', 'look around', '--agent', kind, ...queue]);
      assert.equal(run.code, 2, run.stderr);
      assert.match(run.stderr, new RegExp(`--agent ${kind} cannot go with --queue: its read-only mode${kind === 'plan' ? ' \\(writes only in --plan-dir\\)' : ''} is not seen by the workers of the pool`));
    });
  }
});
