// Database round trips of the login pages (issue 8, Performance), counted by the server's own pool: each step
// reads its interaction once; a password check counts its attempt in one statement and a success settles it in
// one more, whether or not there were failures (issue 13 §5).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CookieJar, formValue } from '../helpers/cookie-jar.ts';
import { createOidcApp } from '../helpers/oidc.ts';
import { RelyingParty, startCallbackServer, type CallbackServer } from '../helpers/relying-party.ts';
import { ADMIN_PASSWORD, startTestServer, type TestServer } from '../helpers/server.ts';

const SAME_ORIGIN_FORM = { 'content-type': 'application/x-www-form-urlencoded', 'sec-fetch-site': 'same-origin' };

describe('queries of the login pages', () => {
  let callback: CallbackServer;
  let server: TestServer;
  let rp: RelyingParty;

  beforeAll(async () => {
    callback = await startCallbackServer();
    // no background jobs during the counts
    server = await startTestServer({
      env: {
        GATEHOUSE_KEY_RELOAD_INTERVAL_MS: '3600000',
        GATEHOUSE_OIDC_SWEEP_INTERVAL_MS: '3600000',
        GATEHOUSE_MAIL_POLL_MS: '3600000',
      },
    });
    const app = await createOidcApp(server, {
      appType: 'user_agent',
      authMethod: 'none',
      devMode: true,
      redirectUris: [`${callback.url}/cb`],
    });
    rp = await RelyingParty.discover(server.url, app.clientId, `${callback.url}/cb`);
  });
  afterAll(async () => {
    await server?.stop();
    await callback?.close();
  });

  async function counted<T>(step: () => Promise<T>): Promise<{ result: T; queries: number }> {
    const before = server.db.stats.queries;
    const result = await step();
    return { result, queries: server.db.stats.queries - before };
  }

  async function begin() {
    const jar = new CookieJar();
    const start = await rp.start();
    const base = (await jar.fetch(start.url)).location!;
    const page = await counted(() => jar.fetch(base));
    expect(page.result.status).toBe(200);
    const csrf = formValue(page.result.body, 'csrf')!;
    const post = (step: string, form: Record<string, string>) =>
      counted(() =>
        jar.fetch(`${base}/${step}`, {
          method: 'POST',
          headers: { ...SAME_ORIGIN_FORM, origin: server.url },
          body: new URLSearchParams({ csrf, ...form }).toString(),
        }),
      );
    return { jar, start, page, post };
  }

  it('a password login reads the interaction once per page and takes two statements for the lockout', async () => {
    const { jar, start, page, post } = await begin();
    expect(page.queries).toBe(1); // the interaction
    const name = await post('login-name', { loginName: 'admin' });
    expect(name.result.status).toBe(200);
    expect(name.queries).toBe(1);
    const password = await post('password', { loginName: 'admin', password: ADMIN_PASSWORD });
    expect(password.result.status).toBe(303);
    // the interaction, the user, the attempt counted, the attempt given back, the interaction's result
    expect(password.queries).toBe(5);
    const landed = await jar.follow(password.result.location!);
    expect(landed.url.startsWith(`${callback.url}/cb?code=`)).toBe(true);
    expect((await rp.finish(landed.url, start)).claims.sub).toBeTruthy();
  });

  it('a successful login after a failure clears the account failures', async () => {
    const failed = await begin();
    expect((await failed.post('password', { loginName: 'admin', password: 'not the password' })).result.status).toBe(
      401,
    );
    const accountFailures = () =>
      server.db.query(
        `SELECT 1 FROM login_failures WHERE scope = 'account' AND key = (SELECT id FROM users WHERE user_name = ` +
          `'admin')`,
      );
    expect((await accountFailures()).rowCount).toBe(1);
    const { post } = await begin();
    const password = await post('password', { loginName: 'admin', password: ADMIN_PASSWORD });
    expect(password.result.status).toBe(303);
    expect(password.queries).toBe(5); // the same statement gives the attempt back and clears the account's failures
    expect((await accountFailures()).rowCount).toBe(0);
  });
});
