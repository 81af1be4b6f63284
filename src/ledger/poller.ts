/**
 * One timer per ledger for everything that waits on it: questions waiting for an answer given
 * elsewhere (`toolgate approvals`), MCP tasks watching their cancel flag (`tasks/cancel`
 * received by another process). Each waiter adds a check; the timer runs every check each
 * `ledger.pollMs` and stops when none is left, so a thousand waiting calls cost one timer, not
 * a thousand (review finding of issue 16).
 *
 * @module
 */
import type { CallStore } from './call-store.js';

/** Runs checks on one shared interval. */
export class SharedPoller {
  private readonly checks = new Set<() => void>();
  private timer: NodeJS.Timeout | undefined;

  /** @param intervalMs - milliseconds between two rounds of checks. */
  constructor(readonly intervalMs: number) {}

  /**
   * Run `check` every interval (first after one interval) until the returned function is
   * called. A check that throws is skipped for that round; the others still run.
   */
  add(check: () => void): () => void {
    const own = (): void => check();
    this.checks.add(own);
    this.timer ??= setInterval(this.round, this.intervalMs);
    return () => {
      this.checks.delete(own);
      if (this.checks.size === 0 && this.timer !== undefined) {
        clearInterval(this.timer);
        this.timer = undefined;
      }
    };
  }

  private readonly round = (): void => {
    for (const check of [...this.checks]) {
      // A check removed by an earlier one in this round does not run.
      if (!this.checks.has(check)) continue;
      try {
        check();
      } catch {
        // the check reports its own failures; the next round tries again
      }
    }
  };
}

const pollers = new WeakMap<Pick<CallStore, 'pollMs'>, SharedPoller>();

/** The shared poller of `ledger` (made on first use), running every `ledger.pollMs`. */
export function pollerOf(ledger: Pick<CallStore, 'pollMs'>): SharedPoller {
  let poller = pollers.get(ledger);
  if (poller === undefined) {
    poller = new SharedPoller(ledger.pollMs);
    pollers.set(ledger, poller);
  }
  return poller;
}
