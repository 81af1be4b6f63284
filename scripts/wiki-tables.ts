/**
 * `npm run wiki [-- --check]`: rewrite (or check) the tool table of wiki/Tools.md from the
 * live registry (builtin and ported tools), between its AUTO:tools markers.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadBuiltinTools, loadPortedTools } from '../src/registry/loader.js';
import { renderToolsTable, replaceBetweenMarkers } from '../src/registry/wiki-table.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const file = path.join(root, 'wiki/Tools.md');
const check = process.argv.includes('--check');
const { registry } = await loadBuiltinTools();
await loadPortedTools(registry);
const before = fs.readFileSync(file, 'utf8');
const after = replaceBetweenMarkers(before, 'tools', renderToolsTable(registry));
if (after === before) {
  process.stdout.write(`wiki/Tools.md: ${check ? 'up to date' : 'unchanged'} (${registry.size} tool versions)\n`);
} else if (check) {
  process.stderr.write('wiki/Tools.md: STALE; run `npm run wiki` and commit the result\n');
  process.exitCode = 1;
} else {
  fs.writeFileSync(file, after);
  process.stdout.write(`wiki/Tools.md: written (${registry.size} tool versions)\n`);
}
