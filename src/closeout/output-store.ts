/**
 * Where the full output of a call is kept when the model sees only part of it (case T7: the
 * caller can fetch what was cut). One file per cut call, in a folder of the caller's or a
 * temporary folder of the executor's own, with a cap on files and bytes: the oldest files go
 * first.
 *
 * @module
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** Options of an {@link OutputStore}. */
export interface OutputStoreOptions {
  /**
   * Folder for the files (created if missing, never removed). Default: a temporary folder
   * made on first use and removed by {@link OutputStore.close}.
   */
  dir?: string;
  /** Files kept at most (default 100); the oldest are deleted first. */
  maxFiles?: number;
  /** Bytes kept at most over all files (default 256 MiB); the oldest are deleted first. */
  maxBytes?: number;
}

/** A kept output, as results report it. */
export interface StoredOutput {
  /** Absolute path of the file holding the whole output (UTF-8). */
  path: string;
  /** Length of the whole output in characters (UTF-16 code units). */
  characters: number;
}

/** Keeps full outputs of cut calls, within a cap. */
export class OutputStore {
  private readonly given: string | undefined;
  private dir: string | undefined;
  private readonly maxFiles: number;
  private readonly maxBytes: number;
  private readonly kept: Array<{ path: string; bytes: number }> = [];
  private bytes = 0;
  private counter = 0;

  constructor(options: OutputStoreOptions = {}) {
    this.given = options.dir === undefined ? undefined : path.resolve(options.dir);
    this.maxFiles = options.maxFiles ?? 100;
    this.maxBytes = options.maxBytes ?? 256 * 1024 * 1024;
    if (!Number.isInteger(this.maxFiles) || this.maxFiles < 1) throw new RangeError('outputStore.maxFiles must be a positive integer');
    if (!Number.isInteger(this.maxBytes) || this.maxBytes < 1) throw new RangeError('outputStore.maxBytes must be a positive integer (bytes)');
  }

  /** The folder, created on first use. */
  directory(): string {
    if (this.dir === undefined) {
      if (this.given !== undefined) {
        fs.mkdirSync(this.given, { recursive: true, mode: 0o700 });
        this.dir = this.given;
      } else this.dir = fs.mkdtempSync(path.join(os.tmpdir(), 'toolgate-output-'));
    }
    return this.dir;
  }

  /** A fresh file path for a call's output (nothing is written yet). */
  reserve(callId: string): string {
    const safe = callId.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 80) || 'call';
    return path.join(this.directory(), `${safe}-m${++this.counter}.txt`);
  }

  /**
   * Write `text` whole to a reserved path and account for it.
   * @returns what the result reports, or `undefined` when writing failed (the call still succeeds).
   */
  write(file: string, text: string): StoredOutput | undefined {
    try {
      fs.writeFileSync(file, text, { mode: 0o600, flag: 'wx' });
    } catch {
      return undefined;
    }
    return this.account(file, text.length);
  }

  /** Account for a file a worker wrote at a reserved path. */
  account(file: string, characters: number): StoredOutput | undefined {
    let bytes: number;
    try {
      bytes = fs.statSync(file).size;
    } catch {
      return undefined;
    }
    this.kept.push({ path: file, bytes });
    this.bytes += bytes;
    while (this.kept.length > 1 && (this.kept.length > this.maxFiles || this.bytes > this.maxBytes)) {
      const oldest = this.kept.shift()!;
      this.bytes -= oldest.bytes;
      fs.rmSync(oldest.path, { force: true });
    }
    return { path: file, characters };
  }

  /** Remove the temporary folder (a folder the caller gave is left as it is). */
  close(): void {
    if (this.dir !== undefined && this.given === undefined) fs.rmSync(this.dir, { recursive: true, force: true });
    this.dir = undefined;
  }
}
