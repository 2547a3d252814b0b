// Sensitive changes in Chromium: the account pages ask for the password or a code before a sensitive change (the forms
// in English and German), and a user with nothing to type (created by a JWT identity provider, no password, no
// authenticator app) confirms by signing in again: a fresh sign-in confirms changes for a few minutes, an older session
// is sent through the sign-in again (prompt=login) first.
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser, screenshot, signIn } from '../helpers/browser.ts';
import { startCallbackServer, type CallbackServer } from '../helpers/relying-party.ts';
import { startLoginServer, type LoginServer } from '../helpers/login-server.ts';
import { startJwtIssuer, type JwtIssuer } from '../helpers/jwt-issuer.ts';
import { startHeaderProxy, type HeaderProxy } from '../helpers/header-proxy.ts';
import { addJwtIdp } from '../../src/idps/service.ts';
import { addIdpToLoginPolicy } from '../../src/idps/login-policy.ts';
import { REAUTH_SECONDS } from '../../src/oidc/recent-sign-in.ts';

const HEADER = 'x-auth-jwt';
const PASSWORD = 'Reauth-Password-1';

describe('confirming sensitive changes on the account pages in a browser', () => {
  let server: LoginServer;
  let callback: CallbackServer;
  let issuer: JwtIssuer;
  let proxy: HeaderProxy;
  let browser: Browser;
  let idpId: string;

  beforeAll(async () => {
    callback = await startCallbackServer();
    server = await startLoginServer(callback.url, { GATEHOUSE_ALLOW_PRIVATE_FETCH: 'true' });
    issuer = await startJwtIssuer();
    proxy = await startHeaderProxy(server.url);
    browser = await launchBrowser();
    const instanceId = (await server.db.query<{ id: string }>('SELECT id FROM instance')).rows[0]!.id;
    ({ idpId } = await addJwtIdp(
      server.db,
      instanceId,
      {
        name: 'Legacy',
        stylingType: 'STYLING_TYPE_UNSPECIFIED',
        autoRegister: true,
        jwtEndpoint: `${proxy.url}/ui/login/login/jwt/authorize?tenant=legacy`,
        issuer: issuer.issuer,
        keysEndpoint: issuer.keysUrl,
        headerName: HEADER,
      },
      'test',
    ));
    await addIdpToLoginPolicy(server.db, { instanceId, idpId, editor: 'test' });
  });
  afterAll(async () => {
    await browser?.close();
    await proxy?.close();
    await issuer?.close();
    await server?.stop();
    await callback?.close();
  });

  async function newPage(locale: string): Promise<Page> {
    const context = await browser.newContext({ locale, viewport: { width: 1000, height: 900 } });
    return context.newPage();
  }
  const email = async (userName: string) =>
    (await server.db.query<{ email: string }>('SELECT email FROM users WHERE user_name = $1', [userName])).rows[0]!
      .email;

  for (const [locale, refused] of [
    ['en-US', 'Enter your current password or a valid code.'],
    ['de-DE', 'Geben Sie Ihr aktuelles Passwort oder einen gültigen Code ein.'],
  ] as const) {
    it(`asks for the password or a code on the forms (${locale})`, async () => {
      const userName = `pw-${locale}`;
      await server.addUser(userName, PASSWORD);
      const page = await newPage(locale);
      await page.goto(`${server.url}/ui/account`);
      await signIn(page, userName, PASSWORD);
      await page.waitForURL(`${server.url}/ui/account`);
      await page.fill('#new-email', `new-${userName}@example.net`);
      await page.click('#save-email');
      expect(await page.textContent('#form-error')).toBe(refused);
      expect(await email(userName)).toBe(`${userName}@example.com`);
      await screenshot(page, `account-reauth-01-email-refused-${locale}`);
      await page.fill('#email-password', PASSWORD);
      await page.click('#save-email');
      await page.waitForURL(`${server.url}/ui/account?done=email`);
      expect(await email(userName)).toBe(`new-${userName}@example.net`);
      await page.goto(`${server.url}/ui/account/factors`);
      expect(await page.isVisible('#add-otp-password')).toBe(true);
      await screenshot(page, `account-reauth-02-factors-${locale}`);
      await page.context().close();
    });
  }

  it('a user with nothing to type confirms by signing in again', async () => {
    proxy.setHeader(
      HEADER,
      await issuer.sign({
        sub: 'ext-solo',
        preferred_username: 'solo',
        email: 'solo@legacy.example',
        email_verified: true,
      }),
    );
    const page = await newPage('en-US');
    const signInWithIdp = async () => {
      await page.click(`#idp-${idpId}`);
      await page.waitForURL(`${server.url}/ui/account`, { timeout: 15_000 });
    };
    await page.goto(`${server.url}/ui/account`);
    await signInWithIdp();
    expect((await server.findUser('solo'))?.password_hash).toBeNull();

    // just signed in: no fields to fill, the sign-in confirms the change
    expect(await page.isVisible('#email-password')).toBe(false);
    await screenshot(page, 'account-reauth-03-recent-sign-in');
    await page.fill('#new-email', 'solo@new.example');
    await page.click('#save-email');
    await page.waitForURL(`${server.url}/ui/account?done=email`);
    expect(await email('solo')).toBe('solo@new.example');

    // the session's sign-in is older than the window: the change is refused until the user signs in again
    const user = (await server.findUser('solo'))!;
    await server.db.query(
      `UPDATE oidc_payloads SET payload = jsonb_set(payload, '{loginTs}', to_jsonb((payload->>'loginTs')::bigint - $2))
        WHERE model = 'Session' AND payload->>'accountId' = $1`,
      [user.id, REAUTH_SECONDS + 60],
    );
    await page.goto(`${server.url}/ui/account`);
    expect(await page.isVisible('form[action="/ui/account/email"] a.reauth')).toBe(true);
    await screenshot(page, 'account-reauth-04-sign-in-again-en');
    // the same session in German
    const german = await newPage('de-DE');
    await german.context().addCookies(await page.context().cookies());
    await german.goto(`${server.url}/ui/account`);
    expect(await german.textContent('form[action="/ui/account/email"] a.reauth')).toBe('Erneut anmelden');
    await screenshot(german, 'account-reauth-04-sign-in-again-de');
    await german.context().close();
    await page.fill('#new-email', 'rider@evil.example');
    await page.click('#save-email');
    expect(await page.textContent('#form-error')).toBe('Sign in again to confirm this change.');
    expect(await email('solo')).toBe('solo@new.example');

    // "Sign in again": a new sign-in (prompt=login), then the change goes through
    await page.locator('form[action="/ui/account/email"] a.reauth').click();
    await page.waitForURL((url) => url.pathname.startsWith('/ui/login/'));
    await signInWithIdp();
    await page.fill('#new-email', 'solo@newer.example');
    await page.click('#save-email');
    await page.waitForURL(`${server.url}/ui/account?done=email`);
    expect(await email('solo')).toBe('solo@newer.example');
    await page.context().close();
  });
});
