/**
 * The last step of `npm run build`: write the tool manifest (`tool-manifest.json`, see
 * `src/registry/manifest.ts`) of each compiled tool folder, so that `toolgate list`, `schema`
 * and MCP `tools/list` register the tools without importing their modules. `--check` writes
 * nothing and exits 1 when a manifest is not what the compiled modules make now.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeManifest } from '../src/registry/manifest.js';

/** The compiled tool folders that get a manifest, relative to `dist/`. */
const MANIFEST_FOLDERS = ['tools', 'tools-ported'] as const;

const dist = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const check = process.argv.includes('--check');
let stale = 0;
for (const folder of MANIFEST_FOLDERS) {
  const status = await writeManifest(path.join(dist, folder), check);
  const shown = path.relative(path.dirname(dist), status.file);
  if (check && status.stale) {
    stale++;
    process.stderr.write(`${shown}: STALE; run \`npm run build\`\n`);
  } else if (check || process.argv.includes('--verbose')) {
    process.stdout.write(`${shown}: ${check ? 'up to date' : status.stale ? 'written' : 'unchanged'} (${status.tools} tools)\n`);
  }
}
process.exitCode = stale ? 1 : 0;
