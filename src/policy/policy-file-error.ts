/**
 * The error of a policy file that cannot be read or is invalid ({@link PolicyFileError}).
 *
 * @module
 */
import { ToolgateError } from '../errors/errors.js';

/**
 * A policy file cannot be read or is invalid: a syntax error, or a key or value the format
 * does not allow. The message is `"<file>:<line>: <problem>"` (`"<file>: <problem>"` when no
 * line applies, as for a file that cannot be read).
 */
export class PolicyFileError extends ToolgateError {
  /** The policy file's path. */
  readonly file: string;
  /** 1-based line of the problem; `undefined` when the file could not be read at all. */
  readonly line: number | undefined;
  /** The problem alone, without file and line. */
  readonly problem: string;

  private constructor(file: string, line: number | undefined, problem: string, cause?: unknown) {
    super('INVALID_POLICY_FILE', `${file}${line === undefined ? '' : `:${line}`}: ${problem}`, cause === undefined ? undefined : { cause });
    this.file = file;
    this.line = line;
    this.problem = problem;
  }

  /** A syntax error or a key or value the format does not allow, at `line`. */
  static fromInvalid(file: string, line: number, problem: string, cause?: unknown): PolicyFileError {
    return new PolicyFileError(file, line, problem, cause);
  }

  /** The file is refused before its text is read (not a regular file, too large): `"<file>: <problem>"`. */
  static fromRefused(file: string, problem: string): PolicyFileError {
    return new PolicyFileError(file, undefined, problem);
  }

  /** The file exists but cannot be read (a folder, no permission...). */
  static fromUnreadable(file: string, cause: unknown): PolicyFileError {
    const code = (cause as NodeJS.ErrnoException | undefined)?.code;
    return new PolicyFileError(file, undefined, `cannot be read${code ? ` (${code})` : ''}`, cause);
  }
}
