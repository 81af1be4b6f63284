/**
 * The archive tools (tools-ported/archive/): create_archive, extract_archive, list_archive,
 * through the ported registry and a real ToolExecutor (worker pool), in a temporary workspace
 * laid out as `/tmp/x/proj` with siblings `proj-evil`, `proj_backup` and `outside/sentinel.txt`.
 *
 * Case P7 of the security checklist: archives the tests build with the libraries themselves
 * (tar-stream for tar.gz; yazl for zip, whose names are then patched in place because yazl
 * refuses to write unsafe names) holding `../out2/f`, `/abs/f`, a symbolic link to outside
 * followed by a file through it, and a hard link to outside (tar only: zip has no hard
 * links); each is refused and nothing appears outside the target folder.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { Readable } from 'node:stream';
import tarStream from 'tar-stream';
import yazl from 'yazl';
import { ToolExecutor, type ToolExecutionResult } from 'toolgate';
import { assertFailed as failed, assertTraversal, assertOk, callsTo, closePortedWorkspace, existsIn, portedWorkspace, putFile, type TempWorkspace, assertOutsideUnchanged } from '../helpers.js';
import { checkEntries, MAX_ENTRIES, MAX_TOTAL_BYTES, nameComponents } from '../../tools-ported/archive/archive-policy.js';

/** Stands for the sentinel's real path in a test archive's link target (known only at run time). */
const PLACEHOLDER = '<sentinel>';

let tmp: TempWorkspace;
let ws: string;
let executor: ToolExecutor;

before(async () => {
  ({ tmp, ws, executor } = await portedWorkspace());
});

after(() => closePortedWorkspace({ tmp, executor }));

const call = callsTo(() => executor, { confirm: true });

function put(rel: string, content: string | Uint8Array): string {
  return putFile(ws, rel, content);
}

function exists(rel: string): boolean {
  return existsIn(ws, rel);
}

/** Assert a successful call; its structured result. */
function ok(result: ToolExecutionResult): Record<string, unknown> {
  return assertOk(result).structured as Record<string, unknown>;
}

/** No staging folder of extract_archive is left in `rel`. */
function assertNoStage(rel: string): void {
  const dir = path.join(ws, rel);
  if (!fs.existsSync(dir)) return;
  assert.deepEqual(fs.readdirSync(dir).filter((n) => n.startsWith('.toolgate-extract')), [], `a staging folder was left in ${rel}`);
}

/** An entry of a test archive. */
interface Spec {
  name: string;
  type?: 'file' | 'directory' | 'symlink' | 'link' | 'fifo';
  content?: string;
  linkname?: string;
  mode?: number;
}

/** Build a tar.gz with tar-stream, entry names written exactly as given. */
async function tarGz(specs: Spec[]): Promise<Buffer> {
  const pack = tarStream.pack();
  const chunks: Buffer[] = [];
  const done = (async () => {
    for await (const chunk of pack as unknown as Readable) chunks.push(chunk as Buffer);
  })();
  for (const s of specs) {
    const type = s.type ?? 'file';
    await new Promise<void>((resolve, reject) => {
      const header = { name: s.name, type, mode: s.mode ?? (type === 'directory' ? 0o755 : 0o644), linkname: s.linkname } as Parameters<typeof pack.entry>[0];
      const cb = (e?: Error | null) => (e ? reject(e) : resolve());
      if (type === 'file') pack.entry(header, s.content ?? '', cb);
      else pack.entry(header, cb);
    });
  }
  pack.finalize();
  await done;
  return zlib.gzipSync(Buffer.concat(chunks));
}

/**
 * Build a zip with yazl. yazl refuses absolute and `..` names, so unsafe names are written
 * with same-length placeholders and patched in the bytes afterwards (`patch`: [placeholder,
 * real]); names are not covered by the CRC, so the zip stays well-formed.
 */
async function zip(specs: Spec[], patch: Array<[string, string]> = []): Promise<Buffer> {
  const z = new yazl.ZipFile();
  for (const s of specs) {
    if (s.type === 'directory') z.addEmptyDirectory(s.name);
    else if (s.type === 'symlink') z.addBuffer(Buffer.from(s.linkname ?? ''), s.name, { mode: 0o120777 });
    else if (s.type === 'fifo') z.addBuffer(Buffer.alloc(0), s.name, { mode: 0o010644 });
    else z.addBuffer(Buffer.from(s.content ?? ''), s.name, { mode: 0o100000 | (s.mode ?? 0o644) });
  }
  z.end();
  const chunks: Buffer[] = [];
  for await (const chunk of z.outputStream as unknown as Readable) chunks.push(chunk as Buffer);
  let bytes = Buffer.concat(chunks);
  for (const [from, to] of patch) {
    assert.equal(from.length, to.length, 'a patch keeps the length');
    let at = bytes.indexOf(from);
    assert.ok(at >= 0, `placeholder ${from} not found`);
    while (at >= 0) {
      bytes.write(to, at, 'latin1');
      at = bytes.indexOf(from, at + 1);
    }
    bytes = Buffer.from(bytes);
  }
  return bytes;
}

// ---------------------------------------------------------------------------------------------
describe('create_archive, list_archive and extract_archive: round trips', () => {
  for (const format of ['zip', 'tar.gz'] as const) {
    test(`${format}: a folder packs, lists and extracts to the same files`, async () => {
      put(`rt-${format}/src/a.txt`, 'alpha\n');
      put(`rt-${format}/src/deep/b.bin`, Buffer.from([0, 1, 2, 255]));
      put(`rt-${format}/top.md`, '# top\n');
      fs.chmodSync(path.join(ws, `rt-${format}/top.md`), 0o755);
      const archive = `out/rt.${format}`;
      const created = ok(await call('create_archive', { paths: [`rt-${format}`], destination: archive }));
      assert.equal(created.format, format);
      assert.equal(created.files, 3);
      assert.equal(created.directories, 3);
      assert.equal(created.content_bytes, 6 + 4 + 6);
      assert.equal(created.overwrote, false);
      assert.deepEqual(created.skipped, []);

      const listed = ok(await call('list_archive', { filepath: archive }));
      assert.equal(listed.format, format);
      assert.equal(listed.total_entries, 6);
      assert.equal(listed.total_bytes, 16);
      const names = (listed.entries as Array<{ name: string; type: string; size_bytes: number }>).map((e) => `${e.type}:${e.name}:${e.size_bytes}`).sort();
      assert.deepEqual(names, [
        `directory:rt-${format}:0`, `directory:rt-${format}/src:0`, `directory:rt-${format}/src/deep:0`,
        `file:rt-${format}/src/a.txt:6`, `file:rt-${format}/src/deep/b.bin:4`, `file:rt-${format}/top.md:6`,
      ].sort());

      const extracted = ok(await call('extract_archive', { filepath: archive, destination: `unpacked-${format}` }));
      assert.deepEqual({ ...extracted, destination: undefined }, { destination: undefined, format, files: 3, directories: 3, links: 0, bytes: 16, overwritten: 0 });
      assert.equal(fs.readFileSync(path.join(ws, `unpacked-${format}/rt-${format}/src/a.txt`), 'utf8'), 'alpha\n');
      assert.deepEqual(fs.readFileSync(path.join(ws, `unpacked-${format}/rt-${format}/src/deep/b.bin`)), Buffer.from([0, 1, 2, 255]));
      assert.equal(fs.statSync(path.join(ws, `unpacked-${format}/rt-${format}/top.md`)).mode & 0o111, 0o111, 'the execute bits are kept');
      assert.equal(fs.statSync(path.join(ws, `unpacked-${format}`)).mode & 0o777, 0o755, 'the new destination folder is not left private (0700) from its staging');
      assertNoStage('.');
      assertOutsideUnchanged(tmp);
    });
  }

  test('create_archive follows links that stay inside the workspace and skips links that lead outside', async () => {
    put('links/real.txt', 'real\n');
    fs.symlinkSync('real.txt', path.join(ws, 'links/inside-link.txt'));
    fs.symlinkSync(tmp.sentinel, path.join(ws, 'links/sentinel-link.txt'));
    fs.symlinkSync(tmp.outside, path.join(ws, 'links/outside-dir'));
    fs.symlinkSync('nowhere', path.join(ws, 'links/dangling'));
    const created = ok(await call('create_archive', { paths: ['links'], destination: 'out/links.tar.gz' }));
    assert.deepEqual((created.skipped as string[]).sort(), [
      'links/dangling: a symbolic link that leads nowhere',
      'links/outside-dir: a symbolic link that leads outside the workspace',
      'links/sentinel-link.txt: a symbolic link that leads outside the workspace',
    ]);
    const listed = ok(await call('list_archive', { filepath: 'out/links.tar.gz' }));
    const entries = listed.entries as Array<{ name: string; type: string }>;
    assert.deepEqual(entries.map((e) => `${e.type}:${e.name}`).sort(), ['directory:links', 'file:links/inside-link.txt', 'file:links/real.txt']);
    // The archive holds no byte of the sentinel.
    const bytes = zlib.gunzipSync(fs.readFileSync(path.join(ws, 'out/links.tar.gz')));
    assert.equal(bytes.includes('SENTINEL'), false);
  });

  test('create_archive refuses an existing destination unless overwrite is true, and infers or needs the format', async () => {
    put('cx/a.txt', 'a\n');
    put('out/exists.zip', 'old');
    failed(await call('create_archive', { paths: ['cx'], destination: 'out/exists.zip' }), /already exists; pass overwrite: true/);
    assert.equal(fs.readFileSync(path.join(ws, 'out/exists.zip'), 'utf8'), 'old');
    const replaced = ok(await call('create_archive', { paths: ['cx'], destination: 'out/exists.zip', overwrite: true }));
    assert.equal(replaced.overwrote, true);
    assert.equal(fs.readFileSync(path.join(ws, 'out/exists.zip')).subarray(0, 2).toString('latin1'), 'PK');
    failed(await call('create_archive', { paths: ['cx'], destination: 'out/archive.rar' }), /cannot tell the format/);
    assert.equal(exists('out/archive.rar'), false);
    const tgz = ok(await call('create_archive', { paths: ['cx/a.txt'], destination: 'out/explicit.bin', format: 'tar.gz' }));
    assert.equal(tgz.format, 'tar.gz');
    failed(await call('create_archive', { paths: ['cx/missing'], destination: 'out/m.zip' }), /does not exist/);
    assert.equal(exists('out/m.zip'), false);
    failed(await call('create_archive', { paths: ['cx'], destination: 'out', format: 'zip' }), /is a folder/);
  });

  test('list_archive bounds the listing and reports links; a file that is no archive is a clear error', async () => {
    put('la/many.tar.gz', await tarGz([
      { name: 'a.txt', content: 'a' },
      { name: 'b.txt', content: 'bb' },
      { name: 'ln', type: 'symlink', linkname: 'a.txt' },
      { name: 'hl', type: 'link', linkname: 'a.txt' },
    ]));
    const listed = ok(await call('list_archive', { filepath: 'la/many.tar.gz', max_entries: 2 }));
    assert.equal(listed.total_entries, 4);
    assert.equal(listed.truncated, true);
    assert.equal((listed.entries as unknown[]).length, 2);
    const all = ok(await call('list_archive', { filepath: 'la/many.tar.gz' }));
    assert.deepEqual((all.entries as unknown[]).slice(2), [
      { name: 'ln', type: 'symlink', size_bytes: 0, link_target: 'a.txt' },
      { name: 'hl', type: 'hardlink', size_bytes: 0, link_target: 'a.txt' },
    ]);
    put('la/not.zip', 'just text');
    failed(await call('list_archive', { filepath: 'la/not.zip' }), /neither a zip nor a tar\.gz/);
    put('la/broken.tar.gz', Buffer.concat([zlib.gzipSync(Buffer.alloc(600, 7)).subarray(0, 20)]));
    failed(await call('list_archive', { filepath: 'la/broken.tar.gz' }), /not a readable tar\.gz archive/);
    failed(await call('list_archive', { filepath: 'la/missing.zip' }), /does not exist/);
  });
});

// ---------------------------------------------------------------------------------------------
describe('extract_archive: existing files, atomicity and bounds', () => {
  test('an existing file is refused without overwrite (nothing written) and replaced with it; folders merge', async () => {
    put('ex/arch.zip', await zip([{ name: 'keep/new.txt', content: 'new\n' }, { name: 'same.txt', content: 'from archive\n' }]));
    put('ex/dest/same.txt', 'mine\n');
    put('ex/dest/keep/old.txt', 'old\n');
    failed(await call('extract_archive', { filepath: 'ex/arch.zip', destination: 'ex/dest' }), /same\.txt already exists; nothing was extracted\. Pass overwrite: true/);
    assert.equal(fs.readFileSync(path.join(ws, 'ex/dest/same.txt'), 'utf8'), 'mine\n');
    assert.equal(exists('ex/dest/keep/new.txt'), false, 'nothing is written when one file is in the way');
    assertNoStage('ex');
    const result = ok(await call('extract_archive', { filepath: 'ex/arch.zip', destination: 'ex/dest', overwrite: true }));
    assert.equal(result.overwritten, 1);
    assert.equal(fs.readFileSync(path.join(ws, 'ex/dest/same.txt'), 'utf8'), 'from archive\n');
    assert.equal(fs.readFileSync(path.join(ws, 'ex/dest/keep/new.txt'), 'utf8'), 'new\n');
    assert.equal(fs.readFileSync(path.join(ws, 'ex/dest/keep/old.txt'), 'utf8'), 'old\n', 'existing files not in the archive stay');
    assertNoStage('ex');
  });

  test('extracting into the workspace root itself merges into it and leaves no staging folder', async () => {
    put('rootx-src/arch.tar.gz', await tarGz([{ name: 'rootx/file.txt', content: 'at the root\n' }]));
    const result = ok(await call('extract_archive', { filepath: 'rootx-src/arch.tar.gz', destination: '.' }));
    assert.equal(result.destination, '.');
    assert.equal(fs.readFileSync(path.join(ws, 'rootx/file.txt'), 'utf8'), 'at the root\n');
    failed(await call('extract_archive', { filepath: 'rootx-src/arch.tar.gz', destination: '.' }), /rootx\/file\.txt already exists/);
    assertNoStage('.');
    assertOutsideUnchanged(tmp);
  });

  test('an existing symbolic link in the destination is never written through, even with overwrite', async () => {
    put('exl/arch.tar.gz', await tarGz([{ name: 'sub/f', content: 'through the link\n' }]));
    fs.mkdirSync(path.join(ws, 'exl/dest'), { recursive: true });
    fs.symlinkSync(tmp.outside, path.join(ws, 'exl/dest/sub'));
    for (const overwrite of [false, true]) {
      failed(await call('extract_archive', { filepath: 'exl/arch.tar.gz', destination: 'exl/dest', overwrite }), /already exists as a symbolic link/);
    }
    assertOutsideUnchanged(tmp);
    assertNoStage('exl');
  });

  test('a file in the way of a folder, and a destination that is a file, are refused', async () => {
    put('exf/arch.zip', await zip([{ name: 'd/x.txt', content: 'x' }]));
    put('exf/dest/d', 'a file named d');
    failed(await call('extract_archive', { filepath: 'exf/arch.zip', destination: 'exf/dest', overwrite: true }), /already exists as a file, where the archive has a folder/);
    put('exf/file-dest', 'x');
    failed(await call('extract_archive', { filepath: 'exf/arch.zip', destination: 'exf/file-dest' }), /is not a folder/);
  });

  test('an archive whose last entry is refused leaves nothing extracted (no destination, no staging folder)', async () => {
    put('atom/arch.tar.gz', await tarGz([{ name: 'good1.txt', content: 'good' }, { name: 'good2.txt', content: 'good' }, { name: '../atom-escape.txt', content: 'bad' }]));
    failed(await call('extract_archive', { filepath: 'atom/arch.tar.gz', destination: 'atom/dest' }), /climbs out of the target folder/);
    assert.equal(exists('atom/dest'), false);
    assert.equal(exists('atom-escape.txt'), false);
    assertNoStage('atom');
  });

  test('a truncated archive fails while unpacking and leaves nothing behind', async () => {
    const whole = await tarGz([{ name: 'a.txt', content: 'a'.repeat(50_000) }, { name: 'b.txt', content: 'b'.repeat(50_000) }]);
    put('trunc/arch.tar.gz', whole.subarray(0, Math.floor(whole.length / 2)));
    failed(await call('extract_archive', { filepath: 'trunc/arch.tar.gz', destination: 'trunc/dest' }), /not a readable tar\.gz archive/);
    assert.equal(exists('trunc/dest'), false);
    assertNoStage('trunc');
  });

  test('links that stay inside the target folder are extracted, last', async () => {
    put('inl/arch.tar.gz', await tarGz([
      { name: 'data/real.txt', content: 'real\n' },
      { name: 'data/alias.txt', type: 'symlink', linkname: 'real.txt' },
      { name: 'up.txt', type: 'symlink', linkname: 'data/../data/real.txt' },
      { name: 'hard.txt', type: 'link', linkname: 'data/real.txt' },
    ]));
    const result = ok(await call('extract_archive', { filepath: 'inl/arch.tar.gz', destination: 'inl/dest' }));
    assert.equal(result.links, 3);
    assert.equal(fs.readlinkSync(path.join(ws, 'inl/dest/data/alias.txt')), 'real.txt');
    assert.equal(fs.readFileSync(path.join(ws, 'inl/dest/up.txt'), 'utf8'), 'real\n');
    assert.equal(fs.statSync(path.join(ws, 'inl/dest/hard.txt')).ino, fs.statSync(path.join(ws, 'inl/dest/data/real.txt')).ino);
  });

  test('zip bombs: more than 10000 entries is refused before anything is written', async () => {
    const specs: Spec[] = [];
    for (let i = 0; i <= MAX_ENTRIES; i++) specs.push({ name: `f${i}`, content: '' });
    put('bomb/many.zip', await zip(specs));
    failed(await call('extract_archive', { filepath: 'bomb/many.zip', destination: 'bomb/dest' }), /more than (the )?10000/);
    assert.equal(exists('bomb/dest'), false);
    assertNoStage('bomb');
  });

  test('zip bombs: a tar entry declaring more than 512 MiB is refused at its header, without unpacking it', async () => {
    // tar-stream writes the header of an entry declaring 512 MiB + 1 byte; only its first 4 KiB
    // of content follow (what was packed so far is taken, the rest never made).
    const pack = tarStream.pack();
    const chunks: Buffer[] = [];
    (pack as unknown as Readable).on('data', (chunk: Buffer) => chunks.push(chunk));
    const body = pack.entry({ name: 'big.bin', type: 'file', mode: 0o644, size: MAX_TOTAL_BYTES + 1 });
    body.write(Buffer.alloc(4096));
    for (let i = 0; i < 20 && Buffer.concat(chunks).length < 512 + 4096; i++) await new Promise((resolve) => setImmediate(resolve));
    (pack as unknown as Readable).destroy();
    assert.equal(Buffer.concat(chunks).length, 512 + 4096, 'the header and 4 KiB were packed');
    put('bomb/big.tar.gz', zlib.gzipSync(Buffer.concat(chunks)));
    failed(await call('extract_archive', { filepath: 'bomb/big.tar.gz', destination: 'bomb/big' }), /unpacks to more than 536870912 bytes/);
    assert.equal(exists('bomb/big'), false);
    assertNoStage('bomb');
  });

  test('the policy refuses declared content over 512 MiB, devices, duplicates and entries below files', () => {
    const file = (name: string, size = 0) => ({ name, kind: 'file' as const, size, mode: 0o644 });
    assert.throws(() => checkEntries([file('a', MAX_TOTAL_BYTES), file('b', 1)]), /larger than 536870912 bytes once unpacked/);
    assert.throws(() => checkEntries([{ name: 'dev', kind: 'other', size: 0, mode: 0, rawType: 'character-device' }]), /is a character-device, which is never extracted/);
    assert.throws(() => checkEntries([file('a'), file('a')]), /holds "a" twice/);
    assert.throws(() => checkEntries([file('a'), file('a/b')]), /below "a", which is a file/);
    assert.throws(() => checkEntries([file('A'), { name: 'A', kind: 'symlink', size: 0, mode: 0, linkTarget: 'x' }]), /twice/);
    assert.doesNotThrow(() => checkEntries([{ name: 'd', kind: 'directory', size: 0, mode: 0 }, { name: 'd/', kind: 'directory', size: 0, mode: 0 }]));
    // G1 family: a bare repository (HEAD, config, objects, refs) under any name is refused; a project's config/ and objects/ folders are not.
    assert.throws(() => checkEntries([file('evil/HEAD'), file('evil/config'), file('evil/objects/.keep'), file('evil/refs/.keep')]), /would make "evil" look like a git repository folder/);
    assert.throws(() => checkEntries([file('HEAD'), file('refs/heads/main')]), /would make "\." look like a git repository folder/);
    assert.doesNotThrow(() => checkEntries([file('src/config/db.ts'), file('src/objects/user.ts'), file('src/HEAD.md')]));
    // G2 family: commondir and gitdir count; a link named objects counts (git follows it); what the destination holds counts.
    assert.throws(() => checkEntries([file('w/HEAD'), file('w/commondir')]), /would make "w" look like a git repository folder/);
    assert.throws(() => checkEntries([file('g/gitdir'), file('g/config')]), /would make "g" look like a git repository folder/);
    assert.throws(() => checkEntries([file('l/HEAD'), { name: 'l/objects', kind: 'symlink', size: 0, mode: 0, linkTarget: '../o' }, file('o/x')]), /would make "l" look like a git repository folder/);
    assert.throws(() => checkEntries([file('HEAD')], (at) => (at.length === 0 ? [{ name: 'refs', isFile: false }] : [])), /would make "\." look like a git repository folder/);
    assert.doesNotThrow(() => checkEntries([file('HEAD')], (at) => (at.length === 0 ? [{ name: 'README.md', isFile: true }] : [])));
    // Names that merely contain dots are fine (case P4's rule).
    assert.deepEqual(nameComponents('./a/..b/c..d/./e'), ['a', '..b', 'c..d', 'e']);
  });

  test('a FIFO entry in a zip is refused', async () => {
    put('fifo/arch.zip', await zip([{ name: 'pipe', type: 'fifo' }]));
    failed(await call('extract_archive', { filepath: 'fifo/arch.zip', destination: 'fifo/dest' }), /never extracted/);
    assert.equal(exists('fifo/dest'), false);
  });
});

// ---------------------------------------------------------------------------------------------
describe('P7: archive entries that escape the target folder are refused; nothing is written outside', () => {
  const cases: Array<{ label: string; tar: Spec[]; zip?: { specs: Spec[]; patch: Array<[string, string]> }; message: RegExp }> = [
    {
      label: 'entry ../out2/f',
      tar: [{ name: 'ok.txt', content: 'ok' }, { name: '../out2/f', content: 'escaped' }],
      zip: { specs: [{ name: 'ok.txt', content: 'ok' }, { name: 'XX/out2/f', content: 'escaped' }], patch: [['XX/out2/f', '../out2/f']] },
      message: /climbs out of the target folder/,
    },
    {
      label: 'absolute entry /abs/f',
      tar: [{ name: '/abs/f', content: 'absolute' }],
      zip: { specs: [{ name: 'Zabs/f', content: 'absolute' }], patch: [['Zabs/f', '/abs/f']] },
      message: /has an absolute name/,
    },
    {
      label: 'deep ../ climbing out of the workspace',
      tar: [{ name: 'a/../../../../outside/evil.txt', content: 'escaped' }],
      zip: { specs: [{ name: 'a/YY/YY/YY/YY/outside/evil.txt', content: 'escaped' }], patch: [['a/YY/YY/YY/YY/', 'a/../../../../']] },
      message: /climbs out of the target folder/,
    },
    {
      label: 'a symbolic link to outside, then a file through it',
      tar: [{ name: 'evil', type: 'symlink', linkname: '../../../outside' }, { name: 'evil/planted.txt', content: 'planted' }],
      zip: { specs: [{ name: 'evil', type: 'symlink', linkname: '../../../outside' }, { name: 'evil/planted.txt', content: 'planted' }], patch: [] },
      message: /leads outside the target folder|goes through the link/,
    },
    {
      label: 'a symbolic link with an absolute target',
      tar: [{ name: 'abs-link', type: 'symlink', linkname: PLACEHOLDER }],
      zip: { specs: [{ name: 'abs-link', type: 'symlink', linkname: '/etc/passwd' }], patch: [] },
      message: /points to the absolute path/,
    },
    {
      label: 'a symbolic link that climbs through another link',
      tar: [{ name: 'd/l', type: 'symlink', linkname: '..' }, { name: 'x', type: 'symlink', linkname: 'd/l/../..' }],
      zip: { specs: [{ name: 'd/l', type: 'symlink', linkname: '..' }, { name: 'x', type: 'symlink', linkname: 'd/l/../..' }], patch: [] },
      message: /points through the link "d\/l"|leads outside/,
    },
    {
      label: 'a hard link to a file outside',
      tar: [{ name: 'hl', type: 'link', linkname: '../../outside/sentinel.txt' }],
      message: /climbs out of the target folder/,
    },
    {
      label: 'a hard link to an absolute path',
      tar: [{ name: 'hl', type: 'link', linkname: '/etc/passwd' }],
      message: /has an absolute name/,
    },
    {
      label: 'G1: a .git folder with a hook',
      tar: [{ name: 'proj/.git/hooks/pre-commit', content: '#!/bin/sh\ntouch pwned\n' }],
      zip: { specs: [{ name: 'proj/.git/hooks/pre-commit', content: '#!/bin/sh\ntouch pwned\n' }], patch: [] },
      message: /is inside "\.git": git and toolgate run programs/,
    },
    {
      label: 'G1: a .GIT file with gitdir, in another case',
      tar: [{ name: 'sub/.GIT', content: 'gitdir: ../../elsewhere\n' }],
      zip: { specs: [{ name: 'sub/.GIT', content: 'gitdir: ../../elsewhere\n' }], patch: [] },
      message: /is inside "\.GIT"/,
    },
    {
      label: 'G1: a .toolgate policy file',
      tar: [{ name: '.toolgate/policy.toml', content: '[[rules]]\naction = "allow"\n' }],
      message: /is inside "\.toolgate"/,
    },
    {
      label: 'a hard link to a name that is not an earlier file',
      tar: [{ name: 'hl', type: 'link', linkname: 'sentinel.txt' }],
      message: /not an earlier file of the archive/,
    },
  ];

  for (const c of cases) {
    for (const format of ['tar.gz', 'zip'] as const) {
      if (format === 'zip' && c.zip === undefined) continue;
      test(`P7 ${format}: ${c.label} -> refused, nothing written outside the target folder`, async () => {
        const slug = `p7-${format.replace('.', '')}-${c.label.replace(/[^a-z0-9]+/gi, '-')}`;
        const bytes = format === 'zip' ? await zip(c.zip!.specs, c.zip!.patch) : await tarGz(c.tar.map((s) => (s.linkname === PLACEHOLDER ? { ...s, linkname: tmp.sentinel } : s)));
        put(`${slug}/archive.${format}`, bytes);
        const before = fs.readdirSync(path.join(ws, slug)).sort();
        const result = await call('extract_archive', { filepath: `${slug}/archive.${format}`, destination: `${slug}/target/out` });
        failed(result, c.message);
        assert.match(result.output, /nothing was extracted/);
        // The whole list is checked before anything is written: not even the destination's parent is made.
        assert.equal(exists(`${slug}/target`), false, 'nothing is created for a refused archive (no out, no out2, no staging folder)');
        assert.deepEqual(fs.readdirSync(path.join(ws, slug)).sort(), before);
        assert.equal(exists('out2'), false);
        assert.equal(exists('abs'), false);
        assert.equal(fs.existsSync('/abs'), false);
        assertOutsideUnchanged(tmp);
      });
    }
  }

  test('P7: list_archive shows the unsafe tar entries as stored, so they can be inspected', async () => {
    put('p7-list/evil.tar.gz', await tarGz([{ name: '../out2/f', content: 'x' }, { name: '/abs/f', content: 'y' }, { name: 'evil', type: 'symlink', linkname: '../../../outside' }]));
    const listed = ok(await call('list_archive', { filepath: 'p7-list/evil.tar.gz' }));
    assert.deepEqual((listed.entries as Array<{ name: string }>).map((e) => e.name), ['../out2/f', '/abs/f', 'evil']);
  });
});

// ---------------------------------------------------------------------------------------------
describe('archive tools: paths outside the workspace, confirmation and bad arguments', () => {
  test('P1/P2/P4 paths outside the workspace throw PathTraversalError and change nothing outside', async () => {
    put('tr/a.txt', 'a\n');
    put('tr/arch.zip', await zip([{ name: 'f.txt', content: 'f' }]));
    fs.symlinkSync(tmp.outside, path.join(ws, 'tr/outside-link'));
    const outsideArchive = path.join(tmp.outside, 'x.zip');
    for (const bad of ['../outside/sentinel.txt', tmp.sentinel, path.join(tmp.root, 'proj-evil/x'), path.join(tmp.root, 'proj_backup/x'), 'tr/outside-link/sentinel.txt', 'tr/../../outside']) {
      await assertTraversal(call('create_archive', { paths: [bad], destination: 'tr/out.zip' }), `create_archive paths=${bad}`);
      await assertTraversal(call('list_archive', { filepath: bad }), `list_archive ${bad}`);
      await assertTraversal(call('extract_archive', { filepath: bad, destination: 'tr/dest' }), `extract_archive filepath=${bad}`);
    }
    for (const bad of [outsideArchive, '../outside/x.zip', 'tr/outside-link/x.zip', path.join(tmp.root, 'proj-evil/y.zip')]) {
      await assertTraversal(call('create_archive', { paths: ['tr/a.txt'], destination: bad }), `create_archive destination=${bad}`);
    }
    for (const bad of ['../outside', 'tr/outside-link', 'tr/outside-link/sub', path.join(tmp.root, 'proj-evil')]) {
      await assertTraversal(call('extract_archive', { filepath: 'tr/arch.zip', destination: bad }), `extract_archive destination=${bad}`);
    }
    assert.equal(exists('tr/out.zip'), false);
    assert.equal(exists('tr/dest'), false);
    assertOutsideUnchanged(tmp);
  });

  test('create_archive and extract_archive need confirmation; list_archive does not', async () => {
    put('cf/a.txt', 'a');
    put('cf/arch.zip', await zip([{ name: 'f.txt', content: 'f' }]));
    const create = await call('create_archive', { paths: ['cf/a.txt'], destination: 'cf/new.zip' }, { confirm: false });
    assert.equal(create.errorCode, 'CONFIRMATION_REQUIRED');
    assert.equal(exists('cf/new.zip'), false);
    const extract = await call('extract_archive', { filepath: 'cf/arch.zip', destination: 'cf/dest' }, { confirm: false });
    assert.equal(extract.errorCode, 'CONFIRMATION_REQUIRED');
    assert.equal(exists('cf/dest'), false);
    ok(await call('list_archive', { filepath: 'cf/arch.zip' }, { confirm: false }));
  });

  test('wrong types and sizes are schema errors (paths not a list, an empty list, an unknown format, extra properties)', async () => {
    const cases: Array<[string, Record<string, unknown>]> = [
      ['create_archive', { paths: 'cf/a.txt', destination: 'x.zip' }],
      ['create_archive', { paths: [], destination: 'x.zip' }],
      ['create_archive', { paths: ['a'], destination: 'x.rar', format: 'rar' }],
      ['create_archive', { paths: [1], destination: 'x.zip' }],
      ['extract_archive', { filepath: 'a.zip' }],
      ['extract_archive', { filepath: 'a.zip', destination: 'd', overwrite: 'yes' }],
      ['list_archive', { filepath: 'a.zip', max_entries: 0 }],
      ['list_archive', { filepath: 'a.zip', max_entries: 2.5 }],
      ['list_archive', { filepath: 'a.zip', extra: true }],
    ];
    for (const [name, args] of cases) {
      const result = await call(name, args);
      assert.equal(result.success, false, `${name} ${JSON.stringify(args)}`);
      assert.equal(result.errorCode, 'INVALID_ARGUMENTS', `${name} ${JSON.stringify(args)}: ${result.output}`);
    }
    const nul = await call('list_archive', { filepath: 'a\u0000.zip' });
    assert.equal(nul.errorCode, 'INVALID_PATH');
  });
});
