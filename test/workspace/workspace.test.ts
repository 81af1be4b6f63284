import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { InvalidPathError, PathTraversalError } from 'toolgate';
import { isInside, Workspace } from '../../src/workspace/workspace.js';
import { tempWorkspace } from '../helpers.js';

describe('workspace paths', () => {
  const t = tempWorkspace();
  after(t.cleanup);
  const ws = new Workspace(t.ws);
  const real = fs.realpathSync(t.ws);
  fs.mkdirSync(path.join(t.ws, 'sub'));
  fs.writeFileSync(path.join(t.ws, 'sub', 'a.txt'), 'a');
  fs.symlinkSync(t.sentinel, path.join(t.ws, 'link-out'));
  fs.symlinkSync(t.outside, path.join(t.ws, 'dir-out'));
  fs.symlinkSync(path.join(t.ws, 'sub', 'a.txt'), path.join(t.ws, 'link-in'));
  fs.symlinkSync(path.join(t.outside, 'not-yet'), path.join(t.ws, 'dangling-out'));
  fs.symlinkSync('loop-b', path.join(t.ws, 'loop-a'));
  fs.symlinkSync('loop-a', path.join(t.ws, 'loop-b'));

  const escapes = (p: string) => assert.throws(() => ws.resolve(p), (e: unknown) => e instanceof PathTraversalError && e.code === 'PATH_TRAVERSAL', p);

  it('resolves relative and absolute paths inside the workspace', () => {
    assert.equal(ws.resolve('sub/a.txt'), path.join(real, 'sub', 'a.txt'));
    assert.equal(ws.resolve(path.join(t.ws, 'sub', 'a.txt')), path.join(real, 'sub', 'a.txt'));
    assert.equal(ws.resolve('.'), real);
    assert.equal(ws.resolve('new/dir/file.txt'), path.join(real, 'new', 'dir', 'file.txt'));
    assert.equal(ws.resolve('link-in'), path.join(real, 'sub', 'a.txt'));
    assert.equal(ws.relative(path.join(real, 'sub', 'a.txt')), 'sub/a.txt');
  });

  it('P1: prefix siblings are outside', () => {
    escapes('../proj-evil/x');
    escapes('../proj_backup/x');
    escapes(path.join(t.root, 'proj-evil', 'x'));
    escapes(path.join(t.root, 'proj_backup', 'x'));
    assert.equal(isInside('/ws/proj', '/ws/proj-evil/x'), false);
    assert.equal(isInside('/ws/proj', '/ws/proj/x'), true);
  });

  it('P2: symbolic links that lead outside are refused after resolving', () => {
    escapes('link-out');
    escapes('dir-out/sentinel.txt');
    escapes('dir-out/new-file.txt');
    escapes('dangling-out');
    escapes('dangling-out/child');
  });

  it('P4: traversal forms are refused; names with dots are allowed', () => {
    escapes('sub/../../outside/sentinel.txt');
    escapes('/etc/passwd');
    escapes('~/.ssh/id_rsa');
    escapes('~');
    escapes('~root/.bashrc');
    escapes('..');
    assert.throws(() => ws.resolve(''), InvalidPathError);
    assert.throws(() => ws.resolve('   '), InvalidPathError);
    assert.equal(ws.resolve('..test'), path.join(real, '..test'));
    assert.equal(ws.resolve('te..st'), path.join(real, 'te..st'));
    assert.equal(ws.resolve('sub/..hidden/x'), path.join(real, 'sub', '..hidden', 'x'));
  });

  it('P5: a NUL byte is a clear validation error', () => {
    assert.throws(() => ws.resolve('notes.md\u0000.sh'), (e: unknown) => e instanceof InvalidPathError && e.code === 'INVALID_PATH' && /NUL byte/.test(e.message));
    assert.throws(() => ws.resolve(42), InvalidPathError);
  });

  it('refuses symbolic link loops', () => {
    assert.throws(() => ws.resolve('loop-a'), (e: unknown) => e instanceof InvalidPathError && /too many symbolic links/.test(e.message));
  });

  it('works when the root itself is reached through a symbolic link', () => {
    const linkedRoot = path.join(t.root, 'proj-link');
    fs.symlinkSync(t.ws, linkedRoot);
    const viaLink = new Workspace(linkedRoot);
    assert.equal(viaLink.resolve('sub/a.txt'), path.join(real, 'sub', 'a.txt'));
    assert.equal(viaLink.resolve(path.join(linkedRoot, 'sub', 'a.txt')), path.join(real, 'sub', 'a.txt'));
    assert.throws(() => viaLink.resolve('../proj-evil/x'), PathTraversalError);
  });

  it('reports a missing root clearly', () => {
    assert.throws(() => new Workspace(path.join(t.root, 'missing')).resolve('a'), /workspace root does not exist/);
  });
});
