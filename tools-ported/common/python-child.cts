/**
 * The child process of the Python sandbox: loads Pyodide (CPython compiled to WebAssembly)
 * and runs the code the parent sends over the IPC channel.
 *
 * This file is the only JavaScript the child runs besides Pyodide itself. The parent starts
 * it under Node's permission model (reads limited to this file and the Pyodide package; no
 * writes, child processes, workers or native addons), with code generation from strings
 * disabled, inside a network namespace where the machine allows it. What this file adds is
 * the second layer: it closes Pyodide's JavaScript bridge (`js`, `pyodide_js`, `run_js`) and
 * removes the host's `process` and `fetch` from the global scope once Pyodide is loaded.
 * Nothing here is trusted to hold on its own: the operating-system and permission-model
 * layers are the boundary.
 *
 * It imports nothing: under the permission model it may read only what the parent allowed.
 *
 * Messages are lines of JSON: the parent writes to the child's stdin, the child to its
 * stdout (not Node's IPC channel: a message the parent cannot parse there kills the parent,
 * and sandboxed code can write to any of its own descriptors). The parent treats every line
 * as untrusted.
 * - child to parent `{ type: 'ready', loadMs }` once Pyodide is loaded, or
 *   `{ type: 'failed', message }` when it cannot load;
 * - parent to child `{ type: 'run', id, code, maxOutputChars }`;
 * - child to parent `{ type: 'output', id, stream, text }` while the code runs (standard
 *   output and error, in order, up to the cap), then `{ type: 'result', id, ok, stdoutOmitted,
 *   stderrOmitted, error? }`, where `error` is `{ type, message, traceback }` of a Python
 *   exception.
 *
 * @module
 */

interface RunMessage {
  type: 'run';
  id: number;
  code: string;
  maxOutputChars: number;
}

/** Python modules that reach JavaScript, refused to sandboxed code (second layer). */
const BRIDGE_MODULES = ['js', 'pyodide_js', 'pyodide.code', 'pyodide.ffi', 'pyodide.http', 'pyodide.webloop', 'pyodide.console', '_pyodide_core', 'pyodide_js._api', 'micropip'];

const CLOSE_BRIDGE = `
def _toolgate_close_bridge():
    import sys, importlib.abc
    blocked = frozenset(${JSON.stringify(BRIDGE_MODULES)})
    roots = ('js', 'pyodide_js', '_pyodide_core')
    class BridgeBlocker(importlib.abc.MetaPathFinder):
        def find_spec(self, name, path=None, target=None):
            if name in blocked or name.split('.')[0] in roots:
                raise ImportError(f"module {name!r} is not available in this sandbox")
            return None
    for name in list(sys.modules):
        if name in blocked or name.split('.')[0] in roots:
            sys.modules[name] = None
    sys.meta_path.insert(0, BridgeBlocker())
_toolgate_close_bridge()
del _toolgate_close_bridge
`;

/**
 * One stream of a run: forwards text to the parent as it is written, batching writes that come
 * faster than every 10 ms (up to 16 KiB), so what a killed run printed survives, all but at
 * most its last 10 ms. Text past the cap is counted, not sent.
 * Sends go out even while Python keeps the thread busy: libuv writes to the pipe at once.
 */
class CappedStream {
  private sent = 0;
  private buffer = '';
  private lastFlush = 0;
  omitted = 0;
  private readonly decoder = new TextDecoder();
  constructor(
    private readonly id: number,
    private readonly stream: 'stdout' | 'stderr',
    private readonly cap: number,
  ) {}

  write(bytes: Uint8Array): number {
    const chunk = this.decoder.decode(bytes, { stream: true });
    const room = this.cap - this.sent - this.buffer.length;
    if (room >= chunk.length) this.buffer += chunk;
    else {
      if (room > 0) this.buffer += chunk.slice(0, room);
      this.omitted += chunk.length - Math.max(room, 0);
    }
    if (this.buffer.length >= 16384 || Date.now() - this.lastFlush >= 10) this.flush();
    return bytes.length;
  }

  flush(): void {
    this.lastFlush = Date.now();
    if (this.buffer === '') return;
    send({ type: 'output', id: this.id, stream: this.stream, text: this.buffer });
    this.sent += this.buffer.length;
    this.buffer = '';
  }
}

const proc = process;
// Pipe writes are synchronous on Linux, so output reaches the parent even while Python keeps
// the thread busy.
const send = (message: unknown): void => {
  proc.stdout.write(`${JSON.stringify(message)}\n`);
};
// Pyodide's start-up asks for process.binding('constants'), which the permission model
// refuses; answer that one call with empty tables.
const realBinding = (proc as unknown as { binding(name: string): unknown }).binding;
(proc as unknown as { binding(name: string): unknown }).binding = (name: string) => {
  try {
    return realBinding.call(proc, name);
  } catch (error) {
    if (name === 'constants') return { fs: {}, os: { signals: {}, errno: {}, priority: {}, dlopen: {} }, crypto: {}, zlib: {}, trace: {} };
    throw error;
  }
};
// The parent going away closes stdin: leave with it (the launcher's parent-death signal
// covers the case where Python keeps the thread busy).
proc.stdin.on('end', () => proc.exit(0));

const pyodideDir = proc.argv[2];
let streams = { stdout: new CappedStream(0, 'stdout', 0), stderr: new CappedStream(0, 'stderr', 0) };

interface PyodideLike {
  runPythonAsync(code: string, options?: { filename?: string }): Promise<unknown>;
  runPython(code: string): unknown;
  setStdout(options: { write(bytes: Uint8Array): number }): void;
  setStderr(options: { write(bytes: Uint8Array): number }): void;
  setStdin(options: { error: boolean }): void;
}

async function load(): Promise<PyodideLike> {
  if (!pyodideDir) throw new Error('the Pyodide folder was not given');
  const started = Date.now();
  const { loadPyodide } = (await import(`file://${pyodideDir}/pyodide.mjs`)) as {
    loadPyodide(options: Record<string, unknown>): Promise<PyodideLike>;
  };
  const py = await loadPyodide({ indexURL: `${pyodideDir}/`, jsglobals: Object.create(null), env: { HOME: '/home/pyodide' }, checkAPIVersion: true });
  py.setStdout({ write: (bytes) => streams.stdout.write(bytes) });
  py.setStderr({ write: (bytes) => streams.stderr.write(bytes) });
  py.setStdin({ error: true });
  py.runPython(CLOSE_BRIDGE);
  const scope = globalThis as Record<string, unknown>;
  for (const name of ['process', 'fetch', 'WebSocket', 'EventSource', 'XMLHttpRequest', 'require', 'module']) delete scope[name];
  send({ type: 'ready', loadMs: Date.now() - started });
  return py;
}

/** Split Pyodide's error text into the Python traceback of the user's code. */
function describeError(error: unknown): { type: string; message: string; traceback: string } {
  const raw = error instanceof Error ? error.message : String(error);
  const lines = raw.split('\n');
  // Keep the frames from the user's code on: Pyodide's own frames come first.
  const first = lines.findIndex((line) => line.includes('File "<code>"'));
  const kept = first === -1 ? lines : ['Traceback (most recent call last):', ...lines.slice(first)];
  const traceback = kept.join('\n').trimEnd();
  const last = kept.filter((line) => line.trim() !== '').at(-1) ?? raw;
  const match = /^([A-Za-z_][\w.]*)(?::\s?(.*))?$/.exec(last);
  const type = (error as { type?: unknown })?.type;
  return {
    type: typeof type === 'string' ? type : match?.[1] ?? 'Error',
    message: match ? match[2] ?? '' : last,
    traceback,
  };
}

const ready = load();
ready.catch((error: unknown) => {
  send({ type: 'failed', message: error instanceof Error ? error.message : String(error) });
  setTimeout(() => proc.exit(1), 50);
});

/** Python run after each call: flush what print() buffered, and stop tasks left running. */
const AFTER_RUN = `
import sys, asyncio
for _s in (sys.stdout, sys.stderr):
    try:
        _s.flush()
    except Exception:
        pass
try:
    for _t in asyncio.all_tasks():
        _t.cancel()
except Exception:
    pass
del _s
`;

/** Cut a text to `max` characters, saying so. */
function cap(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)}\n[... ${text.length - max} more characters cut]`;
}

// One run at a time, in arrival order.
let queue: Promise<unknown> = Promise.resolve();
let pendingInput = '';

function handle(message: RunMessage): void {
  queue = queue.then(() =>
    ready.then(async (py) => {
      streams = { stdout: new CappedStream(message.id, 'stdout', message.maxOutputChars), stderr: new CappedStream(message.id, 'stderr', message.maxOutputChars) };
      let error: ReturnType<typeof describeError> | undefined;
      try {
        await py.runPythonAsync(message.code, { filename: '<code>' });
      } catch (thrown) {
        error = describeError(thrown);
        error.message = cap(error.message, 2000);
        error.traceback = cap(error.traceback, message.maxOutputChars);
      }
      try {
        py.runPython(AFTER_RUN);
      } catch {
        // the code broke sys or asyncio: its own problem
      }
      streams.stdout.flush();
      streams.stderr.flush();
      send({ type: 'result', id: message.id, ok: error === undefined, stdoutOmitted: streams.stdout.omitted, stderrOmitted: streams.stderr.omitted, error });
    }),
  ).catch(() => undefined);
}

proc.stdin.setEncoding('utf8');
proc.stdin.on('data', (chunk: string) => {
  pendingInput += chunk;
  let newline = pendingInput.indexOf('\n');
  while (newline !== -1) {
    const line = pendingInput.slice(0, newline);
    pendingInput = pendingInput.slice(newline + 1);
    newline = pendingInput.indexOf('\n');
    let message: RunMessage | undefined;
    try {
      message = JSON.parse(line) as RunMessage;
    } catch {
      continue;
    }
    if (message?.type === 'run') handle(message);
  }
});
