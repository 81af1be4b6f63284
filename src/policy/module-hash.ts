/**
 * The hash of a tool's code ({@link moduleHash}): what remembered approvals are keyed by,
 * besides the tool's name, version and schemas, so that an answer given for one build of a
 * tool does not carry over to a changed one (issue 30, item 3).
 *
 * @module
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** toolgate's own built core (`dist/src`): its files are not part of a tool's hash (toolgate's version covers them). */
const CORE = path.dirname(path.dirname(fileURLToPath(import.meta.url)));

/** Most files one hash reads (a tool and its own helpers are a handful). */
const MAX_FILES = 256;

/** Hashes by module URL, computed once per process (the code a process runs is the code it imported). */
const hashes = new Map<string, string>();

/** Relative import specifiers of an ES module's text (`from './x.js'`, `import './x.js'`, `import('./x.js')`). */
const RELATIVE_IMPORT = /(?:\bfrom\s*|\bimport\s*\(?\s*)(['"])(\.{1,2}\/[^'"\n]+)\1/g;

/**
 * The SHA-256 (hex) of a tool module's built code: the module file and, transitively, every
 * file it imports by a relative path outside toolgate's own core (the tool's helpers), in a
 * stable order. A file that cannot be read counts by its name alone. `''` for a tool with no
 * module (a programmatic or bridged tool: its registration revision identifies it).
 * @param moduleUrl - the tool's `file:` URL (`RegisteredTool.moduleUrl`).
 */
export function moduleHash(moduleUrl: string | undefined): string {
  if (moduleUrl === undefined || !moduleUrl.startsWith('file:')) return '';
  const known = hashes.get(moduleUrl);
  if (known !== undefined) return known;
  const hash = crypto.createHash('sha256');
  const seen = new Set<string>();
  const pending = [fileURLToPath(moduleUrl)];
  while (pending.length > 0 && seen.size < MAX_FILES) {
    const file = pending.shift()!;
    if (seen.has(file)) continue;
    seen.add(file);
    let text: string;
    try {
      text = fs.readFileSync(file, 'utf8');
    } catch {
      hash.update(`missing\u0000${file}\u0000`);
      continue;
    }
    hash.update(`${path.basename(file)}\u0000${text.length}\u0000`).update(text);
    for (const match of text.matchAll(RELATIVE_IMPORT)) {
      const target = path.resolve(path.dirname(file), match[2]!);
      if (target === CORE || target.startsWith(CORE + path.sep)) continue;
      pending.push(target);
    }
  }
  const digest = hash.digest('hex');
  hashes.set(moduleUrl, digest);
  return digest;
}
