// The sandbox covers of a workspace are kept between shell commands while no folder and no
// mount has changed (src/workspace/cover-snapshots.ts): the whole-workspace walk cost about
// 12 µs per entry before every command (npm run bench -- --covers). A kept answer must never
// miss what a new walk would find: a file turned into a hard link of a secret, a new file with
// a secret's name, a renamed folder, a change in a folder deep down, a change made right after
// a walk. The first part checks the answers themselves (no sandbox needed); the second runs
// commands in the sandbox, where the covers apply (skipped without bubblewrap: there a
// command's reads are not covered at all, docs/sandbox.md).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, afterEach, before, beforeEach, describe, test } from 'node:test';
import { ToolExecutor } from 'toolgate';
import { bubblewrapAvailable } from 'toolgate/internal';
import { forgetCoverSnapshots, RACY_MS, workspaceCovers } from '../../src/workspace/cover-snapshots.js';
import type { PathFilter } from '../../src/workspace/path-filter.js';
import { policyPathFilter } from '../../src/decisions/policy-path-filter.js';
import { portedRegistry, tempWorkspace, type TempWorkspace } from '../helpers.js';
import { waitFor } from '../wait.js';

/** Every folder below `root` (and it). */
function folders(root: string): string[] {
  const found = [root];
  for (const e of fs.readdirSync(root, { withFileTypes: true, recursive: true })) if (e.isDirectory()) found.push(path.join(e.parentPath, e.name));
  return found;
}

/** Wait until no folder of the workspace changed in the last {@link RACY_MS} (a walk may then keep its answer). */
async function settled(root: string): Promise<void> {
  await waitFor(() => folders(root).every((f) => Date.now() - fs.lstatSync(f).ctimeMs > RACY_MS + 100), { what: `every folder to be older than ${RACY_MS} ms`, intervalMs: 100 });
}

const withheldPath = (p: string): boolean => p === 'secrets' || p.startsWith('secrets/') || p === '.env' || p.endsWith('/.env');

describe('kept sandbox covers', () => {
  let t: TempWorkspace;
  let judged = 0;
  let filter: PathFilter;
  const covers = async (limit?: number): Promise<{ paths: string[]; complete: boolean; walked: boolean }> => {
    const before = judged;
    const found = await workspaceCovers(t.ws, filter, undefined, limit);
    return { paths: [...found.paths].sort(), complete: found.complete, walked: judged > before };
  };
  beforeEach(() => {
    forgetCoverSnapshots();
    t = tempWorkspace();
    fs.mkdirSync(path.join(t.ws, 'secrets'));
    fs.writeFileSync(path.join(t.ws, 'secrets/key.txt'), 'SECRET');
    fs.writeFileSync(path.join(t.ws, '.env'), 'SECRET');
    fs.mkdirSync(path.join(t.ws, 'pub/deep/er'), { recursive: true });
    fs.writeFileSync(path.join(t.ws, 'pub/notes.txt'), 'plain');
    fs.writeFileSync(path.join(t.ws, 'pub/deep/er/x.txt'), 'plain');
    judged = 0;
    filter = Object.assign((p: string) => {
      judged++;
      return withheldPath(p);
    }, { rulesKey: `test-${Math.random()}` });
  });
  afterEach(() => t.cleanup());

  test('a walk over folders changed just now keeps nothing; once they settled, the next answer is kept and used while nothing changes', async () => {
    const first = await covers();
    assert.deepEqual(first, { paths: ['.env', 'secrets'], complete: true, walked: true });
    assert.equal((await covers()).walked, true, 'the folders were made less than RACY_MS ago: nothing was kept');
    await settled(t.ws);
    assert.equal((await covers()).walked, true);
    const kept = await covers();
    assert.deepEqual(kept, { paths: ['.env', 'secrets'], complete: true, walked: false });
    // Content, a file's mode and times change no folder and no answer.
    fs.writeFileSync(path.join(t.ws, 'pub/notes.txt'), 'other');
    fs.chmodSync(path.join(t.ws, 'pub/notes.txt'), 0o600);
    assert.equal((await covers()).walked, false);
  });

  test('a file turned into a hard link of a secret after the answer was kept is covered at the next command', async () => {
    await settled(t.ws);
    await covers();
    assert.equal((await covers()).walked, false);
    fs.rmSync(path.join(t.ws, 'pub/deep/er/x.txt'));
    fs.linkSync(path.join(t.ws, 'secrets/key.txt'), path.join(t.ws, 'pub/deep/er/x.txt'));
    assert.deepEqual(await covers(), { paths: ['.env', 'pub/deep/er/x.txt', 'secrets'], complete: true, walked: true });
  });

  test('a hard link made over an existing name at once (rename onto it) is covered too', async () => {
    await settled(t.ws);
    await covers();
    assert.equal((await covers()).walked, false);
    fs.linkSync(path.join(t.ws, '.env'), path.join(t.ws, 'pub/tmp-link'));
    fs.renameSync(path.join(t.ws, 'pub/tmp-link'), path.join(t.ws, 'pub/notes.txt'));
    assert.deepEqual((await covers()).paths, ['.env', 'pub/notes.txt', 'secrets']);
  });

  test('a new file with a secret\'s name, deep down, is covered at the next command', async () => {
    await settled(t.ws);
    await covers();
    fs.writeFileSync(path.join(t.ws, 'pub/deep/er/.env'), 'SECRET');
    assert.deepEqual((await covers()).paths, ['.env', 'pub/deep/er/.env', 'secrets']);
  });

  test('a renamed folder: the secret is covered at its new path, not its old one', async () => {
    fs.writeFileSync(path.join(t.ws, 'pub/deep/.env'), 'SECRET');
    await settled(t.ws);
    await covers();
    assert.deepEqual((await covers()).paths, ['.env', 'pub/deep/.env', 'secrets']);
    fs.renameSync(path.join(t.ws, 'pub/deep'), path.join(t.ws, 'moved'));
    assert.deepEqual((await covers()).paths, ['.env', 'moved/.env', 'secrets']);
  });

  test('a folder replaced by another with the same name (and the same entries) is walked again', async () => {
    await settled(t.ws);
    await covers();
    fs.mkdirSync(path.join(t.ws, 'pub2/deep/er'), { recursive: true });
    fs.writeFileSync(path.join(t.ws, 'pub2/notes.txt'), 'plain');
    fs.linkSync(path.join(t.ws, 'secrets/key.txt'), path.join(t.ws, 'pub2/deep/er/x.txt'));
    fs.rmSync(path.join(t.ws, 'pub'), { recursive: true });
    fs.renameSync(path.join(t.ws, 'pub2'), path.join(t.ws, 'pub'));
    assert.deepEqual((await covers()).paths, ['.env', 'pub/deep/er/x.txt', 'secrets']);
  });

  test('an answer cut short by the bound (many entries) is never kept: every command walks again, and says so', async () => {
    for (let i = 0; i < 50; i++) fs.writeFileSync(path.join(t.ws, `pub/f${i}`), '');
    await settled(t.ws);
    for (let i = 0; i < 3; i++) {
      const found = await covers(20);
      assert.equal(found.complete, false);
      assert.equal(found.walked, true);
    }
    assert.equal((await covers()).complete, true);
  });

  test('a filter that does not name its rules is walked every time', async () => {
    await settled(t.ws);
    filter = (p: string) => {
      judged++;
      return withheldPath(p);
    };
    await covers();
    assert.equal((await covers()).walked, true);
  });

  test('another set of rules does not use the first one\'s answer', async () => {
    await settled(t.ws);
    await covers();
    assert.equal((await covers()).walked, false);
    filter = Object.assign((p: string) => {
      judged++;
      return p === 'pub' || withheldPath(p);
    }, { rulesKey: 'other' });
    assert.deepEqual(await covers(), { paths: ['.env', 'pub', 'secrets'], complete: true, walked: true });
  });
});

describe('kept sandbox covers, in the sandbox: a command after a change sees no secret', { skip: bubblewrapAvailable() ? false : 'bubblewrap does not work here (a command\'s reads are not covered without it)' }, () => {
  let t: TempWorkspace;
  let executor: ToolExecutor;
  before(async () => {
    t = tempWorkspace();
    const userFile = path.join(t.root, 'config', 'toolgate', 'policy.toml');
    fs.mkdirSync(path.dirname(userFile), { recursive: true });
    fs.writeFileSync(userFile, '[[rules]]\naction = "deny"\npaths = ["**/.env", "secrets/**"]\n');
    executor = new ToolExecutor(await portedRegistry(), { workspaceRoot: t.ws, policy: { user: userFile, workspace: false }, approvalMode: 'allow-all' });
    fs.mkdirSync(path.join(t.ws, 'secrets'));
    fs.writeFileSync(path.join(t.ws, 'secrets/key.txt'), 'SECRET-KEY needle\n');
    fs.mkdirSync(path.join(t.ws, 'pub/deep'), { recursive: true });
    fs.writeFileSync(path.join(t.ws, 'pub/notes.txt'), 'plain notes needle\n');
    fs.writeFileSync(path.join(t.ws, 'pub/deep/readme.txt'), 'plain readme needle\n');
  });
  after(async () => {
    await executor.close();
    t.cleanup();
  });
  const grep = async (): Promise<string> => {
    const r = await executor.execute({ name: 'run_command', arguments: { command: 'grep -r needle . | sort' } }, { confirm: true });
    return String(r.output);
  };

  test('commands before and after: a file turned into a hard link of the secret, a new .env, a renamed folder', async () => {
    await settled(t.ws);
    let output = await grep();
    assert.match(output, /plain notes needle/);
    assert.doesNotMatch(output, /SECRET/, output);
    output = await grep(); // from the kept answer
    assert.match(output, /plain readme needle/);
    assert.doesNotMatch(output, /SECRET/, output);

    fs.rmSync(path.join(t.ws, 'pub/notes.txt'));
    fs.linkSync(path.join(t.ws, 'secrets/key.txt'), path.join(t.ws, 'pub/notes.txt'));
    output = await grep();
    assert.doesNotMatch(output, /SECRET/, output);
    assert.match(output, /plain readme needle/);

    fs.writeFileSync(path.join(t.ws, 'pub/deep/.env'), 'TOKEN=SECRET-ENV needle\n');
    output = await grep();
    assert.doesNotMatch(output, /SECRET/, output);

    await settled(t.ws);
    await grep();
    fs.renameSync(path.join(t.ws, 'pub/deep'), path.join(t.ws, 'moved'));
    output = await grep();
    assert.doesNotMatch(output, /SECRET/, output);
    assert.match(output, /moved\/readme\.txt:plain readme needle/);
  });
});

describe('the rules key of a call\'s path filter (what a kept answer is filed under)', () => {
  let t: TempWorkspace;
  let userFile: string;
  before(() => {
    t = tempWorkspace();
    userFile = path.join(t.root, 'policy.toml');
    fs.writeFileSync(userFile, '[[rules]]\naction = "deny"\npaths = ["**/.env"]\n\n[[rules]]\naction = "ask"\npaths = ["notes/**"]\n');
  });
  after(() => t.cleanup());
  const tool = { name: 'run_command', kind: 'shell_command', commandArguments: ['command'] };

  test('the same files, tool and answers give the same key; another answer, tool or file content another; rules with args none', () => {
    const key = (answered: string[] = [], name = 'run_command') => policyPathFilter({ user: userFile, tool: { ...tool, name }, answered }).rulesKey;
    const first = key();
    assert.equal(typeof first, 'string');
    assert.equal(key(), first);
    assert.notEqual(key([`${userFile}:4`]), first);
    assert.notEqual(key([], 'exec_command'), first);
    fs.writeFileSync(userFile, '[[rules]]\naction = "deny"\npaths = ["**/.env", "x/**"]\n');
    assert.notEqual(key(), first);
    assert.equal(policyPathFilter({ user: userFile, tool, answered: [], args: { command: 'true' } }).rulesKey, undefined);
  });
});
