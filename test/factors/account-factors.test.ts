// Second factors on the account page (/ui/account/factors), over HTTP with cookies: add an authenticator app (QR code,
// a wrong first code refused), recovery codes shown once, renewed with a code (the old ones stop working), and removal
// confirmed by the password or a code; the next sign-in asks for the code while the app is set up.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as OTPAuth from 'otpauth';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { secrets } from '../helpers/oidc.ts';
import { addUser, byId, field, nextCode, PASSWORD, SignIn } from './helpers.ts';

describe('second factors on the account page', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(async () => server?.stop());

  it('adds, renews recovery codes for, and removes an authenticator app', async () => {
    const userName = await addUser(server, 'account');
    const signIn = await new SignIn(server).start(`${server.url}/ui/account`);
    await signIn.password(userName);
    expect(signIn.page).toContain('id="account-factors"');
    const { browser } = signIn;
    let page = await (await browser.request(`${server.url}/ui/account/factors`)).text();
    expect(byId(page, 'otp-state')).toBe('Not set up');
    const post = async (path: string, form: Record<string, string>) => {
      const response = await browser.request(`${server.url}/ui/account/factors${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', origin: server.url },
        body: new URLSearchParams({ csrf: field(page, 'csrf')!, ...form }),
      });
      const location = response.headers.get('location');
      page = location ? await (await browser.request(new URL(location, server.url).toString())).text() : '';
      if (!location) page = await response.text();
      return response.status;
    };

    // adding the app asks for the password first: a signed-in session alone does not prove the person
    expect(await post('/otp', {})).toBe(400);
    expect(await post('/otp', { password: PASSWORD })).toBe(200);
    expect(page).toMatch(/<path d="(M\d+ \d+h1v1h-1z)+"/);
    const secret = byId(page, 'otp-secret')!.replaceAll(' ', '');
    const totp = new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(secret) });
    const wrong = String((Number(totp.generate()) + 1) % 1_000_000).padStart(6, '0');
    const ticket = field(page, 'ticket')!;
    expect(await post('/otp/verify', { ticket, code: wrong })).toBe(400);
    expect(byId(page, 'otp-secret')!.replaceAll(' ', '')).toBe(secret);
    // the page's ticket names its purpose and expires with an interaction (web/ticket.ts): the same secret and
    // session sealed without the purpose, or expired, shows the secret no more
    const sealed = JSON.parse(secrets.decrypt(ticket)) as { uid: string; exp: number; purpose: string };
    expect(sealed).toMatchObject({ purpose: 'account-otp-setup', secret });
    expect(sealed.exp - Date.now() / 1000).toBeGreaterThan(0);
    expect(sealed.exp - Date.now() / 1000).toBeLessThanOrEqual(server.config.ttl.interaction);
    for (const stale of [
      { uid: sealed.uid, secret },
      { ...sealed, exp: Math.floor(Date.now() / 1000) - 1 },
    ]) {
      expect(await post('/otp/verify', { ticket: secrets.encrypt(JSON.stringify(stale)), code: wrong })).toBe(400);
      expect(byId(page, 'otp-secret')).toBeUndefined();
    }
    expect(await post('/otp/verify', { ticket, code: totp.generate() })).toBe(200);
    const first = [...page.matchAll(/<li><code>([A-Z0-9-]+)<\/code><\/li>/g)].map((m) => m[1]!);
    expect(first).toHaveLength(10);
    page = await (await browser.request(`${server.url}/ui/account/factors`)).text();
    expect(byId(page, 'otp-state')).toBe('Set up');
    expect(byId(page, 'recovery-left')).toBe('Unused codes: 10');

    // the next sign-in asks for the code
    const later = await new SignIn(server).start(`${server.url}/ui/account`);
    await later.password(userName);
    expect(later.page).toContain('autocomplete="one-time-code"');

    // renewing needs the password or a code: a wrong password is refused; a TOTP code works and replaces the codes
    expect(await post('/recovery', { password: 'not the password' })).toBe(400);
    expect(page).toContain('Enter your current password or a valid code.');
    expect(await post('/recovery', { code: nextCode(totp) })).toBe(200);
    const renewed = [...page.matchAll(/<li><code>([A-Z0-9-]+)<\/code><\/li>/g)].map((m) => m[1]!);
    expect(renewed).toHaveLength(10);
    expect(renewed).not.toContain(first[0]);
    page = await (await browser.request(`${server.url}/ui/account/factors`)).text();
    // an old code confirms nothing any more; the password removes the app, and the codes go with it
    expect(await post('/otp/remove', { code: first[0]! })).toBe(400);
    expect(await post('/otp/remove', { password: PASSWORD })).toBe(303);
    expect(page).toContain('Your authenticator app has been removed.');
    expect(byId(page, 'otp-state')).toBe('Not set up');
    const { rows } = await server.db.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM user_recovery_codes c JOIN users u ON u.id = c.user_id WHERE u.user_name = $1',
      [userName],
    );
    expect(rows[0]!.n).toBe(0);
  });
});
