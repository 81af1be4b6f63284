#!/usr/bin/env node
// Entry point of the `toolgate` command: a thin wrapper around runCli in dist/src/cli/main.js
// (built by `npm run build`, which `npm ci` runs through the prepare script).
import { existsSync } from 'node:fs';

const entry = new URL('../dist/src/cli/main.js', import.meta.url);
if (!existsSync(entry)) {
  process.stderr.write('toolgate: not built yet; run `npm run build` (npm ci does it through the prepare script)\n');
  process.exit(2);
}
// A reader that stops early (`toolgate list | head`) closes the pipe: that ends the output, it
// is not an error to report.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error) => {
    if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw error;
  });
}
const { runCli } = await import(entry.href);
process.exitCode = await runCli(process.argv.slice(2));
