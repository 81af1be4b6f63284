/**
 * Headless Chromium for the cockpit's tests: the Debian package's `/usr/bin/chromium` (or
 * `TOOLGATE_CHROMIUM`) driven through playwright-core, never a downloaded browser, with a
 * fresh profile folder per launch (removed by `close()`); and a record of the step a browser
 * test is at, for when its process dies (see {@link stepRecord}).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type BrowserContext } from 'playwright-core';

/** Where a test's step record goes (`test-output/<name>.steps`, beside the screenshots). */
const STEPS_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../test-output');

/**
 * The steps a browser test has reached, appended to `test-output/<name>.steps` as they
 * happen (synchronously: the line is written before the next step starts), and the file
 * removed by `done()` once the test's process is about to end normally. A process that dies
 * (a signal, a native crash) leaves the file, whose last line says where: `.ci/explain-test-failures`
 * prints it with the dead file's exit code and signal.
 */
export function stepRecord(name: string): { step(text: string): void; done(): void } {
  const file = path.join(STEPS_DIR, `${name}.steps`);
  fs.mkdirSync(STEPS_DIR, { recursive: true });
  fs.writeFileSync(file, `${new Date().toISOString()} pid ${process.pid} started\n`);
  return {
    step(text) {
      fs.appendFileSync(file, `${new Date().toISOString()} ${text}\n`);
    },
    done() {
      fs.rmSync(file, { force: true });
    },
  };
}

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
