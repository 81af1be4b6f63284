/**
 * Saved approvals kept in memory, as the user's policy file keeps them (`always` answers), for
 * tests of remembered answers: `keys` maps each saved key to its summary.
 */
import type { SavedApprovals } from 'toolgate';

export class MemorySaved implements SavedApprovals {
  readonly keys = new Map<string, string>();
  get size() {
    return this.keys.size;
  }
  has(key: string) {
    return this.keys.has(key);
  }
  save(key: string, _tool: string, summary: string) {
    this.keys.set(key, summary);
  }
}
