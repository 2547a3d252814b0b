// The admin console's browser tests share these: a page in a fresh browser context, signing in on the
// login pages to land on a console page, the screenshots of docs/, and axe-core's serious and critical findings.
import { createRequire } from 'node:module';
import { mkdirSync } from 'node:fs';
import type { Browser, BrowserContextOptions, Page } from 'playwright-core';
import { afterAll, beforeAll } from 'vitest';
import { launchBrowser, signIn } from './browser.ts';
import { ADMIN_PASSWORD, type TestServer } from './server.ts';
import { startServerWithAdminKey } from './tokens.ts';

const DOCS_SCREENSHOTS = new URL('../../docs/screenshots/', import.meta.url);
const AXE = createRequire(import.meta.url).resolve('axe-core/axe.min.js');

export interface ConsoleTestEnv {
  server: TestServer;
  /** The first start's admin service account's token (IAM_OWNER), for checks through the API. */
  adminToken: string;
  browser: Browser;
}

/** A Gatehouse with its admin's key and a Chromium for the calling file's tests: started before them, stopped after
 *  them. Read the fields inside tests (or a later beforeAll). */
export function useConsoleTestEnv(): Readonly<ConsoleTestEnv> {
  const env = {} as ConsoleTestEnv;
  beforeAll(async () => {
    ({ server: env.server, adminToken: env.adminToken } = await startServerWithAdminKey());
    env.browser = await launchBrowser();
  });
  afterAll(async () => {
    await env.browser?.close();
    await env.server?.stop();
  });
  return env;
}

/** A page of its own browser context (its own cookies), English unless told. */
export async function consolePage(browser: Browser, options: BrowserContextOptions = {}): Promise<Page> {
  const context = await browser.newContext({ locale: 'en-US', viewport: { width: 1280, height: 900 }, ...options });
  return context.newPage();
}

/** Opens a console page, signs in on the login pages and waits to be back on it. */
export async function signedIn(
  page: Page,
  baseUrl: string,
  path: string,
  loginName = 'admin',
  password = ADMIN_PASSWORD,
): Promise<void> {
  await page.goto(`${baseUrl}${path}`);
  await signIn(page, loginName, password);
  await page.waitForURL((url) => url.pathname === path.split('?')[0], { timeout: 15_000 });
}

/** A full-page screenshot for the documentation (docs/screenshots/<name>.png). */
export async function docsScreenshot(page: Page, name: string): Promise<void> {
  mkdirSync(DOCS_SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: new URL(`${name}.png`, DOCS_SCREENSHOTS).pathname, fullPage: true });
}

/** axe-core's serious and critical violations on the page (its context needs `bypassCSP`: the console's CSP
 *  allows no injected script). */
export async function axeViolations(page: Page): Promise<string[]> {
  await page.addScriptTag({ path: AXE });
  const violations = await page.evaluate(async () => {
    const axe = (globalThis as unknown as { axe: { run(): Promise<{ violations: { id: string; impact: string }[] }> } })
      .axe;
    return (await axe.run()).violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  });
  return violations.map((v) => v.id);
}

/** A phone's viewport (390 x 844 CSS pixels), for the small-screen checks and screenshots. */
export const SMALL_SCREEN = { width: 390, height: 844 } as const;

/** How far the page is wider than its viewport (0: it fits, nothing scrolls sideways): every console page must fit a
 *  390 px screen, its tables scrolling in their own box. Opens `path` first when given. */
export async function sidewaysOverflow(page: Page, path?: string): Promise<number> {
  if (path) await page.goto(new URL(path, page.url()).toString());
  return page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
}
