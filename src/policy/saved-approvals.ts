/**
 * `always` answers kept in the user's policy file, as `[[approved]]` entries: read through a
 * {@link PolicySet} (re-checked with a stat at each use, so an entry a person deletes stops
 * counting at once), written by appending an entry and replacing the file atomically (a
 * temporary file in the same folder, flushed, then renamed over it).
 *
 * @module
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Logger } from '../logging/logger.js';
import { temporaryName } from '../workspace/temp-names.js';
import { withApproved } from './policy-file.js';
import { PolicySet } from './policy-set.js';
import type { SavedApprovals } from './remembered-approvals.js';

const NONE: ReadonlySet<string> = new Set();

/** Saved approvals in one policy file (the user's). */
export class PolicyFileApprovals implements SavedApprovals {
  private readonly set: PolicySet;

  /** @param file - the user's policy file (absolute); it and its folder are made on the first save. */
  constructor(private readonly file: string, private readonly logger: Logger) {
    this.set = new PolicySet({ user: file });
  }

  /** The keys in the file now (none when it is absent or invalid). */
  private keys(): ReadonlySet<string> {
    const status = this.set.check()[0];
    return status?.state === 'ok' ? status.policy!.approved : NONE;
  }

  get size(): number {
    return this.keys().size;
  }

  has(key: string): boolean {
    return this.keys().has(key);
  }

  save(key: string, tool: string, summary: string): void {
    if (this.has(key)) return;
    const temp = path.join(path.dirname(this.file), temporaryName(path.basename(this.file)));
    try {
      fs.mkdirSync(path.dirname(this.file), { recursive: true, mode: 0o700 });
      let current = '';
      try {
        current = fs.readFileSync(this.file, 'utf8');
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      }
      const text = withApproved(current, this.file, { key, tool, summary });
      const fd = fs.openSync(temp, 'wx', 0o600);
      try {
        fs.writeFileSync(fd, text);
        fs.fsyncSync(fd);
      } finally {
        fs.closeSync(fd);
      }
      fs.renameSync(temp, this.file);
    } catch (error) {
      fs.rmSync(temp, { force: true });
      this.logger.warn({ event: 'approval_not_saved', file: this.file, tool, err: (error as Error)?.message }, 'an "always" answer could not be saved in the policy file; it counts for this turn only');
    }
  }
}
