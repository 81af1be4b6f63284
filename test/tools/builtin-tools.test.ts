/**
 * The builtin tools (read_file, write_file, list_files) through the library: a fixture
 * registry, a real ToolExecutor (worker pool), and a temporary workspace laid out as
 * `/tmp/x/proj` with siblings `proj-evil`, `proj_backup` and `outside/sentinel.txt`.
 *
 * Case ids (P1..P5) refer to the path-safety cases of the security checklist.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ToolExecutor, type ToolExecutionResult } from 'toolgate';
import { callsTo, fixtureRegistry, tempWorkspace, assertTraversal, assertOutsideUnchanged } from '../helpers.js';

let tmp: ReturnType<typeof tempWorkspace>;
let ws: string;
let executor: ToolExecutor;

before(async () => {
  tmp = tempWorkspace();
  ws = tmp.ws;
  const registry = await fixtureRegistry();
  executor = new ToolExecutor(registry, { workspaceRoot: ws });
});

after(async () => {
  await executor?.close();
  tmp?.cleanup();
});

const call = callsTo(() => executor, { confirm: true });

/** Write a file inside the workspace (test set-up, not through the tool). */
function put(rel: string, content: string | Buffer): string {
  const file = path.join(ws, rel);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, content);
  return file;
}

describe('read_file', () => {
  test('reads a whole UTF-8 file', async () => {
    const text = 'first line\nsecond line with ünïcødé ✓\nthird line\n';
    put('read/whole.txt', text);
    const result = await call('read_file', { filepath: 'read/whole.txt' });
    assert.equal(result.success, true, result.output);
    assert.equal(result.output, text);
    assert.equal(result.tool, 'read_file');
    assert.equal(result.version, '1.0.0');
    assert.equal(result.errorCode, undefined);
  });

  test('max_lines cuts the file and notes how many lines were left out', async () => {
    const lines = Array.from({ length: 10 }, (_, i) => `line ${i + 1}`);
    put('read/ten.txt', `${lines.join('\n')}\n`);
    const result = await call('read_file', { filepath: 'read/ten.txt', max_lines: 3 });
    assert.equal(result.success, true, result.output);
    assert.equal(result.output, 'line 1\nline 2\nline 3\n... (7 more lines)');

    const exact = await call('read_file', { filepath: 'read/ten.txt', max_lines: 10 });
    assert.equal(exact.success, true, exact.output);
    assert.equal(exact.output, `${lines.join('\n')}\n`, 'a file of exactly max_lines lines is returned whole, with no note');

    const zero = await call('read_file', { filepath: 'read/ten.txt', max_lines: 0 });
    assert.equal(zero.success, false, 'max_lines has @minimum 1');
    assert.equal(zero.errorCode, 'INVALID_ARGUMENTS');
  });

  test('a missing file is a clear error, not a crash', async () => {
    const result = await call('read_file', { filepath: 'read/no-such-file.txt' });
    assert.equal(result.success, false);
    assert.equal(result.errorCode, 'TOOL_ERROR');
    assert.match(result.error ?? '', /read\/no-such-file\.txt does not exist/);
    assert.match(result.output, /^Error: /);
  });

  test('a folder given to read_file is refused with a hint', async () => {
    fs.mkdirSync(path.join(ws, 'read/folder'), { recursive: true });
    const result = await call('read_file', { filepath: 'read/folder' });
    assert.equal(result.success, false);
    assert.equal(result.errorCode, 'TOOL_ERROR');
    assert.match(result.error ?? '', /read\/folder is a folder; use list_files/);
  });

  test('a binary file is refused', async () => {
    put('read/image.png', Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48]));
    const result = await call('read_file', { filepath: 'read/image.png' });
    assert.equal(result.success, false);
    assert.equal(result.errorCode, 'TOOL_ERROR');
    assert.match(result.error ?? '', /looks like a binary file/);
    assert.ok(!result.output.includes('PNG'), 'no binary content in the output');
  });
});

describe('write_file', () => {
  test('creates missing parent folders and says when it overwrote a file', async () => {
    const first = await call('write_file', { filepath: 'write/deep/er/new.txt', content: 'hello' });
    assert.equal(first.success, true, first.output);
    assert.equal(first.output, 'Wrote 5 bytes to write/deep/er/new.txt');
    assert.equal(fs.readFileSync(path.join(ws, 'write/deep/er/new.txt'), 'utf8'), 'hello');

    const second = await call('write_file', { filepath: 'write/deep/er/new.txt', content: 'héllo again\n' });
    assert.equal(second.success, true, second.output);
    assert.equal(second.output, `Wrote ${Buffer.byteLength('héllo again\n')} bytes to write/deep/er/new.txt (overwrote an existing file)`);
    assert.equal(fs.readFileSync(path.join(ws, 'write/deep/er/new.txt'), 'utf8'), 'héllo again\n');

    const other = await call('write_file', { filepath: 'write/deep/er/other.txt', content: '' });
    assert.equal(other.success, true, other.output);
    assert.equal(other.output, 'Wrote 0 bytes to write/deep/er/other.txt', 'a new file is not reported as overwritten');
  });

  test('writes atomically: no temporary files are left in the folder', async () => {
    for (let i = 0; i < 5; i++) {
      const result = await call('write_file', { filepath: 'write/atomic/target.txt', content: `round ${i}\n` });
      assert.equal(result.success, true, result.output);
    }
    assert.deepEqual(fs.readdirSync(path.join(ws, 'write/atomic')), ['target.txt'], 'only the target file remains');
    assert.equal(fs.readFileSync(path.join(ws, 'write/atomic/target.txt'), 'utf8'), 'round 4\n');
  });

  test('refuses a folder as its target', async () => {
    fs.mkdirSync(path.join(ws, 'write/a-folder'), { recursive: true });
    const result = await call('write_file', { filepath: 'write/a-folder', content: 'x' });
    assert.equal(result.success, false);
    assert.equal(result.errorCode, 'TOOL_ERROR');
    assert.match(result.error ?? '', /write\/a-folder is a folder; give a file path/);
    assert.ok(fs.statSync(path.join(ws, 'write/a-folder')).isDirectory());
    assert.deepEqual(fs.readdirSync(path.join(ws, 'write/a-folder')), []);
  });

  test('without confirmation write_file is not run', async () => {
    const result = await executor.execute({ name: 'write_file', arguments: { filepath: 'write/unconfirmed.txt', content: 'x' } });
    assert.equal(result.success, false);
    assert.equal(result.errorCode, 'CONFIRMATION_REQUIRED');
    assert.equal(result.confirmed, false);
    assert.equal(fs.existsSync(path.join(ws, 'write/unconfirmed.txt')), false);
  });
});

describe('list_files', () => {
  before(() => {
    put('lf/a.ts', 'export const a = 1;\n');
    put('lf/b.md', '# b\n');
    put('lf/.hidden', 'h');
    put('lf/sub/c.ts', 'export const c = 3;\n');
    put('lf/sub/deeper/d.txt', 'dddd');
    put('lf/.git/config', '[core]\n');
    put('lf/node_modules/pkg/index.ts', 'export {};\n');
    put('lf/sub/node_modules/inner/x.ts', 'export {};\n');
    // Symbolic links live in their own folder, so the other listings do not depend on them.
    put('links/real/inner.txt', 'inner\n');
    put('links/file.txt', 'file\n');
    fs.symlinkSync('real', path.join(ws, 'links/link-to-dir'));
    fs.symlinkSync('file.txt', path.join(ws, 'links/link-to-file'));
    fs.symlinkSync(tmp.outside, path.join(ws, 'links/link-outside'));
  });

  const size = (rel: string) => fs.statSync(path.join(ws, rel)).size;

  test('non-recursive listing of a folder with markers and sizes', async () => {
    const result = await call('list_files', { directory: 'lf' });
    assert.equal(result.success, true, result.output);
    assert.equal(
      result.output,
      [
        '[dir]  lf/.git/',
        `[file] lf/.hidden (${size('lf/.hidden')} bytes)`,
        `[file] lf/a.ts (${size('lf/a.ts')} bytes)`,
        `[file] lf/b.md (${size('lf/b.md')} bytes)`,
        '[dir]  lf/node_modules/',
        '[dir]  lf/sub/',
      ].join('\n'),
    );
  });

  test('a pattern narrows the listing', async () => {
    const result = await call('list_files', { directory: 'lf', pattern: '*.ts' });
    assert.equal(result.success, true, result.output);
    assert.equal(result.output, `[file] lf/a.ts (${size('lf/a.ts')} bytes)`);

    const sub = await call('list_files', { directory: 'lf', pattern: 'sub/*.ts' });
    assert.equal(sub.success, true, sub.output);
    assert.equal(sub.output, `[file] lf/sub/c.ts (${size('lf/sub/c.ts')} bytes)`);

    const none = await call('list_files', { directory: 'lf', pattern: '*.rs' });
    assert.equal(none.success, true, none.output);
    assert.equal(none.output, 'No entries match "*.rs" in lf.');
  });

  test('recursive listing skips .git and node_modules', async () => {
    const result = await call('list_files', { directory: 'lf', recursive: true });
    assert.equal(result.success, true, result.output);
    assert.equal(
      result.output,
      [
        `[file] lf/.hidden (${size('lf/.hidden')} bytes)`,
        `[file] lf/a.ts (${size('lf/a.ts')} bytes)`,
        `[file] lf/b.md (${size('lf/b.md')} bytes)`,
        '[dir]  lf/sub/',
        `[file] lf/sub/c.ts (${size('lf/sub/c.ts')} bytes)`,
        '[dir]  lf/sub/deeper/',
        `[file] lf/sub/deeper/d.txt (${size('lf/sub/deeper/d.txt')} bytes)`,
      ].join('\n'),
    );

    const ts = await call('list_files', { directory: 'lf', pattern: '*.ts', recursive: true });
    assert.equal(ts.success, true, ts.output);
    assert.equal(ts.output, [`[file] lf/a.ts (${size('lf/a.ts')} bytes)`, `[file] lf/sub/c.ts (${size('lf/sub/c.ts')} bytes)`].join('\n'));
  });

  test('symbolic links are shown as [link] and not followed', async () => {
    const flat = await call('list_files', { directory: 'links' });
    assert.equal(flat.success, true, flat.output);
    const recursive = await call('list_files', { directory: 'links', recursive: true });
    assert.equal(recursive.success, true, recursive.output);
    for (const [label, result] of [['non-recursive', flat], ['recursive', recursive]] as const) {
      const lines = result.output.split('\n');
      assert.ok(
        lines.includes('[link] links/link-to-dir -> real'),
        `${label} listing must show the symbolic link as "[link] links/link-to-dir -> real" ` +
          `(README and the tool description: "Symbolic links are shown, not followed"); got:\n${result.output}`,
      );
      assert.ok(lines.includes('[link] links/link-to-file -> file.txt'), `${label} listing must show links to files; got:\n${result.output}`);
      assert.ok(lines.includes(`[link] links/link-outside -> ${tmp.outside}`), `${label} listing must show links that point outside; got:\n${result.output}`);
      for (const line of lines) {
        assert.ok(!line.includes('link-to-dir/'), `${label}: followed a symbolic link: ${line}`);
        assert.ok(!line.includes('sentinel.txt'), `${label}: followed a link outside the workspace: ${line}`);
      }
    }
  });

  test('symbolic links are never followed (recursive listing shows nothing behind them)', async () => {
    const result = await call('list_files', { directory: 'links', recursive: true });
    assert.equal(result.success, true, result.output);
    for (const line of result.output.split('\n')) {
      assert.ok(!line.includes('link-to-dir/inner.txt'), `followed a symbolic link: ${line}`);
      assert.ok(!line.includes('sentinel.txt'), `followed a link outside the workspace: ${line}`);
    }
    assert.ok(result.output.split('\n').includes(`[file] links/real/inner.txt (${size('links/real/inner.txt')} bytes)`), result.output);
  });

  test('a pattern containing ".." is refused', async () => {
    for (const pattern of ['../*', 'sub/../../*', '..']) {
      const result = await call('list_files', { directory: 'lf', pattern });
      assert.equal(result.success, false, `pattern ${pattern} must be refused`);
      assert.equal(result.errorCode, 'TOOL_ERROR');
      assert.match(result.error ?? '', /must be a relative glob that stays inside the folder/);
    }
  });

  test('a file or a missing folder given as directory is an error', async () => {
    const file = await call('list_files', { directory: 'lf/a.ts' });
    assert.equal(file.success, false);
    assert.match(file.error ?? '', /lf\/a\.ts is not a folder; use read_file/);
    const missing = await call('list_files', { directory: 'lf/none' });
    assert.equal(missing.success, false);
    assert.match(missing.error ?? '', /lf\/none does not exist/);
  });

  test('P2: a symbolic link to a folder outside is refused as directory', async () => {
    await assertTraversal(call('list_files', { directory: 'links/link-outside' }), 'list_files links/link-outside');
  });
});

describe('paths', () => {
  test('P1: sibling folders whose names start with the workspace name are outside', async () => {
    await assertTraversal(call('read_file', { filepath: '../proj-evil/x' }), 'read_file ../proj-evil/x');
    await assertTraversal(call('read_file', { filepath: path.join(tmp.root, 'proj_backup', 'x') }), 'read_file <root>/proj_backup/x');
    await assertTraversal(call('read_file', { filepath: `${ws}-evil/x` }), 'read_file <ws>-evil/x');
    await assertTraversal(call('list_files', { directory: '../proj-evil' }), 'list_files ../proj-evil');
    await assertTraversal(call('write_file', { filepath: '../proj-evil/x', content: 'pwned' }), 'write_file ../proj-evil/x');
    assert.equal(fs.readFileSync(path.join(tmp.root, 'proj-evil', 'x'), 'utf8'), 'evil sibling\n');
  });

  test('P1: an absolute path inside the workspace is accepted', async () => {
    put('abs/inside.txt', 'inside\n');
    const result = await call('read_file', { filepath: path.join(ws, 'abs/inside.txt') });
    assert.equal(result.success, true, result.output);
    assert.equal(result.output, 'inside\n');
  });

  test('P2: a symbolic link inside the workspace pointing at a file outside is refused for read_file', async () => {
    fs.symlinkSync(tmp.sentinel, path.join(ws, 'p2-link.txt'));
    fs.symlinkSync(path.relative(ws, tmp.sentinel), path.join(ws, 'p2-rel-link.txt'));
    for (const filepath of ['p2-link.txt', 'p2-rel-link.txt', './p2-link.txt', path.join(ws, 'p2-link.txt')]) {
      const promise = call('read_file', { filepath });
      await assertTraversal(promise, `read_file ${filepath}`);
    }
  });

  test('P3: write_file through a symbolic link pointing outside is refused and the sentinel is unchanged', async () => {
    fs.symlinkSync(tmp.sentinel, path.join(ws, 'p3-link.txt'));
    await assertTraversal(call('write_file', { filepath: 'p3-link.txt', content: 'OVERWRITTEN' }), 'write_file p3-link.txt');
    assertOutsideUnchanged(tmp);
    assert.ok(fs.lstatSync(path.join(ws, 'p3-link.txt')).isSymbolicLink(), 'the link itself is left as it was');
  });

  test('P3: a dangling symbolic link pointing outside is refused for write_file (nothing created)', async () => {
    fs.symlinkSync(path.join(tmp.outside, 'created-through-dangling-link.txt'), path.join(ws, 'p3-dangling.txt'));
    await assertTraversal(call('write_file', { filepath: 'p3-dangling.txt', content: 'x' }), 'write_file p3-dangling.txt');
    assertOutsideUnchanged(tmp);
  });

  test('P3: a symbolic-linked parent folder pointing outside is refused for a new file', async () => {
    fs.symlinkSync(tmp.outside, path.join(ws, 'p3-dir-link'));
    await assertTraversal(call('write_file', { filepath: 'p3-dir-link/new.txt', content: 'x' }), 'write_file p3-dir-link/new.txt');
    await assertTraversal(call('write_file', { filepath: 'p3-dir-link/nested/new.txt', content: 'x' }), 'write_file p3-dir-link/nested/new.txt');
    await assertTraversal(call('read_file', { filepath: 'p3-dir-link/sentinel.txt' }), 'read_file p3-dir-link/sentinel.txt');
    assertOutsideUnchanged(tmp);
  });

  test('P4: climbing, absolute and home paths are refused', async () => {
    await assertTraversal(call('read_file', { filepath: 'sub/../../outside/sentinel.txt' }), 'read_file sub/../../outside/sentinel.txt');
    await assertTraversal(call('read_file', { filepath: '../outside/sentinel.txt' }), 'read_file ../outside/sentinel.txt');
    await assertTraversal(call('read_file', { filepath: tmp.sentinel }), 'read_file <sentinel>');
    await assertTraversal(call('read_file', { filepath: '/etc/passwd' }), 'read_file /etc/passwd');
    await assertTraversal(call('read_file', { filepath: '~/.ssh/id_rsa' }), 'read_file ~/.ssh/id_rsa');
    await assertTraversal(call('read_file', { filepath: '~' }), 'read_file ~');
    await assertTraversal(call('write_file', { filepath: '~/.ssh/authorized_keys', content: 'ssh-rsa AAAA' }), 'write_file ~/.ssh/authorized_keys');
    await assertTraversal(call('list_files', { directory: '..' }), 'list_files ..');
    await assertTraversal(call('list_files', { directory: os.homedir() }), 'list_files <home>');
    assertOutsideUnchanged(tmp);
  });

  test('P4: the empty path is an INVALID_PATH result, not a throw', async () => {
    for (const filepath of ['', '   ']) {
      const read = await call('read_file', { filepath });
      assert.equal(read.success, false);
      assert.equal(read.errorCode, 'INVALID_PATH', `read_file ${JSON.stringify(filepath)}`);
      const write = await call('write_file', { filepath, content: 'x' });
      assert.equal(write.success, false);
      assert.equal(write.errorCode, 'INVALID_PATH', `write_file ${JSON.stringify(filepath)}`);
    }
  });

  test('P4: names that merely contain ".." (..test, te..st) are inside and allowed', async () => {
    for (const name of ['..test', 'te..st', 'p4/..hidden..']) {
      const written = await call('write_file', { filepath: name, content: `content of ${name}\n` });
      assert.equal(written.success, true, `write_file ${name}: ${written.output}`);
      assert.equal(written.output, `Wrote ${Buffer.byteLength(`content of ${name}\n`)} bytes to ${name}`);
      assert.equal(fs.readFileSync(path.join(ws, name), 'utf8'), `content of ${name}\n`);
      const read = await call('read_file', { filepath: name });
      assert.equal(read.success, true, `read_file ${name}: ${read.output}`);
      assert.equal(read.output, `content of ${name}\n`);
    }
    const listed = await call('list_files', { pattern: '*..*' });
    assert.equal(listed.success, true, listed.output);
    assert.match(listed.output, /^\[file\] \.\.test \(\d+ bytes\)$/m);
    assert.match(listed.output, /^\[file\] te\.\.st \(\d+ bytes\)$/m);
  });

  test('P5: a NUL byte in a path is INVALID_PATH, with no crash and nothing written', async () => {
    const read = await call('read_file', { filepath: 'notes.md\u0000.sh' });
    assert.equal(read.success, false);
    assert.equal(read.errorCode, 'INVALID_PATH');
    assert.match(read.error ?? '', /NUL byte/);

    const write = await call('write_file', { filepath: 'notes.md\u0000.sh', content: 'x' });
    assert.equal(write.success, false);
    assert.equal(write.errorCode, 'INVALID_PATH');
    assert.equal(fs.existsSync(path.join(ws, 'notes.md')), false);

    const list = await call('list_files', { directory: 'lf\u0000' });
    assert.equal(list.success, false);
    assert.equal(list.errorCode, 'INVALID_PATH');

    // The executor still works afterwards.
    put('p5/after.txt', 'still fine\n');
    const ok = await call('read_file', { filepath: 'p5/after.txt' });
    assert.equal(ok.success, true, ok.output);
    assert.equal(ok.output, 'still fine\n');
  });
});
