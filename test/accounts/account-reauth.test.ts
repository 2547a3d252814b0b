// Sensitive changes on the account pages, over HTTP with cookies through the real login: a signed-in session alone
// changes neither the e-mail address nor a factor nor a passkey (each asks for the password or a code first),
// wrong passwords there count toward the account's lockout like a sign-in's, "forgot password" mails only a verified
// address (an unverified one is answered like an unknown login name), and the previous address hears of a change.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as OTPAuth from 'otpauth';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { mailCode, startSmtp, type TestSmtp } from '../helpers/smtp.ts';
import { AuthService } from '@zitadel/proto/zitadel/auth_pb.js';
import { Browser } from '../helpers/oidc.ts';
import { callRest, okJson, type ApiCall } from '../helpers/management.ts';
import { humanToken } from '../helpers/tokens.ts';
import { addUser, byId, field, PASSWORD, SignIn } from '../factors/helpers.ts';

const FORM = { 'content-type': 'application/x-www-form-urlencoded' };

describe('sensitive changes on the account pages ask for proof', () => {
  let server: TestServer;
  let smtp: TestSmtp;

  beforeAll(async () => {
    smtp = await startSmtp();
    server = await startTestServer({
      env: { GATEHOUSE_SMTP_URL: smtp.url, GATEHOUSE_MAIL_POLL_MS: '100', GATEHOUSE_LOCKOUT_MAX_ATTEMPTS: '3' },
    });
  });
  afterAll(async () => {
    await server?.stop();
    await smtp?.close();
  });

  /** A user of the default org with a verified address, and a browser signed in to the account page. */
  async function signedIn(prefix: string) {
    const userName = await addUser(server, prefix);
    await server.db.query('UPDATE users SET email_verified = true WHERE user_name = $1', [userName]);
    const signIn = await new SignIn(server).start(`${server.url}/ui/account`);
    await signIn.password(userName);
    expect(signIn.page).toContain('id="account-login-name"');
    const { browser } = signIn;
    let page = signIn.page;
    /** Posts a form of the current page (with its CSRF token); follows a 303 to the page it names. */
    const post = async (path: string, form: Record<string, string>) => {
      const response = await browser.request(`${server.url}${path}`, {
        method: 'POST',
        headers: { ...FORM, origin: server.url },
        body: new URLSearchParams({ csrf: field(page, 'csrf')!, ...form }),
      });
      const location = response.headers.get('location');
      page = location
        ? await (await browser.request(new URL(location, server.url).toString())).text()
        : await response.text();
      return { status: response.status, location, retryAfter: response.headers.get('retry-after') };
    };
    const open = async (path: string) => {
      page = await (await browser.request(`${server.url}${path}`)).text();
      return page;
    };
    return { userName, post, open, page: () => page };
  }

  const user = async (userName: string) =>
    (
      await server.db.query<{ id: string; email: string; email_verified: boolean }>(
        'SELECT id, email, email_verified FROM users WHERE user_name = $1',
        [userName],
      )
    ).rows[0]!;
  const outbox = async (recipient: string) =>
    (
      await server.db.query<{ n: number }>('SELECT count(*)::int AS n FROM mail_outbox WHERE recipient = $1', [
        recipient,
      ])
    ).rows[0]!.n;

  /** The "forgot password" page's answer for a login name, without its per-browser token and values. */
  async function forgotPassword(loginName: string) {
    const browser = new Browser(server);
    const form = await (await browser.request(`${server.url}/ui/account/forgot-password`)).text();
    const res = await browser.request(`${server.url}/ui/account/forgot-password`, {
      method: 'POST',
      headers: { ...FORM, origin: server.url },
      body: new URLSearchParams({ csrf: field(form, 'csrf')!, loginName }),
    });
    const body = (await res.text()).replace(/name="csrf" value="[^"]*"/, '').replace(/value="[^"]*"/g, '');
    return { status: res.status, body };
  }

  it('a session alone does not change the e-mail; a reset never goes to the unverified address; the old one is told', async () => {
    const account = await signedIn('rider');
    const before = await user(account.userName);
    const taken = `taken-${account.userName}@example.net`;

    // the session rider: the page's form without the password is refused, the address stays
    const bare = await account.post('/ui/account/email', { email: taken });
    expect(bare.status).toBe(400);
    expect(byId(account.page(), 'form-error')).toBe('Enter your current password or a valid code.');
    expect(account.page()).toContain(`value="${taken}"`);
    expect(await account.post('/ui/account/email', { email: taken, password: 'not the password' })).toMatchObject({
      status: 400,
    });
    expect(await user(account.userName)).toEqual(before);
    expect(await outbox(taken)).toBe(0);

    // the owner, with the password: changed (unverified), the code goes to the new address, a notice to the old
    expect(await account.post('/ui/account/email', { email: taken, password: PASSWORD })).toMatchObject({
      status: 303,
      location: '/ui/account?done=email',
    });
    expect(await user(account.userName)).toMatchObject({ email: taken, email_verified: false });
    const notice = await smtp.waitFor(before.email, /your e-mail address was changed/);
    expect(notice.text).toContain(`was changed to ${taken}`);
    expect(notice.text).toContain(`${account.userName}@`);
    await smtp.waitFor(taken, /verify your e-mail address/);

    // "forgot password" with the unverified address: the answer of an unknown login name, and no mail
    const sent = await outbox(taken);
    const answers = [await forgotPassword(account.userName), await forgotPassword(`nobody-${account.userName}`)];
    expect(answers[0]!.status).toBe(200);
    expect(answers[0]).toEqual(answers[1]);
    expect(await outbox(taken)).toBe(sent);
    expect(await outbox(before.email)).toBe(1);
  });

  it('wrong passwords on the account page count toward the lockout like a sign-in', async () => {
    const account = await signedIn('guess');
    const before = await user(account.userName);
    const guess = (password: string) => account.post('/ui/account/email', { email: 'x@example.net', password });
    // GATEHOUSE_LOCKOUT_MAX_ATTEMPTS is 3: the third wrong password locks the account
    expect((await guess('guess 1')).status).toBe(400);
    expect((await guess('guess 2')).status).toBe(400);
    expect((await guess('guess 3')).status).toBe(429);
    // locked now: even the right password is refused for a while, here and on the login page
    const locked = await guess(PASSWORD);
    expect(locked.status).toBe(429);
    expect(Number(locked.retryAfter)).toBeGreaterThan(0);
    expect(byId(account.page(), 'form-error')).toMatch(/Too many failed attempts/);
    expect(await user(account.userName)).toEqual(before);
    const login = await new SignIn(server).start(`${server.url}/ui/account`);
    await login.password(account.userName);
    expect(login.status).toBe(429);
  });

  it('adding an authenticator app or a passkey asks for the password or a code', async () => {
    const account = await signedIn('factors');
    const { id } = await user(account.userName);
    const totpRows = async () =>
      (await server.db.query<{ n: number }>('SELECT count(*)::int AS n FROM user_totp WHERE user_id = $1', [id]))
        .rows[0]!.n;
    const challenges = async () =>
      (
        await server.db.query<{ n: number }>('SELECT count(*)::int AS n FROM webauthn_challenges WHERE user_id = $1', [
          id,
        ])
      ).rows[0]!.n;

    // a passkey: no challenge without the password (so no ceremony can start)
    expect((await account.post('/ui/account/passkeys/new', { name: 'Rider key' })).status).toBe(400);
    expect(byId(account.page(), 'form-error')).toBe('Enter your current password or a valid code.');
    expect(await challenges()).toBe(0);
    expect((await account.post('/ui/account/passkeys/new', { name: 'My key', password: PASSWORD })).status).toBe(200);
    expect(account.page()).toContain('data-ceremony="create"');
    expect(await challenges()).toBe(1);

    // an authenticator app: no secret without the password
    await account.open('/ui/account/factors');
    expect((await account.post('/ui/account/factors/otp', {})).status).toBe(400);
    expect(byId(account.page(), 'form-error')).toBe('Enter your current password or a valid code.');
    expect(await totpRows()).toBe(0);
    expect((await account.post('/ui/account/factors/otp', { password: 'wrong' })).status).toBe(400);
    expect(await totpRows()).toBe(0);
    expect((await account.post('/ui/account/factors/otp', { password: PASSWORD })).status).toBe(200);
    const secret = byId(account.page(), 'otp-secret')!.replaceAll(' ', '');
    expect(await totpRows()).toBe(1);

    // the setup the owner left unfinished: another session's wrong first code does not show its secret
    const rider = await new SignIn(server).start(`${server.url}/ui/account/factors`);
    await rider.password(account.userName);
    const riderPage = rider.page;
    const wrong = await rider.browser.request(`${server.url}/ui/account/factors/otp/verify`, {
      method: 'POST',
      headers: { ...FORM, origin: server.url },
      body: new URLSearchParams({ csrf: field(riderPage, 'csrf')!, code: '000000' }),
    });
    expect(wrong.status).toBe(400);
    const answer = await wrong.text();
    expect(answer).not.toContain(secret);
    expect(answer).not.toContain('id="otp-secret"');

    // the owner's own wrong first code shows it again (the page's ticket), and the right one sets the app up
    const totp = new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(secret) });
    const ticket = field(account.page(), 'ticket')!;
    const off = String((Number(totp.generate()) + 1) % 1_000_000).padStart(6, '0');
    expect((await account.post('/ui/account/factors/otp/verify', { ticket, code: off })).status).toBe(400);
    expect(byId(account.page(), 'otp-secret')!.replaceAll(' ', '')).toBe(secret);
    const confirmed = await account.post('/ui/account/factors/otp/verify', { ticket, code: totp.generate() });
    expect(confirmed.status).toBe(200);
    expect(account.page()).toMatch(/<li><code>[A-Z0-9-]+<\/code><\/li>/);
  });

  it('a changed password, on the account page, by a reset, by UpdateMyPassword or when required at sign-in, is told to the verified address', async () => {
    const account = await signedIn('notice');
    const { id, email } = await user(account.userName);
    const changed = /your password was changed/;
    const notices = () => smtp.mails.filter((m) => m.to === email && changed.test(m.subject)).length;
    expect(
      await account.post('/ui/account/password', { currentPassword: PASSWORD, newPassword: 'Changed-Password-2' }),
    ).toMatchObject({ status: 303, location: '/ui/account?done=password' });
    const notice = await smtp.waitFor(email, changed);
    expect(notice.text).toContain(`${account.userName}@`);
    expect(notice.text).toContain('Forgot your password?');

    // a reset by mail: the code from the mail, a new password, and a second notice
    await forgotPassword(account.userName);
    const { code } = mailCode(await smtp.waitFor(email, /reset your password/));
    const browser = new Browser(server);
    const form = await (await browser.request(`${server.url}/ui/account/password-reset?user=${id}&code=`)).text();
    const reset = await browser.request(`${server.url}/ui/account/password-reset`, {
      method: 'POST',
      headers: { ...FORM, origin: server.url },
      body: new URLSearchParams({ csrf: field(form, 'csrf')!, user: id, code, newPassword: 'Reset-Password-3' }),
    });
    expect(reset.status).toBe(200);
    await expect.poll(notices, { timeout: 10_000 }).toBe(2);

    // UpdateMyPassword on the auth API: a third notice, queued with the change
    const token = await humanToken(server, account.userName, 'Reset-Password-3');
    const updateMyPassword = {
      service: AuthService,
      method: 'UpdateMyPassword',
      rest: ['PUT', '/auth/v1/users/me/password'],
      body: { oldPassword: 'Reset-Password-3', newPassword: 'Api-Password-4' },
    } satisfies ApiCall;
    okJson(await callRest(server.url, updateMyPassword, { token }));
    await expect.poll(notices, { timeout: 10_000 }).toBe(3);

    // "change required" at the next sign-in (the flag an administrator's SetHumanPassword sets): a fourth
    await server.db.query('UPDATE users SET password_change_required = true WHERE id = $1', [id]);
    const required = await new SignIn(server).start(`${server.url}/ui/account`);
    await required.password(account.userName, 'Api-Password-4');
    expect(required.page).toContain('name="newPassword"');
    await required.post('password-change', { newPassword: 'Chosen-Password-5' });
    expect(required.page).toContain('id="account-login-name"');
    await expect.poll(notices, { timeout: 10_000 }).toBe(4);
  });
});
