/**
 * Packages only some features need (optional peer dependencies of toolgate: sharp, pdfjs-dist,
 * pyodide, mathjs, openai, the schema generator's typescript-json-schema...), loaded on first
 * use instead of at start-up, so that an install without them works for everything else. A
 * feature whose package is missing gets a {@link PackageUnavailableError} naming the package
 * and the `npm install` command; a tool that throws it ends its call with a
 * `PACKAGE_UNAVAILABLE` result.
 *
 * The one place that loads an optional package: every use site calls {@link loadOptional} (a
 * module), {@link requireOptional} (a CommonJS module on a synchronous path) or
 * {@link resolveOptional} (a file of the package, e.g. pyodide's folder).
 *
 * Tests simulate a missing package with the environment variable {@link HIDE_PACKAGES_ENV}
 * (a comma-separated list of package names). It can only take packages away: a hidden package
 * makes its feature fail closed with the same error as a missing one, and nothing is loaded
 * or allowed in its place.
 *
 * @module
 */
import { createRequire } from 'node:module';
import { PackageUnavailableError } from '../errors/errors.js';

/**
 * Packages named here (comma-separated) are treated as not installed, for tests of the missing-package path.
 *
 * @internal
 */
export const HIDE_PACKAGES_ENV = 'TOOLGATE_HIDE_PACKAGES';

/** The npm package of a module specifier: `sharp`, `pdfjs-dist/legacy/build/pdf.mjs` -> `pdfjs-dist`, `@scope/name/x` -> `@scope/name`. */
export function packageOf(specifier: string): string {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]!;
}

function hiddenPackages(): string[] {
  return (process.env[HIDE_PACKAGES_ENV] ?? '').split(',').map((name) => name.trim()).filter((name) => name !== '');
}

/** Throws when one of `packages` is hidden by {@link HIDE_PACKAGES_ENV}. */
function checkNotHidden(packages: readonly string[], feature: string): void {
  const hidden = hiddenPackages();
  if (packages.some((name) => hidden.includes(name))) throw new PackageUnavailableError(packages, feature);
}

/** Node's codes for a module that cannot be found (ESM `import`, CommonJS `require`). */
const NOT_FOUND_CODES = new Set(['ERR_MODULE_NOT_FOUND', 'MODULE_NOT_FOUND']);

/** Whether `error` says that `name` itself is not installed (not a file inside an installed package, not a package of its own missing). */
function isMissing(error: unknown, name: string): boolean {
  if (!NOT_FOUND_CODES.has(String((error as { code?: unknown } | null)?.code))) return false;
  const message = String((error as Error).message);
  return message.includes(`'${name}'`) || message.includes(`'${name}/`);
}

/**
 * Import an optional package (or a module of it) on first use.
 *
 * @param specifier - what to import, e.g. `'sharp'` or `'pdfjs-dist/legacy/build/pdf.mjs'`.
 * @param feature - what needs it, for the error (`'resize_image'`, `'schema generation'`).
 * @param packages - the npm packages to name in the error (default: the specifier's package).
 *   The import is checked against every one of them, so a package that needs another (typescript-json-schema
 *   and its compiler, typescript) is reported with both.
 * @returns the module namespace (`T`, typically `typeof import('sharp')`).
 * @throws PackageUnavailableError when the package is not installed (or hidden by {@link HIDE_PACKAGES_ENV}).
 *   Any other failure while loading it (a broken native binary, say) is thrown as it is.
 *
 * @internal
 */
export async function loadOptional<T>(specifier: string, feature: string, packages: readonly string[] = [packageOf(specifier)]): Promise<T> {
  checkNotHidden(packages, feature);
  try {
    return (await import(specifier)) as T;
  } catch (error) {
    if (packages.some((name) => isMissing(error, name))) throw new PackageUnavailableError(packages, feature, { cause: error });
    throw error;
  }
}

/**
 * The absolute path of a file of an optional package (`'pyodide/package.json'`), resolved as
 * `require.resolve` from this module.
 *
 * @throws PackageUnavailableError when the package is not installed (or hidden by {@link HIDE_PACKAGES_ENV}).
 *
 * @internal
 */
export function resolveOptional(specifier: string, feature: string): string {
  const name = packageOf(specifier);
  checkNotHidden([name], feature);
  try {
    return createRequire(import.meta.url).resolve(specifier);
  } catch (error) {
    if (isMissing(error, name)) throw new PackageUnavailableError([name], feature, { cause: error });
    throw error;
  }
}

/**
 * Require an optional CommonJS package (or a module of it) now, on a synchronous path (such as
 * `@opentelemetry/api` for a call's span).
 *
 * @param specifier - what to require, e.g. `'@opentelemetry/api'`.
 * @param feature - what needs it, for the error.
 * @returns the module's exports (`T`).
 * @throws PackageUnavailableError when the package is not installed (or hidden by {@link HIDE_PACKAGES_ENV}).
 *   Any other failure while loading it is thrown as it is.
 *
 * @internal
 */
export function requireOptional<T>(specifier: string, feature: string): T {
  const name = packageOf(specifier);
  checkNotHidden([name], feature);
  try {
    return createRequire(import.meta.url)(specifier) as T;
  } catch (error) {
    if (isMissing(error, name)) throw new PackageUnavailableError([name], feature, { cause: error });
    throw error;
  }
}
