// end_session (interface.md end_session_endpoint, compat.md §6, security.md §1): id_token_hint and client_id must
// agree, post_logout_redirect_uri must be registered exactly, state is appended, the session and its tokens end,
// and without a valid hint the user confirms.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { Browser, createOidcApp, LOGOUT_CALLBACK, userTokens } from '../helpers/oidc.ts';

describe('end_session', () => {
  let server: TestServer;
  beforeAll(async () => { server = await startTestServer(); });
  afterAll(async () => server?.stop());

  const endSession = (params: Record<string, string>) => {
    const url = new URL(`${server.url}/oidc/v1/end_session`);
    for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
    return String(url);
  };
  const hidden = (html: string) => Object.fromEntries([...html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)"/g)].map((m) => [m[1]!, m[2]!]));

  /** Submits the page's logout form (the confirmation or the auto-submitted one). */
  async function submitLogout(browser: Browser, html: string, confirm: boolean) {
    const form = hidden(html);
    if (confirm) form.logout = 'yes';
    return browser.follow(`${server.url}/oidc/v1/end_session/confirm`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(form) });
  }

  it('with a valid hint: no question, redirect to the registered URI with state; the session and its tokens end', async () => {
    const app = await createOidcApp(server, { authMethod: 'basic' });
    const browser = new Browser(server);
    const tokens = await userTokens(server, app, 'openid', browser);
    const page = await browser.follow(endSession({ id_token_hint: tokens.id_token, post_logout_redirect_uri: LOGOUT_CALLBACK, state: 'bye' }));
    expect(page.response.status).toBe(200);
    const html = await page.response.text();
    expect(html).toContain('name="logout" value="yes"');
    expect(html).toContain('.submit()');
    const done = await submitLogout(browser, html, false);
    expect(done.url).toBe(`${LOGOUT_CALLBACK}?state=bye`);
    // tokens never reach the log, not even as query parameters of logged URLs (security.md §21)
    const logs = server.logs.join('');
    for (const secret of [tokens.id_token, tokens.access_token, tokens.id_token.split('.')[2]!]) expect(logs).not.toContain(secret);
    expect(await server.app.oidc.verifyAccessToken(tokens.access_token)).toBeUndefined();
    // the browser has to log in again
    const again = await browser.follow(`${server.url}/oauth/v2/authorize?client_id=${encodeURIComponent(app.clientId)}&redirect_uri=${encodeURIComponent('https://rp.example.com/callback')}&response_type=code&scope=openid`);
    expect(again.url).toContain('/ui/login/');
  });

  it('without a hint: the user confirms; client_id + registered URI redirect after confirmation', async () => {
    const app = await createOidcApp(server, { authMethod: 'basic' });
    const browser = new Browser(server);
    await userTokens(server, app, 'openid', browser);
    const page = await browser.follow(endSession({ client_id: app.clientId, post_logout_redirect_uri: LOGOUT_CALLBACK, state: 's' }));
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
    expect([signedOut.response.status, await signedOut.response.text()]).toEqual([200, expect.stringContaining('You are signed out')]);
  });

  it('accepts POST as well, with the same rules', async () => {
    const app = await createOidcApp(server, { authMethod: 'basic' });
    const browser = new Browser(server);
    const tokens = await userTokens(server, app, 'openid', browser);
    const page = await browser.follow(`${server.url}/oidc/v1/end_session`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ id_token_hint: tokens.id_token, post_logout_redirect_uri: LOGOUT_CALLBACK, state: 'p' }) });
    const done = await submitLogout(browser, await page.response.text(), false);
    expect(done.url).toBe(`${LOGOUT_CALLBACK}?state=p`);
    const refused = await browser.follow(`${server.url}/oidc/v1/end_session`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ client_id: app.clientId, post_logout_redirect_uri: 'https://evil.example.com/' }) });
    expect(refused.response.status).toBe(400);
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
