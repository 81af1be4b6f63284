// Regression (s22): a deny path rule did not cover a name in the workspace that is a symbolic
// link to a file outside it (`.env -> ~/.secrets/env`, as dotfile managers and secrets folders
// make them). The deciders judged a command word by where it leads and skipped a target outside
// the workspace as "the sandbox's business" (`cat .env`, `cat ./.e*` ran), and the sandbox's
// covers walk skipped links (`grep -R KEY .`, `cat $(ls -A | head -1)`, `find ... -exec cat`
// printed the secret). A name is now judged as spelled whatever it leads to, and a withheld
// name that is a link has what it leads to covered in the sandbox. The target lies in a
// temporary folder the sandbox shows (under the user's home folder when it can be written:
// /tmp is private in the sandbox, where a target would dangle and prove nothing).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { after, before, describe, test } from 'node:test';
import { bubblewrapAvailable } from 'toolgate/internal';
import { policyExecutor } from '../policy-executor.js';

const RULES = '[[rules]]\npaths = ["**/.env", "**/.env/**"]\naction = "deny"\n[[rules]]\ncommand = "grep"\naction = "allow"\n[[rules]]\ncommand = "cat"\naction = "allow"\n[[rules]]\ncommand = "find"\naction = "allow"\n';

/** What the linked files hold (the grep's pattern, `VALUE`, is in both: a message quoting the command does not match). */
const SECRET = /zq-(env|key)-7731/;

/** Folders the sandbox replaces with its own empty ones (src/sandbox/bubblewrap.ts). */
const PRIVATE_IN_SANDBOX = ['/tmp', '/var/tmp', '/run', '/var/run', '/dev/shm'];

/** A temporary folder outside the workspace that the sandbox shows when it can be made so (the user's home), else one under the system's temporary folder; and which. */
function targetFolder(): { dir: string; visible: boolean } {
  const home = os.userInfo().homedir;
  const real = (() => {
    try {
      return fs.realpathSync(home);
    } catch {
      return undefined;
    }
  })();
  if (real !== undefined && !PRIVATE_IN_SANDBOX.some((p) => real === p || real.startsWith(`${p}/`))) {
    try {
      return { dir: fs.mkdtempSync(path.join(real, '.toolgate-test-link-')), visible: true };
    } catch {
      // the home folder cannot be written: below
    }
  }
  return { dir: fs.mkdtempSync(path.join(os.tmpdir(), 'toolgate-test-link-')), visible: false };
}

const COMMANDS = ['cat .env', 'cat ./.e*', 'cat $(ls -A | head -1)', 'find . -name "*env" -exec cat {} +', 'grep -R VALUE .', 'cat sub/.env/key', 'cat $(readlink .env)', 'cp -L .env copy.txt; cat copy.txt'];
/** Commands whose words name the link: denied by the deciders, sandbox or not. */
const NAMED = ['cat .env', 'cat ./.e*', 'cat sub/.env/key'];

for (const [label, sandbox] of [['in the default sandbox', undefined], ['without a sandbox', 'none']] as const) {
  const skip = sandbox === undefined && !bubblewrapAvailable() ? 'bubblewrap does not work here' : false;
  describe(`a deny rule on .env covers .env linking outside the workspace, ${label}`, { skip }, () => {
    const fx = policyExecutor({ rules: RULES, executor: sandbox === undefined ? {} : { sandbox } });
    const { t } = fx;
    let target: { dir: string; visible: boolean };
    before(() => {
      target = targetFolder();
      fs.writeFileSync(path.join(target.dir, 'secret'), 'zq-env-7731 VALUE\n');
      fs.mkdirSync(path.join(target.dir, 'envdir'));
      fs.writeFileSync(path.join(target.dir, 'envdir', 'key'), 'zq-key-7731 VALUE\n');
      fs.writeFileSync(path.join(target.dir, 'public'), 'PUBLIC words\n');
      fs.symlinkSync(path.join(target.dir, 'secret'), path.join(t.ws, '.env'));
      fs.mkdirSync(path.join(t.ws, 'sub'));
      fs.symlinkSync(path.join(target.dir, 'envdir'), path.join(t.ws, 'sub', '.env'));
      fs.symlinkSync(path.join(target.dir, 'public'), path.join(t.ws, 'pub'));
      fs.writeFileSync(path.join(t.ws, 'a.txt'), 'hello\n');
    });
    after(() => fs.rmSync(target.dir, { recursive: true, force: true }));

    for (const command of COMMANDS) {
      test(`\`${command}\` is denied or prints nothing of the secret`, async () => {
        const r = await fx.run(command, { confirm: true });
        fs.rmSync(path.join(t.ws, 'copy.txt'), { force: true });
        assert.doesNotMatch(`${String(r.output)} ${String(r.error)}`, SECRET, `${r.errorCode} ${r.output}`);
        if (NAMED.includes(command)) assert.equal(r.errorCode, 'POLICY_DENIED', `${r.errorCode} ${r.error} ${r.output}`);
      });
    }

    test('a link no rule covers still reads through (the target folder is in sight)', async (t2) => {
      if (sandbox === undefined && !target.visible) return t2.skip('the target folder is private in the sandbox here');
      const r = await fx.run('cat pub', { confirm: true });
      assert.equal(r.success, true, `${r.errorCode} ${r.error}`);
      assert.match(String(r.output), /PUBLIC words/);
    });

    test('file tools neither show nor copy the secret', async () => {
      for (const [name, args] of [['grep_files', { pattern: 'VALUE', directory: '.' }], ['list_files', { directory: '.' }], ['tree', { directory: '.' }], ['find_files', { pattern: '*', directory: '.' }], ['read_file', { filepath: '.env' }], ['read_file', { filepath: 'sub/.env/key' }], ['copy_file', { source: '.env', destination: 'c.txt' }], ['create_archive', { paths: ['.'], destination: 'o.tar.gz' }], ['create_archive', { paths: ['sub'], destination: 'o.tar.gz' }]] as const) {
        let text: string;
        try {
          const r = await fx.call(name, args, { confirm: true });
          text = `${String(r.output)} ${String(r.error)}`;
        } catch (error) {
          text = String(error); // a path leading outside the workspace is refused (PathTraversalError)
        }
        assert.doesNotMatch(text, SECRET, name);
        for (const made of ['c.txt', 'o.tar.gz']) {
          const file = path.join(t.ws, made);
          if (fs.existsSync(file)) {
            const bytes = fs.readFileSync(file);
            assert.doesNotMatch((made.endsWith('.gz') ? zlib.gunzipSync(bytes) : bytes).toString('latin1'), SECRET, `${name}: ${made}`);
          }
          fs.rmSync(file, { force: true });
        }
      }
    });
  });
}

describe('a protected name (protectedPaths) that is a link outside the workspace is still that name', () => {
  const fx = policyExecutor({ rules: '[[rules]]\ncommand = "cp"\naction = "allow"\n', executor: { sandbox: 'none', protectedPaths: ['.env'] } });
  const { t } = fx;
  let target: string;
  before(() => {
    target = fs.mkdtempSync(path.join(os.tmpdir(), 'toolgate-test-link-'));
    fs.writeFileSync(path.join(target, 'kept'), 'KEPT\n');
    fs.symlinkSync(path.join(target, 'kept'), path.join(t.ws, '.env'));
    fs.writeFileSync(path.join(t.ws, 'a.txt'), 'hello\n');
  });
  after(() => fs.rmSync(target, { recursive: true, force: true }));

  test('`cp a.txt ./.e*` asks a person (confirm: true does not answer) and writes nothing through the link', async () => {
    const r = await fx.run('cp a.txt ./.e*', { confirm: true });
    assert.equal(r.errorCode, 'CONFIRMATION_REQUIRED', `${r.errorCode} ${r.error} ${r.output}`);
    // named as the protected name itself, not only as a word the line computes
    assert.match(String(r.error), /names "\.\/\.e\*", inside "\.env", a protected path/);
    assert.equal(fs.readFileSync(path.join(target, 'kept'), 'utf8'), 'KEPT\n');
  });
});
