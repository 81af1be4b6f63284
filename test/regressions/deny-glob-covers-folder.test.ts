/**
 * A `deny` (or `ask`) glob that matches a folder covers what the folder holds, as a
 * `.gitignore` line does: under `paths = ["**\/.env"]`, a folder `sub/.env` and its `key` are
 * out of reach of the file tools and, without a sandbox, of shell commands that name them
 * (with one, the sandbox hides the folder whole). An `allow` glob grants only what it matches
 * as written. Found by the session-22 link trial (test/regressions/deny-rule-link-outside).
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { policyExecutor } from '../policy-executor.js';

const SECRET = 'FOLDER-SECRET-7731';

describe('a deny glob that matches a folder covers all it holds', () => {
  const fx = policyExecutor({
    // (the last rule that matches decides: the deny comes after the allows)
    rules: '[[rules]]\ncommand = "cat"\naction = "allow"\n\n[[rules]]\ntool = "read_file"\naction = "allow"\n\n[[rules]]\npaths = ["**/.env"]\naction = "deny"\n',
    executor: { sandbox: 'none' },
  });
  const put = () => {
    fs.mkdirSync(path.join(fx.t.ws, 'sub', '.env', 'deeper'), { recursive: true });
    fs.writeFileSync(path.join(fx.t.ws, 'sub', '.env', 'key'), `${SECRET}\n`);
    fs.writeFileSync(path.join(fx.t.ws, 'sub', '.env', 'deeper', 'key2'), `${SECRET}\n`);
    fs.writeFileSync(path.join(fx.t.ws, 'sub', 'open.txt'), 'open\n');
  };

  test('read_file of a file inside the folder is denied, however deep; a file beside it is read', async () => {
    put();
    for (const filepath of ['sub/.env/key', 'sub/.env/deeper/key2', 'sub/.ENV/key']) {
      const r = await fx.executor.execute({ name: 'read_file', arguments: { filepath } }, { confirm: true });
      if (filepath === 'sub/.ENV/key' && !r.success && r.errorCode !== 'POLICY_DENIED') continue; // a case-sensitive file system: no such file
      assert.equal(r.errorCode, 'POLICY_DENIED', `${filepath}: ${r.output}`);
      assert.doesNotMatch(r.output, new RegExp(SECRET));
    }
    const open = await fx.executor.execute({ name: 'read_file', arguments: { filepath: 'sub/open.txt' } }, { confirm: true });
    assert.equal(open.success, true, open.output);
  });

  test('without a sandbox, a command naming a file inside the folder is denied and prints nothing of it', async () => {
    put();
    for (const command of ['cat sub/.env/key', 'cat sub/.env/deeper/key2', 'cat sub/.e*/key']) {
      const r = await fx.executor.execute({ name: 'run_command', arguments: { command } }, { confirm: true });
      assert.equal(r.errorCode, 'POLICY_DENIED', `${command}: ${r.output}`);
      assert.doesNotMatch(r.output, new RegExp(SECRET));
    }
  });
});

describe('an allow glob grants only the paths it matches as written', () => {
  const fx = policyExecutor({
    rules: '[[rules]]\ntool = "write_file"\npaths = ["docs/*"]\naction = "allow"\n',
    executor: { sandbox: 'none' },
  });

  test('docs/* allows docs/a.md unasked; docs/x/b.md still asks', async () => {
    fs.mkdirSync(path.join(fx.t.ws, 'docs', 'x'), { recursive: true });
    const top = await fx.executor.execute({ name: 'write_file', arguments: { filepath: 'docs/a.md', content: 'a\n' } });
    assert.equal(top.success, true, top.output);
    const below = await fx.executor.execute({ name: 'write_file', arguments: { filepath: 'docs/x/b.md', content: 'b\n' } });
    assert.equal(below.errorCode, 'CONFIRMATION_REQUIRED', below.output);
    assert.equal(fs.existsSync(path.join(fx.t.ws, 'docs', 'x', 'b.md')), false);
  });
});
