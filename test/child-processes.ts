/**
 * Child processes a test file started: killed and awaited after each test, so that none
 * outlives the test that started it.
 */
import type { ChildProcess } from 'node:child_process';

/**
 * SIGKILL every process of `children` that has not ended and wait until it has exited, one
 * after another; `children` is emptied first (a test's `afterEach`).
 */
export async function killChildren(children: ChildProcess[]): Promise<void> {
  for (const child of children.splice(0)) {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGKILL');
      await exited;
    }
  }
}
