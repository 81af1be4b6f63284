/**
 * Semantic versions: the one module that imports semver (through its function entries, so
 * that `@tool`, which every worker loads, pulls in only what these need).
 *
 * @module
 */
import { createRequire } from 'node:module';

// semver is CommonJS; each function is required on its first use, so that starting up (a
// registry of single-version tools, `toolgate list`) never loads the range parser.
const require = createRequire(import.meta.url);
let semverValid: typeof import('semver/functions/valid.js') | undefined;
let semverValidRange: typeof import('semver/ranges/valid.js') | undefined;
let semverMaxSatisfying: typeof import('semver/ranges/max-satisfying.js') | undefined;
let semverCompare: typeof import('semver/functions/compare.js') | undefined;
let semverGt: typeof import('semver/functions/gt.js') | undefined;
let semverPrerelease: typeof import('semver/functions/prerelease.js') | undefined;

/** `MAJOR.MINOR.PATCH` with no prerelease or build part: what almost every tool declares. */
const PLAIN_VERSION = /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)$/;

/**
 * Is `version` a valid semver version (`1.0.0`)? A plain `MAJOR.MINOR.PATCH` of safe integers
 * is answered without loading semver (every `@tool` asks, in every worker and child process,
 * and semver's first load costs one of them about 7 ms); anything else is semver's to judge.
 */
export function isValidVersion(version: string): boolean {
  const plain = PLAIN_VERSION.exec(version);
  if (plain !== null && plain.slice(1).every((part) => Number(part) <= Number.MAX_SAFE_INTEGER)) return true;
  return (semverValid ??= require('semver/functions/valid.js') as typeof import('semver/functions/valid.js'))(version) !== null;
}

/** Is `range` a valid semver range (`^1.2`, `1.x`, `>=2 <3`)? */
export function isValidRange(range: string): boolean {
  return (semverValidRange ??= require('semver/ranges/valid.js') as typeof import('semver/ranges/valid.js'))(range) !== null;
}

/** The highest of `versions` inside `range`, or null. */
export function maxSatisfying(versions: readonly string[], range: string): string | null {
  return (semverMaxSatisfying ??= require('semver/ranges/max-satisfying.js') as typeof import('semver/ranges/max-satisfying.js'))([...versions], range);
}

/** Ascending order of versions (for `Array.prototype.sort`). */
export function compareVersions(a: string, b: string): number {
  return (semverCompare ??= require('semver/functions/compare.js') as typeof import('semver/functions/compare.js'))(a, b);
}

/** Is `a` a higher version than `b`? */
export function isGreater(a: string, b: string): boolean {
  return (semverGt ??= require('semver/functions/gt.js') as typeof import('semver/functions/gt.js'))(a, b);
}

/** Is `version` a prerelease (`1.0.0-beta.1`)? */
export function isPrerelease(version: string): boolean {
  return (semverPrerelease ??= require('semver/functions/prerelease.js') as typeof import('semver/functions/prerelease.js'))(version) !== null;
}
