// The admin console in Chromium for the e2e tests (issue 22): a page signed in as someone through the login pages
// and back on the console page it asked for, axe-core's serious and critical findings on a page, and screenshots
// for the README.
import { createRequire } from 'node:module';
import { mkdirSync } from 'node:fs';
import type { Browser, BrowserContextOptions, Page } from 'playwright-core';
import { signIn } from './browser.ts';
import { ADMIN_PASSWORD } from './server.ts';

const AXE = createRequire(import.meta.url).resolve('axe-core/axe.min.js');
const DOCS_SCREENSHOTS = new URL('../../docs/screenshots/', import.meta.url);

/** A new browser context (English, a desktop viewport) on `path`, signed in; its page. */
export async function signedInConsole(
  browser: Browser,
  serverUrl: string,
  path: string,
  options: BrowserContextOptions & { loginName?: string; password?: string } = {},
): Promise<Page> {
  const { loginName = 'admin', password = ADMIN_PASSWORD, ...contextOptions } = options;
  const context = await browser.newContext({
    locale: 'en-US',
    viewport: { width: 1280, height: 900 },
    ...contextOptions,
  });
  const page = await context.newPage();
  await page.goto(`${serverUrl}${path}`);
  await signIn(page, loginName, password);
  await page.waitForURL((url) => url.pathname === path.split('?')[0], { timeout: 15_000 });
  return page;
}

/** axe-core's serious and critical violations on the page, as "path: rule" (the context must bypass the CSP: the
 *  console allows no injected script). */
export async function seriousViolations(page: Page): Promise<string[]> {
  await page.addScriptTag({ path: AXE });
  const violations = await page.evaluate(async () => {
    const axe = (globalThis as unknown as { axe: { run(): Promise<{ violations: { id: string; impact: string }[] }> } })
      .axe;
    return (await axe.run()).violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  });
  const path = new URL(page.url()).pathname;
  return violations.map((v) => `${path}: ${v.id}`);
}

/** A full-page screenshot for the README (docs/screenshots/<name>.png). */
export async function docsScreenshot(page: Page, name: string): Promise<void> {
  mkdirSync(DOCS_SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: new URL(`${name}.png`, DOCS_SCREENSHOTS).pathname, fullPage: true });
}
