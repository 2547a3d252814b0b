// Passkeys in real Chromium with its DevTools virtual authenticator (CTAP2, internal transport, resident keys, user
// verification): registration on the account page, passwordless sign-in and password + passkey through an openid-client
// relying party, removal; a challenge used twice, in another browser or expired, and malformed answers, are refused;
// the login policy can forbid passwordless. Each test has its own user: once a user has a passkey, every password
// sign-in asks for it. The issuer is http://localhost (WebAuthn's RP ID must be a domain name; still loopback).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { launchBrowser, screenshot, signIn } from '../helpers/browser.ts';
import { RelyingParty, startCallbackServer, type CallbackServer } from '../helpers/relying-party.ts';
import { startLoginServer, type LoginServer } from '../helpers/login-server.ts';
import { updateLoginPolicy } from '../../src/login-policy/service.ts';
import { DEFAULT_LOGIN_POLICY } from '../../src/login-policy/policy.ts';
import * as OTPAuth from 'otpauth';
import { TEST_MASTER_KEY } from '../helpers/server.ts';
import { createSecretBox } from '../../src/platform/secrets.ts';
import { enrollOtp, removeOtp } from '../../src/factors/otp.ts';
import { newTotpSecret } from '../../src/factors/totp.ts';

interface Authenticator {
  backupEligible?: boolean;
}

describe('passkeys in a browser', () => {
  let server: LoginServer;
  let base: string;
  let callback: CallbackServer;
  let browser: Browser;
  let rp: RelyingParty;
  let users = 0;
  const PASSWORD = 'Ada-Password-1';

  beforeAll(async () => {
    callback = await startCallbackServer();
    server = await startLoginServer(callback.url, {}, 'localhost');
    base = server.url.replace('127.0.0.1', 'localhost');
    rp = await RelyingParty.discover(base, server.clientId, `${callback.url}/cb`);
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    await callback?.close();
  });

  /** A browser of its own, with a virtual authenticator in its one tab. */
  async function newPage(authenticator: Authenticator | false = {}): Promise<Page> {
    const context = await browser.newContext({ locale: 'en-US', viewport: { width: 1000, height: 900 } });
    const page = await context.newPage();
    if (authenticator) {
      const cdp = await context.newCDPSession(page);
      await cdp.send('WebAuthn.enable');
      await cdp.send('WebAuthn.addVirtualAuthenticator', {
        options: {
          protocol: 'ctap2',
          transport: 'internal',
          hasResidentKey: true,
          hasUserVerification: true,
          isUserVerified: true,
          automaticPresenceSimulation: true,
          defaultBackupEligibility: authenticator.backupEligible ?? false,
          defaultBackupState: authenticator.backupEligible ?? false,
        },
      });
    }
    return page;
  }
  const landed = (page: Page) => page.waitForURL((url) => url.toString().startsWith(callback.url), { timeout: 15_000 });
  const credentials = async (userId: string) =>
    (
      await server.db.query<{ name: string; backup_eligible: boolean; sign_count: string }>(
        'SELECT name, backup_eligible, sign_count FROM webauthn_credentials WHERE user_id = $1 ORDER BY created_at',
        [userId],
      )
    ).rows;

  async function newUser(): Promise<{ userName: string; userId: string }> {
    const userName = `ada${++users}`;
    return { userName, userId: await server.addUser(userName, PASSWORD) };
  }

  /** Signs in with the password (and the passkey, once the user has one) through the relying party, then opens
   *  the account page. */
  async function accountPage(page: Page, userName: string): Promise<void> {
    await page.goto((await rp.start()).url.toString());
    await signIn(page, userName, PASSWORD);
    if (await page.isVisible('#passkey-start')) await page.click('#passkey-start');
    await landed(page);
    const response = await page.goto(`${base}/ui/account`);
    // the account page itself stays script-free
    expect(response?.headers()['content-security-policy']).not.toContain('script');
  }

  async function addPasskey(page: Page, name: string): Promise<void> {
    await page.fill('#passkey-name', name);
    // adding a passkey asks for the password first: a signed-in session alone does not prove the person
    await page.fill('#add-passkey-password', PASSWORD);
    await page.click('#add-passkey');
    await page.waitForSelector('#passkey-start');
    await page.click('#passkey-start');
    await page.waitForURL(`${base}/ui/account?done=passkeyAdded`);
  }

  /** To the passkey page of a new authorization request; the start, to finish the code flow. */
  async function passkeyPage(page: Page) {
    const start = await rp.start();
    await page.goto(start.url.toString());
    await page.click('#passkey-link');
    await page.waitForSelector('#passkey-start');
    return start;
  }

  it('registers a passkey on the account page and signs in with it alone; the tokens name the user', async () => {
    const { userName, userId } = await newUser();
    const page = await newPage();
    await accountPage(page, userName);
    expect(await page.textContent('#passkeys-none')).toBe('You have no passkeys yet.');
    const pageResponse = page.waitForResponse((r) => r.url() === `${base}/ui/account/passkeys/new`);
    await page.fill('#passkey-name', 'Laptop');
    await page.fill('#add-passkey-password', PASSWORD);
    await page.click('#add-passkey');
    // only the passkey pages may run a script, and only Gatehouse's own file
    expect((await pageResponse).headers()['content-security-policy']).toMatch(/script-src 'self'$/);
    await page.waitForSelector('#passkey-start');
    await screenshot(page, 'passkeys-01-add');
    await page.click('#passkey-start');
    await page.waitForURL(`${base}/ui/account?done=passkeyAdded`);
    expect(await page.textContent('#notice')).toBe('The passkey has been added.');
    expect(await page.textContent('.passkey-name')).toBe('Laptop');
    await screenshot(page, 'passkeys-02-account');
    const [registered] = await credentials(userId);
    expect(registered).toMatchObject({ name: 'Laptop', backup_eligible: false });

    // a new session in the same browser (same authenticator): no password this time
    await page.context().clearCookies();
    const start = await rp.start();
    const loginName = page.waitForResponse((r) => r.url().includes('/ui/login/') && r.request().method() === 'GET');
    await page.goto(start.url.toString());
    expect((await loginName).headers()['content-security-policy']).not.toContain('script');
    await page.click('#passkey-link');
    await screenshot(page, 'passkeys-03-sign-in');
    await page.click('#passkey-start');
    await landed(page);
    const { claims } = await rp.finish(page.url(), start);
    expect(claims.sub).toBe(userId);
    // a device-bound key (not backup eligible), with user verification: multi-factor as in ZITADEL
    expect(claims.amr).toEqual(['hwk', 'user', 'mfa']);
    // the authenticator's counter is kept (WebAuthn §6.1.1)
    expect(Number((await credentials(userId))[0]!.sign_count)).toBeGreaterThan(Number(registered!.sign_count));
    await page.context().close();
  });

  it('a synced passkey (backup eligible) signs in as swk', async () => {
    const { userName, userId } = await newUser();
    const page = await newPage({ backupEligible: true });
    await accountPage(page, userName);
    await addPasskey(page, 'Phone');
    await page.context().clearCookies();
    const start = await passkeyPage(page);
    await page.click('#passkey-start');
    await landed(page);
    expect((await rp.finish(page.url(), start)).claims.amr).toEqual(['swk', 'user', 'mfa']);
    expect((await credentials(userId)).find((c) => c.name === 'Phone')?.backup_eligible).toBe(true);
    await page.context().close();
  });

  it('after the password, a user with a passkey is asked for it: amr pwd, hwk, mfa', async () => {
    const { userName, userId } = await newUser();
    const page = await newPage();
    await accountPage(page, userName);
    await addPasskey(page, 'Second factor');
    await page.context().clearCookies();
    const start = await rp.start();
    const factorPage = page.waitForResponse((r) => r.url().endsWith('/password'));
    await page.goto(start.url.toString());
    await signIn(page, userName, PASSWORD);
    // the factor step's page runs the script; it offers the way back to a recovery code
    expect((await factorPage).headers()['content-security-policy']).toMatch(/script-src 'self'$/);
    await page.waitForSelector('#passkey-start');
    await screenshot(page, 'passkeys-04-second-factor');
    await page.click('#passkey-start');
    await landed(page);
    const { claims } = await rp.finish(page.url(), start);
    expect(claims.sub).toBe(userId);
    expect(claims.amr).toEqual(['pwd', 'hwk', 'user', 'mfa']);
    await page.context().close();
  });

  it('the second factor needs this user’s passkey: another authenticator does not do', async () => {
    const owner = await newUser();
    const page = await newPage();
    await accountPage(page, owner.userName);
    await addPasskey(page, 'Owner key');
    // a browser whose authenticator has a passkey of another user
    const thief = await newUser();
    const other = await newPage();
    await accountPage(other, thief.userName);
    await addPasskey(other, 'Thief key');
    await other.context().clearCookies();
    await other.goto((await rp.start()).url.toString());
    await signIn(other, owner.userName, PASSWORD);
    await other.click('#passkey-start');
    // the browser finds no credential of the ones allowed, or the server refuses the thief's: no sign-in
    await other.waitForSelector('#passkey-error:not([hidden]), #form-error');
    expect(other.url()).not.toContain(callback.url);
    await other.context().close();
    await page.context().close();
  });

  it('the login policy can forbid passwordless sign-in', async () => {
    await updateLoginPolicy(
      server.db,
      (await server.db.query<{ id: string }>('SELECT id FROM instance')).rows[0]!.id,
      { ...DEFAULT_LOGIN_POLICY, passwordlessAllowed: false },
      'test',
    );
    try {
      const page = await newPage(false);
      const start = await rp.start();
      await page.goto(start.url.toString());
      expect(await page.isVisible('#passkey-link')).toBe(false);
      const direct = await page.goto(page.url().replace(/\/login-name$|$/, '/passkey'));
      expect(direct?.status()).toBe(403);
      await page.context().close();
    } finally {
      await updateLoginPolicy(
        server.db,
        (await server.db.query<{ id: string }>('SELECT id FROM instance')).rows[0]!.id,
        DEFAULT_LOGIN_POLICY,
        'test',
      );
    }
  });

  it('a challenge is used once, and only in the browser it was issued to', async () => {
    const { userName } = await newUser();
    const page = await newPage();
    await accountPage(page, userName);
    await addPasskey(page, 'Key to replay');
    await page.context().clearCookies();
    await passkeyPage(page);
    // the browser's answers are held back and sent by the test: two answers to the same challenge (the second
    // with a higher counter, so only the challenge's single use can refuse it), then the first one again
    const posts: { url: string; body: string }[] = [];
    await page.route('**/passkey', async (route) => {
      posts.push({ url: route.request().url(), body: route.request().postData() ?? '' });
      // 204: the browser stays on the page, which can answer the same challenge again
      await route.fulfill({ status: 204 });
    });
    for (const n of [1, 2]) {
      await page.click('#passkey-start');
      await expect.poll(() => posts.length).toBe(n);
    }
    const [url, form, second] = [
      posts[0]!.url,
      Object.fromEntries(new URLSearchParams(posts[0]!.body)),
      Object.fromEntries(new URLSearchParams(posts[1]!.body)),
    ];
    expect(second.credential).not.toBe(form.credential);
    const first = await page.request.post(url, { form, maxRedirects: 0 });
    expect(first.status()).toBe(303);
    for (const replay of [second, form]) {
      const again = await page.request.post(url, { form: replay, maxRedirects: 0 });
      expect(again.status()).toBe(400);
      expect(await again.text()).toContain('The passkey could not be used');
    }

    // another browser, its own interaction and challenge: the answer to this browser's challenge is refused
    const other = await newPage(false);
    await passkeyPage(other);
    const otherUrl = other.url();
    const csrf = await other.inputValue('input[name=csrf]');
    const foreign = await other.request.post(otherUrl, { form: { ...form, csrf }, maxRedirects: 0 });
    expect(foreign.status()).toBe(400);
    // and the first browser's interaction is not the other browser's to use
    const stolen = await other.request.post(url, { form, maxRedirects: 0 });
    expect(stolen.status()).toBeGreaterThanOrEqual(400);
    expect(stolen.status()).toBeLessThan(500);
    await other.context().close();
    await page.context().close();
  });

  it('an expired challenge is refused', async () => {
    const { userName } = await newUser();
    const page = await newPage();
    await accountPage(page, userName);
    await addPasskey(page, 'Slow key');
    await page.context().clearCookies();
    await passkeyPage(page);
    await server.db.query("UPDATE webauthn_challenges SET expires_at = now() - interval '1 second'");
    await page.click('#passkey-start');
    await page.waitForSelector('#form-error');
    expect(await page.textContent('#form-error')).toContain('The passkey could not be used');
    // the page came back with a fresh challenge, which works
    await page.click('#passkey-start');
    await landed(page);
    await page.context().close();
  });

  it('malformed answers and names are 400, not 500', async () => {
    const page = await newPage(false);
    await passkeyPage(page);
    const csrf = await page.inputValue('input[name=csrf]');
    for (const credential of ['', 'not json', '{}', '{"id":"x","rawId":"x","response":{"clientDataJSON":"x"}}']) {
      const res = await page.request.post(page.url(), { form: { csrf, credential }, maxRedirects: 0 });
      expect(res.status(), credential).toBe(400);
    }
    await page.context().close();

    const account = await newPage(false);
    await accountPage(account, (await newUser()).userName);
    for (const name of ['', 'x'.repeat(201)]) {
      await account.$eval('#passkey-name', (input) => input.removeAttribute('required'));
      await account.$eval('#passkey-name', (input) => input.removeAttribute('maxlength'));
      await account.fill('#passkey-name', name);
      await account.click('#add-passkey');
      expect(await account.getAttribute('#passkey-name', 'aria-invalid')).toBe('true');
      await account.goto(`${base}/ui/account`);
    }
    const csrf2 = await account.inputValue('input[name=csrf]');
    const bad = await account.request.post(`${base}/ui/account/passkeys`, {
      form: { csrf: csrf2, name: 'Key', credential: '{"id":' },
      maxRedirects: 0,
    });
    expect(bad.status()).toBe(400);
    await account.context().close();
  });

  it('removing a passkey asks for the password or a code; removed, it no longer signs in', async () => {
    const { userName, userId } = await newUser();
    const page = await newPage();
    await accountPage(page, userName);
    await addPasskey(page, 'Old key');
    const form = page.locator('form.passkey', { hasText: 'Old key' });
    await form.locator('input[type=password]').fill('wrong password');
    await form.locator('button').click();
    expect(await page.textContent('#form-error')).toBeTruthy();
    expect((await credentials(userId)).map((c) => c.name)).toContain('Old key');
    await page.locator('form.passkey', { hasText: 'Old key' }).locator('input[type=password]').fill(PASSWORD);
    await page.locator('form.passkey', { hasText: 'Old key' }).locator('button').click();
    await page.waitForURL(`${base}/ui/account?done=passkeyRemoved`);
    expect((await credentials(userId)).map((c) => c.name)).not.toContain('Old key');
    // a code of the user's authenticator app confirms a removal as well as the password does
    await addPasskey(page, 'Spare key');
    const secret = newTotpSecret();
    const totp = new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(secret) });
    const factors = { db: server.db, secrets: createSecretBox(TEST_MASTER_KEY), config: server.config };
    expect((await enrollOtp(factors, userId, secret, totp.generate(), '127.0.0.1')).ok).toBe(true);
    const spare = page.locator('form.passkey', { hasText: 'Spare key' });
    await spare.getByLabel('Code').fill(totp.generate({ timestamp: Date.now() + 30_000 }));
    await spare.locator('button').click();
    await page.waitForURL(`${base}/ui/account?done=passkeyRemoved`);
    expect(await credentials(userId)).toEqual([]);
    await removeOtp(server.db, (await server.findUser(userName))!, userId);
    // without a passkey the user is no longer asked for one after the password
    const kinds = await server.db.query('SELECT factor_kinds FROM users WHERE id = $1', [userId]);
    expect(kinds.rows).toEqual([{ factor_kinds: [] }]);

    await page.context().clearCookies();
    await passkeyPage(page);
    await page.click('#passkey-start');
    // the authenticator still has the credential, the server no longer knows it
    await page.waitForSelector('#form-error');
    expect(await page.textContent('#form-error')).toContain('The passkey could not be used');
    await page.context().close();
  });
});
