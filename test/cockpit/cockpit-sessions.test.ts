/**
 * The cockpit's sessions (issue 34, item 9): each `toolgate call` is a session of its own (not
 * one shared `cli`), a session's approval mode still governs it, and ended sessions beyond
 * the newest few collapse into a count instead of a row each (every MCP connection is one).
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { Ledger, setSessionApprovalMode } from 'toolgate';
import { recentSessions, sessionsOf, type SessionView } from '../../src/cockpit/views.js';
import { tempWorkspace } from '../helpers.js';
import { cliInProcess } from '../cli/in-process.js';

describe('cockpit sessions', () => {
  const t = tempWorkspace();
  const state = path.join(t.root, 'state');
  fs.writeFileSync(path.join(t.ws, 'a.txt'), 'a\n');
  after(t.cleanup);
  const where = ['--workspace', t.ws, '--state-dir', state, '--no-policy'];

  it('each toolgate call is its own session; --session groups calls; a mode set for a call\'s session governs it', async () => {
    for (const id of ['one', 'two']) {
      const run = await cliInProcess(['call', 'read_file', '{"filepath":"a.txt"}', '--call-id', id, ...where]);
      assert.equal(run.code, 0, run.stderr);
    }
    const grouped = await cliInProcess(['call', 'read_file', '{"filepath":"a.txt"}', '--call-id', 'three', '--session', 'mine', ...where]);
    assert.equal(grouped.code, 0, grouped.stderr);
    const ledger = Ledger.open({ dir: state, workspace: t.ws });
    try {
      const names = (await sessionsOf(ledger)).map((s) => s.session);
      assert.deepEqual(names.sort(), ['*', 'cli:one', 'cli:two', 'mine']);
      // The call's session (what the page shows) is where its mode is looked up.
      await setSessionApprovalMode(ledger, 'cli:four', 'deny-all', 'test');
      await setSessionApprovalMode(ledger, 'mine', 'deny-all', 'test');
    } finally {
      await ledger.close();
    }
    const denied = await cliInProcess(['call', 'read_file', '{"filepath":"a.txt"}', '--call-id', 'four', ...where]);
    assert.equal(denied.code, 1, denied.stderr);
    assert.match(denied.stderr, /deny-all/);
    const other = await cliInProcess(['call', 'read_file', '{"filepath":"a.txt"}', '--call-id', 'five', ...where]);
    assert.equal(other.code, 0, other.stderr);
    const mine = await cliInProcess(['call', 'read_file', '{"filepath":"a.txt"}', '--call-id', 'six', '--session', 'mine', ...where]);
    assert.equal(mine.code, 1, mine.stderr);
  });

  it('ended sessions beyond the newest ones collapse into a count; *, a mode set, a call not ended stay', () => {
    const view = (session: string, extra: Partial<SessionView> = {}): SessionView => ({ session, mode: undefined, lastCallAt: 1, calls: 1, active: 0, ...extra });
    const views = [view('*', { calls: 0 }), ...Array.from({ length: 15 }, (_, i) => view(`mcp_${i}`)), view('old-running', { active: 1 }), view('old-moded', { mode: 'allow-all' })];
    const { sessions, older } = recentSessions(views, 10);
    assert.equal(older, 5);
    assert.deepEqual(sessions.map((s) => s.session), ['*', ...Array.from({ length: 10 }, (_, i) => `mcp_${i}`), 'old-running', 'old-moded']);
  });
});
