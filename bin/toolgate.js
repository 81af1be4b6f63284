#!/usr/bin/env node
// Entry point of the `toolgate` command: a thin wrapper around runCli of src/cli/main.ts, as
// bundled into dist/bundle/ by `npm run build` (which `npm ci` runs through the prepare
// script; see scripts/bundle.ts for why the command is bundled).
import { existsSync, readFileSync } from 'node:fs';

const entry = new URL('../dist/bundle/main.js', import.meta.url);
if (!existsSync(entry)) {
  process.stderr.write('toolgate: not built yet; run `npm run build` (npm ci does it through the prepare script)\n');
  process.exit(2);
}
// The build's last step (scripts/bundle.ts) turns the modules of toolgate/tool in dist/src
// into re-exports of dist/bundle; `tsc` alone afterwards compiles them back and leaves the
// bundle as it was: refuse to run that old code. (File times cannot tell: npm stamps an
// installed package's files in the order it unpacks them.)
if (!readFileSync(new URL('../dist/src/tool.js', import.meta.url), 'utf8').startsWith('// Bundled into dist/bundle/')) {
  process.stderr.write('toolgate: dist/bundle is older than dist/src (tsc ran after the build); run `npm run build`\n');
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
// `toolgate call` starts the child process its tool will likely run in before anything else
// loads (dist/bundle/early.js, from src/cli/early.ts).
if (process.argv[2] === 'call') (await import(new URL('../dist/bundle/early.js', import.meta.url).href)).startEarly(process.argv.slice(2));
const { runCli } = await import(entry.href);
process.exitCode = await runCli(process.argv.slice(2));
