/**
 * The approval-mode decider's read of a session's mode from the ledger: a SQLite ledger (and a
 * worker's view of one) answers synchronously, so that a decision with nothing to wait for stays
 * synchronous; the read is not cached (a mode set through another handle counts for the next
 * decision); a store with only the asynchronous read is awaited; an unreadable ledger counts as
 * no mode set. Temp folders only, removed after each test.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import { Ledger, setSessionApprovalMode } from 'toolgate';
import { ledgerApprovalModes } from '../../src/ledger/session-approval-modes.js';
import type { SessionSetting, SessionSettings } from '../../src/ledger/call-store.js';
import { createLogger } from '../../src/logging/logger.js';
import { WorkerStore } from '../../src/distributed/worker-store.js';
import { isThenable } from '../../src/util/values.js';

const folders: string[] = [];
const ledgers: Ledger[] = [];
afterEach(async () => {
  for (const ledger of ledgers.splice(0)) await ledger.close().catch(() => undefined);
  for (const dir of folders.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

function open(file?: string): Ledger {
  if (file === undefined) {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tg-modes-'));
    folders.push(dir);
    file = path.join(dir, 'ledger.sqlite');
  }
  const ledger = Ledger.open({ file });
  ledgers.push(ledger);
  return ledger;
}

const logger = createLogger('silent');

describe('ledgerApprovalModes', () => {
  it('reads a SQLite ledger synchronously, uncached: a mode set through another handle counts for the next decision', async () => {
    const ledger = open();
    const other = open(ledger.file);
    const modes = ledgerApprovalModes(ledger, logger);
    const before = modes.modeOf('s1', '');
    assert.equal(isThenable(before), false);
    assert.equal(before, undefined);
    await setSessionApprovalMode(other, '*', 'read-only', 'cockpit:1');
    assert.equal(modes.modeOf('s1', ''), 'read-only');
    await setSessionApprovalMode(other, 's1', 'deny-all', 'cockpit:1');
    assert.equal(modes.modeOf('s1', ''), 'deny-all');
    assert.equal(modes.modeOf('s2', ''), 'read-only');
    // The turn is the supervised session when there is one.
    await setSessionApprovalMode(other, 'turn-9', 'always-ask', 'cockpit:1');
    assert.equal(modes.modeOf('s2', 'turn-9'), 'always-ask');
    // A value that names no mode counts as none.
    await other.setSessionSetting('s3', 'approval_mode', 'sometimes', 'cockpit:1');
    await setSessionApprovalMode(other, '*', undefined, 'cockpit:1');
    assert.equal(modes.modeOf('s3', ''), undefined);
  });

  it('reads synchronously through a worker\'s view of the store too', async () => {
    const ledger = open();
    const leases = new WorkerStore(ledger, { owner: 'worker:test', leaseMs: 2000, resume: () => undefined });
    await setSessionApprovalMode(ledger, 's1', 'allow-all', 'cockpit:1');
    const mode = ledgerApprovalModes(leases.view, logger).modeOf('s1', '');
    assert.equal(isThenable(mode), false);
    assert.equal(mode, 'allow-all');
  });

  it('awaits a store that reads only asynchronously, and counts an unreadable ledger as no mode', async () => {
    const settings: SessionSettings = {
      sessionSetting: async (session: string, name: string, fallback?: string): Promise<SessionSetting | undefined> =>
        (session === 's1' || fallback === 's1') && name === 'approval_mode' ? { session: 's1', name, value: 'read-only', setBy: 'x', setAt: 0 } : undefined,
      sessionSettings: async () => [],
      setSessionSetting: async () => undefined,
    };
    const pending = ledgerApprovalModes(settings, logger).modeOf('s1', '');
    assert.equal(isThenable(pending), true);
    assert.equal(await pending, 'read-only');
    const ledger = open();
    const modes = ledgerApprovalModes(ledger, logger);
    await ledger.close();
    assert.equal(modes.modeOf('s1', ''), undefined);
  });
});
