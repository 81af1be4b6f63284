/**
 * The inspect/ tools of the ported library (issue 4): read_lines, file_info, tree,
 * grep_files, find_files, diff_files, hash_file and detect_file_type, through the library: the
 * ported registry, a real ToolExecutor (worker pool), and a temporary workspace laid out as
 * `/tmp/x/proj` with siblings `proj-evil`, `proj_backup` and `outside/sentinel.txt`.
 *
 * Case ids refer to the security checklist (P1, P2, P4, P5: paths) and the tool-call cases
 * (T5: a line range whose end is before its start).
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Worker } from 'node:worker_threads';
import { ToolExecutor, type ToolExecutionResult, type ToolRegistry } from 'toolgate';
import { callsTo, portedRegistry, runCli, tempWorkspace, assertTraversal, assertOutsideUnchanged } from '../helpers.js';
import { waitFor } from '../wait.js';

const INSPECT_TOOLS = ['detect_file_type', 'diff_files', 'file_info', 'find_files', 'grep_files', 'hash_file', 'read_lines', 'tree'];

let tmp: ReturnType<typeof tempWorkspace>;
let ws: string;
let registry: ToolRegistry;
let executor: ToolExecutor;

/** Write a file inside the workspace (test set-up, not through a tool). */
function put(rel: string, content: string | Buffer): string {
  const file = path.join(ws, rel);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, content);
  return file;
}

before(async () => {
  tmp = tempWorkspace();
  ws = tmp.ws;
  registry = await portedRegistry();
  executor = new ToolExecutor(registry, { workspaceRoot: ws });

  // A small project for tree, grep_files and find_files.
  put('proj/README.md', '# Demo\nTODO: write docs\n');
  put('proj/src/main.ts', 'import { helper } from "./util.js";\n// TODO: remove\nexport function main() {\n  return helper(1);\n}\n');
  put('proj/src/util.ts', 'export function helper(n: number) {\n  return n + 1; // todo later\n}\n');
  put('proj/src/deep/er/leaf.ts', 'export const leaf = "TODO deep";\n');
  put('proj/dist/main.js', 'function main() { /* TODO: built */ }\n');
  put('proj/node_modules/lib/index.js', 'module.exports = "TODO in a dependency";\n');
  put('proj/.git/config', '[core] TODO in git\n');
  put('proj/logo.png', Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d, 0x49, 0x48, 0x44, 0x52, 0x54, 0x4f, 0x44, 0x4f]));
  // Links inside the workspace: to a folder outside, to the sentinel, and to a file inside.
  fs.symlinkSync(tmp.outside, path.join(ws, 'proj/link-outside'));
  fs.symlinkSync(tmp.sentinel, path.join(ws, 'proj/sentinel-link.txt'));
  fs.symlinkSync('README.md', path.join(ws, 'proj/readme-link.md'));
});

after(async () => {
  await executor?.close();
  tmp?.cleanup();
});

const call = callsTo(() => executor);

/** Assert a successful call and return its output. */
async function ok(name: string, args: Record<string, unknown>): Promise<string> {
  const result = await call(name, args);
  assert.equal(result.success, true, `${name} ${JSON.stringify(args)} failed: ${result.output}`);
  assert.equal(result.tool, name);
  assert.equal(result.version, '1.0.0');
  return result.output;
}

/** Assert a failed call with `code` whose error matches `pattern`. */
async function fails(name: string, args: Record<string, unknown>, code: string, pattern: RegExp): Promise<ToolExecutionResult> {
  const result = await call(name, args);
  assert.equal(result.success, false, `${name} ${JSON.stringify(args)} should fail; got: ${result.output}`);
  assert.equal(result.errorCode, code, `${name}: error code (${result.error})`);
  assert.match(result.error ?? '', pattern);
  return result;
}

function assertNoSentinel(output: string, label: string): void {
  assert.ok(!output.includes('SENTINEL'), `${label}: output shows content from outside the workspace:\n${output}`);
  assert.ok(!output.includes('sentinel.txt'), `${label}: output shows a name from outside the workspace:\n${output}`);
}

describe('the inspect category', () => {
  test('eight read-only tools tagged inspect and ported, version 1.0.0, with sensible timeouts', () => {
    const tools = registry.list().filter((t) => t.tags.includes('inspect'));
    assert.deepEqual(tools.map((t) => t.name).sort(), INSPECT_TOOLS);
    for (const t of tools) {
      assert.deepEqual([...t.tags].sort(), ['inspect', 'ported'], t.name);
      assert.equal(t.version, '1.0.0', t.name);
      assert.equal(t.readOnly, true, `${t.name} is read-only`);
      assert.equal(t.requiresConfirmation, false, t.name);
      assert.ok(t.timeoutMs > 0 && t.timeoutMs <= 120_000, `${t.name}: timeout ${t.timeoutMs}`);
    }
    const grep = registry.get('grep_files')!;
    assert.equal(grep.timeoutMs, 30_000, 'grep_files: a pathological pattern is stopped after 30 s');
    assert.equal(grep.runner, 'pool', 'grep_files must run in the worker pool, whose timeout terminates the worker');
  });

  test('every path argument is marked @format workspace-path', () => {
    const pathArgs: Record<string, string[]> = {
      read_lines: ['filepath'], file_info: ['filepath'], tree: ['directory'], grep_files: ['directory'], find_files: ['directory'],
      diff_files: ['new_filepath', 'old_filepath'], hash_file: ['filepath'], detect_file_type: ['filepath'],
    };
    for (const [name, args] of Object.entries(pathArgs)) {
      const props = registry.get(name)!.inputSchema.properties as Record<string, { format?: string }>;
      const marked = Object.entries(props).filter(([, p]) => p.format === 'workspace-path').map(([k]) => k).sort();
      assert.deepEqual(marked, args, name);
    }
  });

  test('toolgate list --tag inspect lists the category', async () => {
    const run = await runCli(['list', '--tag', 'inspect']);
    assert.equal(run.code, 0, run.stderr);
    const rows = run.stdout.trimEnd().split('\n').slice(1).map((l) => l.split(/\s+/).slice(0, 7));
    assert.deepEqual(rows, INSPECT_TOOLS.map((name) => [name, '1.0.0', 'file_read', 'read', 'no', '-', 'inspect,ported']));
  });
});

describe('read_lines', () => {
  before(() => {
    put('lines/ten.txt', `${Array.from({ length: 10 }, (_, i) => `line ${i + 1}`).join('\n')}\n`);
    put('lines/crlf.txt', 'one\r\ntwo\r\nthree');
  });

  test('returns the range with 1-based line numbers, padded to the widest', async () => {
    assert.equal(await ok('read_lines', { filepath: 'lines/ten.txt', start_line: 9, end_line: 10 }), ' 9 | line 9\n10 | line 10');
    assert.equal(await ok('read_lines', { filepath: 'lines/ten.txt', start_line: 2, end_line: 3 }), '2 | line 2\n3 | line 3');
    assert.equal(await ok('read_lines', { filepath: 'lines/ten.txt', start_line: 4, end_line: 4 }), '4 | line 4');
  });

  test('start_line alone reads to the end; no arguments read the whole file; CRLF endings are not shown', async () => {
    assert.equal(await ok('read_lines', { filepath: 'lines/ten.txt', start_line: 8 }), ' 8 | line 8\n 9 | line 9\n10 | line 10');
    assert.equal((await ok('read_lines', { filepath: 'lines/ten.txt' })).split('\n').length, 10);
    assert.equal(await ok('read_lines', { filepath: 'lines/crlf.txt' }), '1 | one\n2 | two\n3 | three');
  });

  test('an end_line past the end stops at the last line and says how long the file is', async () => {
    const result = await call('read_lines', { filepath: 'lines/ten.txt', start_line: 9, end_line: 50 });
    assert.equal(result.success, true, result.output);
    assert.equal(result.output, ' 9 | line 9\n10 | line 10\n[read_lines: lines/ten.txt has 10 lines; showed lines 9-10]');
  });

  test('T5: end_line before start_line is a clear INVALID_ARGUMENTS error', async () => {
    await fails('read_lines', { filepath: 'lines/ten.txt', start_line: 5, end_line: 3 }, 'INVALID_ARGUMENTS', /end_line \(3\) is before start_line \(5\)/);
  });

  test('a start_line past the end, and line 0, are errors', async () => {
    await fails('read_lines', { filepath: 'lines/ten.txt', start_line: 11 }, 'TOOL_ERROR', /start_line 11 is past the end of lines\/ten\.txt, which has 10 lines/);
    await fails('read_lines', { filepath: 'lines/ten.txt', start_line: 0 }, 'INVALID_ARGUMENTS', /start_line/);
    put('lines/empty.txt', '');
    await fails('read_lines', { filepath: 'lines/empty.txt' }, 'TOOL_ERROR', /is empty/);
  });

  test('missing files, folders, binary files and FIFOs are refused', async () => {
    await fails('read_lines', { filepath: 'lines/none.txt' }, 'TOOL_ERROR', /does not exist/);
    await fails('read_lines', { filepath: 'lines' }, 'TOOL_ERROR', /is a folder/);
    await fails('read_lines', { filepath: 'proj/logo.png' }, 'TOOL_ERROR', /looks like a binary file/);
    execFileSync('mkfifo', [path.join(ws, 'lines/fifo')]);
    await fails('read_lines', { filepath: 'lines/fifo' }, 'TOOL_ERROR', /not a regular file/);
  });

  test('a long range stops within the output limit and says where to continue', async () => {
    put('lines/long.txt', `${Array.from({ length: 5000 }, (_, i) => `row ${i + 1} ${'x'.repeat(30)}`).join('\n')}\n`);
    const result = await call('read_lines', { filepath: 'lines/long.txt', start_line: 100 });
    assert.equal(result.success, true, result.output);
    assert.equal(result.fullOutput, undefined, 'the tool stopped on its own; nothing was cut by the executor');
    const match = /\[read_lines: showed lines 100-(\d+) to stay within the output limit; call again with start_line (\d+) for more\]$/.exec(result.output);
    assert.ok(match, result.output.slice(-300));
    assert.equal(Number(match[2]), Number(match[1]) + 1);
    assert.ok(result.output.startsWith('100 | row 100 x'), result.output.slice(0, 80));
  });
});

describe('file_info', () => {
  test('a text file: type, size, permissions, times and line count', async () => {
    const file = put('info/notes.txt', 'a\nb\nc');
    fs.chmodSync(file, 0o640);
    const info = JSON.parse(await ok('file_info', { filepath: 'info/notes.txt' }));
    const stat = fs.statSync(file);
    assert.equal(info.filepath, 'info/notes.txt');
    assert.equal(info.type, 'file');
    assert.equal(info.size_bytes, 5);
    assert.equal(info.permissions, '0640');
    assert.equal(info.permissions_text, 'rw-r-----');
    assert.equal(info.modified, stat.mtime.toISOString());
    for (const key of ['accessed', 'changed']) assert.ok(!Number.isNaN(Date.parse(info[key])), key);
    assert.equal(info.text, true);
    assert.equal(info.line_count, 3, 'a last line without a newline still counts');
    assert.equal(info.link_target, undefined);
  });

  test('a binary file has no line count; a folder counts its entries; a link says its target', async () => {
    const png = JSON.parse(await ok('file_info', { filepath: 'proj/logo.png' }));
    assert.equal(png.text, false);
    assert.equal(png.line_count, undefined);
    const dir = JSON.parse(await ok('file_info', { filepath: 'proj/src' }));
    assert.equal(dir.type, 'directory');
    assert.equal(dir.entries, 3);
    const link = JSON.parse(await ok('file_info', { filepath: 'proj/readme-link.md' }));
    assert.equal(link.link_target, 'README.md');
    assert.equal(link.filepath, 'proj/README.md');
    assert.equal(link.line_count, 2);
    const root = JSON.parse(await ok('file_info', { filepath: '.' }));
    assert.equal(root.type, 'directory');
    assert.equal(root.filepath, '.');
  });

  test('a FIFO is described without being opened', async () => {
    execFileSync('mkfifo', [path.join(ws, 'info-fifo')]);
    const info = JSON.parse(await ok('file_info', { filepath: 'info-fifo' }));
    assert.equal(info.type, 'fifo');
    assert.equal(info.line_count, undefined);
  });

  test('a missing path is an error', async () => {
    await fails('file_info', { filepath: 'info/none.txt' }, 'TOOL_ERROR', /info\/none\.txt does not exist/);
  });
});

describe('tree', () => {
  test('shows the layout, links without following them, and .git/node_modules unopened', async () => {
    const output = await ok('tree', { directory: 'proj' });
    assert.equal(
      output,
      [
        'proj/',
        '├── .git/ (not opened; include_ignored: true opens it)',
        '├── README.md',
        '├── dist/',
        '│   └── main.js',
        '├── link-outside -> ' + tmp.outside,
        '├── logo.png',
        '├── node_modules/ (not opened; include_ignored: true opens it)',
        '├── readme-link.md -> README.md',
        '├── sentinel-link.txt -> ' + tmp.sentinel,
        '└── src/',
        '    ├── deep/',
        '    │   └── er/ (1 entry below max_depth)',
        '    ├── main.ts',
        '    └── util.ts',
        '',
        '6 folders, 5 files, 3 links shown; 1 folder not opened below max_depth 3; .git and node_modules not opened.',
      ].join('\n'),
    );
    assertNoSentinel(output.replace(tmp.sentinel, ''), 'tree');
  });

  test('max_depth and max_entries bound the tree, with a count of what was left out', async () => {
    const shallow = await ok('tree', { directory: 'proj', max_depth: 1 });
    assert.match(shallow, /^└── src\/ \(3 entries below max_depth\)$/m);
    assert.ok(!shallow.includes('main.ts'));
    const few = await ok('tree', { directory: 'proj', max_entries: 4 });
    assert.equal(
      few,
      [
        'proj/',
        '├── .git/ (not opened; include_ignored: true opens it)',
        '├── README.md',
        '├── dist/',
        '│   └── ... 1 more entry',
        `├── link-outside -> ${tmp.outside}`,
        '└── ... 5 more entries',
        '',
        '2 folders, 1 file, 1 link shown; 6 entries left out (max_entries 4; raise it or show a subfolder); .git and node_modules not opened.',
      ].join('\n'),
    );
  });

  test('include_ignored opens .git and node_modules', async () => {
    const output = await ok('tree', { directory: 'proj', include_ignored: true, max_depth: 2 });
    assert.match(output, /^│   └── config$/m);
    assert.match(output, /^│   └── lib\/ \(1 entry below max_depth\)$/m);
  });

  test('a file or a missing folder is an error', async () => {
    await fails('tree', { directory: 'proj/README.md' }, 'TOOL_ERROR', /is not a folder/);
    await fails('tree', { directory: 'proj/none' }, 'TOOL_ERROR', /does not exist/);
  });

  test('P2: a link to a folder outside is refused as directory, and never opened inside a tree', async () => {
    await assertTraversal(call('tree', { directory: 'proj/link-outside' }), 'tree proj/link-outside');
    const deep = await ok('tree', { directory: 'proj', max_depth: 20, include_ignored: true });
    assert.match(deep, /^7 folders, 8 files, 3 links shown\.$/m);
    assert.ok(!/── sentinel\.txt$/m.test(deep), `a tree must not show what is behind a link:\n${deep}`);
  });
});

describe('grep_files', () => {
  test('shows path:line:text for each match, sorted by path, with a summary', async () => {
    const output = await ok('grep_files', { pattern: 'TODO', directory: 'proj' });
    assert.equal(
      output,
      [
        'proj/README.md:2:TODO: write docs',
        'proj/dist/main.js:1:function main() { /* TODO: built */ }',
        'proj/src/deep/er/leaf.ts:1:export const leaf = "TODO deep";',
        'proj/src/main.ts:2:// TODO: remove',
        '',
        '4 matches in 4 files (5 files searched, 1 binary skipped).',
      ].join('\n'),
    );
  });

  test('include, exclude and case_insensitive narrow or widen the search', async () => {
    const ts = await ok('grep_files', { pattern: 'TODO', directory: 'proj', include: '*.ts' });
    assert.deepEqual(ts.split('\n').filter((l) => l.includes(':')).map((l) => l.split(':')[0]), ['proj/src/deep/er/leaf.ts', 'proj/src/main.ts']);
    const noDeep = await ok('grep_files', { pattern: 'todo', directory: 'proj', include: ['src/**'], exclude: 'deep', case_insensitive: true });
    assert.equal(noDeep.split('\n')[0], 'proj/src/main.ts:2:// TODO: remove');
    assert.equal(noDeep.split('\n')[1], 'proj/src/util.ts:2:  return n + 1; // todo later');
    assert.match(noDeep, /2 matches in 2 files \(2 files searched\)\.$/);
    const ignored = await ok('grep_files', { pattern: 'TODO in', directory: 'proj', include_ignored: true });
    assert.match(ignored, /^proj\/\.git\/config:1:/m);
    assert.match(ignored, /^proj\/node_modules\/lib\/index\.js:1:/m);
  });

  test('context_lines shows the lines around each match and separates groups with --', async () => {
    put('ctx/a.txt', ['one', 'two', 'MATCH three', 'four', 'five', 'six', 'seven', 'MATCH eight', 'nine'].join('\n'));
    const output = await ok('grep_files', { pattern: 'MATCH', directory: 'ctx', context_lines: 1 });
    assert.equal(output, ['ctx/a.txt-2-two', 'ctx/a.txt:3:MATCH three', 'ctx/a.txt-4-four', '--', 'ctx/a.txt-7-seven', 'ctx/a.txt:8:MATCH eight', 'ctx/a.txt-9-nine', '', '2 matches in 1 file (1 file searched).'].join('\n'));
    const joined = await ok('grep_files', { pattern: 'MATCH', directory: 'ctx', context_lines: 3 });
    assert.ok(!joined.includes('--'), 'overlapping context is one group');
    assert.equal(joined.split('\n').filter((l) => l.startsWith('ctx/')).length, 9, joined);
  });

  test('a single file as directory, no matches, and max_matches', async () => {
    assert.equal(await ok('grep_files', { pattern: 'helper', directory: 'proj/src/util.ts' }), 'proj/src/util.ts:1:export function helper(n: number) {\n\n1 match in 1 file (1 file searched).');
    assert.equal(await ok('grep_files', { pattern: 'nowhere', directory: 'proj' }), 'No matches for /nowhere/ in proj/ (5 files searched, 1 binary skipped).');
    put('many/m.txt', Array.from({ length: 50 }, (_, i) => `hit ${i}`).join('\n'));
    const result = await call('grep_files', { pattern: 'hit', directory: 'many', max_matches: 3 });
    assert.equal(result.success, true);
    assert.equal(result.output, 'many/m.txt:1:hit 0\nmany/m.txt:2:hit 1\nmany/m.txt:3:hit 2\n\n3 matches in 1 file (1 file searched, stopped early).\n[grep_files: stopped at max_matches 3; narrow the pattern, include or directory, or raise max_matches]');
  });

  test('long lines are shown as a window around the match', async () => {
    put('longline/l.txt', `${'a'.repeat(5000)}NEEDLE${'b'.repeat(5000)}\n`);
    const output = await ok('grep_files', { pattern: 'NEEDLE', directory: 'longline' });
    const line = output.split('\n')[0]!;
    assert.ok(line.length < 600, `line shown is ${line.length} characters`);
    assert.match(line, /^longline\/l\.txt:1:\[4900 characters\]\.\.\.a+NEEDLEb+\.\.\.\[\d+ characters\]$/);
  });

  test('an invalid regular expression or a glob leaving the folder is a clear error', async () => {
    await fails('grep_files', { pattern: '(unclosed', directory: 'proj' }, 'INVALID_ARGUMENTS', /not a valid regular expression/);
    await fails('grep_files', { pattern: '', directory: 'proj' }, 'INVALID_ARGUMENTS', /pattern is empty/);
    await fails('grep_files', { pattern: 'x', directory: 'proj', include: '../*' }, 'TOOL_ERROR', /must be a relative glob that stays inside the folder/);
    await fails('grep_files', { pattern: 'x', directory: 'proj', include: '..{,}/*' }, 'TOOL_ERROR', /must (be a relative glob that )?stay inside the folder/);
    await fails('grep_files', { pattern: 'x', directory: 'proj', include: '{a,b}{c,d}{e,f}{g,h}{i,j}{k,l}{m,n}{o,p}{q,r}' }, 'TOOL_ERROR', /expands to more than 256 alternatives/);
    await fails('grep_files', { pattern: 'x', directory: 'proj/none' }, 'TOOL_ERROR', /does not exist/);
  });

  test('P2: links are not followed: nothing of the sentinel is found through a link to it or to its folder', async () => {
    const output = await ok('grep_files', { pattern: 'SENTINEL', directory: 'proj', include_ignored: true });
    assert.match(output, /^No matches/);
    const all = await ok('grep_files', { pattern: '.', directory: '.', include_ignored: true, max_matches: 1000 });
    assertNoSentinel(all, 'grep_files over the workspace');
    await assertTraversal(call('grep_files', { pattern: 'SENTINEL', directory: 'proj/link-outside' }), 'grep_files proj/link-outside');
    await assertTraversal(call('grep_files', { pattern: 'SENTINEL', directory: 'proj/sentinel-link.txt' }), 'grep_files proj/sentinel-link.txt');
    await assertTraversal(call('grep_files', { pattern: 'x', directory: 'proj', include: 'link-outside/*' }), 'grep_files include link-outside/*');
  });

  test('a pathological pattern is stopped by the timeout, the host stays responsive, and the next call works', async () => {
    put('redos/long.txt', `${'a'.repeat(5000)}!\n`);
    // The worker threads started from here on (its executor's), as they end: its pool keeps
    // them for good (no idle timeout), so one ends only when it is terminated or crashes.
    const exited: number[] = [];
    const onWorker = (worker: Worker): void => {
      const id = worker.threadId;
      worker.once('exit', () => exited.push(id));
    };
    process.on('worker', onWorker);
    // Its own executor: one call per worker, so that the concurrent call gets the other worker.
    const own = new ToolExecutor(registry, { workspaceRoot: ws, poolSize: 2, callsPerWorker: 1 });
    const callOwn = callsTo(() => own);
    try {
      await Promise.all([callOwn('read_file', { filepath: 'proj/README.md' }, {}), callOwn('read_file', { filepath: 'proj/README.md' }, {})]);
      const exitedBefore = exited.length;
      let grepDone = false;
      const grep = callOwn('grep_files', { pattern: '(a+)+$', directory: 'redos' }, { timeoutMs: 3000 }).finally(() => (grepDone = true));
      // The other worker answers while the pattern runs: the host's event loop and its pool go on.
      const meanwhile = await callOwn('read_file', { filepath: 'proj/README.md' }, {});
      const meanwhileDoneBeforeGrep = !grepDone;
      const result = await grep;

      assert.equal(result.success, false, result.output);
      assert.equal(result.errorCode, 'TIMEOUT');
      assert.equal(result.stopReason, 'timeout');
      assert.match(result.error ?? '', /grep_files timed out after 3 s/);
      assert.equal(meanwhile.success, true, meanwhile.output);
      assert.equal(meanwhile.output, '# Demo\nTODO: write docs\n');
      assert.ok(meanwhileDoneBeforeGrep, 'another call completed while the pattern was still running');
      // The worker running the pattern was terminated, not left spinning: its thread ended.
      await waitFor(() => exited.length > exitedBefore, { what: 'the worker thread that ran the pattern to end' });

      const next = await callOwn('grep_files', { pattern: 'a!$', directory: 'redos' }, {});
      assert.equal(next.success, true, next.output);
      assert.match(next.output, /^redos\/long\.txt:1:/);
    } finally {
      process.off('worker', onWorker);
      await own.close();
    }
  });
});

describe('find_files', () => {
  test('finds files by name at any depth, sorted, skipping .git and node_modules', async () => {
    assert.equal(await ok('find_files', { pattern: '*.ts', directory: 'proj' }), 'proj/src/deep/er/leaf.ts\nproj/src/main.ts\nproj/src/util.ts');
    assert.equal(await ok('find_files', { pattern: '*.js', directory: 'proj' }), 'proj/dist/main.js');
    assert.equal(await ok('find_files', { pattern: '*.js', directory: 'proj', include_ignored: true }), 'proj/dist/main.js\nproj/node_modules/lib/index.js');
    assert.equal(await ok('find_files', { pattern: 'src/*.ts', directory: 'proj' }), 'proj/src/main.ts\nproj/src/util.ts');
    assert.equal(await ok('find_files', { pattern: '{README,logo}.*', directory: 'proj' }), 'proj/README.md\nproj/logo.png');
  });

  test('exclude, type and max_results', async () => {
    assert.equal(await ok('find_files', { pattern: '*.ts', directory: 'proj', exclude: ['deep', 'util.ts'] }), 'proj/src/main.ts');
    assert.equal(await ok('find_files', { pattern: '*', directory: 'proj/src', type: 'directory' }), 'proj/src/deep/\nproj/src/deep/er/');
    const any = await ok('find_files', { pattern: '*link*', directory: 'proj', type: 'any' });
    assert.equal(any, `proj/link-outside -> ${tmp.outside}\nproj/readme-link.md -> README.md\nproj/sentinel-link.txt -> ${tmp.sentinel}`);
    assert.equal(await ok('find_files', { pattern: '*link*', directory: 'proj' }), 'No files match "*link*" in proj/.', 'links are not files');
    assert.equal(await ok('find_files', { pattern: '*.ts', directory: 'proj', max_results: 2 }), 'proj/src/deep/er/leaf.ts\nproj/src/main.ts\n... 1 more (3 files match; narrow the pattern or directory, or raise max_results)');
  });

  test('bad globs and folders are clear errors', async () => {
    await fails('find_files', { pattern: '../*', directory: 'proj' }, 'TOOL_ERROR', /must be a relative glob that stays inside the folder/);
    await fails('find_files', { pattern: '/etc/*' }, 'TOOL_ERROR', /must be a relative glob/);
    await fails('find_files', { pattern: ' ' }, 'TOOL_ERROR', /^find_files failed: pattern glob " " is empty/);
    await fails('find_files', { pattern: '*', directory: 'proj/README.md' }, 'TOOL_ERROR', /is not a folder/);
    await fails('find_files', { pattern: '*', type: 'link' }, 'INVALID_ARGUMENTS', /type/);
  });

  test('P2: a link to a folder outside is not followed, and refused as directory or glob start', async () => {
    const all = await ok('find_files', { pattern: '*', directory: '.', type: 'any', include_ignored: true, max_results: 1000 });
    assert.ok(!all.split('\n').some((l) => l.startsWith('proj/link-outside/')), all);
    assert.ok(!all.includes(`outside/sentinel.txt`) || all.includes(`-> ${tmp.sentinel}`), all);
    assert.equal(await ok('find_files', { pattern: 'sentinel*', directory: 'proj' }), 'No files match "sentinel*" in proj/.');
    await assertTraversal(call('find_files', { pattern: '*', directory: 'proj/link-outside' }), 'find_files proj/link-outside');
    await assertTraversal(call('find_files', { pattern: 'link-outside/*', directory: 'proj' }), 'find_files link-outside/*');
  });
});

describe('diff_files', () => {
  before(() => {
    put('diff/old.txt', 'alpha\nbeta\ngamma\ndelta\n');
    put('diff/new.txt', 'alpha\nBETA\ngamma\ndelta\nepsilon');
    put('diff/spaces.txt', 'alpha\nbeta  \ngamma\n\tdelta\n');
  });

  test('a unified diff with the workspace paths in its headers', async () => {
    assert.equal(
      await ok('diff_files', { old_filepath: 'diff/old.txt', new_filepath: 'diff/new.txt' }),
      ['--- diff/old.txt', '+++ diff/new.txt', '@@ -1,4 +1,5 @@', ' alpha', '-beta', '+BETA', ' gamma', ' delta', '+epsilon', '\\ No newline at end of file'].join('\n'),
    );
    assert.equal(
      await ok('diff_files', { old_filepath: 'diff/old.txt', new_filepath: 'diff/new.txt', context_lines: 0 }),
      ['--- diff/old.txt', '+++ diff/new.txt', '@@ -2,1 +2,1 @@', '-beta', '+BETA', '@@ -4,0 +5,1 @@', '+epsilon', '\\ No newline at end of file'].join('\n'),
    );
  });

  test('identical files, and whitespace-only differences with ignore_whitespace', async () => {
    assert.equal(await ok('diff_files', { old_filepath: 'diff/old.txt', new_filepath: 'diff/old.txt' }), 'No differences: diff/old.txt and diff/old.txt are identical.');
    assert.match(await ok('diff_files', { old_filepath: 'diff/old.txt', new_filepath: 'diff/spaces.txt' }), /^-beta\n\+beta {2}$/m);
    assert.equal(await ok('diff_files', { old_filepath: 'diff/old.txt', new_filepath: 'diff/spaces.txt', ignore_whitespace: true }), 'No differences: diff/old.txt and diff/spaces.txt differ only in whitespace.');
  });

  test('missing, binary and oversized files are refused', async () => {
    await fails('diff_files', { old_filepath: 'diff/none.txt', new_filepath: 'diff/new.txt' }, 'TOOL_ERROR', /diff\/none\.txt does not exist/);
    await fails('diff_files', { old_filepath: 'diff/old.txt', new_filepath: 'proj/logo.png' }, 'TOOL_ERROR', /new_filepath proj\/logo\.png looks like a binary file \(it contains NUL bytes\); use hash_file/);
    const big = put('diff/big.txt', '');
    fs.truncateSync(big, 4 * 1024 * 1024 + 1);
    await fails('diff_files', { old_filepath: 'diff/big.txt', new_filepath: 'diff/old.txt' }, 'TOOL_ERROR', /old_filepath diff\/big\.txt is 4194305 bytes; diff_files compares files up to 4194304 bytes/);
    await fails('diff_files', { old_filepath: 'diff', new_filepath: 'diff/old.txt' }, 'TOOL_ERROR', /is a folder/);
  });
});

describe('hash_file', () => {
  test('sha256 by default, and sha1, md5 and sha512 on request, streaming a file larger than one chunk', async () => {
    const content = crypto.randomBytes(3 * 1024 * 1024 + 123);
    put('hash/blob.bin', content);
    const expect = (algorithm: string) => crypto.createHash(algorithm).update(content).digest('hex');
    assert.deepEqual(JSON.parse(await ok('hash_file', { filepath: 'hash/blob.bin' })), { filepath: 'hash/blob.bin', algorithm: 'sha256', digest: expect('sha256'), size_bytes: content.length });
    for (const algorithm of ['sha1', 'md5', 'sha512']) {
      const out = JSON.parse(await ok('hash_file', { filepath: 'hash/blob.bin', algorithm }));
      assert.equal(out.digest, expect(algorithm), algorithm);
      assert.equal(out.algorithm, algorithm);
    }
    put('hash/empty', '');
    assert.equal(JSON.parse(await ok('hash_file', { filepath: 'hash/empty' })).digest, 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
  });

  test('an unknown algorithm, a folder, a missing file and a FIFO are refused', async () => {
    await fails('hash_file', { filepath: 'hash/blob.bin', algorithm: 'crc32' }, 'INVALID_ARGUMENTS', /algorithm/);
    await fails('hash_file', { filepath: 'hash' }, 'TOOL_ERROR', /is a folder/);
    await fails('hash_file', { filepath: 'hash/none' }, 'TOOL_ERROR', /does not exist/);
    execFileSync('mkfifo', [path.join(ws, 'hash/fifo')]);
    await fails('hash_file', { filepath: 'hash/fifo' }, 'TOOL_ERROR', /not a regular file/);
  });
});

describe('detect_file_type', () => {
  const detect = async (filepath: string) => JSON.parse(await ok('detect_file_type', { filepath })) as Record<string, unknown>;

  test('binary by magic number, with the MIME type of the content and of the extension', async () => {
    const png = await detect('proj/logo.png');
    assert.equal(png.kind, 'binary');
    assert.equal(png.mime, 'image/png');
    assert.equal(png.mime_from_content, 'image/png');
    assert.equal(png.extension_from_content, 'png');
    assert.equal(png.mime_from_extension, 'image/png');
    assert.equal(png.encoding, undefined);
    put('type/noise.dat', Buffer.from(Array.from({ length: 2000 }, (_, i) => (i * 7919) % 256)));
    const noise = await detect('type/noise.dat');
    assert.equal(noise.kind, 'binary');
    assert.equal(noise.mime, 'application/octet-stream');
  });

  test('text: UTF-8, ASCII, Latin-1 (chardet), UTF-16 with a byte-order mark, line endings', async () => {
    put('type/utf8.md', '# Café ✓\nsecond\n');
    assert.deepEqual(await detect('type/utf8.md'), {
      filepath: 'type/utf8.md', kind: 'text', mime: 'text/markdown', encoding: 'UTF-8', encoding_confidence: 100, bom: false, line_endings: 'lf',
      mime_from_extension: 'text/markdown', size_bytes: Buffer.byteLength('# Café ✓\nsecond\n'), sampled_bytes: Buffer.byteLength('# Café ✓\nsecond\n'),
    });
    put('type/plain.json', '{"a": 1}\r\n');
    const json = await detect('type/plain.json');
    assert.deepEqual([json.kind, json.mime, json.encoding, json.line_endings], ['text', 'application/json', 'ASCII', 'crlf']);
    put('type/latin1.txt', Buffer.from('Le café crème brûlée à la française, déjà vu, naïve garçon.\n', 'latin1'));
    const latin = await detect('type/latin1.txt');
    assert.equal(latin.kind, 'text');
    assert.match(String(latin.encoding), /^(ISO-8859-1|windows-1252)$/);
    assert.ok(Number(latin.encoding_confidence) > 0 && Number(latin.encoding_confidence) < 100);
    put('type/utf16.txt', Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('hi\nthere\n', 'utf16le')]));
    const wide = await detect('type/utf16.txt');
    assert.deepEqual([wide.kind, wide.mime, wide.encoding, wide.bom, wide.line_endings], ['text', 'text/plain', 'UTF-16LE', true, 'lf']);
    put('type/code.ts', 'export const x = 1;\n');
    const ts = await detect('type/code.ts');
    assert.deepEqual([ts.kind, ts.mime], ['text', 'text/plain'], 'a text file whose extension maps to a binary type is still text');
    put('type/empty.txt', '');
    assert.deepEqual([(await detect('type/empty.txt')).kind, (await detect('type/empty.txt')).mime], ['empty', 'inode/x-empty']);
  });

  test('a missing file and a folder are refused', async () => {
    await fails('detect_file_type', { filepath: 'type/none' }, 'TOOL_ERROR', /does not exist/);
    await fails('detect_file_type', { filepath: 'type' }, 'TOOL_ERROR', /is a folder/);
  });
});

describe('paths outside the workspace, for every inspect tool and path argument', () => {
  /** Arguments of a call of `name` whose path argument `arg` is `value`. */
  const cases: Array<{ name: string; arg: string; args: (value: string) => Record<string, unknown> }> = [
    { name: 'read_lines', arg: 'filepath', args: (v) => ({ filepath: v }) },
    { name: 'file_info', arg: 'filepath', args: (v) => ({ filepath: v }) },
    { name: 'hash_file', arg: 'filepath', args: (v) => ({ filepath: v }) },
    { name: 'detect_file_type', arg: 'filepath', args: (v) => ({ filepath: v }) },
    { name: 'diff_files', arg: 'old_filepath', args: (v) => ({ old_filepath: v, new_filepath: 'proj/README.md' }) },
    { name: 'diff_files', arg: 'new_filepath', args: (v) => ({ old_filepath: 'proj/README.md', new_filepath: v }) },
    { name: 'tree', arg: 'directory', args: (v) => ({ directory: v }) },
    { name: 'grep_files', arg: 'directory', args: (v) => ({ pattern: 'SENTINEL|evil|backup|root', directory: v }) },
    { name: 'find_files', arg: 'directory', args: (v) => ({ pattern: '*', directory: v }) },
  ];

  test('P1: siblings whose names start with the workspace name are outside', async () => {
    for (const { name, arg, args } of cases) {
      for (const value of ['../proj-evil/x', path.join(tmp.root, 'proj_backup', 'x'), `${ws}-evil/x`, '../proj-evil', `${ws}_backup`]) {
        await assertTraversal(call(name, args(value)), `${name} ${arg}=${value}`);
      }
    }
  });

  test('P2: a link inside pointing at a file or folder outside is refused', async () => {
    for (const { name, arg, args } of cases) {
      for (const value of ['proj/sentinel-link.txt', 'proj/link-outside', 'proj/link-outside/sentinel.txt', path.join(ws, 'proj/sentinel-link.txt')]) {
        await assertTraversal(call(name, args(value)), `${name} ${arg}=${value}`);
      }
    }
    assertOutsideUnchanged(tmp);
  });

  test('P4: climbing, absolute and home paths are refused; the empty path is INVALID_PATH', async () => {
    for (const { name, arg, args } of cases) {
      for (const value of ['sub/../../outside/sentinel.txt', '../outside/sentinel.txt', tmp.sentinel, '/etc/passwd', '~/.ssh/id_rsa', '~', '..', os.homedir()]) {
        await assertTraversal(call(name, args(value)), `${name} ${arg}=${value}`);
      }
      for (const value of ['', '   ']) {
        const result = await call(name, args(value));
        assert.equal(result.success, false);
        assert.equal(result.errorCode, 'INVALID_PATH', `${name} ${arg}=${JSON.stringify(value)}`);
      }
    }
    assertOutsideUnchanged(tmp);
  });

  test('P4: names that merely contain ".." are inside and allowed', async () => {
    put('..test', 'dots\n');
    put('te..st/inner.txt', 'dots inside\n');
    assert.equal(await ok('read_lines', { filepath: '..test' }), '1 | dots');
    assert.equal(await ok('grep_files', { pattern: 'dots', directory: 'te..st' }), 'te..st/inner.txt:1:dots inside\n\n1 match in 1 file (1 file searched).');
    assert.equal(await ok('find_files', { pattern: '*.txt', directory: 'te..st' }), 'te..st/inner.txt');
  });

  test('P5: a NUL byte in a path is INVALID_PATH, with no crash; the next call works', async () => {
    for (const { name, arg, args } of cases) {
      const result = await call(name, args('notes.md\u0000.sh'));
      assert.equal(result.success, false, `${name} ${arg}`);
      assert.equal(result.errorCode, 'INVALID_PATH', `${name} ${arg}`);
      assert.match(result.error ?? '', /NUL byte/);
    }
    assert.equal(await ok('read_lines', { filepath: 'proj/README.md', start_line: 1, end_line: 1 }), '1 | # Demo');
  });
});
