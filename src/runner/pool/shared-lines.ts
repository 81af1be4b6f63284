/**
 * An append-only list of text lines in shared memory: the main thread appends, every pool
 * worker reads. Used for what workers must learn after they started (a Piscina pool's
 * `workerData` is fixed when the pool is created): the tool table that lets a task name its
 * tool by number, and the modules a new worker imports before taking calls.
 *
 * Layout: an `Int32Array` header `[byteLength]`, then UTF-8 text, one line per entry, each
 * ended by `\n` (entries must not contain `\n`). The main thread writes the new bytes first
 * and then publishes the new length with `Atomics.store`, so a reader that loads the length
 * with `Atomics.load` always sees whole lines.
 *
 * @module
 */

/** Shared memory holding the list. */
export interface SharedLines {
  buffer: SharedArrayBuffer;
}

const HEADER_BYTES = 4;
const encoder = new TextEncoder();
const decoder = new TextDecoder();

/**
 * Create an empty list.
 * @param capacityBytes - room for the lines' UTF-8 bytes, newlines included.
 */
export function createSharedLines(capacityBytes: number): SharedLines {
  return { buffer: new SharedArrayBuffer(HEADER_BYTES + capacityBytes) };
}

/**
 * Append lines (main thread only), in order, while they fit.
 * @returns how many of `lines` were appended: fewer than given when the list is full, or at
 *   the first line that contains a newline (which would split it).
 */
export function appendLines(list: SharedLines, lines: readonly string[]): number {
  const header = new Int32Array(list.buffer, 0, 1);
  const capacity = list.buffer.byteLength - HEADER_BYTES;
  const bytes = new Uint8Array(list.buffer, HEADER_BYTES);
  let length = Atomics.load(header, 0);
  let appended = 0;
  for (const line of lines) {
    if (line.includes('\n')) break;
    const encoded = encoder.encode(`${line}\n`);
    if (length + encoded.length > capacity) break;
    bytes.set(encoded, length);
    length += encoded.length;
    appended++;
  }
  Atomics.store(header, 0, length);
  return appended;
}

/**
 * The lines published after byte offset `from` (any thread).
 * @param from - a byte offset returned by an earlier read (`end`), or 0 for every line.
 * @returns the lines and the byte offset to read from next time.
 */
export function readLines(list: SharedLines, from = 0): { lines: string[]; end: number } {
  const end = Atomics.load(new Int32Array(list.buffer, 0, 1), 0);
  if (end <= from) return { lines: [], end: from };
  // TextDecoder cannot read shared memory directly: copy the new part first.
  const copy = new Uint8Array(end - from);
  copy.set(new Uint8Array(list.buffer, HEADER_BYTES + from, end - from));
  const lines = decoder.decode(copy).split('\n');
  lines.pop(); // the text after the last newline is empty
  return { lines, end };
}
