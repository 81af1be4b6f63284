/**
 * `npm run schemas [-- --check]`: regenerate (or check) the committed schema files of
 * toolgate's own tool folders and test fixtures, from one TypeScript program.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { generateSchemas, writeOrCheckSchemaFile } from '../src/schema-gen/generate.js';
import { SCHEMA_FILE_FORMAT, type SchemaFile } from '../src/schema/schema-file.js';

/** Each folder's sources and the schema file generated for them. */
export const SCHEMA_GROUPS = [
  { folder: 'tools', out: 'tools/tool-schemas.json' },
  { folder: 'tools-ported', out: 'tools-ported/tool-schemas.json' },
  { folder: 'test/fixtures', out: 'test/fixtures/tool-schemas.json' },
] as const;

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const check = process.argv.includes('--check');
// --check runs after `npm run build` (npm test, CI), whose `tsc -p tsconfig.json` has just
// type-checked these folders under the same tsconfig: checking the whole program again is
// half the CPU time (about 5 of 11 s) and finds nothing new. Writing (`npm run schemas`) still checks.
const all = await generateSchemas({ cwd: root, patterns: SCHEMA_GROUPS.map((g) => `${g.folder}/**/*.ts`), typeCheck: !check });
let stale = 0;
for (const group of SCHEMA_GROUPS) {
  const tools: SchemaFile['tools'] = {};
  for (const [key, entry] of Object.entries(all.tools)) {
    if (entry.source.startsWith(`${group.folder}/`)) tools[key] = entry;
  }
  const file: SchemaFile = { format: SCHEMA_FILE_FORMAT, $comment: all.$comment, tools };
  const status = writeOrCheckSchemaFile(path.join(root, group.out), file, check);
  const count = Object.keys(tools).length;
  if (check && status.stale) {
    stale++;
    process.stderr.write(`${group.out}: STALE (${status.changed.join(', ') || 'formatting'}); run \`npm run schemas\` and commit the result\n`);
  } else {
    process.stdout.write(`${group.out}: ${check ? 'up to date' : status.written ? 'written' : 'unchanged'} (${count} ${count === 1 ? 'tool' : 'tools'})\n`);
  }
}
process.exitCode = stale ? 1 : 0;
