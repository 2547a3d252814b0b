// Addresses that lead nowhere, in a real browser (Chromium, 1280 and 390 px wide, light and dark): a typed address
// under /ui with no page shows "page not found" in the browser's language with links on that work, a trailing slash
// lands on the page, and a sign-in whose app registered an http redirect URI outside development mode says why.
// Screenshots go to test-output/screenshots/.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContextOptions, Page } from 'playwright-core';
import { ROUTES } from '../../src/oidc/protocol.ts';
import { launchBrowser, screenshot } from '../helpers/browser.ts';
import { createOidcApp } from '../helpers/oidc.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

const VIEWPORTS: [name: string, options: BrowserContextOptions][] = [
  ['1280', { viewport: { width: 1280, height: 800 } }],
  ['390-dark', { viewport: { width: 390, height: 760 }, isMobile: true, colorScheme: 'dark' }],
];

describe('addresses that lead nowhere, in a browser', () => {
  let server: TestServer;
  let browser: Browser;
  beforeAll(async () => {
    server = await startTestServer();
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  async function open(locale: string, options: BrowserContextOptions): Promise<Page> {
    const context = await browser.newContext({ locale, ...options });
    return context.newPage();
  }
  const fitsWidth = async (page: Page) =>
    expect(await page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(
      page.viewportSize()!.width,
    );

  it('shows "page not found" with a way on, in English and German, on a wide screen and a phone', async () => {
    for (const [name, options] of VIEWPORTS) {
      const page = await open('en-US', options);
      const response = await page.goto(`${server.url}/ui/login`);
      expect(response?.status()).toBe(404);
      expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Page not found');
      expect(await page.title()).toBe('Page not found · Gatehouse');
      await fitsWidth(page);
      await screenshot(page, `not-found-en-${name}`);
      // the way on: the account page (which starts a sign-in)
      await page.getByRole('link', { name: 'Your account' }).click();
      await page.waitForURL(/\/ui\/login\//);
      await page.context().close();

      const german = await open('de-DE', options);
      await german.goto(`${server.url}/ui/nichts`);
      expect(await german.getByRole('heading', { level: 1 }).textContent()).toBe('Seite nicht gefunden');
      expect(await german.getByRole('link', { name: 'Verwaltungskonsole' }).getAttribute('href')).toBe('/ui/console');
      await fitsWidth(german);
      await screenshot(german, `not-found-de-${name}`);
      await german.context().close();
    }
  });

  it('lands on the page without the trailing slash, and on the console from /ui', async () => {
    const page = await open('en-US', VIEWPORTS[0]![1]);
    await page.goto(`${server.url}/ui/account/`);
    await page.waitForURL(/\/ui\/login\//); // the account page asks to sign in first
    await page.goto(`${server.url}/ui`);
    await page.waitForURL(/\/ui\/login\//);
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Sign in');
    await page.context().close();
  });

  it("the sign-in refused for an app's http redirect URI says it needs development mode", async () => {
    const callback = 'http://localhost:3000/callback';
    const app = await createOidcApp(server, { redirectUris: [callback] });
    const url = `${server.url}${ROUTES.authorization}?${new URLSearchParams({
      client_id: app.clientId,
      redirect_uri: callback,
      response_type: 'code',
      scope: 'openid',
    })}`;
    for (const [name, options] of VIEWPORTS) {
      const page = await open('en-US', options);
      expect((await page.goto(url))?.status()).toBe(400);
      expect(await page.locator('#error-message').textContent()).toContain(`send you back to ${callback}`);
      await fitsWidth(page);
      await screenshot(page, `sign-in-http-redirect-${name}`);
      await page.context().close();
    }
  });
});
