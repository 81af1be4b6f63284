// Regression (review s19, item 1 of s20-sandbox): the index of the withheld files' hard links
// (`src/workspace/withheld-inodes.ts`) walked the workspace synchronously, up to 100,000
// entries, on the first file with more than one link a folder tool met: the event loop stood
// still meanwhile (every other call, timer and abort of the process waited). And a folder the
// walk could not read was taken as walked, so a hard link of `.env` inside it was missed while
// its other name elsewhere was shown. The walk now reads folders asynchronously, and a folder
// it cannot read makes it incomplete (fail closed: a multi-link file is then shown only when
// all of its names were seen, withheld-inodes-incomplete.test.ts).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { CallContext } from '../../src/runner/call-context.js';
import { withheldInodes } from '../../src/workspace/withheld-inodes.js';
import { tempWorkspace } from '../helpers.js';

const FOLDERS = 200;

describe('P9 family: the walk for the withheld files\' other names', () => {
  test('does not hold the event loop: it turns at least once per folder read while a question waits for the walk', async () => {
    const t = tempWorkspace();
    try {
      const userFile = path.join(t.root, 'policy.toml');
      fs.writeFileSync(userFile, '[[rules]]\naction = "deny"\npaths = [".env"]\n');
      fs.writeFileSync(path.join(t.ws, '.env'), 'TOKEN=x\n');
      for (let i = 0; i < FOLDERS; i++) {
        fs.mkdirSync(path.join(t.ws, `d${i}`));
        fs.writeFileSync(path.join(t.ws, `d${i}`, 'f.txt'), 'x');
      }
      fs.linkSync(path.join(t.ws, '.env'), path.join(t.ws, 'd7', 'hl'));
      fs.writeFileSync(path.join(t.ws, 'shared.txt'), 'x');
      fs.linkSync(path.join(t.ws, 'shared.txt'), path.join(t.ws, 'd9', 'shared-too.txt'));
      const ctx = new CallContext('c1', 'grep_files', '1.0.0', t.ws, false, 1000);
      ctx.pathFilter = { user: userFile, tool: { name: 'grep_files', kind: 'file_read', commandArguments: [] }, answered: [] };
      let turns = 0;
      let counting = true;
      const count = (): void => {
        turns++;
        if (counting) setImmediate(count);
      };
      setImmediate(count);
      const answer = await ctx.workspace.withholds('d7/hl');
      counting = false;
      assert.equal(answer, true, 'the hard link of .env is withheld');
      assert.ok(turns >= FOLDERS / 2, `the event loop turned ${turns} times during a walk of ${FOLDERS} folders`);
      assert.equal(await ctx.workspace.withholds('d9/shared-too.txt'), false, 'two names of a file no rule covers: shown');
      assert.equal(await ctx.workspace.withholds('shared.txt'), false);
    } finally {
      t.cleanup();
    }
  });

  test('a folder it cannot read makes the answer incomplete (fail closed), not walked', () => {
    const t = tempWorkspace();
    try {
      fs.chmodSync(t.root, 0o755);
      fs.chmodSync(t.ws, 0o755);
      fs.mkdirSync(path.join(t.ws, 'open'));
      fs.writeFileSync(path.join(t.ws, 'open', 'a.txt'), 'x');
      fs.mkdirSync(path.join(t.ws, 'closed'));
      fs.writeFileSync(path.join(t.ws, 'closed', '.env'), 'x');
      fs.linkSync(path.join(t.ws, 'closed', '.env'), path.join(t.ws, 'open', 'hl'));
      fs.chmodSync(path.join(t.ws, 'closed'), 0o000);
      const module = fileURLToPath(new URL('../../src/workspace/withheld-inodes.js', import.meta.url));
      const script = `import(${JSON.stringify(module)}).then(async (m) => console.log(JSON.stringify(await m.withheldInodes(${JSON.stringify(t.ws)}, (p) => p.endsWith('.env')))))`;
      // As root no folder is unreadable: the walk runs as nobody (uid 65534) then.
      const argv = process.getuid?.() === 0 ? ['setpriv', '--reuid=65534', '--regid=65534', '--clear-groups', process.execPath] : [process.execPath];
      const out = execFileSync(argv[0]!, [...argv.slice(1), '--input-type=module', '-e', script], { encoding: 'utf8' });
      assert.deepEqual(JSON.parse(out), { keys: {}, incomplete: true });
    } finally {
      fs.chmodSync(path.join(t.ws, 'closed'), 0o755);
      t.cleanup();
    }
  });

  test('a complete walk finds the withheld multi-link files only', async () => {
    const t = tempWorkspace();
    try {
      fs.writeFileSync(path.join(t.ws, '.env'), 'x');
      fs.linkSync(path.join(t.ws, '.env'), path.join(t.ws, 'hl'));
      fs.writeFileSync(path.join(t.ws, 'lone.env'), 'x');
      const found = await withheldInodes(t.ws, (p) => p.endsWith('.env'));
      assert.equal(found.incomplete, false);
      assert.deepEqual([...found.keys], [`${fs.statSync(path.join(t.ws, 'hl')).dev}:${fs.statSync(path.join(t.ws, 'hl')).ino}`]);
      assert.equal((await withheldInodes(t.ws, (p) => p.endsWith('.env'), undefined, 2)).incomplete, true, 'cut short: incomplete');
    } finally {
      t.cleanup();
    }
  });
});
