// Regression (session 20's notes, "withheld-inodes"): the walk for the withheld files' other
// names (`src/workspace/withheld-inodes.ts`) gave up at the first folder it could not read (the
// rest of the workspace unwalked) and then, as when cut short at its bound, every file with more
// than one link was withheld: fail closed, but two names of an ordinary file, or a file linked
// from outside, were hidden too. And it looked at its abort signal once per folder, so a folder
// of 500,000 entries could not be stopped in the middle.
//
// Now a multi-link file that an incomplete walk did not find withheld is shown only when a
// second walk counts all of its names (its link count) and none is withheld; a file with a name
// left unseen (in the unread folder, past the bound, outside the workspace) stays withheld. The
// walk goes on past an unreadable folder, and looks at its signal before every entry: an abort
// delivered by the event loop lands within one batch of entries (counted here, never timed).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { countNames, inodeKey, WALK_BATCH, withheldInodes } from '../../src/workspace/withheld-inodes.js';
import { tempWorkspace } from '../helpers.js';

const isEnv = (p: string): boolean => p.endsWith('.env');

function exact(file: string): fs.BigIntStats {
  return fs.statSync(file, { bigint: true });
}

describe('P9 family: a walk for the withheld files\' other names that cannot see everything', () => {
  test('an unreadable folder: the walk goes on past it, and only files with a name it could not see, or a withheld one, are withheld', () => {
    const t = tempWorkspace();
    const at = (rel: string): string => path.join(t.ws, rel);
    try {
      fs.chmodSync(t.root, 0o755);
      fs.chmodSync(t.ws, 0o755);
      fs.mkdirSync(at('open'));
      fs.mkdirSync(at('later'));
      fs.mkdirSync(at('closed'));
      fs.writeFileSync(at('closed/.env'), 'SECRET=1\n');
      fs.linkSync(at('closed/.env'), at('open/hl')); // another name of a withheld file it cannot see
      fs.writeFileSync(at('later/.env'), 'SECRET=2\n');
      fs.linkSync(at('later/.env'), at('open/hl2')); // another name of a withheld file it can see
      fs.writeFileSync(at('open/a.txt'), 'a\n');
      fs.linkSync(at('open/a.txt'), at('later/a-too.txt')); // two names, both seen, none withheld
      fs.writeFileSync(at('open/plain.txt'), 'p\n');
      fs.writeFileSync(at('open/from-outside.txt'), 'o\n');
      fs.linkSync(at('open/from-outside.txt'), path.join(t.outside, 'other-name.txt')); // a name outside: unseen
      fs.chmodSync(at('closed'), 0o000);
      const workspaceModule = fileURLToPath(new URL('../../src/workspace/workspace.js', import.meta.url));
      const walkModule = fileURLToPath(new URL('../../src/workspace/withheld-inodes.js', import.meta.url));
      const asked = ['open/hl', 'open/hl2', 'open/a.txt', 'later/a-too.txt', 'open/plain.txt', 'open/from-outside.txt'];
      const script = `
        const { Workspace } = await import(${JSON.stringify(workspaceModule)});
        const { withheldInodes } = await import(${JSON.stringify(walkModule)});
        const isEnv = (p) => p.endsWith('.env');
        const walk = await withheldInodes(${JSON.stringify(t.ws)}, isEnv);
        const ws = new Workspace(${JSON.stringify(t.ws)}, undefined, isEnv);
        const answers = {};
        for (const p of ${JSON.stringify(asked)}) answers[p] = await ws.withholds(p);
        console.log(JSON.stringify({ keys: [...walk.keys], incomplete: walk.incomplete, answers, withheld: ws.withheld }));`;
      // As root no folder is unreadable: the walk runs as nobody (uid 65534) then.
      const argv = process.getuid?.() === 0 ? ['setpriv', '--reuid=65534', '--regid=65534', '--clear-groups', process.execPath] : [process.execPath];
      const out = JSON.parse(execFileSync(argv[0]!, [...argv.slice(1), '--input-type=module', '-e', script], { encoding: 'utf8' }));
      assert.equal(out.incomplete, true, 'a folder it could not read: incomplete');
      assert.deepEqual(out.keys, [inodeKey(fs.statSync(at('later/.env')))], 'the withheld file beyond the unreadable folder is still found');
      assert.deepEqual(out.answers, {
        'open/hl': true, // its other name may be (is) in the folder nobody could read: fail closed
        'open/hl2': true, // another name of later/.env
        'open/a.txt': false, // both names seen, neither withheld (withheld before this change)
        'later/a-too.txt': false,
        'open/plain.txt': false, // one name: never looked for
        'open/from-outside.txt': true, // a name the walk could not see (outside the workspace): fail closed
      });
      assert.equal(out.withheld, 3);
    } finally {
      fs.chmodSync(path.join(t.ws, 'closed'), 0o755);
      t.cleanup();
    }
  });

  test('cut short at its bound: a file is shown only when all of its names lie within the entries walked', async () => {
    const t = tempWorkspace();
    const at = (rel: string): string => path.join(t.ws, rel);
    try {
      // 3 entries at the top, 2 in deep/, 1 in deep/deeper/: the order inside a folder does
      // not matter, a bound of 5 leaves deep/deeper/ unread, and 6 reads everything.
      fs.mkdirSync(at('deep/deeper'), { recursive: true });
      fs.writeFileSync(at('p1'), 'a\n');
      fs.linkSync(at('p1'), at('p2'));
      fs.writeFileSync(at('deep/b1'), 'b\n');
      fs.linkSync(at('deep/b1'), at('deep/deeper/b2'));
      const cut = await withheldInodes(t.ws, isEnv, undefined, 5);
      assert.equal(cut.incomplete, true);
      const cutCounts = await countNames(t.ws, isEnv, undefined, 5);
      assert.equal(cutCounts.accountsFor(exact(at('p1'))), true, 'both names within the bound');
      assert.equal(cutCounts.accountsFor(exact(at('deep/b1'))), false, 'a name past the bound: not proven');
      assert.equal((await withheldInodes(t.ws, isEnv, undefined, 6)).incomplete, false, 'six entries, bound six: complete');
      assert.equal((await countNames(t.ws, isEnv, undefined, 6)).accountsFor(exact(at('deep/b1'))), true);
    } finally {
      t.cleanup();
    }
  });

  test('the names counted prove nothing for a file with a withheld name, or whose link count grew', async () => {
    const t = tempWorkspace();
    const at = (rel: string): string => path.join(t.ws, rel);
    try {
      fs.writeFileSync(at('.env'), 'SECRET=1\n');
      fs.linkSync(at('.env'), at('hl'));
      fs.writeFileSync(at('x'), 'x\n');
      fs.linkSync(at('x'), at('y'));
      const counts = await countNames(t.ws, isEnv);
      assert.equal(counts.accountsFor(exact(at('hl'))), false, 'a withheld name among them');
      assert.equal(counts.accountsFor(exact(at('x'))), true);
      fs.linkSync(at('x'), path.join(t.outside, 'third-name'));
      assert.equal(counts.accountsFor(exact(at('x'))), false, 'three links now, two names counted');
      assert.equal(counts.accountsFor(exact(t.sentinel)), false, 'a file the walk never met');
    } finally {
      t.cleanup();
    }
  });

  for (const [name, walk] of [
    ['withheldInodes', withheldInodes],
    ['countNames', countNames],
  ] as const) {
    test(`${name}: an abort delivered by the event loop in the middle of one large folder ends the walk within one batch (${WALK_BATCH} entries)`, async () => {
      const t = tempWorkspace();
      const FILES = 1500; // 3,000 entries in one folder: about 12 batches
      try {
        fs.mkdirSync(path.join(t.ws, 'big'));
        for (let i = 0; i < FILES; i++) {
          fs.writeFileSync(path.join(t.ws, 'big', `f${i}`), '');
          fs.linkSync(path.join(t.ws, 'big', `f${i}`), path.join(t.ws, 'big', `g${i}`)); // countNames judges multi-link files only
        }
        const controller = new AbortController();
        const reason = new Error('the call was aborted');
        let judged = 0;
        let atAbort: number | undefined;
        const judge = (): boolean => {
          judged++;
          // The first entry judged schedules the abort: it is delivered on the next turn of the
          // event loop, as a caller's abort or a call's timeout is.
          if (judged === 1)
            setImmediate(() => {
              atAbort = judged;
              controller.abort(reason);
            });
          return false;
        };
        await assert.rejects(walk(t.ws, judge, controller.signal), (e) => e === reason);
        assert.ok(atAbort !== undefined, 'the abort was delivered while the walk ran');
        assert.ok(atAbort < 2 * FILES, `the abort came in the middle of the folder (after ${atAbort} entries)`);
        assert.ok(judged - atAbort <= WALK_BATCH, `${judged - atAbort} entries judged after the abort (at most one batch, ${WALK_BATCH})`);
      } finally {
        t.cleanup();
      }
    });
  }
});
