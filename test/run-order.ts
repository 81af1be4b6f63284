/**
 * The test files of `npm test`, in the order `node --test` starts them (it runs three at a time
 * and starts each next file in the order given): the long files named in `long-files.txt`
 * first, longest first, then every other file sorted by path. Started last, a long file would
 * run alone at the end while the other slots stay idle; started first, the short files fill in
 * around it. A name in the list that no longer exists is passed over; a new long file only
 * costs time until it is added. Prints the paths (under `dist/test`), one a line.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.relative(process.cwd(), here) || '.';

function testFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const at = path.join(dir, entry.name);
    if (entry.isDirectory()) return testFiles(at);
    return entry.name.endsWith('.test.js') ? [at] : [];
  });
}

const all = testFiles(root).sort();
const listed = fs.readFileSync(path.join(here, '../../test/long-files.txt'), 'utf8').split('\n')
  .map((line) => line.replace(/#.*/, '').trim()).filter((line) => line !== '')
  .map((name) => path.join(root, name.replace(/\.ts$/, '.js')));
const first = listed.filter((file) => all.includes(file));
const rest = all.filter((file) => !first.includes(file));
process.stdout.write(`${[...first, ...rest].join('\n')}\n`);
