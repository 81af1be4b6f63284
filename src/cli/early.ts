/**
 * What the CLI starts before its command's modules load: for `toolgate call`, the child
 * process most tools run in (see `prestartChild`). `bin/toolgate.js` calls it first of all
 * (from `dist/bundle/early.js`), and `runCli` again for callers in process; the second call
 * finds the child started.
 *
 * @module
 */
import { prestartChild } from '../runner/process/spawn-child.js';

/** Start what `argv` (the arguments after the program name) will need; never throws. */
export function startEarly(argv: readonly string[]): void {
  if (argv[0] === 'call' && !argv.includes('--help') && !argv.includes('-h')) prestartChild();
}
