// Every session is revocable on the server. A copy of a browser's cookies, taken while it was signed in to the console
// and the account page, no longer opens either after "Sign out" (the console's, the account page's, or an app's
// RP-initiated logout of the same login session), a password reset by mail, a password change, locking, deactivating or
// removing the user or deactivating its org, also after the user or org is unlocked or reactivated; on another node
// too. The console session's idle and absolute limits hold, its idle clock is written at most once a minute, and
// expired sessions are swept. Through the real login pages and console at the HTTP level, on both databases (the second
// node on PostgreSQL, where two servers can share a database).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManagementService } from '@zitadel/proto/zitadel/management_pb.js';
import { Browser, createOidcApp, createOrg, LOGOUT_CALLBACK, userTokens } from '../helpers/oidc.ts';
import { callRest, okJson } from '../helpers/management.ts';
import { lifecycle } from '../helpers/lifecycle.ts';
import { isPostgres } from '../helpers/postgres.ts';
import { unique } from '../helpers/provisioning.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { mailCode, startSmtp, type TestSmtp } from '../helpers/smtp.ts';
import { startServerWithAdminKey } from '../helpers/tokens.ts';
import { sweepExpiredConsoleSessions } from '../../src/users/console-sessions.ts';

const PASSWORD = 'Console-Session-1';
const USERS_PAGE = '/ui/console/users';
const FORM = { 'content-type': 'application/x-www-form-urlencoded' };

describe('console and account sessions end on the server', () => {
  let server: TestServer;
  let adminToken: string;
  let smtp: TestSmtp;
  beforeAll(async () => {
    smtp = await startSmtp();
    ({ server, adminToken } = await startServerWithAdminKey({
      GATEHOUSE_SMTP_URL: smtp.url,
      GATEHOUSE_MAIL_POLL_MS: '100',
    }));
  });
  afterAll(async () => {
    await server?.stop();
    await smtp?.close();
  });

  const api = (call: Parameters<typeof callRest>[1], orgId?: string) =>
    callRest(server.url, call, { token: adminToken, orgId });

  /** An ORG_OWNER of the org (the default one unless named; the console lists its users), with a verified e-mail
   *  and a password. */
  async function addOrgOwner(orgId?: string): Promise<{ userId: string; userName: string }> {
    const userName = unique('owner');
    const { userId } = okJson<{ userId: string }>(
      await api(
        {
          service: ManagementService,
          method: 'ImportHumanUser',
          rest: ['POST', '/management/v1/users/human/_import'],
          body: {
            userName,
            profile: { firstName: 'Olga', lastName: 'Owner' },
            email: { email: `${userName}@example.com`, isEmailVerified: true },
            password: PASSWORD,
          },
        },
        orgId,
      ),
    );
    okJson(await api(lifecycle.addOrgMember(userId, ['ORG_OWNER']), orgId));
    return { userId, userName };
  }

  /** A browser signed in to the console's users page through the login pages, and to the account page (SSO). */
  async function signedIn(userName: string, node = server): Promise<Browser> {
    const browser = new Browser(node);
    const login = await browser.follow(`${node.url}${USERS_PAGE}`);
    expect(login.url).toContain('/ui/login/');
    const back = await browser.submitLogin(login.url, userName, PASSWORD);
    expect([back.response.status, back.url]).toEqual([200, `${node.url}${USERS_PAGE}`]);
    expect(await back.response.text()).toContain(`>${userName}</a>`);
    expect((await browser.request(`${node.url}/ui/account`)).status).toBe(200);
    return browser;
  }

  /** What a copy of the browser's cookies opens now: the console's users list and the account page, each by the
   *  status it answers with (200: signed in; 303: sent to sign in), asked with nothing but the copy. */
  async function withCopy(cookies: Map<string, string>, node = server) {
    const header = (names: RegExp) =>
      [...cookies]
        .filter(([name]) => names.test(name))
        .map(([k, v]) => `${k}=${v}`)
        .join('; ');
    const open = async (path: string, names: RegExp) => {
      const res = await fetch(`${node.url}${path}`, { redirect: 'manual', headers: { cookie: header(names) } });
      await res.body?.cancel();
      const location = res.headers.get('location');
      return res.status === 303 ? `303 ${new URL(location!, node.url).pathname}` : String(res.status);
    };
    return {
      console: await open(USERS_PAGE, /^gatehouse_console$/),
      account: await open('/ui/account', /^_gh_session/),
    };
  }
  const SIGNED_IN = { console: '200', account: '200' };
  const SIGNED_OUT = { console: '303 /oauth/v2/authorize', account: '303 /oauth/v2/authorize' };

  const consoleSessionsOf = async (userId: string) =>
    Number(
      (await server.db.query('SELECT count(*) AS n FROM console_sessions WHERE user_id = $1', [userId])).rows[0]!.n,
    );

  /** A page's form: GET it, then POST its first form with the page's CSRF token and the fields. */
  async function submitForm(browser: Browser, path: string, fields: Record<string, string>) {
    const page = await (await browser.request(`${server.url}${path}`)).text();
    const csrf = /name="csrf" value="([^"]*)"/.exec(page)?.[1] ?? '';
    const action = /<form method="post" action="([^"]*)"/.exec(page)![1]!.replaceAll('&amp;', '&');
    return browser.request(`${server.url}${action}`, {
      method: 'POST',
      headers: { ...FORM, origin: server.url },
      body: new URLSearchParams({ csrf, ...fields }),
    });
  }

  /** Confirms end_session's logout page (or submits its auto-submitted form), as the browser does: every session of
   *  the browser's login session ends (logout=yes). */
  async function confirmLogout(browser: Browser, page: Response) {
    const form = Object.fromEntries(
      [...(await page.text()).matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)"/g)].map((m) => [
        m[1]!,
        m[2]!,
      ]),
    );
    return browser.follow(`${server.url}/oidc/v1/end_session/confirm`, {
      method: 'POST',
      headers: FORM,
      body: new URLSearchParams({ ...form, logout: 'yes' }),
    });
  }

  it('"Sign out" ends the console session and the login session: a copy of the cookies opens neither', async () => {
    const { userId, userName } = await addOrgOwner();
    const browser = await signedIn(userName);
    const copy = new Map(browser.cookies);
    expect(await withCopy(copy)).toEqual(SIGNED_IN);

    const page = await (await browser.request(`${server.url}${USERS_PAGE}`)).text();
    const csrf = /name="csrf" value="([^"]*)"/.exec(page)![1]!;
    const signOut = await browser.follow(`${server.url}/ui/console/sign-out`, {
      method: 'POST',
      headers: { ...FORM, origin: server.url },
      body: new URLSearchParams({ csrf }),
    });
    // the login session's end (RP-initiated logout) asks first; the console's has ended already
    expect(signOut.url).toContain('/oidc/v1/end_session');
    expect(await consoleSessionsOf(userId)).toBe(0);
    expect((await confirmLogout(browser, signOut.response)).url).toBe(`${server.url}/`);

    expect(await withCopy(copy)).toEqual(SIGNED_OUT);
    // with every copied cookie at once the console sends the browser to the login page, not back in
    const again = await new Browser(server).follow(`${server.url}${USERS_PAGE}`, {
      headers: { cookie: [...copy].map(([k, v]) => `${k}=${v}`).join('; ') },
    });
    expect(again.url).toContain('/ui/login/');
  });

  it("the account page's sign-out ends the console session too: a copy of the cookies opens neither", async () => {
    const { userName } = await addOrgOwner();
    const browser = await signedIn(userName);
    const copy = new Map(browser.cookies);
    const account = await (await browser.request(`${server.url}/ui/account`)).text();
    const href = /<a href="([^"]*)" id="sign-out">/.exec(account)![1]!.replaceAll('&amp;', '&');
    const ask = await browser.follow(`${server.url}${href}`);
    expect(ask.url).toContain('/oidc/v1/end_session');
    expect((await confirmLogout(browser, ask.response)).url).toBe(`${server.url}/`);
    expect(await withCopy(copy)).toEqual(SIGNED_OUT);
  });

  it("an app's RP-initiated logout of the same login session ends the console session too", async () => {
    const { userName } = await addOrgOwner();
    const browser = await signedIn(userName);
    const copy = new Map(browser.cookies);
    const app = await createOidcApp(server, { authMethod: 'basic' });
    const { id_token } = await userTokens(server, app, 'openid', browser); // single sign-on: no login page
    const query = new URLSearchParams({ id_token_hint: id_token, post_logout_redirect_uri: LOGOUT_CALLBACK });
    const logout = await browser.follow(`${server.url}/oidc/v1/end_session?${query}`);
    expect((await confirmLogout(browser, logout.response)).url).toBe(LOGOUT_CALLBACK);
    expect(await withCopy(copy)).toEqual(SIGNED_OUT);
  });

  it('a password reset by mail ends every session of the user', async () => {
    const { userId, userName } = await addOrgOwner();
    const copy = new Map((await signedIn(userName)).cookies);
    const other = new Browser(server);
    expect((await submitForm(other, '/ui/account/forgot-password', { loginName: userName })).status).toBe(200);
    const { code } = mailCode(await smtp.waitFor(`${userName}@example.com`));
    const reset = await submitForm(other, `/ui/account/password-reset?user=${userId}&code=${code}`, {
      user: userId,
      code,
      newPassword: 'Reset-By-Mail-2',
    });
    expect(reset.status).toBe(200);
    expect(await withCopy(copy)).toEqual(SIGNED_OUT);
    expect(await consoleSessionsOf(userId)).toBe(0);
  });

  it('a password change ends every session of the user', async () => {
    const { userId, userName } = await addOrgOwner();
    const copy = new Map((await signedIn(userName)).cookies);
    okJson(
      await api({
        service: ManagementService,
        method: 'SetHumanPassword',
        rest: ['POST', `/management/v1/users/${userId}/password`],
        body: { userId, password: 'Changed-Password-2', noChangeRequired: true },
      }),
    );
    expect(await withCopy(copy)).toEqual(SIGNED_OUT);
  });

  // Undone at once: an unlocked or reactivated user's old sessions stay ended.
  for (const [change, undo] of [
    ['lock', 'unlock'],
    ['deactivate', 'reactivate'],
  ] as const)
    it(`${change} ends every session of the user, which stay ended after ${undo}`, async () => {
      const { userId, userName } = await addOrgOwner();
      const copy = new Map((await signedIn(userName)).cookies);
      okJson(await api(lifecycle.userState(userId, change)));
      expect(await withCopy(copy)).toEqual(SIGNED_OUT);
      okJson(await api(lifecycle.userState(userId, undo)));
      expect(await withCopy(copy)).toEqual(SIGNED_OUT);
      expect(await consoleSessionsOf(userId)).toBe(0);
    });

  it('removing the user ends every session of the user', async () => {
    const { userId, userName } = await addOrgOwner();
    const copy = new Map((await signedIn(userName)).cookies);
    okJson(await api(lifecycle.removeUser(userId)));
    expect(await withCopy(copy)).toEqual(SIGNED_OUT);
    expect(await consoleSessionsOf(userId)).toBe(0);
  });

  it('deactivating the org ends every session of its users, which stay ended after it is reactivated', async () => {
    const orgId = await createOrg(server);
    const { userId, userName } = await addOrgOwner(orgId);
    const copy = new Map((await signedIn(userName)).cookies);
    okJson(await api(lifecycle.orgState('deactivate'), orgId));
    okJson(await api(lifecycle.orgState('reactivate'), orgId));
    expect(await withCopy(copy)).toEqual(SIGNED_OUT);
    expect(await consoleSessionsOf(userId)).toBe(0);
  });

  it('locking another user leaves a session as it is', async () => {
    const { userName } = await addOrgOwner();
    const bystander = await addOrgOwner();
    const copy = new Map((await signedIn(userName)).cookies);
    okJson(await api(lifecycle.userState(bystander.userId, 'lock')));
    expect(await withCopy(copy)).toEqual(SIGNED_IN);
  });

  it('a console session ends when idle or 12 hours after its sign-in; its idle clock is written once a minute', async () => {
    const { userId, userName } = await addOrgOwner();
    const copy = new Map((await signedIn(userName)).cookies);
    const idle = server.config.ttl.consoleIdle;
    const row = async () =>
      (
        await server.db.query<{ seen: number; expires: number }>(
          `SELECT extract(epoch FROM now() - seen_at)::float8 AS seen,
                  extract(epoch FROM expires_at - created_at)::float8 AS expires
           FROM console_sessions WHERE user_id = $1`,
          [userId],
        )
      ).rows[0]!;
    const shift = (set: string) => server.db.query(`UPDATE console_sessions SET ${set} WHERE user_id = $1`, [userId]);
    const open = () =>
      fetch(`${server.url}${USERS_PAGE}`, {
        redirect: 'manual',
        headers: { cookie: `gatehouse_console=${copy.get('gatehouse_console')}` },
      });

    // within the minute: no write, no new cookie
    await shift("seen_at = seen_at - interval '30 seconds'");
    const quiet = await open();
    expect(quiet.status).toBe(200);
    expect(quiet.headers.getSetCookie().filter((c) => c.startsWith('gatehouse_console='))).toEqual([]);
    expect((await row()).seen).toBeGreaterThanOrEqual(30);
    // after it: the idle clock restarts, and the cookie's lifetime with it
    await shift("seen_at = seen_at - interval '40 seconds'");
    const moved = await open();
    expect(moved.status).toBe(200);
    expect(moved.headers.getSetCookie().find((c) => c.startsWith('gatehouse_console='))).toContain(`Max-Age=${idle}`);
    expect((await row()).seen).toBeLessThan(5);
    // never beyond 12 hours after the sign-in, however busy
    await shift(
      "created_at = now() - interval '12 hours' + interval '10 seconds', seen_at = now() - interval '2 minutes'",
    );
    expect((await open()).status).toBe(200);
    expect((await row()).expires).toBeLessThanOrEqual(12 * 3600);
    await shift("created_at = created_at - interval '20 seconds', expires_at = expires_at - interval '20 seconds'");
    expect((await open()).status).toBe(303);
    // idle too long
    const second = await signedIn(userName);
    await server.db.query(
      `UPDATE console_sessions SET seen_at = now() - make_interval(secs => $2::float8),
         expires_at = now() - interval '1 second' WHERE user_id = $1`,
      [userId, idle + 1],
    );
    expect((await withCopy(second.cookies)).console).toBe('303 /oauth/v2/authorize');
  });

  it('expired console sessions are swept; unexpired ones stay', async () => {
    const { userId, userName } = await addOrgOwner();
    await signedIn(userName);
    await signedIn(userName);
    await server.db.query(
      `UPDATE console_sessions SET expires_at = now() - interval '1 second'
       WHERE id_hash = (SELECT min(id_hash) FROM console_sessions WHERE user_id = $1)`,
      [userId],
    );
    expect(await sweepExpiredConsoleSessions(server.db)).toBeGreaterThanOrEqual(1);
    expect(await consoleSessionsOf(userId)).toBe(1);
  });

  it('the cookie holds a random id of 256 bits, stored only hashed', async () => {
    const { userId, userName } = await addOrgOwner();
    const id = (await signedIn(userName)).cookies.get('gatehouse_console')!;
    expect(id).toMatch(/^[\w-]{43}$/);
    const { rows } = await server.db.query<{ id_hash: string }>(
      'SELECT id_hash FROM console_sessions WHERE user_id = $1',
      [userId],
    );
    expect(rows).toHaveLength(1);
    expect(rows[0]!.id_hash).not.toContain(id);
    for (const forged of [rows[0]!.id_hash, `x${id.slice(1)}`, 'not-an-id'])
      expect((await withCopy(new Map([['gatehouse_console', forged]]))).console).toBe('303 /oauth/v2/authorize');
  });

  it.runIf(isPostgres)('"Sign out" on one node ends the console session on another at its next request', async () => {
    const second = await startTestServer({ database: server.database });
    try {
      const { userName } = await addOrgOwner();
      const browser = await signedIn(userName);
      const copy = new Map(browser.cookies);
      expect((await withCopy(copy, second)).console).toBe('200');
      const page = await (await browser.request(`${server.url}${USERS_PAGE}`)).text();
      const csrf = /name="csrf" value="([^"]*)"/.exec(page)![1]!;
      const signOut = await browser.request(`${server.url}/ui/console/sign-out`, {
        method: 'POST',
        headers: { ...FORM, origin: server.url },
        body: new URLSearchParams({ csrf }),
      });
      expect(signOut.status).toBe(303);
      expect((await withCopy(copy, second)).console).toBe('303 /oauth/v2/authorize');
    } finally {
      await second.stop();
    }
  });
});
