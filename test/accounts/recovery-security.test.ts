// The protections of the account recovery pages, which need no session: the reset request never tells whether an
// account exists, is limited per account and per client address; codes are single use, expire, and die after five wrong
// tries; every form POST needs the page's CSRF token and a same-origin request; the pages carry the security headers.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestServer } from '../helpers/server.ts';
import { startTestServer } from '../helpers/server.ts';
import { Browser } from '../helpers/oidc.ts';
import { mailCode, startSmtp, type TestSmtp } from '../helpers/smtp.ts';
import { registerHuman } from '../../src/passwords/register.ts';
import { registrationSchema } from '../../src/users/schema.ts';

const FORM = { 'content-type': 'application/x-www-form-urlencoded' };

describe('account recovery pages', () => {
  let server: TestServer;
  let smtp: TestSmtp;

  const addUser = async (userName: string) => {
    const orgId = (await server.db.query<{ id: string }>('SELECT default_org_id AS id FROM instance')).rows[0]!.id;
    const input = registrationSchema.parse({
      firstName: userName,
      lastName: 'Tester',
      email: `${userName}@example.com`,
      userName,
      password: 'Recovery-Password-1',
    });
    const { userId } = await registerHuman(server.db, orgId, input, 'en');
    // a reset goes only to a verified address
    await server.db.query('UPDATE users SET email_verified = true WHERE id = $1', [userId]);
    return userId;
  };

  /** A browser on the page: GET it, then POST its form with the page's CSRF token. */
  const submit = async (browser: Browser, path: string, fields: Record<string, string>, headers = {}) => {
    const page = await (await browser.request(`${server.url}${path}`)).text();
    const csrf = /name="csrf" value="([^"]*)"/.exec(page)?.[1] ?? '';
    const action = /<form method="post" action="([^"]*)"/.exec(page)![1]!;
    return browser.request(`${server.url}${action}`, {
      method: 'POST',
      headers: { ...FORM, origin: server.url, ...headers },
      body: new URLSearchParams({ csrf, ...fields }),
    });
  };

  beforeAll(async () => {
    smtp = await startSmtp();
    server = await startTestServer({ env: { GATEHOUSE_SMTP_URL: smtp.url, GATEHOUSE_MAIL_POLL_MS: '100' } });
  });
  afterAll(async () => {
    await server?.stop();
    await smtp?.close();
  });

  it('answers a known and an unknown login name alike; only the account gets a mail', async () => {
    await addUser('known');
    const answers = [];
    for (const loginName of ['known', 'unknown-name']) {
      const res = await submit(new Browser(server), '/ui/account/forgot-password', { loginName });
      const body = (await res.text()).replace(/name="csrf" value="[^"]*"/, '').replace(/value="[^"]*"/g, '');
      answers.push({ status: res.status, body });
    }
    expect(answers[0]).toEqual(answers[1]);
    expect(answers[0]!.status).toBe(200);
    await smtp.waitFor('known@example.com');
    await new Promise((r) => setTimeout(r, 500));
    expect(smtp.mails.map((m) => m.to)).toEqual(['known@example.com']);
  });

  it('limits reset mails per account (5 an hour) and requests per client address', async () => {
    await addUser('limited');
    const browser = new Browser(server);
    for (let i = 0; i < 6; i++)
      expect((await submit(browser, '/ui/account/forgot-password', { loginName: 'limited' })).status).toBe(200);
    // accepted for sending: five (the outbox is written in the request's transaction)
    const { rows } = await server.db.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM mail_outbox WHERE recipient = $1',
      ['limited@example.com'],
    );
    expect(rows[0]!.n).toBe(5);
    // the first test's two and these six: the address's ten per hour are spent after two more
    for (let i = 0; i < 2; i++) await submit(browser, '/ui/account/forgot-password', { loginName: `nobody-${i}` });
    const refused = await submit(browser, '/ui/account/forgot-password', { loginName: 'nobody-else' });
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
  });

  it('a reset code dies after five wrong tries, works once, and not after it expired', async () => {
    const userId = await addUser('tries');
    const browser = new Browser(server);
    const mail = await issueResetMail(server, userId, smtp);
    const { code } = mailCode(mail);
    const reset = (presented: string, newPassword = 'Tries-New-Password') =>
      submit(browser, `/ui/account/password-reset?user=${userId}&code=`, {
        user: userId,
        code: presented,
        newPassword,
      });
    for (let i = 0; i < 5; i++) expect((await reset('WRONGCOD')).status).toBe(400);
    expect((await reset(code)).status).toBe(400);
    const second = mailCode(await issueResetMail(server, userId, smtp, 2));
    await server.db.query("UPDATE user_codes SET expires_at = now() - interval '1 second' WHERE user_id = $1", [
      userId,
    ]);
    expect((await reset(second.code)).status).toBe(400);
    const third = mailCode(await issueResetMail(server, userId, smtp, 3));
    expect((await reset(third.code)).status).toBe(200);
    expect((await reset(third.code, 'Another-Password-9')).status).toBe(400);
  });

  it('refuses a POST without the page CSRF token or from another origin', async () => {
    const browser = new Browser(server);
    await browser.request(`${server.url}/ui/account/forgot-password`);
    const noToken = await browser.request(`${server.url}/ui/account/forgot-password`, {
      method: 'POST',
      headers: { ...FORM, origin: server.url },
      body: new URLSearchParams({ loginName: 'known' }),
    });
    expect(noToken.status).toBe(403);
    const otherBrowser = await submit(
      new Browser(server),
      '/ui/account/forgot-password',
      { loginName: 'known' },
      {
        origin: 'https://evil.example',
      },
    );
    expect(otherBrowser.status).toBe(403);
    // a token of another browser (another cookie) is refused as well
    const page = await (await new Browser(server).request(`${server.url}/ui/account/forgot-password`)).text();
    const foreignToken = /name="csrf" value="([^"]*)"/.exec(page)![1]!;
    const mixed = await browser.request(`${server.url}/ui/account/forgot-password`, {
      method: 'POST',
      headers: { ...FORM, origin: server.url },
      body: new URLSearchParams({ csrf: foreignToken, loginName: 'known' }),
    });
    expect(mixed.status).toBe(403);
  });

  it('serves the pages with the security headers; / links to the account page and discovery', async () => {
    for (const path of ['/', '/ui/account/forgot-password', '/ui/account/verify-email', '/ui/account/password-reset']) {
      const res = await fetch(`${server.url}${path}`);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
      expect(res.headers.get('x-frame-options')).toBe('DENY');
      expect(res.headers.get('referrer-policy')).toBe('no-referrer');
      const html = await res.text();
      expect(html).not.toMatch(/<script|https?:\/\/(?!127\.0\.0\.1)/);
      for (const input of html.matchAll(/<input id="([^"]+)"/g)) expect(html).toContain(`<label for="${input[1]}"`);
    }
    const home = await (await fetch(`${server.url}/`)).text();
    expect(home).toContain('href="/ui/account"');
    expect(home).toContain('href="/.well-known/openid-configuration"');
    const account = await fetch(`${server.url}/ui/account`, { redirect: 'manual' });
    expect(account.status).toBe(303);
    const to = new URL(account.headers.get('location')!);
    expect(to.pathname).toBe('/oauth/v2/authorize');
    expect(to.searchParams.get('client_id')).toBe('gatehouse-account');
    expect(to.searchParams.get('redirect_uri')).toBe(`${server.config.issuer}/ui/account/callback`);
  });
});

/** Sends a reset mail through the service the management API uses (the page's per-address limit is spent by then)
 *  and waits for the `nth` mail to the user. */
async function issueResetMail(server: TestServer, userId: string, smtp: TestSmtp, nth = 1) {
  const { sendPasswordResetNotification } = await import('../../src/passwords/reset.ts');
  const { createMailer } = await import('../../src/mail/mailer.ts');
  const { createSecretBox } = await import('../../src/platform/secrets.ts');
  const { TEST_MASTER_KEY } = await import('../helpers/server.ts');
  const secrets = createSecretBox(TEST_MASTER_KEY);
  const orgId = (await server.db.query<{ org_id: string }>('SELECT org_id FROM users WHERE id = $1', [userId])).rows[0]!
    .org_id;
  const mailer = createMailer({ secrets, issuer: server.config.issuer, instanceName: 'Test', nudge: () => {} });
  await sendPasswordResetNotification({ db: server.db, secrets, mailer }, { userId, orgId }, true);
  const to = (await server.db.query<{ email: string }>('SELECT email FROM users WHERE id = $1', [userId])).rows[0]!
    .email;
  await expect.poll(() => smtp.mails.filter((m) => m.to === to).length, { timeout: 10_000 }).toBe(nth);
  return smtp.mails.filter((m) => m.to === to).at(-1)!;
}
