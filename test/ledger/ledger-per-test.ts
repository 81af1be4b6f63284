/**
 * The set-up of the ledger tests that open SQLite ledgers directly: a temporary folder for
 * each test, the ledgers opened in it, and the result of a `write_file` call to record.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach } from 'node:test';
import { Ledger, type ToolExecutionResult } from 'toolgate';

/** What {@link ledgerPerTest} gives a test file. */
export interface LedgerPerTest {
  /** The current test's folder: the ledgers' `dir` and `workspace` (from `beforeEach` on). */
  readonly dir: string;
  /** A ledger in the current test's folder (`dir` and `workspace`), `options` over those; closed after the test. */
  open: (options?: Parameters<typeof Ledger.open>[0]) => Ledger;
}

/**
 * A folder of its own for each test (`fs.mkdtemp` of `os.tmpdir()/prefix`), made in a
 * `beforeEach` and removed in an `afterEach` after every ledger {@link LedgerPerTest.open}
 * opened is closed. Call it at the top of the test file (or of a `describe`) whose hooks these are.
 */
export function ledgerPerTest(prefix: string): LedgerPerTest {
  let dir: string | undefined;
  const opened: Ledger[] = [];
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  });
  afterEach(async () => {
    for (const l of opened.splice(0)) await l.close();
    if (dir !== undefined) fs.rmSync(dir, { recursive: true, force: true });
  });
  const made: LedgerPerTest = {
    get dir() {
      if (dir === undefined) throw new Error('ledgerPerTest: the folder is made in beforeEach()');
      return dir;
    },
    open: (options = {}) => {
      const ledger = Ledger.open({ dir: made.dir, workspace: made.dir, ...options });
      opened.push(ledger);
      return ledger;
    },
  };
  return made;
}

/** The result of a successful `write_file` call `callId` (version 1.0.0, output `ok`), as the executor records it. */
export function writeFileResult(callId: string): ToolExecutionResult {
  return { success: true, output: 'ok', durationMs: 1, confirmed: true, tool: 'write_file', version: '1.0.0', callId, stopReason: 'completed', outcome: 'success', sideEffects: 'possible' };
}
