// The login pages in a real browser: Chromium through playwright-core against the real server, a relying party with
// openid-client. Every page is saved under test-output/screenshots/.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { launchBrowser, screenshot, signIn } from '../helpers/browser.ts';
import { RelyingParty, startCallbackServer, type CallbackServer } from '../helpers/relying-party.ts';
import { startLoginServer, type LoginServer } from '../helpers/login-server.ts';

describe('login pages in a browser', () => {
  let server: LoginServer;
  let callback: CallbackServer;
  let browser: Browser;
  let rp: RelyingParty;

  beforeAll(async () => {
    callback = await startCallbackServer();
    server = await startLoginServer(callback.url);
    rp = await RelyingParty.discover(server.url, server.clientId, `${callback.url}/cb`);
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    await callback?.close();
  });

  async function newPage(locale = 'en-US'): Promise<Page> {
    const context = await browser.newContext({ locale, viewport: { width: 1000, height: 760 } });
    return context.newPage();
  }

  const landed = (page: Page) => page.waitForURL((url) => url.toString().startsWith(callback.url), { timeout: 15_000 });

  it('code flow with PKCE through the login name page and the password page to the callback', async () => {
    const page = await newPage();
    const start = await rp.start({ login_hint: 'admin' });
    await page.goto(start.url.toString());
    expect(await page.getAttribute('html', 'lang')).toBe('en');
    expect(await page.inputValue('#loginName')).toBe('admin');
    expect(await page.getAttribute('#loginName', 'autocomplete')).toBe('username');
    expect(await page.textContent('label[for=loginName]')).toBe('Login name');
    await screenshot(page, '01-login-name');
    await page.fill('#loginName', `admin@${server.primaryDomain}`);
    await page.click('#submit');
    expect(await page.textContent('#login-name-shown')).toBe(`admin@${server.primaryDomain}`);
    expect(await page.getAttribute('#password', 'autocomplete')).toBe('current-password');
    await screenshot(page, '02-password');
    await page.fill('#password', server.adminPassword);
    await page.click('#submit');
    await landed(page);
    const { claims } = await rp.finish(page.url(), start);
    expect(claims.sub).toBe(server.adminId);
    await page.context().close();
  });

  it('a wrong password shows one message tied to the form, then the right one signs in', async () => {
    const page = await newPage();
    const start = await rp.start();
    await page.goto(start.url.toString());
    await signIn(page, 'admin', 'not the password');
    expect(await page.textContent('#form-error')).toBe('The login name or password is incorrect.');
    await screenshot(page, '03-wrong-password');
    // the change link goes back to page 1 with the name kept
    await page.click('#change-account');
    expect(await page.inputValue('#loginName')).toBe('admin');
    await page.click('#submit');
    await page.fill('#password', server.adminPassword);
    await page.click('#submit');
    await landed(page);
    expect((await rp.finish(page.url(), start)).claims.sub).toBe(server.adminId);
    await page.context().close();
  });

  it('prompt=create shows the registration form; the new user is signed in and the flow continues', async () => {
    const page = await newPage();
    const start = await rp.start({ prompt: 'create' });
    await page.goto(start.url.toString());
    expect(await page.textContent('h1')).toBe('Create your account');
    await page.fill('#firstName', 'Grace');
    await page.fill('#lastName', 'Hopper');
    await page.fill('#email', 'grace@example.com');
    await page.fill('#userName', 'grace');
    await page.fill('#password', 'short');
    await page.click('#submit');
    expect(await page.textContent('#password-error')).toBe('Use at least 8 characters.');
    expect(await page.inputValue('#firstName')).toBe('Grace');
    await screenshot(page, '04-register-error');
    await page.fill('#password', 'a long enough passphrase');
    await page.click('#submit');
    await landed(page);
    const { claims } = await rp.finish(page.url(), start);
    const user = await server.findUser('grace');
    expect(claims.sub).toBe(user?.id);
    await page.context().close();
  });

  it('the account chooser lists the two accounts of this browser, plus "use another account"', async () => {
    const page = await newPage();
    const signInAs = async (loginName: string, password: string, params: Record<string, string> = {}) => {
      const start = await rp.start(params);
      await page.goto(start.url.toString());
      if (await page.locator('#use-another').count()) await page.click('#use-another');
      await signIn(page, loginName, password);
      await landed(page);
      return (await rp.finish(page.url(), start)).claims;
    };
    await signInAs('admin', server.adminPassword);
    const second = await server.addUser('bob', 'bob password 123');
    expect((await signInAs('bob', 'bob password 123', { prompt: 'select_account' })).sub).toBe(second);

    const start = await rp.start({ prompt: 'select_account' });
    await page.goto(start.url.toString());
    expect(await page.textContent('h1')).toBe('Choose an account');
    expect(await page.locator('button.account').count()).toBe(2);
    expect(await page.textContent('#use-another')).toBe('Use another account');
    await screenshot(page, '05-select-account');
    expect(await page.getAttribute('button.account >> nth=0', 'value')).toBe(second); // most recent first
    // login_hint preselects an account: it comes first and has the focus
    const hinted = await rp.start({ prompt: 'select_account', login_hint: 'admin' });
    await page.goto(hinted.url.toString());
    expect(await page.getAttribute('button.account >> nth=0', 'value')).toBe(server.adminId);
    expect(await page.evaluate<string | undefined>('document.activeElement?.value')).toBe(server.adminId);
    await page.goto(start.url.toString());
    // the current session's account continues without a password
    await page.click(`button.account[value="${second}"]`);
    await landed(page);
    expect((await rp.finish(page.url(), start)).claims.sub).toBe(second);

    // another known account needs its password; then the session switches to it
    const again = await rp.start({ prompt: 'select_account' });
    await page.goto(again.url.toString());
    await page.click(`button.account[value="${server.adminId}"]`);
    expect(await page.textContent('#login-name-shown')).toBe(`admin@${server.primaryDomain}`);
    await page.fill('#password', server.adminPassword);
    await page.click('#submit');
    await landed(page);
    expect((await rp.finish(page.url(), again)).claims.sub).toBe(server.adminId);

    // with two accounts on this browser, a plain request (no prompt, no hint) asks too, session or not
    const plain = await rp.start();
    await page.goto(plain.url.toString());
    expect(await page.locator('button.account').count()).toBe(2);
    await page.click(`button.account[value="${server.adminId}"]`);
    await landed(page);
    expect((await rp.finish(page.url(), plain)).claims.sub).toBe(server.adminId);
    await page.context().close();
  });

  it('logout asks for confirmation, ends the session and returns to the registered URI with state', async () => {
    const page = await newPage();
    const start = await rp.start();
    await page.goto(start.url.toString());
    await signIn(page, 'admin', server.adminPassword);
    await landed(page);

    await page.goto(
      rp
        .endSessionUrl({ client_id: server.clientId, post_logout_redirect_uri: `${callback.url}/bye`, state: 'st-1' })
        .toString(),
    );
    expect(await page.textContent('h1')).toBe('Sign out');
    await screenshot(page, '06-logout-confirm');
    await page.click('#logout');
    await page.waitForURL(`${callback.url}/bye?state=st-1`, { timeout: 15_000 });

    // the session is gone: prompt=none now fails with login_required
    const silent = await rp.start({ prompt: 'none' });
    await page.goto(silent.url.toString());
    await landed(page);
    expect(new URL(page.url()).searchParams.get('error')).toBe('login_required');

    // without a return address the logged-out page says where to go next
    await page.goto(start.url.toString().replace(/prompt=[^&]*&?/, ''));
    await signIn(page, 'admin', server.adminPassword);
    await landed(page);
    await page.goto(`${server.url}/oidc/v1/end_session`);
    await page.click('#logout');
    expect(await page.textContent('h1')).toBe('You are signed out');
    await screenshot(page, '07-logged-out');

    // an unregistered return address is refused with a readable page
    await page.goto(
      rp.endSessionUrl({ client_id: server.clientId, post_logout_redirect_uri: 'https://evil.example/' }).toString(),
    );
    expect(await page.textContent('#error-code')).toBe('invalid_request');
    expect(page.url().startsWith(server.url)).toBe(true);
    await screenshot(page, '08-logout-refused');
    await page.context().close();
  });

  it("logout with the application's id_token_hint needs no confirmation (the page submits itself under its CSP nonce)", async () => {
    const page = await newPage();
    const start = await rp.start();
    await page.goto(start.url.toString());
    await signIn(page, 'admin', server.adminPassword);
    await landed(page);
    const { idToken } = await rp.finish(page.url(), start);
    const blocked: string[] = [];
    page.on('console', (message) => {
      if (/Content Security Policy/i.test(message.text())) blocked.push(message.text());
    });
    await page.goto(
      rp
        .endSessionUrl({ id_token_hint: idToken, post_logout_redirect_uri: `${callback.url}/bye`, state: 'st-2' })
        .toString(),
    );
    await page.waitForURL(`${callback.url}/bye?state=st-2`, { timeout: 15_000 });
    expect(blocked).toEqual([]);
    await page.context().close();
  });

  it("without scripts, a click on the logout page's button signs out (logout=yes is sent once)", async () => {
    const page = await (await browser.newContext({ locale: 'en-US', javaScriptEnabled: false })).newPage();
    const start = await rp.start();
    await page.goto(start.url.toString());
    await signIn(page, 'admin', server.adminPassword);
    await landed(page);
    const { idToken } = await rp.finish(page.url(), start);
    // the page that would submit itself waits, since no script runs
    await page.goto(
      rp
        .endSessionUrl({ id_token_hint: idToken, post_logout_redirect_uri: `${callback.url}/bye`, state: 'st-3' })
        .toString(),
    );
    expect(await page.textContent('h1')).toBe('Sign out');
    await page.click('#logout');
    await page.waitForURL(`${callback.url}/bye?state=st-3`, { timeout: 15_000 });
    const silent = await rp.start({ prompt: 'none' });
    await page.goto(silent.url.toString());
    await landed(page);
    expect(new URL(page.url()).searchParams.get('error')).toBe('login_required');
    await page.context().close();
  });

  it('German with ui_locales=de, and the error page for an unregistered redirect_uri', async () => {
    const page = await newPage('en-US');
    const start = await rp.start({ ui_locales: 'de' });
    await page.goto(start.url.toString());
    expect(await page.getAttribute('html', 'lang')).toBe('de');
    expect(await page.textContent('h1')).toBe('Anmelden');
    await screenshot(page, '09-login-name-de');
    await page.fill('#loginName', 'admin');
    await page.click('#submit');
    expect(await page.textContent('h1')).toBe('Passwort eingeben');
    await screenshot(page, '10-password-de');

    const bad = new URL(start.url);
    bad.searchParams.set('redirect_uri', 'https://evil.example/cb');
    const response = await page.goto(bad.toString());
    expect(response?.status()).toBe(400);
    expect(page.url().startsWith(server.url)).toBe(true);
    expect(await page.textContent('#error-code')).toBe('invalid_redirect_uri');
    expect(await page.content()).not.toMatch(/at \w+ \(|node_modules|\.ts:\d+/);
    await screenshot(page, '11-error-de');
    await page.context().close();
  });

  it('looks right on a phone in dark mode', async () => {
    const context = await browser.newContext({
      viewport: { width: 390, height: 760 },
      colorScheme: 'dark',
      isMobile: true,
    });
    const page = await context.newPage();
    await page.goto((await rp.start()).url.toString());
    const width = await page.evaluate<number>('document.documentElement.scrollWidth');
    expect(width).toBeLessThanOrEqual(390);
    await screenshot(page, '12-login-name-phone-dark');
    await context.close();
  });
});

describe('lockout in a browser', () => {
  let server: LoginServer;
  let callback: CallbackServer;
  let browser: Browser;
  let rp: RelyingParty;
  beforeAll(async () => {
    callback = await startCallbackServer();
    server = await startLoginServer(callback.url, {
      GATEHOUSE_LOCKOUT_MAX_ATTEMPTS: '2',
      GATEHOUSE_LOCKOUT_SECONDS: '120',
    });
    rp = await RelyingParty.discover(server.url, server.clientId, `${callback.url}/cb`);
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    await callback?.close();
  });

  it('shows when to try again after repeated failures', async () => {
    const page = await (await browser.newContext({ viewport: { width: 1000, height: 760 } })).newPage();
    await page.goto((await rp.start()).url.toString());
    await signIn(page, 'admin', 'wrong one');
    await page.fill('#password', 'wrong two');
    const [response] = await Promise.all([
      page.waitForResponse((r) => r.request().method() === 'POST'),
      page.click('#submit'),
    ]);
    expect(response.status()).toBe(429);
    expect(await page.textContent('#form-error')).toMatch(
      /^Too many failed attempts\. Try again in 1[12]\d seconds\.$/,
    );
    await screenshot(page, '13-locked');
    await page.context().close();
  });
});
