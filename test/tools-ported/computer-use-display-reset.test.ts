/**
 * computer_use's virtual display does not reset between clients. An X server resets by default
 * when its last client leaves, and the reset closes every connection still being set up: a
 * browser connecting just as an `xdotool` run (open's look for its window) left was dropped
 * ("Missing X server or $DISPLAY", "The platform failed to initialize"), one start in a few
 * under load. The deterministic sign of a reset is what the server forgets: a root window
 * property (and its atom) set by one client is gone for the next one.
 *
 * Needs Debian's xvfb, xdotool, scrot, xprop (x11-utils) and, sandboxed, a working bubblewrap;
 * skipped where they are missing.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { bubblewrapAvailable, findExecutable } from '../../src/internal.js';
import type { SandboxPolicy } from '../../src/tool.js';
import { findXPrograms, VirtualDisplay } from '../../tools-ported/computer/virtual-display.js';
import { tempWorkspace } from '../helpers.js';

const missing = ['Xvfb', 'xdotool', 'scrot', 'xprop'].filter((p) => findExecutable(p) === undefined);
const skip = missing.length > 0 ? `missing ${missing.join(', ')}` : false;

describe('computer_use display: no reset when the last client leaves', { skip, concurrency: 1 }, () => {
  for (const [name, sandbox] of [
    ['sandboxed', { profile: 'read-only', network: false }],
    ['with the sandbox off', { profile: 'none', network: false }],
  ] as Array<[string, SandboxPolicy]>) {
    it(`${name}: a root window property one client set is there for the next client`, { skip: sandbox.profile !== 'none' && !bubblewrapAvailable() ? 'bubblewrap does not work here' : false }, async () => {
      const t = tempWorkspace();
      let display: VirtualDisplay | undefined;
      try {
        display = await VirtualDisplay.start({ workspaceRoot: t.ws, sandbox, programs: findXPrograms() });
        const set = await display.run(['xprop', '-root', '-f', 'TOOLGATE_PROBE', '8s', '-set', 'TOOLGATE_PROBE', 'kept']);
        assert.equal(set.code, 0, set.stderr);
        // xprop has left: the server had no client. A reset would have dropped the property and its atom.
        const got = await display.run(['xprop', '-root', 'TOOLGATE_PROBE']);
        assert.equal(got.code, 0, got.stderr);
        assert.equal(got.stdout.toString().trim(), 'TOOLGATE_PROBE(STRING) = "kept"');
      } finally {
        await display?.stop();
        t.cleanup();
      }
    });
  }
});
