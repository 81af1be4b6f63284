/**
 * Semantic versions: the one module that imports semver (through its function entries, so
 * that `@tool`, which every worker loads, pulls in only what these need).
 *
 * @module
 */
import semverCompare from 'semver/functions/compare.js';
import semverGt from 'semver/functions/gt.js';
import semverPrerelease from 'semver/functions/prerelease.js';
import semverValid from 'semver/functions/valid.js';
import semverMaxSatisfying from 'semver/ranges/max-satisfying.js';
import semverValidRange from 'semver/ranges/valid.js';

/** Is `version` a valid semver version (`1.0.0`)? */
export function isValidVersion(version: string): boolean {
  return semverValid(version) !== null;
}

/** Is `range` a valid semver range (`^1.2`, `1.x`, `>=2 <3`)? */
export function isValidRange(range: string): boolean {
  return semverValidRange(range) !== null;
}

/** The highest of `versions` inside `range`, or null. */
export function maxSatisfying(versions: readonly string[], range: string): string | null {
  return semverMaxSatisfying([...versions], range);
}

/** Ascending order of versions (for `Array.prototype.sort`). */
export function compareVersions(a: string, b: string): number {
  return semverCompare(a, b);
}

/** Is `a` a higher version than `b`? */
export function isGreater(a: string, b: string): boolean {
  return semverGt(a, b);
}

/** Is `version` a prerelease (`1.0.0-beta.1`)? */
export function isPrerelease(version: string): boolean {
  return semverPrerelease(version) !== null;
}
