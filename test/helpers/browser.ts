// A real browser for the login pages' end-to-end tests: Debian's Chromium driven by playwright-core (nothing is
// downloaded; .ci/run installs the package). Screenshots go to test-output/screenshots/ for people to look at.
import { mkdirSync } from 'node:fs';
import { chromium, type Browser, type Page } from 'playwright-core';

export const SCREENSHOT_DIR = new URL('../../test-output/screenshots/', import.meta.url);

export function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: '/usr/bin/chromium',
    headless: true,
    timeout: 30_000,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
  });
}

export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  await page.screenshot({ path: new URL(`${name}.png`, SCREENSHOT_DIR).pathname, fullPage: true });
}

/** Signs in through the two login pages (login name, then password) on a page that shows the first one. */
export async function signIn(page: Page, loginName: string, password: string): Promise<void> {
  await page.fill('#loginName', loginName);
  await page.click('#submit');
  await page.fill('#password', password);
  await page.click('#submit');
}
