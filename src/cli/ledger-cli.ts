/**
 * What the ledger commands (`approvals`, `result`, `trace`) share: opening the workspace's
 * ledger from the command line's `--workspace` and `--state-dir` (read-only for the commands
 * that only read), and short forms of times,
 * sizes and arguments for their tables.
 *
 * @module
 */
import fs from 'node:fs';
import type { CallStore } from '../ledger/call-store.js';
import { isStoreUrl, openCallStore } from '../ledger/open-store.js';
import { Ledger } from '../ledger/store.js';
import { ledgerOption, UsageError, workspaceOption, type CliContext } from './context.js';

/** The flags every ledger command takes. */
export const LEDGER_COMMAND_FLAGS = {
  workspace: { type: 'string' },
  'state-dir': { type: 'string' },
  /** The shared call store of workers and callers (docs/distributed.md): a SQLite file. */
  store: { type: 'string' },
  json: { type: 'boolean' },
} as const;


/** The PostgreSQL store of `--store postgres://...`, else `undefined`. @throws UsageError when it cannot be opened (no password in the message). */
function remoteStore(values: Record<string, unknown>): Promise<CallStore> | undefined {
  const spec = values.store as string | undefined;
  if (!isStoreUrl(spec)) return undefined;
  return openCallStore(spec).catch((error: unknown) => {
    throw new UsageError(`the store could not be opened: ${(error as Error).message}`);
  });
}

/**
 * The ledger of the command line's workspace, to write (`approvals allow|deny`): recovering
 * dead processes' calls and applying retention as it opens.
 * @throws UsageError when the workspace is not a folder or the ledger cannot be opened.
 */
export async function openCliLedger(values: Record<string, unknown>, ctx: CliContext): Promise<CallStore> {
  const remote = remoteStore(values);
  if (remote !== undefined) return remote;
  const workspace = workspaceOption(values, ctx);
  const options = ledgerOption(values, ctx, workspace);
  if (options === false) throw new UsageError('this command reads the ledger: --no-ledger does not apply');
  try {
    return Ledger.open(options);
  } catch (error) {
    throw new UsageError(`the ledger could not be opened: ${(error as Error).message}`);
  }
}

/**
 * The ledger of the command line's workspace opened read-only (what `trace`, `result` and
 * `approvals list` read): nothing is migrated, recovered or pruned, and the file is not
 * written. `undefined`, with a line on stderr saying so, when the workspace has no ledger yet.
 * @throws UsageError when the workspace is not a folder or the ledger cannot be read.
 */
export async function openCliLedgerReadOnly(values: Record<string, unknown>, ctx: CliContext): Promise<CallStore | undefined> {
  const remote = remoteStore(values);
  if (remote !== undefined) return remote;
  const workspace = workspaceOption(values, ctx);
  const options = ledgerOption(values, ctx, workspace);
  if (options === false) throw new UsageError('this command reads the ledger: --no-ledger does not apply');
  const file = Ledger.fileOf(options);
  if (!fs.existsSync(file)) {
    ctx.stderr.write(`toolgate: no ledger at ${file}: nothing has been recorded for workspace ${workspace} with this state folder yet\n`);
    return undefined;
  }
  try {
    return Ledger.open({ ...options, readonly: true });
  } catch (error) {
    throw new UsageError(`the ledger ${file} could not be read: ${(error as Error).message}`);
  }
}

/** How long ago `at` (ms since the epoch) was: `12s`, `5m`, `3h`, `2d`. */
export function age(at: number, now = Date.now()): string {
  const s = Math.max(0, Math.round((now - at) / 1000));
  if (s < 120) return `${s}s`;
  if (s < 7200) return `${Math.round(s / 60)}m`;
  if (s < 172_800) return `${Math.round(s / 3600)}h`;
  return `${Math.round(s / 86_400)}d`;
}

/** A byte count for people: `512 B`, `3.2 KiB`, `1.5 MiB`. */
export function bytes(n: number | undefined): string {
  if (n === undefined) return '-';
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KiB`;
  return `${(n / (1024 * 1024)).toFixed(1)} MiB`;
}
