/**
 * The last step of `npm run build`: write the tool manifest (`tool-manifest.json`, see
 * `src/registry/manifest.ts`) of each compiled tool folder, so that `toolgate list`, `schema`
 * and MCP `tools/list` register the tools without importing their modules. `--check` writes
 * nothing and exits 1 when a manifest is not what the compiled modules make now.
 *
 * Then (not with `--check`) the standalone validators of the built-in tools' schemas and of
 * `ask_user` (see `src/schema/validator.ts`), so that a call validates without ajv's compiler.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeManifest } from '../src/registry/manifest.js';
import { ToolRegistry } from '../src/registry/registry.js';
import { loadToolFolders } from '../src/system/tool-folders.js';
import { createLogger } from '../src/logging/logger.js';
import { ASK_USER_TOOL } from '../src/builtin/ask-user.js';
import { writePrecompiledValidators } from '../src/schema/validator.js';
import type { JsonSchema } from '../src/types/tool.js';

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
if (!check) {
  const registry = new ToolRegistry();
  await loadToolFolders(registry, { skills: false }, () => createLogger('warn'));
  const schemas: JsonSchema[] = [ASK_USER_TOOL.inputSchema];
  for (const tool of registry.list()) {
    schemas.push(tool.inputSchema);
    if (tool.outputSchema !== null) schemas.push(tool.outputSchema);
  }
  const count = writePrecompiledValidators(schemas);
  if (process.argv.includes('--verbose')) process.stdout.write(`dist/src/schema/precompiled: ${count} standalone validators\n`);
}
process.exitCode = stale ? 1 : 0;
