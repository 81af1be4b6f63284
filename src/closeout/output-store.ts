/**
 * Where the full output of a call is kept when the model sees only part of it (case T7: the
 * caller can fetch what was cut). One file per cut call, in a folder of the caller's or a
 * temporary folder of the executor's own, with a cap on files and bytes: the oldest files go
 * first.
 *
 * @module
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { makeFolders } from '../util/folders.js';

/** Options of an {@link OutputStore}. */
export interface OutputStoreOptions {
  /**
   * Folder under which the store makes a subfolder of its own for the files (created when
   * the first output is kept, never removed). Default: a temporary folder made on first use
   * and removed by {@link OutputStore.close} or when the process exits.
   */
  dir?: string;
  /** Files kept at most by this store (default 100); the oldest are deleted first. */
  maxFiles?: number;
  /** Bytes kept at most over this store's files (default 256 MiB); the oldest are deleted first. */
  maxBytes?: number;
}

/** A kept output, as results report it. */
export interface StoredOutput {
  /** Absolute path of the file holding the whole output (UTF-8). */
  path: string;
  /** Length of the whole output in characters (UTF-16 code units). */
  characters: number;
}

/** Temporary folders of stores not yet closed, removed when the process exits. */
const temporaryFolders = new Set<string>();
let exitHook = false;

/**
 * Keeps full outputs of cut calls, within a cap. Each store writes in a folder of its own (a
 * new subfolder of `dir`, or a temporary folder), made when the first file is written, so
 * stores never collide and the caps hold per store.
 */
export class OutputStore {
  private readonly base: string;
  private readonly temporary: boolean;
  private readonly folder: string;
  private made = false;
  private readonly maxFiles: number;
  private readonly maxBytes: number;
  private readonly kept: Array<{ path: string; bytes: number }> = [];
  private bytes = 0;
  private counter = 0;

  constructor(options: OutputStoreOptions = {}) {
    this.temporary = options.dir === undefined;
    this.base = options.dir === undefined ? os.tmpdir() : path.resolve(options.dir);
    this.folder = path.join(this.base, `toolgate-output-${process.pid}-${crypto.randomBytes(6).toString('hex')}`);
    this.maxFiles = options.maxFiles ?? 100;
    this.maxBytes = options.maxBytes ?? 256 * 1024 * 1024;
    if (!Number.isInteger(this.maxFiles) || this.maxFiles < 1) throw new RangeError('outputStore.maxFiles must be a positive integer');
    if (!Number.isInteger(this.maxBytes) || this.maxBytes < 1) throw new RangeError('outputStore.maxBytes must be a positive integer (bytes)');
  }

  /**
   * The store's folder (absolute). Not created here: writers create it on first use (see
   * {@link ensureFolder}), so a store that keeps nothing leaves nothing behind.
   */
  directory(): string {
    return this.folder;
  }

  private ensure(): void {
    if (this.made) return;
    ensureFolder(this.folder);
    this.made = true;
    if (this.temporary) {
      temporaryFolders.add(this.folder);
      if (!exitHook) {
        exitHook = true;
        process.on('exit', () => {
          for (const folder of temporaryFolders) fs.rmSync(folder, { recursive: true, force: true });
        });
      }
    }
  }

  /** A fresh file path for a call's output (nothing is written yet). */
  reserve(callId: string): string {
    return path.join(this.folder, `${safeName(callId)}-m${++this.counter}.txt`);
  }

  /**
   * Write `text` whole to a reserved path and account for it.
   * @returns what the result reports, or `undefined` when it is not kept (writing failed, or
   *   it alone is larger than `maxBytes`); the call still succeeds.
   */
  write(file: string, text: string): StoredOutput | undefined {
    if (Buffer.byteLength(text) > this.maxBytes) return undefined;
    try {
      this.ensure();
      fs.writeFileSync(file, text, { mode: 0o600, flag: 'wx' });
    } catch {
      return undefined;
    }
    return this.account(file, text.length);
  }

  /** Account for a file a worker wrote in this store's folder; the oldest files go past the caps. */
  account(file: string, characters: number): StoredOutput | undefined {
    if (path.dirname(file) !== this.folder) return undefined;
    this.ensure();
    let bytes: number;
    try {
      bytes = fs.statSync(file).size;
    } catch {
      return undefined;
    }
    if (bytes > this.maxBytes) {
      fs.rmSync(file, { force: true });
      return undefined;
    }
    this.kept.push({ path: file, bytes });
    this.bytes += bytes;
    while (this.kept.length > this.maxFiles || this.bytes > this.maxBytes) {
      const oldest = this.kept.shift()!;
      this.bytes -= oldest.bytes;
      fs.rmSync(oldest.path, { force: true });
    }
    return { path: file, characters };
  }

  /** Delete a file a worker wrote that will not be reported (the call failed after all). */
  discard(file: string): void {
    if (path.dirname(file) === this.folder) fs.rmSync(file, { force: true });
  }

  /** Remove the store's folder if it is temporary (a folder under the caller's `dir` is kept). */
  close(): void {
    if (this.temporary) {
      fs.rmSync(this.folder, { recursive: true, force: true });
      temporaryFolders.delete(this.folder);
    }
  }
}

/** Create a store folder (and its parents) readable by this user only. */
export function ensureFolder(folder: string): void {
  makeFolders(folder, 0o700);
}

/** A call id as a file name part. */
export function safeName(callId: string): string {
  return callId.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 80) || 'call';
}
