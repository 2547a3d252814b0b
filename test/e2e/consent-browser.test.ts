import { AdminService } from '@zitadel/proto/zitadel/admin_pb.js';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MANAGEMENT_API_SCOPE } from '../../src/oidc/scopes.ts';
import { launchBrowser, screenshot, signIn } from '../helpers/browser.ts';
import { callRest } from '../helpers/management.ts';
import { basic, createOidcApp, pkceAuthorization, postForm } from '../helpers/oidc.ts';
import { setUpOtherOrgApp, type OtherOrgApp } from '../helpers/other-org.ts';
import { startCallbackServer, type CallbackServer } from '../helpers/relying-party.ts';
import { ADMIN_PASSWORD, type TestServer } from '../helpers/server.ts';
import { startServerWithAdminKey } from '../helpers/tokens.ts';

describe('consent for the management scope in a browser', () => {
  let server: TestServer;
  let callback: CallbackServer;
  let browser: Browser;
  let attacker: OtherOrgApp;
  let redirectUri: string;

  beforeAll(async () => {
    const started = await startServerWithAdminKey();
    server = started.server;
    callback = await startCallbackServer();
    redirectUri = `${callback.url}/cb`;
    attacker = await setUpOtherOrgApp(server, started.adminToken, redirectUri);
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    await callback?.close();
  });

  async function authorizeUrl(clientId: string, params: Record<string, string> = {}) {
    const { url, verifier } = await pkceAuthorization(server, clientId, {
      redirect_uri: redirectUri,
      scope: `openid ${MANAGEMENT_API_SCOPE}`,
      state: 'st',
      ...params,
    });
    return { url: String(url), verifier };
  }

  /** Navigates (or clicks) and waits until the browser is back at the app's callback; returns its parameters. */
  async function atCallback(page: Page, action: () => Promise<unknown>): Promise<URLSearchParams> {
    await Promise.all([page.waitForURL((u) => u.toString().startsWith(redirectUri), { timeout: 15_000 }), action()]);
    return new URL(page.url()).searchParams;
  }

  const addIamOwner = (token: string) =>
    callRest(
      server.url,
      {
        service: AdminService,
        method: 'AddIAMMember',
        rest: ['POST', '/admin/v1/members'],
        body: { userId: attacker.owner.userId, roles: ['IAM_OWNER'] },
      },
      { token },
    );

  it("a signed-in IAM_OWNER following org B's link gets consent_required, then a consent page; only Allow yields the management token", async () => {
    const page = await (await browser.newContext({ locale: 'en-US' })).newPage();
    // the IAM_OWNER signs in to an app of the first organization
    const firstParty = await createOidcApp(server, { devMode: true, redirectUris: [redirectUri] });
    await page.goto((await authorizeUrl(firstParty.clientId, { scope: 'openid' })).url);
    await page.fill('#loginName', 'admin');
    await page.click('#submit');
    await page.fill('#password', ADMIN_PASSWORD);
    expect((await atCallback(page, () => page.click('#submit'))).get('code')).toBeTruthy();

    // the attacker's link with prompt=none: an error at org B's callback, no code
    const silent = await atCallback(page, async () =>
      page.goto((await authorizeUrl(attacker.app.clientId, { prompt: 'none' })).url),
    );
    expect([silent.get('error'), silent.get('code')]).toEqual(['consent_required', null]);

    // without prompt=none: the consent page names the app, org B and what it gets; Deny returns access_denied
    await page.goto((await authorizeUrl(attacker.app.clientId)).url);
    expect(await page.textContent('h1')).toBe('Allow access?');
    expect(await page.textContent('#consent-app')).toBe(attacker.app.name);
    expect(await page.textContent('#consent-org')).toBe(attacker.orgName);
    expect(await page.textContent('#consent-access')).toBe('Manage Gatehouse with your permissions');
    await screenshot(page, '11-consent');
    const denied = await atCallback(page, () => page.click('#consent-deny'));
    expect([denied.get('error'), denied.get('code')]).toEqual(['access_denied', null]);

    // Allow: now the code comes, and its token carries the management scope and can add an IAM member
    const flow = await authorizeUrl(attacker.app.clientId);
    await page.goto(flow.url);
    const allowed = await atCallback(page, () => page.click('#consent-allow'));
    const res = await postForm(
      `${server.url}/oauth/v2/token`,
      {
        grant_type: 'authorization_code',
        code: allowed.get('code')!,
        redirect_uri: redirectUri,
        code_verifier: flow.verifier,
      },
      { authorization: basic(attacker.app.clientId, attacker.app.clientSecret) },
    );
    expect(res.status).toBe(200);
    expect(res.json.scope.split(' ')).toContain(MANAGEMENT_API_SCOPE);
    expect((await addIamOwner(res.json.access_token)).status).toBe(200);

    // asked once: the next link passes silently
    const again = await atCallback(page, async () =>
      page.goto((await authorizeUrl(attacker.app.clientId, { prompt: 'none' })).url),
    );
    expect(again.get('code')).toBeTruthy();
    await page.context().close();
  });

  it('the consent page in German', async () => {
    const page = await (await browser.newContext({ locale: 'de-DE' })).newPage();
    const app = await attacker.addApp();
    await page.goto((await authorizeUrl(app.clientId)).url);
    await signIn(page, 'admin', ADMIN_PASSWORD);
    expect(await page.getAttribute('html', 'lang')).toBe('de');
    expect(await page.textContent('h1')).toBe('Zugriff erlauben?');
    expect(await page.textContent('#consent-org')).toBe(attacker.orgName);
    await screenshot(page, '12-consent-de');
    await page.context().close();
  });
});
