// Regression: the memory file went to the default state folder ($XDG_STATE_HOME/toolgate, else
// ~/.local/state/toolgate) whatever state folder the ledger used: `toolgate call --state-dir
// DIR` and `new ToolSystem({ ledger: { dir } })` kept their calls in DIR and their notes
// elsewhere (a test's notes in the user's own folder). The memory file now follows the state
// folder: the ledger's `dir`, the `stateDir` option, `--state-dir`. (Also checked here: the
// file is kept open between calls, no longer opened per call, and closed with the tool system.)
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { ToolSystem } from 'toolgate';
import { memoryFile } from '../../src/ledger/sqlite/memory.js';
import { runCli } from '../helpers.js';

describe('the memory file follows the state folder', () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'toolgate-memory-state-'));
  const ws = path.join(root, 'ws');
  fs.mkdirSync(ws);
  const home = path.join(root, 'xdg');
  const defaultDir = path.join(home, 'toolgate');
  const savedXdg = process.env.XDG_STATE_HOME;
  process.env.XDG_STATE_HOME = home;
  after(() => {
    if (savedXdg === undefined) delete process.env.XDG_STATE_HOME;
    else process.env.XDG_STATE_HOME = savedXdg;
    fs.rmSync(root, { recursive: true, force: true });
  });
  /** Whether this process holds `file` open (its descriptors in /proc; Linux). */
  const holds = (file: string) => fs.readdirSync('/proc/self/fd').some((fd) => {
    try {
      return fs.readlinkSync(path.join('/proc/self/fd', fd)) === file;
    } catch {
      return false;
    }
  });
  const memoryFiles = (dir: string) => (fs.existsSync(dir) ? fs.readdirSync(dir).filter((f) => /^memory-.*\.sqlite$/.test(f)) : []);

  for (const [label, options, dir] of [
    ['the ledger\'s dir', (d: string) => ({ ledger: { dir: d } }), path.join(root, 'ledger-dir')],
    ['the stateDir option, without a ledger', (d: string) => ({ stateDir: d, ledger: false as const }), path.join(root, 'state-dir')],
  ] as const) {
    it(`in the SDK: ${label}`, async () => {
      const tools = new ToolSystem({ workspace: ws, ...options(dir) });
      await tools.start();
      try {
        const kept = await tools.execute({ name: 'memory_remember', arguments: { text: `kept in ${label}` }, callId: 'm1' });
        assert.equal(kept.success, true, kept.output);
        assert.ok(fs.existsSync(memoryFile(dir, fs.realpathSync(ws))), `the memory file in ${dir}`);
        assert.deepEqual(memoryFiles(defaultDir), [], 'nothing in the default state folder');
        const file = fs.realpathSync(memoryFile(dir, fs.realpathSync(ws)));
        if (process.platform === 'linux') assert.ok(holds(file), 'kept open between calls');
        await tools.close();
        if (process.platform === 'linux') assert.ok(!holds(file), 'closed with the tool system');
      } finally {
        await tools.close();
      }
    });
  }

  it('on the command line: --state-dir', async () => {
    const dir = path.join(root, 'cli-state');
    const env = { ...process.env, XDG_STATE_HOME: home };
    const kept = await runCli(['call', 'memory_remember', '{"text":"kept by the CLI"}', '--workspace', ws, '--state-dir', dir], { env });
    assert.equal(kept.code, 0, kept.stderr);
    assert.ok(fs.existsSync(memoryFile(dir, fs.realpathSync(ws))), `the memory file in ${dir}`);
    assert.deepEqual(memoryFiles(defaultDir), []);
    const found = await runCli(['call', 'memory_search', '{"query":"CLI"}', '--workspace', ws, '--state-dir', dir], { env });
    assert.match(found.stdout, /kept by the CLI/);
  });
});
