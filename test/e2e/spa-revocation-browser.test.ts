// A single-page app on another origin, built on oidc-client-ts as ZITADEL's @zitadel/react is, in Chromium: it signs
// a user in (code + PKCE, offline_access), then revokes its tokens with revokeTokens(). The library accepts an
// answer only with a JSON content type or none (RFC 7009 §2.2 gives revocation's 200 no content), so afterwards both
// the access token and the refresh token must be dead.
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser, signIn } from '../helpers/browser.ts';
import { ADMIN_PASSWORD, createOidcApp, postForm } from '../helpers/oidc.ts';
import { startSinglePageApp, type CallbackServer } from '../helpers/relying-party.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

/** What the page's oidc-client-ts UserManager is built with (its settings, in the page's own terms). */
interface SpaSettings {
  authority: string;
  client_id: string;
  redirect_uri: string;
  scope: string;
}

/** The browser build's global, as far as the page script uses it. */
declare const oidc: {
  UserManager: new (
    settings: SpaSettings,
  ) => {
    signinRedirect(): Promise<void>;
    signinCallback(): Promise<{ access_token: string; refresh_token?: string } | undefined>;
    revokeTokens(): Promise<void>;
  };
};

describe('a single-page app on another origin revokes its tokens with oidc-client-ts', () => {
  let server: TestServer;
  let spa: CallbackServer;
  let browser: Browser;
  beforeAll(async () => {
    server = await startTestServer();
    spa = await startSinglePageApp();
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await spa?.close();
    await server?.stop();
  });

  it('revokeTokens() leaves neither the access token nor the refresh token usable', async () => {
    // a user-agent app with PKCE and no secret; CORS admits the origins of its redirect URIs
    const app = await createOidcApp(server, {
      authMethod: 'none',
      appType: 'user_agent',
      devMode: true, // http on loopback
      redirectUris: [`${spa.url}/callback`],
      grantTypes: ['authorization_code', 'refresh_token'],
    });
    const settings: SpaSettings = {
      authority: server.config.issuer,
      client_id: app.clientId,
      redirect_uri: `${spa.url}/callback`,
      scope: 'openid offline_access',
    };
    const context = await browser.newContext();
    try {
      const page = await context.newPage();
      await page.goto(`${spa.url}/`);
      // not awaited in the page: signinRedirect leaves it for the authorization endpoint
      await page.evaluate((s) => {
        void new oidc.UserManager(s).signinRedirect();
      }, settings);
      await page.waitForURL((url) => url.pathname.startsWith('/ui/login/'), { timeout: 15_000 });
      await signIn(page, 'admin', ADMIN_PASSWORD);
      await page.waitForURL((url) => url.toString().startsWith(`${spa.url}/callback`), { timeout: 15_000 });

      const outcome = await page.evaluate(async (s) => {
        const manager = new oidc.UserManager(s);
        const user = await manager.signinCallback();
        try {
          await manager.revokeTokens();
          return { user, revokeError: undefined };
        } catch (error) {
          return { user, revokeError: String(error) };
        }
      }, settings);
      const accessToken = outcome.user!.access_token;
      const refreshToken = outcome.user!.refresh_token!;
      expect(refreshToken).toEqual(expect.any(String));

      // the access token is inactive (introspection's own check) and the refresh token redeems nothing
      expect(await server.app.oidc.verifyAccessToken(accessToken)).toBeUndefined();
      const refresh = await postForm(`${server.url}/oauth/v2/token`, {
        grant_type: 'refresh_token',
        refresh_token: refreshToken,
        client_id: app.clientId,
      });
      expect([refresh.status, refresh.json.error]).toEqual([400, 'invalid_grant']);
      expect(outcome.revokeError).toBeUndefined();
    } finally {
      await context.close();
    }
  });
});
