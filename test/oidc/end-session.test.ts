// end_session (OIDC RP-Initiated Logout 1.0 §2, §3): id_token_hint and client_id must agree, post_logout_redirect_uri
// must be registered exactly, state is appended, the session and its tokens end, and without a valid hint the user
// confirms.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import * as client from 'openid-client';
import { decodeJwt } from 'jose';
import { registerHuman } from '../../src/passwords/register.ts';
import { registrationSchema } from '../../src/users/schema.ts';
import {
  Browser,
  CALLBACK,
  createOidcApp,
  defaultOrgId,
  LOGOUT_CALLBACK,
  rpConfig,
  userTokens,
  type TestApp,
} from '../helpers/oidc.ts';

describe('end_session', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(async () => server?.stop());

  const endSession = (params: Record<string, string>) => {
    const url = new URL(`${server.url}/oidc/v1/end_session`);
    for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
    return String(url);
  };
  const hidden = (html: string) =>
    Object.fromEntries(
      [...html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)"/g)].map((m) => [m[1]!, m[2]!]),
    );

  /** Submits the page's logout form (the confirmation or the auto-submitted one). */
  async function submitLogout(browser: Browser, html: string, confirm: boolean) {
    const form = hidden(html);
    if (confirm) form.logout = 'yes';
    return browser.follow(`${server.url}/oidc/v1/end_session/confirm`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(form),
    });
  }

  it('with a valid hint: no question, redirect to the registered URI with state; the session and its tokens end', async () => {
    const app = await createOidcApp(server, { authMethod: 'basic' });
    const browser = new Browser(server);
    const tokens = await userTokens(server, app, 'openid', browser);
    const page = await browser.follow(
      endSession({ id_token_hint: tokens.id_token, post_logout_redirect_uri: LOGOUT_CALLBACK, state: 'bye' }),
    );
    expect(page.response.status).toBe(200);
    const html = await page.response.text();
    expect(html).toContain('name="logout" value="yes"');
    expect(html).toContain('.submit()');
    const done = await submitLogout(browser, html, false);
    expect(done.url).toBe(`${LOGOUT_CALLBACK}?state=bye`);
    // tokens never reach the log, not even as query parameters of logged URLs
    const logs = server.logs.join('');
    for (const secret of [tokens.id_token, tokens.access_token, tokens.id_token.split('.')[2]!])
      expect(logs).not.toContain(secret);
    expect(await server.app.oidc.verifyAccessToken(tokens.access_token)).toBeUndefined();
    // the browser has to log in again
    const again = await browser.follow(
      `${server.url}/oauth/v2/authorize?client_id=${encodeURIComponent(app.clientId)}` +
        `&redirect_uri=${encodeURIComponent('https://rp.example.com/callback')}&response_type=code&scope=openid`,
    );
    expect(again.url).toContain('/ui/login/');
  });

  /** Tokens of a second user (registered in the first org), through the login page. */
  async function otherUserTokens(app: TestApp) {
    const userName = `logout-attacker-${process.pid}`;
    await registerHuman(
      server.db,
      await defaultOrgId(server),
      registrationSchema.parse({
        firstName: 'Eve',
        lastName: 'Other',
        email: `${userName}@example.com`,
        userName,
        password: 'Eve-Password-1',
      }),
      'en',
    );
    const config = await rpConfig(server, app.clientId, client.ClientSecretBasic(app.clientSecret!));
    const verifier = client.randomPKCECodeVerifier();
    const url = client.buildAuthorizationUrl(config, {
      redirect_uri: CALLBACK,
      scope: 'openid',
      state: 's',
      code_challenge: await client.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
    });
    const landed = await new Browser(server).authorize(url, userName, 'Eve-Password-1');
    const tokens = await client.authorizationCodeGrant(config, landed, {
      pkceCodeVerifier: verifier,
      expectedState: 's',
    });
    return { id_token: tokens.id_token! };
  }

  /** The fields a browser posts when the user clicks the form's submit button: every input, then the button's own
   *  name and value if it has a name (HTML's form data set). */
  function clickedForm(html: string) {
    const form = /<form [^>]*>([\s\S]*?)<\/form>/.exec(html)![1]!;
    const fields = [...form.matchAll(/<input [^>]*name="([^"]+)" value="([^"]*)"/g)].map((m): [string, string] => [
      m[1]!,
      m[2]!,
    ]);
    const button = /<button [^>]*type="submit"[^>]*>/.exec(form)![0];
    const name = /name="([^"]+)"/.exec(button)?.[1];
    if (name) fields.push([name, /value="([^"]*)"/.exec(button)?.[1] ?? '']);
    return new URLSearchParams(fields);
  }

  it('a click on the confirmation button sends logout once and signs out, with and without the auto-submit', async () => {
    const app = await createOidcApp(server, { authMethod: 'basic' });
    for (const withHint of [true, false]) {
      const browser = new Browser(server);
      const tokens = await userTokens(server, app, 'openid', browser);
      const params: Record<string, string> = withHint
        ? { id_token_hint: tokens.id_token }
        : { client_id: app.clientId };
      const page = await browser.follow(
        endSession({ ...params, post_logout_redirect_uri: LOGOUT_CALLBACK, state: 'click' }),
      );
      const html = await page.response.text();
      expect(html.includes('.submit()')).toBe(withHint);
      const body = clickedForm(html);
      expect(body.getAll('logout')).toEqual(['yes']);
      const done = await browser.follow(`${server.url}/oidc/v1/end_session/confirm`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body,
      });
      expect([withHint, done.url]).toEqual([withHint, `${LOGOUT_CALLBACK}?state=click`]);
      expect(await server.app.oidc.verifyAccessToken(tokens.access_token)).toBeUndefined();
    }
  });

  it('a valid hint of another user does not submit itself: the user is asked, and stays signed in until they confirm', async () => {
    const app = await createOidcApp(server, { authMethod: 'basic' });
    const victim = new Browser(server);
    const victimTokens = await userTokens(server, app, 'openid', victim);
    const attackerTokens = await otherUserTokens(app);
    expect(decodeJwt(attackerTokens.id_token).sub).not.toBe(decodeJwt(victimTokens.id_token).sub);
    const page = await victim.follow(
      endSession({ id_token_hint: attackerTokens.id_token, post_logout_redirect_uri: LOGOUT_CALLBACK }),
    );
    expect(page.response.status).toBe(200);
    const html = await page.response.text();
    expect(html).toContain('Do you want to sign out?');
    expect(html).not.toContain('<script');
    expect(page.response.headers.get('content-security-policy')).not.toContain('script-src');
    // nothing was submitted: the victim's session and token live on
    expect(await server.app.oidc.verifyAccessToken(victimTokens.access_token)).toBeDefined();
    const silent = await victim.follow(
      `${server.url}/oauth/v2/authorize?client_id=${encodeURIComponent(app.clientId)}` +
        `&redirect_uri=${encodeURIComponent(CALLBACK)}&response_type=code&scope=openid&prompt=none`,
    );
    expect(new URL(silent.url).searchParams.get('code')).toBeTruthy();
  });

  it('without a hint: the user confirms; client_id + registered URI redirect after confirmation', async () => {
    const app = await createOidcApp(server, { authMethod: 'basic' });
    const browser = new Browser(server);
    await userTokens(server, app, 'openid', browser);
    const page = await browser.follow(
      endSession({ client_id: app.clientId, post_logout_redirect_uri: LOGOUT_CALLBACK, state: 's' }),
    );
    const html = await page.response.text();
    expect(html).toContain('Do you want to sign out?');
    expect(html).not.toContain('.submit()');
    const done = await submitLogout(browser, html, true);
    expect(done.url).toBe(`${LOGOUT_CALLBACK}?state=s`);

    // a browser with a session and no parameters: confirmation, then the signed-out page on the server
    const other = new Browser(server);
    await userTokens(server, app, 'openid', other);
    const plain = await other.follow(endSession({}));
    const plainHtml = await plain.response.text();
    expect(plainHtml).toContain('Do you want to sign out?');
    const signedOut = await submitLogout(other, plainHtml, true);
    expect([signedOut.response.status, await signedOut.response.text()]).toEqual([
      200,
      expect.stringContaining('You are signed out'),
    ]);
  });

  it('accepts POST as well, with the same rules', async () => {
    const app = await createOidcApp(server, { authMethod: 'basic' });
    const browser = new Browser(server);
    const tokens = await userTokens(server, app, 'openid', browser);
    const page = await browser.follow(`${server.url}/oidc/v1/end_session`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        id_token_hint: tokens.id_token,
        post_logout_redirect_uri: LOGOUT_CALLBACK,
        state: 'p',
      }),
    });
    const done = await submitLogout(browser, await page.response.text(), false);
    expect(done.url).toBe(`${LOGOUT_CALLBACK}?state=p`);
    const refused = await browser.follow(`${server.url}/oidc/v1/end_session`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ client_id: app.clientId, post_logout_redirect_uri: 'https://evil.example.com/' }),
    });
    expect(refused.response.status).toBe(400);
  });

  it("without a session: the library's auto-submitted form carries the security headers, its script allowed by hash", async () => {
    const app = await createOidcApp(server, { authMethod: 'basic' });
    const res = await new Browser(server).request(
      endSession({ client_id: app.clientId, post_logout_redirect_uri: LOGOUT_CALLBACK }),
    );
    expect(res.status).toBe(200);
    expect(res.headers.get('content-security-policy')).toMatch(
      /script-src 'self' 'sha256-[^']+'.*frame-ancestors 'none'/,
    );
    expect(res.headers.get('x-frame-options')).toBe('DENY');
  });

  it('refuses a client_id that disagrees with the hint and unregistered URIs, on the server, without redirect', async () => {
    const app = await createOidcApp(server, { authMethod: 'basic' });
    const other = await createOidcApp(server, { authMethod: 'basic' });
    const browser = new Browser(server);
    const tokens = await userTokens(server, app, 'openid', browser);
    const cases: Array<Record<string, string>> = [
      { id_token_hint: tokens.id_token, client_id: other.clientId, post_logout_redirect_uri: LOGOUT_CALLBACK },
      { id_token_hint: tokens.id_token, post_logout_redirect_uri: 'https://evil.example.com/' },
      { client_id: app.clientId, post_logout_redirect_uri: `${LOGOUT_CALLBACK}/x` },
      { id_token_hint: 'not-a-jwt' },
    ];
    for (const params of cases) {
      const res = await browser.request(endSession(params));
      expect([params, res.status, res.headers.get('location')]).toEqual([params, 400, null]);
      expect(await res.text()).toContain('invalid_request');
    }
  });
});
