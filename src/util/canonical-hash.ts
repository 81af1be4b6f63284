/**
 * SHA-256 of the RFC 8785 canonical JSON of a value (through `canonicalize`, imported only
 * here): the same value gives the same key whatever its key order. Keys of remembered
 * approvals and the arguments hash of a ledger's tombstones.
 *
 * @module
 */
import crypto from 'node:crypto';
import canonicalizeExport from 'canonicalize';

/**
 * RFC 8785 canonical JSON. The package is CommonJS (`module.exports = serialize`) while its
 * typings declare a default export, which TypeScript reads as `exports.default`: at run time
 * the default import is the function itself.
 */
const canonicalize = canonicalizeExport as unknown as (value: unknown) => string | undefined;

/** SHA-256 (64 lowercase hex digits) of the RFC 8785 canonical JSON of `value` (`null` for what JSON cannot hold, such as `undefined`). */
export function canonicalSha256(value: unknown): string {
  return crypto.createHash('sha256').update(canonicalize(value) ?? 'null').digest('hex');
}
