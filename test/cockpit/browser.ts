/**
 * Headless Chromium for the cockpit's tests: the Debian package's `/usr/bin/chromium` (or
 * `TOOLGATE_CHROMIUM`) driven through playwright-core, never a downloaded browser, with a
 * fresh profile folder per launch (removed by `close()`).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';

/** The browser binary the tests drive. */
const CHROMIUM = process.env.TOOLGATE_CHROMIUM || '/usr/bin/chromium';

/** Why the browser tests cannot run here (`undefined` when they can): for `describe`'s `skip`. */
export function chromiumMissing(): string | undefined {
  return fs.existsSync(CHROMIUM) ? undefined : `${CHROMIUM} is not installed: apt-get install -y chromium (.ci/run installs it)`;
}

/** A launched browser: its context, and `close()`, which ends it and removes its profile. */
export interface TestBrowser {
  context: BrowserContext;
  close(): Promise<void>;
}

/** Launch headless Chromium with a fresh profile. */
export async function launchChromium(): Promise<TestBrowser> {
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'toolgate-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    viewport: { width: 1280, height: 900 },
  });
  return {
    context,
    async close() {
      await context.close();
      fs.rmSync(profile, { recursive: true, force: true });
    },
  };
}
