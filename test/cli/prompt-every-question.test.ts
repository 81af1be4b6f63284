/**
 * The terminal prompt, the ledger's stored question (`toolgate approvals list|show`) and the
 * cockpit's view show every question of a call (s22): a write to `.git` under a user policy
 * ask rule raises the protected path's, the rule's and the tool's own question, and one answer
 * answers them all. In process, with a fake terminal (as prompt.test.ts drives it); the
 * question is read from the ledger while the prompt waits.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { questionsOf } from '../../src/cockpit/views.js';
import { openCallStore } from '../../src/ledger/open-store.js';
import { ledgerFile } from '../../src/ledger/paths.js';
import { tempWorkspace, type CliRun } from '../helpers.js';
import { cliInProcess } from './in-process.js';

/** Run the CLI in process: with `atPrompt`, on a fake terminal where it answers each prompt. */
const run = (args: string[], env: NodeJS.ProcessEnv, atPrompt?: (stderr: string) => Promise<string>) => cliInProcess(args, { env, ...(atPrompt === undefined ? {} : { atPrompt }) });

describe('every question of a call, on every surface', () => {
  const t = tempWorkspace();
  after(t.cleanup);
  const state = path.join(t.root, 'state');
  // the user's policy file, where XDG_CONFIG_HOME puts it; a home folder of the test's own
  const config = path.join(t.root, 'config');
  const policy = path.join(config, 'toolgate', 'policy.toml');
  fs.mkdirSync(path.dirname(policy), { recursive: true });
  fs.writeFileSync(policy, '[[rules]]\ntool = "write_file"\naction = "ask"\n');
  fs.mkdirSync(path.join(t.root, 'home'));
  const env = { ...process.env, XDG_CONFIG_HOME: config, HOME: path.join(t.root, 'home') };
  const where = ['--workspace', t.ws, '--state-dir', state];

  it('the terminal prompt, approvals list and show, and the cockpit show the protected path\'s and the policy rule\'s question', async () => {
    let listed: CliRun | undefined;
    let shown: CliRun | undefined;
    let cockpit: Awaited<ReturnType<typeof questionsOf>> | undefined;
    const r = await run(['call', 'write_file', '{"filepath":".git/planted.txt","content":"x"}', ...where], env, async (prompt) => {
      const id = /Question (\d+):/.exec(prompt)?.[1];
      assert.ok(id, prompt);
      listed = await run(['approvals', 'list', ...where], env);
      shown = await run(['approvals', 'show', id, ...where], env);
      const store = await openCallStore(ledgerFile(state, t.ws));
      try {
        cockpit = await questionsOf(store);
      } finally {
        await store.close();
      }
      return 'n';
    });
    assert.equal(r.code, 1, r.stderr);
    assert.match(r.stderr, /write_file 1\.0\.0 asks to run: "\.git\/planted\.txt" is inside "\.git", a protected path[^\n]*\n {2}also \(policy \[[^\]]*policy\.toml:1\]\): [^\n]+\n {2}also \(approval\): write_file declares that it needs the user's approval before it runs\.\n {2}target: \.git\/planted\.txt\n/);
    assert.equal(fs.existsSync(path.join(t.ws, '.git', 'planted.txt')), false);

    assert.equal(listed?.code, 0, listed?.stderr);
    assert.match(listed!.stdout, /protected-paths \[\.git\] \+2/);
    assert.equal(shown?.code, 0, shown?.stderr);
    assert.match(shown!.stdout, /\n {2}why: protected-paths \[\.git\]: "\.git\/planted\.txt" is inside "\.git"[^\n]*\n {2}also: policy \[[^\]]*policy\.toml:1\]: [^\n]+\n {2}also: approval: write_file declares/);

    assert.equal(cockpit?.length, 1);
    const [q] = cockpit!;
    assert.match(q!.shown.why, /^protected-paths \[\.git\]: /);
    assert.equal(q!.shown.also.length, 2, q!.shown.also.join('\n'));
    assert.match(q!.shown.also[0]!, /^policy \[[^\]]*policy\.toml:1\]: /);
    assert.match(q!.shown.also[1]!, /^approval: write_file declares/);
  });
});
