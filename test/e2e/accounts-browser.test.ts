// Accounts people manage themselves, in a real browser (Chromium) against the real server and a real SMTP server on
// loopback: registration then the verification link, a forgotten password through the mail to a new password and a
// sign-in, the account page's password change (other sessions end, this one stays), and "change required" at the next
// sign-in.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { launchBrowser, screenshot, signIn } from '../helpers/browser.ts';
import { RelyingParty, startCallbackServer, type CallbackServer } from '../helpers/relying-party.ts';
import { startLoginServer, type LoginServer } from '../helpers/login-server.ts';
import { mailCode, startSmtp, type TestSmtp } from '../helpers/smtp.ts';
import { setHumanPassword } from '../../src/passwords/service.ts';
import { hashPassword } from '../../src/users/passwords.ts';

describe('accounts in a browser', () => {
  let server: LoginServer;
  let smtp: TestSmtp;
  let callback: CallbackServer;
  let browser: Browser;
  let rp: RelyingParty;

  beforeAll(async () => {
    smtp = await startSmtp();
    callback = await startCallbackServer();
    server = await startLoginServer(callback.url, { GATEHOUSE_SMTP_URL: smtp.url, GATEHOUSE_MAIL_POLL_MS: '200' });
    rp = await RelyingParty.discover(server.url, server.clientId, `${callback.url}/cb`);
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    await callback?.close();
    await smtp?.close();
  });

  async function newPage(locale = 'en-US'): Promise<Page> {
    const context = await browser.newContext({ locale, viewport: { width: 1000, height: 900 } });
    return context.newPage();
  }
  const landed = (page: Page) => page.waitForURL((url) => url.toString().startsWith(callback.url), { timeout: 15_000 });

  it('registration mails a verification link; opening it verifies the address', async () => {
    const page = await newPage('de-DE');
    await page.goto((await rp.start({ prompt: 'create' })).url.toString());
    await page.fill('#firstName', 'Ada');
    await page.fill('#lastName', 'Lovelace');
    await page.fill('#email', 'ada@example.com');
    await page.fill('#userName', 'ada');
    await page.fill('#password', 'Ada-Password-1');
    await page.click('#submit');
    await landed(page);
    expect((await server.findUser('ada'))?.email_verified).toBe(false);
    const mail = await smtp.waitFor('ada@example.com');
    expect(mail.subject).toMatch(/E-Mail-Adresse bestätigen/);
    const { link } = mailCode(mail);
    await page.goto(link);
    await screenshot(page, 'accounts-01-verify-email');
    await page.click('#submit');
    expect(await page.textContent('#message-title')).toBe('E-Mail-Adresse bestätigt');
    expect((await server.findUser('ada'))?.email_verified).toBe(true);
    // the link is single use
    await page.goto(link);
    await page.click('#submit');
    expect(await page.textContent('#form-error')).toMatch(/ungültig, verbraucht oder abgelaufen/);
    await page.context().close();
  });

  it('forgotten password: the link on the password page, the mail, a new password, a sign-in', async () => {
    const graceId = await server.addUser('grace', 'Grace-Old-Password');
    // a reset goes only to a verified address
    await server.db.query('UPDATE users SET email_verified = true WHERE id = $1', [graceId]);
    const page = await newPage();
    await page.goto((await rp.start()).url.toString());
    await page.fill('#loginName', 'grace');
    await page.click('#submit');
    await page.click('#forgot-password');
    expect(await page.inputValue('#loginName')).toBe('grace');
    await page.click('#submit');
    expect(await page.textContent('#notice')).toMatch(/If the login name belongs to an account/);
    await screenshot(page, 'accounts-02-reset-requested');
    const mail = await smtp.waitFor('grace@example.com', /reset your password/);
    const { link } = mailCode(mail);
    await page.goto(link);
    await page.fill('#newPassword', 'short');
    await page.click('#submit');
    expect(await page.textContent('#newPassword-error')).toBe('Use at least 8 characters.');
    await page.fill('#newPassword', 'Grace-New-Password');
    await page.click('#submit');
    expect(await page.textContent('#message-title')).toBe('Password changed');
    const start = await rp.start();
    await page.goto(start.url.toString());
    await signIn(page, 'grace', 'Grace-Old-Password');
    expect(await page.textContent('#form-error')).toBe('The login name or password is incorrect.');
    await page.fill('#password', 'Grace-New-Password');
    await page.click('#submit');
    await landed(page);
    expect((await rp.finish(page.url(), start)).claims.sub).toBe((await server.findUser('grace'))!.id);
    await page.context().close();
  });

  it('the account page: sign in and come back, change the password; other sessions end, this one stays', async () => {
    await server.addUser('linus', 'Linus-Password-1');
    const other = await newPage();
    await other.goto(`${server.url}/ui/account`);
    await signIn(other, 'linus', 'Linus-Password-1');
    await other.waitForURL(`${server.url}/ui/account`);
    const page = await newPage();
    await page.goto(`${server.url}/`);
    await page.click('#home-account');
    await signIn(page, 'linus', 'Linus-Password-1');
    await page.waitForURL(`${server.url}/ui/account`);
    expect(await page.textContent('#account-login-name')).toBe(`linus@${server.primaryDomain}`);
    await screenshot(page, 'accounts-03-account-page');
    await page.fill('#currentPassword', 'wrong password');
    await page.fill('#newPassword', 'Linus-Password-2');
    await page.click('#change-password');
    expect(await page.textContent('#currentPassword-error')).toBe('The current password is incorrect.');
    await page.fill('#currentPassword', 'Linus-Password-1');
    await page.fill('#newPassword', 'Linus-Password-2');
    await page.click('#change-password');
    expect(await page.textContent('#notice')).toMatch(/Your password has been changed/);
    // this browser is still signed in, the other one is not
    await page.goto(`${server.url}/ui/account`);
    expect(await page.textContent('#account-login-name')).toBe(`linus@${server.primaryDomain}`);
    await other.goto(`${server.url}/ui/account`);
    expect(other.url()).toContain('/ui/login/');
    // sign-out: the logout confirmation, then the home page; the account page asks to sign in again
    await page.click('#sign-out');
    await page.click('#logout');
    await page.waitForURL(`${server.url}/`);
    expect(await page.getAttribute('#home-discovery', 'href')).toBe('/.well-known/openid-configuration');
    await page.goto(`${server.url}/ui/account`);
    expect(page.url()).toContain('/ui/login/');
    await page.context().close();
    await other.context().close();
  });

  it('a password set by an administrator is changed at the next sign-in, before the authorization ends', async () => {
    const userId = await server.addUser('edsger', 'Edsger-Password-1');
    const orgId = (await server.findUser('edsger'))!.org_id;
    await setHumanPassword(server.db, { userId, orgId }, 'Temporary-Pass-1', true, 'test', hashPassword);
    const page = await newPage();
    const start = await rp.start();
    await page.goto(start.url.toString());
    await signIn(page, 'edsger', 'Temporary-Pass-1');
    expect(await page.textContent('h1')).toBe('Choose a new password');
    await screenshot(page, 'accounts-04-change-required');
    await page.fill('#newPassword', 'Edsger-Password-2');
    await page.click('#submit');
    await landed(page);
    expect((await rp.finish(page.url(), start)).claims.sub).toBe(userId);
    await page.context().close();
  });
});
