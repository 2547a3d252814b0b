// The requests of the bench's scenarios and the tokens, codes and signed-in browsers they are made with, for
// Gatehouse and the baseline alike.
import type { HttpScenario } from './load.ts';
import { type Credentials, USER } from './gatehouse.ts';
import { authorizationCode, BenchBrowser, passwordLogin } from './login-flow.ts';

export const basic = (c: { clientId: string; clientSecret: string }) =>
  `Basic ${Buffer.from(`${encodeURIComponent(c.clientId)}:${encodeURIComponent(c.clientSecret)}`).toString('base64')}`;
export const FORM = 'application/x-www-form-urlencoded';

// The requests of the single-request scenarios, for Gatehouse and the baseline alike; each names what every answer
// must contain, so a fast wrong answer counts as unexpected.
export const tokenRequest = (body: string, authorization?: string): HttpScenario => ({
  method: 'POST',
  path: '/oauth/v2/token',
  headers: { 'content-type': FORM, ...(authorization ? { authorization } : {}) },
  body,
  expectBody: '"access_token"',
});
/** A pushed authorization request (RFC 9126 §2.1) of a confidential client: the code flow's parameters with PKCE. */
export const pushRequest = (web: { clientId: string; clientSecret: string }, redirectUri: string): HttpScenario => ({
  method: 'POST',
  path: '/oauth/v2/par',
  headers: { 'content-type': FORM, authorization: basic(web) },
  body: new URLSearchParams({
    client_id: web.clientId,
    response_type: 'code',
    redirect_uri: redirectUri,
    scope: 'openid profile',
    code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
    code_challenge_method: 'S256',
  }).toString(),
  expectStatus: 201,
  expectBody: '"request_uri"',
});
export const introspectionRequest = (
  caller: { clientId: string; clientSecret: string },
  token: string,
): HttpScenario => ({
  method: 'POST',
  path: '/oauth/v2/introspect',
  headers: { 'content-type': FORM, authorization: basic(caller) },
  body: `token=${token}`,
  expectBody: '"active":true',
});
export const userinfoRequest = (token: string): HttpScenario => ({
  path: '/oidc/v1/userinfo',
  headers: { authorization: `Bearer ${token}` },
  expectBody: '"sub":',
});
export const CLIENT_CREDENTIALS = 'grant_type=client_credentials&scope=openid';

export async function clientCredentialsToken(
  url: string,
  creds: { clientId: string; clientSecret: string },
  scope?: string,
): Promise<string> {
  const body = new URLSearchParams({ grant_type: 'client_credentials', ...(scope ? { scope } : {}) });
  const res = await fetch(`${url}/oauth/v2/token`, {
    method: 'POST',
    headers: { 'content-type': FORM, authorization: basic(creds) },
    body,
  });
  const json = (await res.json()) as { access_token?: string };
  if (!json.access_token) throw new Error(`client_credentials at ${url}: ${res.status} ${JSON.stringify(json)}`);
  return json.access_token;
}

/** Refresh with rotation: each request takes a refresh token from the pool and puts the new one back, so no token
 *  is ever used twice (a reuse would revoke its grant). */
export function refreshChain(
  url: string,
  pool: string[],
  client: { clientId: string; clientSecret: string },
): () => Promise<void> {
  return async () => {
    const refreshToken = pool.pop();
    if (!refreshToken) throw new Error('refresh token pool is empty');
    const res = await fetch(`${url}/oauth/v2/token`, {
      method: 'POST',
      headers: { 'content-type': FORM, authorization: basic(client) },
      body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: refreshToken }),
    });
    const json = (await res.json()) as { refresh_token?: string; error?: string };
    if (!json.refresh_token) throw new Error(`refresh: ${res.status} ${json.error}`);
    pool.push(json.refresh_token);
  };
}

/** Browsers signed in to Gatehouse, one per connection, for the silent re-authentication and to mint codes. */
export async function signedInBrowsers(url: string, app: Credentials, count: number): Promise<BenchBrowser[]> {
  const browsers = Array.from({ length: count }, () => new BenchBrowser());
  for (let i = 0; i < count; i += 4)
    await Promise.all(browsers.slice(i, i + 4).map((b) => passwordLogin(url, app, USER, 'openid', b)));
  return browsers;
}

/** Takes a browser from the pool for one flow and gives it back. */
export function withBrowser(pool: BenchBrowser[], flow: (browser: BenchBrowser) => Promise<void>): () => Promise<void> {
  return async () => {
    const browser = pool.pop();
    if (!browser) throw new Error('browser pool is empty');
    try {
      await flow(browser);
    } finally {
      pool.push(browser);
    }
  };
}

/** Authorization codes with their PKCE verifiers, minted by silent authorizations before the exchange scenario:
 *  `count`, or as many as `seconds` allow. */
export async function mintCodes(
  url: string,
  app: Credentials,
  browsers: BenchBrowser[],
  count: number,
  seconds: number,
) {
  const codes: { code: string; verifier: string }[] = [];
  const deadline = Date.now() + seconds * 1000;
  await Promise.all(
    browsers.map(async (browser) => {
      while (codes.length < count && Date.now() < deadline)
        codes.push(await authorizationCode(url, app, browser, undefined, { scope: 'openid', prompt: 'none' }));
    }),
  );
  return codes;
}
