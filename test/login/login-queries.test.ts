// Database round trips of the login pages (a whole password login, from the authorization request to the code exchange,
// in at most 10 statements), counted by the server's own pool. Each request reads what it needs with one statement
// (oidc/read-ahead.ts, login/page-read-ahead.ts, login/password-read-ahead.ts) and writes what it saved with one more
// (oidc/write-behind.ts); the password check counts its attempt with the user read, and a success gives it back with
// the interaction's result, so parallel guesses cannot outrun the lockout. The resume, a silent re-authentication and
// the code exchange stay within their budgets.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CookieJar, formValue } from '../helpers/cookie-jar.ts';
import { createOidcApp } from '../helpers/oidc.ts';
import { RelyingParty, startCallbackServer, type CallbackServer } from '../helpers/relying-party.ts';
import { ADMIN_PASSWORD, startTestServer, TEST_MASTER_KEY, type TestServer } from '../helpers/server.ts';
import { registerHuman } from '../../src/passwords/register.ts';
import { registrationSchema } from '../../src/users/schema.ts';
import { findUserByLoginName } from '../../src/users/lookup.ts';
import { createSecretBox } from '../../src/platform/secrets.ts';
import { enrollOtp } from '../../src/factors/otp.ts';
import { newTotpSecret } from '../../src/factors/totp.ts';
import * as OTPAuth from 'otpauth';

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
    // the client's app; the interaction written
    const authorized = await counted(() => jar.fetch(start.url));
    expect(authorized.queries).toBe(2);
    const base = authorized.result.location!;
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
    return { jar, start, authorized, page, post };
  }

  it('a password login takes ten statements, from the authorization request to the code exchange', async () => {
    const { jar, start, authorized, page, post } = await begin();
    // the interaction, the active JWT IdPs on the login policy's list for their buttons and the login policy's ways in,
    // in one statement
    expect(page.queries).toBe(1);
    const name = await post('login-name', { loginName: 'admin' });
    expect(name.result.status).toBe(200);
    expect(name.queries).toBe(1); // the interaction
    const password = await post('password', { loginName: 'admin', password: ADMIN_PASSWORD });
    expect(password.result.status).toBe(303);
    // the interaction, the user and the attempt counted on the account and the address, in one statement; after
    // the hash, the attempt given back (the account's failures cleared) with the interaction's result
    expect(password.queries).toBe(2);
    // the resume: the interaction, the browser's session, the client's app and the user read ahead in one
    // statement; the interaction deleted, the grant, the session and the code written in one more
    const resumed = await counted(() => jar.fetch(password.result.location!));
    expect(resumed.result.location!.startsWith(`${callback.url}/cb?code=`)).toBe(true);
    expect(resumed.queries).toBe(2);
    // the code exchange (oidc/fast/user-grants.ts): the code with its grant, app and user; consumed with the tokens
    const redeemed = await counted(() => rp.finish(resumed.result.location!, start));
    expect(redeemed.result.claims.sub).toBeTruthy();
    expect(redeemed.queries).toBe(2);
    const all = [authorized, page, name, password, resumed, redeemed].reduce((sum, step) => sum + step.queries, 0);
    expect(all).toBe(10);
  });

  it('a silent re-authentication (prompt=none with the session) costs two statements, its code exchange two', async () => {
    const { jar, post } = await begin();
    const password = await post('password', { loginName: 'admin', password: ADMIN_PASSWORD });
    expect((await jar.follow(password.result.location!)).url.startsWith(`${callback.url}/cb?code=`)).toBe(true);
    for (let i = 0; i < 2; i++) {
      const start = await rp.start({ prompt: 'none' });
      // the session, the app, the user and the grant read ahead in one statement; the session and the code
      // written in one more (the grant, which holds the scopes already, is not)
      const authorized = await counted(() => jar.fetch(start.url));
      expect(authorized.result.location!.startsWith(`${callback.url}/cb?code=`)).toBe(true);
      expect(authorized.queries).toBe(2);
      const redeemed = await counted(() => rp.finish(authorized.result.location!, start));
      expect(redeemed.result.claims.sub).toBeTruthy();
      expect(redeemed.queries).toBe(2);
    }
  });

  it('an attempt counted ahead is given back when the provider then refuses the interaction', async () => {
    const { jar, post } = await begin();
    // the interaction cookie's value still names the interaction, but its signature no longer holds
    const signature = [...jar.cookies.keys()].find((name) => name.endsWith('interaction.sig'))!;
    jar.cookies.set(signature, 'forged');
    const failures = () =>
      server.db.query(
        `SELECT failures FROM login_failures WHERE key IN ((SELECT id FROM users WHERE user_name = ` +
          `'admin'), '127.0.0.1') AND failures > 0`,
      );
    expect((await failures()).rowCount).toBe(0);
    const password = await post('password', { loginName: 'admin', password: 'not the password' });
    expect(password.result.status).toBe(400); // the interaction has expired or is not this browser's
    expect((await failures()).rowCount).toBe(0);
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
    expect(password.queries).toBe(2); // the same statement gives the attempt back and clears the account's failures
    expect((await accountFailures()).rowCount).toBe(0);
  });

  it('a user with TOTP: the password answers the code form without saving a result; the code costs six statements', async () => {
    const input = registrationSchema.parse({
      firstName: 'T',
      lastName: 'O',
      email: 'totp@example.com',
      userName: 'totp-counted',
      password: ADMIN_PASSWORD,
    });
    const { userId } = await registerHuman(
      server.db,
      (await findUserByLoginName(server.db, 'admin'))!.org_id,
      input,
      'en',
    );
    const secret = newTotpSecret();
    const totp = new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(secret) });
    const factors = { db: server.db, secrets: createSecretBox(TEST_MASTER_KEY), config: server.config };
    expect((await enrollOtp(factors, userId, secret, totp.generate(), '127.0.0.1')).ok).toBe(true);
    const { post } = await begin();
    const password = await post('password', { loginName: 'totp-counted', password: ADMIN_PASSWORD });
    expect(password.result.status).toBe(200);
    // the interaction, the user (with its factor kinds and the policy's forceMfa) and the attempt counted in one
    // statement, the attempt given back; the code form is a page, so no result is saved
    expect(password.queries).toBe(2);
    const ticket = formValue(password.result.body, 'ticket')!;
    const code = await post('second-factor', { ticket, code: totp.generate({ timestamp: Date.now() + 30_000 }) });
    expect(code.result.status).toBe(303);
    // the interaction, the attempt counted, the authenticator read, its time step advanced (a code is used once),
    // the attempt given back, the interaction's result
    expect(code.queries).toBe(6);
  });
});
