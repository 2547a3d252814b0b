// The code flow in a real browser (Chromium through playwright-core): cookies, redirects, the login pages
// and the logout confirmation behave in a browser as in the HTTP-level tests (security headers included).
import { chromium, type Browser } from 'playwright-core';
import * as client from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { createOidcApp, rpConfig } from '../helpers/oidc.ts';

const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

describe('code flow in Chromium', () => {
  let server: TestServer;
  let browser: Browser;
  beforeAll(async () => {
    server = await startTestServer();
    browser = await chromium.launch({ executablePath: '/usr/bin/chromium', headless: true, args: CHROMIUM_ARGS });
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  it('signs in through the login form, lands at the app with a code, and signs out with the hint', async () => {
    // a dev-mode app whose redirect URI is on the server itself (any page there will do: we only read the URL)
    const callback = `${server.url}/healthz`;
    const app = await createOidcApp(server, {
      authMethod: 'basic',
      devMode: true,
      redirectUris: [callback],
      postLogoutRedirectUris: [`${server.url}/readyz`],
    });
    const config = await rpConfig(server, app.clientId, client.ClientSecretBasic(app.clientSecret!));
    const verifier = client.randomPKCECodeVerifier();
    const url = client.buildAuthorizationUrl(config, {
      redirect_uri: callback,
      scope: 'openid profile',
      state: 'st-1',
      code_challenge: await client.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
    });

    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(String(url));
    expect(page.url()).toContain('/ui/login/');
    // the login pages: login name first, then the password
    await page.fill('input[name=loginName]', 'admin');
    await page.click('button[type=submit]');
    await page.fill('input[name=password]', 'Admin-Password-1');
    await Promise.all([
      page.waitForURL((u) => u.pathname === '/healthz', { timeout: 10_000 }),
      page.click('button[type=submit]'),
    ]);
    const landed = new URL(page.url());
    expect(landed.searchParams.get('state')).toBe('st-1');
    const tokens = await client.authorizationCodeGrant(config, landed, {
      pkceCodeVerifier: verifier,
      expectedState: 'st-1',
    });
    expect(tokens.claims()!.sub).toEqual(expect.any(String));

    // logout with the hint: no question, back at the registered URI with state
    const logout = client.buildEndSessionUrl(config, {
      id_token_hint: tokens.id_token!,
      post_logout_redirect_uri: `${server.url}/readyz`,
      state: 'bye',
    });
    await page.goto(String(logout));
    await page.waitForURL((u) => u.pathname === '/readyz', { timeout: 10_000 });
    expect(new URL(page.url()).searchParams.get('state')).toBe('bye');
    await context.close();
  });
});
