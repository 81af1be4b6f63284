/**
 * computer_use leaves no Xvfb behind when its host dies: a host process opens a page on its
 * virtual display and is killed with SIGKILL (no exit hook runs); Xvfb, the browser and every
 * other process of the display end anyway (the lifeline and the parent-death signal), and the
 * next display's start removes the dead host's socket folder.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { ToolSystem } from 'toolgate';
import { bubblewrapAvailable, findExecutable } from '../../src/internal.js';
import { descendants, TEST_PAGE, waitGone } from '../agents/computer-use-fixture.js';
import { tempWorkspace } from '../helpers.js';

const INDEX = fileURLToPath(new URL('../../src/index.js', import.meta.url));
const missing = ['Xvfb', 'xdotool', 'scrot', 'chromium'].filter((p) => findExecutable(p) === undefined);
const skip = missing.length > 0 ? `missing ${missing.join(', ')}` : !bubblewrapAvailable() ? 'bubblewrap does not work here' : false;

describe('computer_use when its host is killed', { skip }, () => {
  it('leaves no process of the display running, and its folder goes at the next start', async () => {
    const t = tempWorkspace();
    let host: ReturnType<typeof spawn> | undefined;
    try {
      fs.writeFileSync(path.join(t.ws, 'page.html'), TEST_PAGE);
      const script = `
        import { ToolSystem } from ${JSON.stringify(INDEX)};
        const tools = new ToolSystem({ workspace: process.argv[1] });
        await tools.start();
        const opened = await tools.execute({ name: 'computer_use', arguments: { action: 'open', url: 'page.html' }, callId: 'open' }, { confirm: true });
        process.stdout.write(JSON.stringify(opened) + '\\n');
        setInterval(() => {}, 1000);`;
      host = spawn(process.execPath, ['--input-type=module', '-e', script, t.ws], { stdio: ['ignore', 'pipe', 'inherit'] });
      const line = await new Promise<string>((resolve, reject) => {
        let out = '';
        host!.stdout!.setEncoding('utf8').on('data', (s: string) => {
          out += s;
          if (out.includes('\n')) resolve(out.slice(0, out.indexOf('\n')));
        });
        host!.once('exit', (code) => reject(new Error(`the host exited (${code}) before opening the page: ${out}`)));
      });
      const opened = JSON.parse(line) as { success: boolean; output: string };
      assert.equal(opened.success, true, opened.output);
      // The window itself may take longer than open's 20 s wait on a loaded machine (the
      // other computer_use tests check it); this test needs the processes to be there.
      let pids = descendants(host.pid!);
      for (let waited = 0; !pids.some((p) => p.comm.startsWith('chromium')) && waited < 60_000; waited += 100) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        pids = descendants(host.pid!);
      }
      assert.ok(pids.some((p) => p.comm === 'Xvfb'), JSON.stringify(pids));
      assert.ok(pids.some((p) => p.comm.startsWith('chromium')), JSON.stringify(pids));
      const folders = () => fs.readdirSync(os.tmpdir()).filter((name) => name.startsWith(`toolgate-display-${host!.pid}-`));
      assert.equal(folders().length, 1);
      const exited = new Promise((resolve) => host!.once('exit', resolve));
      host.kill('SIGKILL');
      await exited;
      assert.deepEqual(await waitGone(pids.map((p) => p.pid)), [], 'every process of the display ended with its host');
      // The next display (of another host) removes the dead host's folder.
      const tools = new ToolSystem({ workspace: t.ws });
      await tools.start();
      try {
        const shot = await tools.execute({ name: 'computer_use', arguments: { action: 'screenshot' }, callId: 'next' }, { confirm: true });
        assert.equal(shot.success, true, shot.output);
        assert.match(shot.output, /No windows are open/, 'a new, empty display');
        assert.deepEqual(folders(), []);
      } finally {
        await tools.close();
      }
    } finally {
      host?.kill('SIGKILL');
      t.cleanup();
    }
  });
});
