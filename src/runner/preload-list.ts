/**
 * The list of tool modules new workers import before taking calls, shared with every worker
 * through memory (a Piscina pool's `workerData` is fixed when the pool is created, but the
 * list grows as tools answer their first calls).
 *
 * Layout: an `Int32Array` header `[byteLength]` then UTF-8 text, one URL per line. The main
 * thread only appends: it writes the new bytes first and then publishes the new length with
 * `Atomics.store`, so a worker that reads the length with `Atomics.load` always sees whole
 * lines.
 *
 * @module
 */

/** Shared memory holding the list. */
export interface PreloadList {
  buffer: SharedArrayBuffer;
}

const HEADER_BYTES = 4;
/** Room for the URLs, in bytes (about a thousand tool modules). */
const CAPACITY_BYTES = 256 * 1024;

/** Create an empty list. */
export function createPreloadList(): PreloadList {
  return { buffer: new SharedArrayBuffer(HEADER_BYTES + CAPACITY_BYTES) };
}

/**
 * Append URLs not yet listed (main thread only). Returns false when the list is full; the
 * module then simply loads on first use in each new worker.
 */
export function appendToPreloadList(list: PreloadList, urls: readonly string[], known: Set<string>): boolean {
  const header = new Int32Array(list.buffer, 0, 1);
  const bytes = new Uint8Array(list.buffer, HEADER_BYTES);
  let length = Atomics.load(header, 0);
  for (const url of urls) {
    if (known.has(url)) continue;
    const encoded = new TextEncoder().encode(`${url}\n`);
    if (length + encoded.length > CAPACITY_BYTES) return false;
    bytes.set(encoded, length);
    length += encoded.length;
    known.add(url);
  }
  Atomics.store(header, 0, length);
  return true;
}

/** The URLs listed so far (any thread). */
export function readPreloadList(list: PreloadList): string[] {
  const length = Atomics.load(new Int32Array(list.buffer, 0, 1), 0);
  if (length === 0) return [];
  // TextDecoder cannot read shared memory directly: copy the used part first.
  const copy = new Uint8Array(length);
  copy.set(new Uint8Array(list.buffer, HEADER_BYTES, length));
  return new TextDecoder().decode(copy).split('\n').filter(Boolean);
}
