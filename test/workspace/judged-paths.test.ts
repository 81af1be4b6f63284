/**
 * What a call's path arguments reach (issue 30, items 2 and 7): each argument's real path and
 * spelling, hard-linked names, a folder's contents and where they land, git-folder shapes in
 * the landed tree, and a walk cut short.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { judgedPaths, MAX_WALKED_ENTRIES } from '../../src/workspace/judged-paths.js';

let root: string;
before(() => {
  root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'toolgate-judged-')));
});
after(() => fs.rmSync(root, { recursive: true, force: true }));

const at = (rel: string) => path.join(root, rel);
const workspace = () => ({ root, realRoot: root });
const listed = (r: ReturnType<typeof judgedPaths>) => r.paths.map((p) => `${p.via}:${p.relative}`);

test('a link is judged by its target and its spelling; a hard link by its other names', () => {
  fs.writeFileSync(at('.env'), 'x');
  fs.symlinkSync('.env', at('env-link'));
  fs.linkSync(at('.env'), at('notes.txt'));
  const linked = judgedPaths([{ given: 'env-link', real: at('.env') }], { workspace: workspace() });
  assert.deepEqual(listed(linked), ['target:.env', 'spelled:env-link', 'alias:notes.txt']);
  const absolute = judgedPaths([{ given: `${root}/sub/../env-link`, real: at('.env') }], { workspace: workspace(), aliases: false });
  assert.deepEqual(listed(absolute), ['target:.env', 'spelled:env-link']);
  assert.equal(absolute.incomplete, undefined);
});

test('a folder moved: what it holds, where it lands, and a git-folder shape it carries; .git judged by its name only', () => {
  fs.mkdirSync(at('stage/deep/refs'), { recursive: true });
  fs.writeFileSync(at('stage/deep/HEAD'), 'ref: refs/heads/main\n');
  fs.mkdirSync(at('stage/.git/objects'), { recursive: true });
  const r = judgedPaths([{ given: 'stage', real: at('stage') }, { given: 'dest', real: at('dest') }], { workspace: workspace(), contents: true });
  const paths = listed(r);
  for (const expected of ['inside:stage/deep/HEAD', 'landing:dest/deep/HEAD', 'inside:stage/.git', 'landing:dest/.git']) assert.ok(paths.includes(expected), `${expected} in ${paths.join(', ')}`);
  assert.ok(!paths.some((p) => p.includes('.git/objects')), 'not below .git');
  assert.deepEqual(r.landingShapes, ['dest/deep']);
  const plain = judgedPaths([{ given: 'stage', real: at('stage') }, { given: 'dest', real: at('dest') }], { workspace: workspace() });
  assert.deepEqual(listed(plain), ['target:stage', 'target:dest'], 'contents only when asked');
});

test(`a walk past ${MAX_WALKED_ENTRIES} entries says it is incomplete`, () => {
  fs.mkdirSync(at('big'));
  for (let i = 0; i <= MAX_WALKED_ENTRIES; i++) fs.writeFileSync(at(`big/f${i}`), '');
  const r = judgedPaths([{ given: 'big', real: at('big') }], { workspace: workspace(), contents: true });
  assert.match(r.incomplete ?? '', /more than 5000 entries/);
});
