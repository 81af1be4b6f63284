import { SandboxUnavailableError, tool, ToolExecutionError, type Tool, type ToolContext } from '../src/tool.js';
import { PythonSandbox, type PythonRunResult } from '../tools-ported/common/python-sandbox.js';

/** Arguments of execute_python. */
export interface ExecutePythonInput {
  /**
   * Python 3 source to run, as a script (top-level `await` allowed). Print what you want to
   * see: standard output and standard error are returned. The standard library is there;
   * host files, processes and the network are not.
   */
  code: string;
  /**
   * Seconds the code may run before it is stopped (interpreter start-up not counted).
   * @TJS-type integer
   * @minimum 1
   * @maximum 25
   * @default 15
   */
  timeout_sec?: number;
  /**
   * Name of a session to keep variables and imports between calls (letters, digits, `_`,
   * `-`). Omit it for a fresh interpreter that forgets everything after the call.
   * @pattern ^[A-Za-z0-9_-]{1,64}$
   */
  session?: string;
}

/** The default of `timeout_sec`, in seconds. */
export const DEFAULT_PYTHON_TIMEOUT_SEC = 15;

/**
 * Run Python 3 code in a sandbox and return what it prints. Use it for calculations, data
 * wrangling and checking an idea in code. The sandbox is CPython on WebAssembly (Pyodide)
 * with the standard library only: no access to the host's files (read or write files in the
 * workspace with the file tools instead), no processes, no package installs and no network
 * (the result says when the user turned the sandbox off). Each call starts from a fresh
 * interpreter unless you name a `session`.
 */
@tool({ name: 'execute_python', version: '1.0.0', kind: 'shell_command', requiresConfirmation: true, tags: ['code', 'builtin'], timeoutMs: 90_000, runner: 'main' })
export class ExecutePythonTool implements Tool<ExecutePythonInput, string> {
  private sandbox: PythonSandbox | undefined;

  async run(args: ExecutePythonInput, ctx: ToolContext): Promise<string> {
    // One instance per executor, whose sandbox policy does not change.
    this.sandbox ??= new PythonSandbox({ sandbox: ctx.sandbox.profile });
    const timeoutSec = args.timeout_sec ?? DEFAULT_PYTHON_TIMEOUT_SEC;
    let result: PythonRunResult;
    try {
      result = await this.sandbox.run(args.code, { timeoutMs: timeoutSec * 1000, signal: ctx.signal, session: args.session, scope: ctx.workspace.realRoot });
    } catch (error) {
      if (error instanceof SandboxUnavailableError) throw error;
      throw new ToolExecutionError(`the Python sandbox is unavailable: ${(error as Error).message}`);
    }
    return pythonOutput(result, timeoutSec, (text) => ctx.note(text));
  }

  close(): void {
    this.sandbox?.close();
    this.sandbox = undefined;
  }
}

/**
 * The model-facing text of a sandboxed run: standard output, then standard error under a
 * `[stderr]` line; the ending (and whether the network was reachable) as notes.
 * @throws ToolExecutionError for every ending but `ok`: `TOOL_ERROR` with the traceback when
 *   the code raised, `TIMEOUT`, `MEMORY_LIMIT`, `ABORTED`, or `TOOL_ERROR` for a crash.
 */
export function pythonOutput(result: PythonRunResult, timeoutSec: number, note: (text: string) => void): string {
  const omitted = (n: number, stream: string) => (n > 0 ? `\n[${n} more characters of ${stream} were dropped]` : '');
  let text = unforgeable(result.stdout) + omitted(result.stdoutOmitted, 'standard output');
  if (result.stderr !== '' || result.stderrOmitted > 0) {
    text += `${text === '' || text.endsWith('\n') ? '' : '\n'}[stderr]\n${unforgeable(result.stderr)}${omitted(result.stderrOmitted, 'standard error')}`;
  }
  const where = `${result.session ? 'session interpreter' : 'fresh interpreter'}${result.isolation === 'none' ? '' : `, isolated by ${result.isolation}`}`;
  const network = result.networkIsolated ? '' : 'warning: the interpreter ran without a sandbox (the profile none was chosen), so the code may have reached network hosts';
  if (result.status === 'ok') {
    note(`[execute_python: finished in ${result.runMs} ms in a ${where}${network ? `; ${network}` : ''}]`);
    return text;
  }
  // Failures: the reason first and the printed text last, because long messages are cut
  // from the end; the network warning is a note, which is never cut.
  if (network) note(`[execute_python: ${network}]`);
  const printed = text === '' ? '' : `\nWhat it printed:\n${text.trimEnd()}`;
  const reset = result.session ? '; the session was reset' : '';
  switch (result.status) {
    case 'error': {
      const error = result.error!;
      throw new ToolExecutionError(`Python raised ${error.type}${error.message ? `: ${error.message}` : ''}\n${unforgeable(error.traceback)}${printed}`);
    }
    case 'timeout':
      throw new ToolExecutionError(`the code ran longer than timeout_sec=${timeoutSec} s and its interpreter was stopped; make the code faster or work in smaller steps${reset}${printed}`, 'TIMEOUT');
    case 'memory':
      throw new ToolExecutionError(`the code ran out of memory (${result.reason ?? 'memory cap reached'}) and its interpreter was stopped; process the data in smaller pieces${reset}${printed}`, 'MEMORY_LIMIT');
    case 'aborted':
      throw new ToolExecutionError(`the run was stopped: ${result.reason ?? 'the call was aborted'}${printed}`, 'ABORTED');
    case 'crashed':
      throw new ToolExecutionError(
        `the Python interpreter crashed (${result.reason ?? 'unknown reason'}); this happens when code tries something the sandbox forbids, such as starting a process; the next call starts a fresh interpreter${reset}${printed}`,
      );
  }
}

/** Lines the code printed that look like this tool's own notes are marked as printed, so they cannot pass for them. */
function unforgeable(text: string): string {
  return text.replace(/^\[execute_python/gm, '(printed) [execute_python');
}
