import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type Browser, chromium, type Page } from 'playwright-core';

/** Debian's Chromium; `npx playwright install` does not work on these machines. */
export const CHROMIUM = process.env.AGENTJOBS_CHROMIUM ?? '/usr/bin/chromium';
export const hasChromium = fs.existsSync(CHROMIUM);

/** Where screenshots are kept (a test artifact; a few are copied into docs/). */
export const SCREENSHOTS = path.resolve('test-results/screenshots');

if (!hasChromium) {
  if (process.env.AGENTJOBS_REQUIRE_BROWSER === '1')
    throw new Error(`AGENTJOBS_REQUIRE_BROWSER=1 but there is no Chromium at ${CHROMIUM}.`);
  console.log(`Browser tests skipped: no Chromium at ${CHROMIUM} (apt-get install chromium).`);
}

/**
 * Chromium keeps its single-instance socket in its TMPDIR, and a Unix socket's path has at most
 * 107 characters: under the suite's nested per-file TMPDIR (or macOS's long one) it would not start.
 * So it gets a short temporary folder of its own, removed when the browser goes.
 */
function shortTemporaryFolder(): string {
  const base = fs.existsSync('/tmp') ? '/tmp' : os.tmpdir();
  return fs.mkdtempSync(path.join(base, 'ajc-'));
}

export async function launch(): Promise<Browser> {
  const temporary = shortTemporaryFolder();
  const remove = () => fs.rmSync(temporary, { recursive: true, force: true });
  const browser = await chromium
    .launch({
      executablePath: CHROMIUM,
      headless: true,
      env: { ...process.env, TMPDIR: temporary },
      // As root in a sandboxed VM, with no network beyond loopback: no sandbox, GPU or background calls.
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--disable-quic',
        '--no-first-run',
      ],
    })
    .catch((error: unknown) => {
      remove();
      throw error;
    });
  browser.on('disconnected', remove);
  return browser;
}

export async function screenshot(page: Page, name: string): Promise<void> {
  fs.mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: path.join(SCREENSHOTS, `${name}.png`), fullPage: true });
}
