/**
 * `npm run schema-programs`: rewrite the expected outcome of every schema program
 * (test/schema-programs/<name>.expected.json), each program run alone through `toolgate
 * schemas`. Run it on purpose after a change to the generator or the exports, read the diff,
 * and commit it; test/schema-gen/schema-programs.test.ts compares against these files.
 */
import fs from 'node:fs';
import { expectationOf, expectationPath, generatePrograms, programNames } from '../test/schema-gen/schema-programs.js';

let changed = 0;
for (const name of programNames()) {
  const next = `${JSON.stringify(expectationOf(name, await generatePrograms([name])), null, 2)}\n`;
  const file = expectationPath(name);
  const current = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : undefined;
  if (current !== next) {
    fs.writeFileSync(file, next);
    changed++;
  }
  process.stdout.write(`${name}: ${current === next ? 'unchanged' : 'written'}\n`);
}
process.stdout.write(`${changed} expectation${changed === 1 ? '' : 's'} written\n`);
