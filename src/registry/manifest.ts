/**
 * Tool manifests: the `@tool` descriptors of a folder of compiled tool modules, written into
 * that folder at build time (`npm run build` writes one for `dist/tools/` and
 * `dist/tools-ported/`), so that a command that only lists tools (`toolgate list`, `schema`,
 * MCP `tools/list`) registers them without importing a single tool module. The tools' modules
 * load on their first call.
 *
 * A manifest is trusted only while it describes the folder as it is: it records the SHA-256
 * of every module file it was made from, and {@link readManifest} calls it stale when a file
 * was added, removed or changed since (a `tsc` run without the build script, an edited file).
 * Loaders then import the modules as before, so a stale manifest is slow, never wrong.
 *
 * @module
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { getToolMetadata, type ToolDescriptor } from '../decorators/metadata.js';
import { ToolDefinitionError } from '../errors/errors.js';

/** Identifies the format of a manifest file; bumped when the shape changes. */
const MANIFEST_FORMAT = 'toolgate-manifest/1';

/** Name of the manifest file inside the folder it describes. */
export const MANIFEST_FILE = 'tool-manifest.json';

/** A descriptor as a manifest keeps it: everything `@tool` recorded except the class itself and where it is. */
export type ManifestDescriptor = Omit<ToolDescriptor, 'target' | 'moduleUrl' | 'exportName'>;

/** One tool class of a manifest. */
interface ManifestTool {
  /** Module file, relative to the folder, `/` separators. */
  file: string;
  /** Export name of the class in that module. */
  exportName: string;
  /** What `@tool` recorded. */
  descriptor: ManifestDescriptor;
}

/** A manifest file (`tool-manifest.json`). */
interface ToolManifest {
  /** Always {@link MANIFEST_FORMAT}. */
  format: string;
  /** Human note: generated, do not edit. */
  $comment?: string;
  /** SHA-256 (hex) of every module file of the folder, by relative path. */
  files: Record<string, string>;
  /** The tool classes the modules export, in file order. */
  tools: ManifestTool[];
}

/** What {@link readManifest} found. */
export type ManifestRead =
  | { kind: 'none' }
  | { kind: 'stale'; file: string; reason: string }
  | { kind: 'fresh'; file: string; manifest: ToolManifest };

/**
 * The module files of a folder as loaders import them: every `.js` and `.mjs` file below it,
 * relative, `/` separators, sorted; `node_modules` and names starting with a dot skipped
 * (fast-glob's defaults, which `loadTools` uses).
 */
export function moduleFiles(directory: string): string[] {
  const out: string[] = [];
  const walk = (dir: string, prefix: string): void => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      if (entry.name.startsWith('.') || entry.name === 'node_modules') continue;
      const full = path.join(dir, entry.name);
      let isDir = entry.isDirectory();
      let isFile = entry.isFile();
      if (entry.isSymbolicLink()) {
        const stat = fs.statSync(full, { throwIfNoEntry: false });
        isDir = stat?.isDirectory() ?? false;
        isFile = stat?.isFile() ?? false;
      }
      if (isDir) walk(full, `${prefix}${entry.name}/`);
      else if (isFile && (entry.name.endsWith('.js') || entry.name.endsWith('.mjs'))) out.push(`${prefix}${entry.name}`);
    }
  };
  walk(directory, '');
  return out.sort();
}

function hashOf(file: string): string {
  return crypto.createHash('sha256').update(fs.readFileSync(file)).digest('hex');
}

/** The descriptor fields a manifest keeps, in a fixed order. */
export function manifestDescriptor(meta: ToolDescriptor): ManifestDescriptor {
  const { target: _target, moduleUrl: _url, exportName: _export, ...rest } = meta;
  return rest;
}

/**
 * Make the manifest of a folder: import every module file (their top-level code runs, as with
 * `loadTools`) and record the `@tool` classes they export.
 * @throws ToolDefinitionError when a module fails to import.
 */
async function buildManifest(directory: string): Promise<ToolManifest> {
  const root = path.resolve(directory);
  const files: Record<string, string> = {};
  const tools: ManifestTool[] = [];
  const seen = new Set<unknown>();
  for (const file of moduleFiles(root)) {
    const absolute = path.join(root, file);
    files[file] = hashOf(absolute);
    let mod: Record<string, unknown>;
    try {
      mod = (await import(pathToFileURL(absolute).href)) as Record<string, unknown>;
    } catch (error) {
      throw ToolDefinitionError.other('?', `Cannot import tool module ${absolute}: ${(error as Error).message}`, error);
    }
    for (const [exportName, value] of Object.entries(mod)) {
      const meta = getToolMetadata(value);
      if (meta === undefined || seen.has(value)) continue;
      seen.add(value);
      tools.push({ file, exportName, descriptor: manifestDescriptor(meta) });
    }
  }
  return { format: MANIFEST_FORMAT, $comment: 'Generated by the build (scripts/manifests.ts) from the compiled tool modules of this folder; do not edit.', files, tools };
}

/**
 * Write (or, with `check`, compare) the manifest of a folder.
 * @returns the manifest's path, how many tools it lists, and whether the file on disk was
 *   stale (with `check`, nothing is written).
 */
export async function writeManifest(directory: string, check = false): Promise<{ file: string; tools: number; stale: boolean }> {
  const manifest = await buildManifest(directory);
  const file = path.join(path.resolve(directory), MANIFEST_FILE);
  const text = `${JSON.stringify(manifest, null, 2)}\n`;
  let current: string | undefined;
  try {
    current = fs.readFileSync(file, 'utf8');
  } catch {
    current = undefined;
  }
  const stale = current !== text;
  if (stale && !check) fs.writeFileSync(file, text);
  return { file, tools: manifest.tools.length, stale };
}

/**
 * Read a folder's manifest and check it against the folder's module files.
 * @returns `none` when the folder has no manifest, `stale` (with the reason) when a module
 *   file was added, removed or changed since it was made or the file is not a manifest, else
 *   `fresh` with the manifest. Never throws.
 */
export function readManifest(directory: string): ManifestRead {
  const root = path.resolve(directory);
  const file = path.join(root, MANIFEST_FILE);
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch {
    return { kind: 'none' };
  }
  try {
    const manifest = JSON.parse(text) as Partial<ToolManifest>;
    if (manifest === null || typeof manifest !== 'object' || manifest.format !== MANIFEST_FORMAT || !Array.isArray(manifest.tools) ||
      manifest.files === null || typeof manifest.files !== 'object') {
      return { kind: 'stale', file, reason: `${file} is not a ${MANIFEST_FORMAT} file` };
    }
    const recorded = manifest.files;
    const present = moduleFiles(root);
    const added = present.filter((f) => !Object.hasOwn(recorded, f));
    if (added.length) return { kind: 'stale', file, reason: `${added[0]} is not in it${added.length > 1 ? ` (nor ${added.length - 1} more)` : ''}` };
    const gone = Object.keys(recorded).filter((f) => !present.includes(f));
    if (gone.length) return { kind: 'stale', file, reason: `${gone[0]} is gone` };
    for (const f of present) {
      if (hashOf(path.join(root, f)) !== recorded[f]) return { kind: 'stale', file, reason: `${f} changed since it was made` };
    }
    return { kind: 'fresh', file, manifest: manifest as ToolManifest };
  } catch (error) {
    return { kind: 'stale', file, reason: `${file} cannot be read (${(error as Error)?.message ?? String(error)})` };
  }
}
