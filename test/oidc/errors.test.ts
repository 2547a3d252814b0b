// Every error of the authorization and token endpoints (RFC 6749 §4.1.2.1, §5.2; OIDC Core §3.1.2.6), where it
// comes out: at the redirect URI, on the server, or in the token response.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { basic, Browser, CALLBACK, createMachine, createOidcApp, postForm, type TestApp } from '../helpers/oidc.ts';

describe('protocol errors', () => {
  let server: TestServer;
  let web: TestApp;
  let token: string;
  beforeAll(async () => {
    server = await startTestServer();
    web = await createOidcApp(server, { authMethod: 'basic' });
    token = `${server.url}/oauth/v2/token`;
  });
  afterAll(async () => server?.stop());

  const authorize = (params: Record<string, string | string[]>) => {
    const url = new URL(`${server.url}/oauth/v2/authorize`);
    const all = {
      client_id: web.clientId,
      redirect_uri: CALLBACK,
      response_type: 'code',
      scope: 'openid',
      state: 'st',
      ...params,
    };
    for (const [k, v] of Object.entries(all)) for (const value of [v].flat()) url.searchParams.append(k, value);
    return url;
  };
  /** The error delivered to the redirect URI (query or fragment), with state. */
  async function redirectedError(params: Record<string, string | string[]>) {
    const res = await new Browser(server).request(String(authorize(params)));
    expect(res.status).toBeGreaterThanOrEqual(300);
    expect(res.status).toBeLessThan(400);
    const location = new URL(res.headers.get('location')!);
    expect(location.origin + location.pathname).toBe(CALLBACK);
    const p = new URLSearchParams(location.hash ? location.hash.slice(1) : location.search);
    return { error: p.get('error'), state: p.get('state'), iss: p.get('iss'), description: p.get('error_description') };
  }
  /** An error shown on the server: never a redirect. */
  async function shownError(params: Record<string, string>) {
    const url = authorize({});
    for (const [k, v] of Object.entries(params)) v === '' ? url.searchParams.delete(k) : url.searchParams.set(k, v);
    const res = await fetch(url, { redirect: 'manual' });
    expect(res.headers.get('location')).toBeNull();
    const html = await res.text();
    expect(res.headers.get('content-type')).toMatch(/text\/html/);
    // the headers of every HTML page: no framing (clickjacking), no referrer, no sniffing
    expect(res.headers.get('content-security-policy')).toMatch(/frame-ancestors 'none'/);
    expect([
      res.headers.get('x-frame-options'),
      res.headers.get('referrer-policy'),
      res.headers.get('x-content-type-options'),
    ]).toEqual(['DENY', 'no-referrer', 'nosniff']);
    expect(html).not.toMatch(/at .*\.js:\d+/); // no stack traces
    return { status: res.status, html };
  }

  it('authorization errors at the redirect URI, with state', async () => {
    expect(await redirectedError({ scope: 'profile email' })).toMatchObject({
      error: 'invalid_scope',
      state: 'st',
      iss: server.url,
    });
    expect(await redirectedError({ response_type: 'token' })).toMatchObject({
      error: 'unsupported_response_type',
      state: 'st',
    });
    expect(await redirectedError({ response_type: 'id_token' })).toMatchObject({
      error: 'unauthorized_client',
      state: 'st',
    });
    expect(await redirectedError({ scope: ['openid', 'openid profile'] })).toMatchObject({
      error: 'invalid_request',
      state: 'st',
    });
    expect(await redirectedError({ prompt: 'none' })).toMatchObject({ error: 'login_required', state: 'st' });
    expect(await redirectedError({ prompt: 'none login' })).toMatchObject({ error: 'invalid_request' });
    expect(await redirectedError({ prompt: 'bogus' })).toMatchObject({ error: 'invalid_request' });
  });

  it('missing, unregistered or foreign redirect_uri and unknown clients: an error page on the server', async () => {
    const missing = await shownError({ redirect_uri: '' });
    expect(missing.status).toBe(400);
    const unregistered = await shownError({ redirect_uri: 'https://evil.example.com/callback' });
    expect([unregistered.status, unregistered.html]).toEqual([400, expect.stringContaining('redirect_uri')]);
    const prefix = await shownError({ redirect_uri: `${CALLBACK}/extra` });
    expect(prefix.status).toBe(400);
    const unknown = await shownError({ client_id: 'no-such-client' });
    expect([unknown.status, unknown.html]).toEqual([400, expect.stringContaining('invalid_client')]);
  });

  it('token endpoint errors', async () => {
    const auth = { authorization: basic(web.clientId, web.clientSecret!) };
    const cases: Array<[string, Record<string, string>, Record<string, string>, number, string]> = [
      ['unknown grant type', { grant_type: 'urn:example:bogus' }, auth, 400, 'unsupported_grant_type'],
      [
        'password grant is not offered',
        { grant_type: 'password', username: 'admin', password: 'x' },
        auth,
        400,
        'unsupported_grant_type',
      ],
      ['missing grant_type', {}, auth, 400, 'invalid_request'],
      ['missing code', { grant_type: 'authorization_code', redirect_uri: CALLBACK }, auth, 400, 'invalid_request'],
      [
        'unknown code',
        { grant_type: 'authorization_code', code: 'nope', redirect_uri: CALLBACK },
        auth,
        400,
        'invalid_grant',
      ],
      ['unknown refresh token', { grant_type: 'refresh_token', refresh_token: 'nope' }, auth, 400, 'invalid_grant'],
      [
        'grant the app may not use',
        { grant_type: 'client_credentials', scope: 'openid' },
        auth,
        400,
        'unauthorized_client',
      ],
      [
        'wrong secret',
        { grant_type: 'refresh_token', refresh_token: 'x' },
        { authorization: basic(web.clientId, 'wrong') },
        401,
        'invalid_client',
      ],
      [
        'unknown client',
        { grant_type: 'refresh_token', refresh_token: 'x', client_id: 'nobody', client_secret: 'x' },
        {},
        401,
        'invalid_client',
      ],
      ['no client authentication', { grant_type: 'refresh_token', refresh_token: 'x' }, {}, 400, 'invalid_request'],
      [
        'two authentication mechanisms',
        { grant_type: 'refresh_token', refresh_token: 'x', client_id: web.clientId, client_secret: web.clientSecret! },
        auth,
        400,
        'invalid_request',
      ],
      [
        'repeated parameter',
        { grant_type: 'refresh_token', refresh_token: 'x' },
        { ...auth, 'x-repeat': '1' },
        400,
        'invalid_request',
      ],
    ];
    for (const [name, form, headers, status, error] of cases) {
      const body = new URLSearchParams(form);
      if (headers['x-repeat']) body.append('refresh_token', 'y');
      const { 'x-repeat': _, ...sent } = headers;
      const res = await fetch(token, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', ...sent },
        body,
      });
      const json = (await res.json()) as { error?: string };
      expect([name, res.status, json.error]).toEqual([name, status, error]);
    }
  });

  it('machine clients: client_credentials requires scope, and the code grant is not theirs', async () => {
    const m = await createMachine(server);
    const noScope = await postForm(
      token,
      { grant_type: 'client_credentials' },
      { authorization: basic(m.userName, m.clientSecret) },
    );
    expect([noScope.status, noScope.json.error]).toEqual([400, 'invalid_request']);
    const res = await postForm(
      token,
      { grant_type: 'authorization_code', code: 'x', redirect_uri: CALLBACK },
      { authorization: basic(m.userName, m.clientSecret) },
    );
    expect([res.status, res.json.error]).toEqual([400, 'unauthorized_client']);
  });

  it('malformed bodies are 400, never 500', async () => {
    for (const body of ['%%%', `grant_type=${'a'.repeat(60 * 1024)}`, '\u0000\u0001']) {
      const res = await fetch(token, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body,
      });
      expect(res.status).toBeGreaterThanOrEqual(400);
      expect(res.status).toBeLessThan(500);
    }
    const json = await fetch(token, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"grant_type":"client_credentials"}',
    });
    expect(json.status).toBe(400);
  });
});
