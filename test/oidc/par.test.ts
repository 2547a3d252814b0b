// Pushed authorization requests (RFC 9126) and request objects (RFC 9101) with openid-client 6 as the relying party:
// a push then the code flow through the login pages, the request_uri single-use and short-lived and stored hashed like
// every other model, request objects accepted only when signed with a key the app registered, and "require PAR".
import { createPrivateKey, generateKeyPairSync } from 'node:crypto';
import { createServer, request as httpRequest } from 'node:http';
import { importPKCS8, SignJWT, UnsecuredJWT } from 'jose';
import * as client from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setAppRequiresPar } from '../../src/apps/lifecycle.ts';
import { hashId } from '../../src/oidc/payloads.ts';
import { REQUEST_OBJECT_ALGS } from '../../src/oidc/protocol.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import {
  basic,
  Browser,
  CALLBACK,
  createAppKey,
  createOidcApp,
  pkceAuthorization,
  postForm,
  rpConfig,
  type TestApp,
} from '../helpers/oidc.ts';

const PAR_URN = 'urn:ietf:params:oauth:request_uri:';

/** The members discovery had before PAR and request objects were offered: every one must stay. */
const MEMBERS_BEFORE = [
  'authorization_endpoint',
  'authorization_response_iss_parameter_supported',
  'claim_types_supported',
  'claims_parameter_supported',
  'claims_supported',
  'code_challenge_methods_supported',
  'end_session_endpoint',
  'grant_types_supported',
  'id_token_signing_alg_values_supported',
  'introspection_endpoint',
  'introspection_endpoint_auth_methods_supported',
  'issuer',
  'jwks_uri',
  'prompt_values_supported',
  'request_uri_parameter_supported',
  'response_modes_supported',
  'response_types_supported',
  'revocation_endpoint',
  'revocation_endpoint_auth_methods_supported',
  'scopes_supported',
  'subject_types_supported',
  'token_endpoint',
  'token_endpoint_auth_methods_supported',
  'token_endpoint_auth_signing_alg_values_supported',
  'ui_locales_supported',
  'userinfo_endpoint',
];

const pkcs8 = (pem: string) =>
  importPKCS8(createPrivateKey(pem).export({ type: 'pkcs8', format: 'pem' }).toString(), 'RS256');

/** The stored row of a pushed request, by the id its request_uri carries (stored as its hash, as every model's). */
async function storedPush(server: TestServer, requestUri: string) {
  const id = requestUri.slice(PAR_URN.length);
  const { rows } = await server.db.query<{ id: string; payload: Record<string, unknown> }>(
    `SELECT id, payload FROM oidc_payloads WHERE model = 'PushedAuthorizationRequest' AND id = $1`,
    [hashId(id)],
  );
  return rows[0];
}

describe('pushed authorization requests and request objects', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(async () => server?.stop());

  /** A code flow whose authorization URL `build` makes (a push, a request object, or both). */
  async function codeFlow(config: client.Configuration, build: (params: Record<string, string>) => Promise<URL>) {
    const verifier = client.randomPKCECodeVerifier();
    const state = client.randomState();
    const url = await build({
      redirect_uri: CALLBACK,
      scope: 'openid offline_access',
      state,
      code_challenge: await client.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
    });
    const callback = await new Browser(server).authorize(url);
    const tokens = await client.authorizationCodeGrant(config, callback, {
      pkceCodeVerifier: verifier,
      expectedState: state,
    });
    return { url, tokens };
  }

  /** What the authorization endpoint answers a browser for this URL: the error it names (page or redirect). */
  async function authorizeError(url: URL | string) {
    const response = await fetch(url, { redirect: 'manual' });
    const location = response.headers.get('location');
    if (location) return { status: response.status, error: new URL(location, server.url).searchParams.get('error') };
    const page = await response.text();
    return {
      status: response.status,
      error: /(invalid_request_uri|request_uri_not_supported|invalid_request_object|invalid_request)/.exec(page)?.[1],
    };
  }

  async function keyedApp() {
    const app = await createOidcApp(server, { authMethod: 'private_key_jwt' });
    const keyFile = await createAppKey(server, app.appId);
    const key = await pkcs8(keyFile.key);
    const config = await rpConfig(server, app.clientId, client.PrivateKeyJwt({ key, kid: keyFile.keyId }));
    return { app, keyFile, key, config };
  }

  it('discovery: the PAR endpoint and request objects are advertised, and every earlier member is kept', async () => {
    const d = (await (await fetch(`${server.url}/.well-known/openid-configuration`)).json()) as Record<string, unknown>;
    expect(d).toMatchObject({
      pushed_authorization_request_endpoint: `${server.url}/oauth/v2/par`,
      request_parameter_supported: true,
      request_uri_parameter_supported: false, // request_uri only from a push: nothing is ever fetched
      request_object_signing_alg_values_supported: [...REQUEST_OBJECT_ALGS],
    });
    const algs = d.request_object_signing_alg_values_supported as string[];
    expect(algs.filter((alg) => alg === 'none' || alg.startsWith('HS'))).toEqual([]);
    expect(d.require_pushed_authorization_requests).toBeUndefined(); // per app unless GATEHOUSE_REQUIRE_PAR
    expect(Object.keys(d)).toEqual(expect.arrayContaining(MEMBERS_BEFORE));
  });

  it('a push with client_secret_basic, then the code flow: tokens, offline_access kept, the push stored hashed', async () => {
    const app = await createOidcApp(server, { authMethod: 'basic' });
    const config = await rpConfig(server, app.clientId, client.ClientSecretBasic(app.clientSecret!));
    let requestUri = '';
    const { tokens, url } = await codeFlow(config, async (params) => {
      const pushed = await client.buildAuthorizationUrlWithPAR(config, params);
      requestUri = pushed.searchParams.get('request_uri')!;
      // RFC 9126 §4: the authorization request carries client_id and request_uri only
      expect([...pushed.searchParams.keys()].sort()).toEqual(['client_id', 'request_uri']);
      const row = await storedPush(server, requestUri);
      expect(row).toBeDefined();
      expect(JSON.stringify(row)).not.toContain(requestUri.slice(PAR_URN.length)); // never the usable id
      return pushed;
    });
    expect(requestUri.startsWith(PAR_URN)).toBe(true);
    expect(tokens.refresh_token).toEqual(expect.any(String)); // offline_access from the pushed scope
    // single use (RFC 9126 §4): the request_uri that led to a code is refused from then on
    expect(await authorizeError(url)).toMatchObject({ status: 400, error: 'invalid_request_uri' });
  });

  it('a request_uri is refused once expired', async () => {
    const app = await createOidcApp(server, { authMethod: 'basic' });
    const pushed = await postForm(
      `${server.url}/oauth/v2/par`,
      { client_id: app.clientId, response_type: 'code', redirect_uri: CALLBACK, scope: 'openid' },
      { authorization: basic(app.clientId, app.clientSecret!) },
    );
    expect(pushed.status).toBe(201);
    expect(pushed.json.expires_in).toBe(60); // short-lived (RFC 9126 §2.2)
    const requestUri = pushed.json.request_uri as string;
    // the clock of the stored row moved past its expiry
    await server.db.query(
      `UPDATE oidc_payloads SET expires_at = now() - interval '1 second'
       WHERE model = 'PushedAuthorizationRequest' AND id = $1`,
      [hashId(requestUri.slice(PAR_URN.length))],
    );
    const query = new URLSearchParams({ client_id: app.clientId, request_uri: requestUri });
    const url = `${server.url}/oauth/v2/authorize?${query}`;
    expect(await authorizeError(url)).toMatchObject({ status: 400, error: 'invalid_request_uri' });
  });

  it('the push authenticates the client as the token endpoint does; another client cannot use its request_uri', async () => {
    const app = await createOidcApp(server, { authMethod: 'basic' });
    const form = { client_id: app.clientId, response_type: 'code', redirect_uri: CALLBACK, scope: 'openid' };
    const wrong = await postForm(`${server.url}/oauth/v2/par`, form, { authorization: basic(app.clientId, 'wrong') });
    expect(wrong.status).toBe(401);
    expect(wrong.json.error).toBe('invalid_client');
    const ok = await postForm(`${server.url}/oauth/v2/par`, form, {
      authorization: basic(app.clientId, app.clientSecret!),
    });
    const requestUri = ok.json.request_uri as string;
    const other = await createOidcApp(server, { authMethod: 'basic' });
    const stolen = new URLSearchParams({ client_id: other.clientId, request_uri: requestUri });
    expect(await authorizeError(`${server.url}/oauth/v2/authorize?${stolen}`)).toMatchObject({
      status: 400,
      error: 'invalid_request_object',
    });
    // the refusal is the binding to the client that pushed it: that client still starts its sign-in with it
    const own = new URLSearchParams({ client_id: app.clientId, request_uri: requestUri });
    const started = await fetch(`${server.url}/oauth/v2/authorize?${own}`, { redirect: 'manual' });
    expect(started.status).toBe(303);
    expect(started.headers.get('location')).toContain('/ui/login/');
  });

  it('private_key_jwt: a signed request object by value, and one pushed', async () => {
    const { key, keyFile, config } = await keyedApp();
    const byValue = await codeFlow(config, async (params) => {
      const url = await client.buildAuthorizationUrlWithJAR(config, params, { key, kid: keyFile.keyId });
      expect(url.searchParams.get('request')).toEqual(expect.any(String));
      return url;
    });
    expect(byValue.tokens.access_token).toEqual(expect.any(String));
    const pushed = await codeFlow(config, async (params) => {
      const jar = await client.buildAuthorizationUrlWithJAR(config, params, { key, kid: keyFile.keyId });
      return client.buildAuthorizationUrlWithPAR(config, jar.searchParams);
    });
    expect(pushed.tokens.refresh_token).toEqual(expect.any(String));
  });

  /** A request object with these claims, as a client signs it. */
  const claims = (app: TestApp) => ({
    iss: app.clientId,
    aud: server.url,
    client_id: app.clientId,
    response_type: 'code',
    redirect_uri: CALLBACK,
    scope: 'openid',
    code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
    code_challenge_method: 'S256',
  });
  const authorizeWith = (app: TestApp, request: string) =>
    `${server.url}/oauth/v2/authorize?${new URLSearchParams({ client_id: app.clientId, scope: 'openid', request })}`;

  it('an unsigned request object is refused, by value and in a push', async () => {
    const { app } = await keyedApp();
    const unsigned = new UnsecuredJWT(claims(app)).setIssuedAt().setExpirationTime('1m').encode();
    expect(await authorizeError(authorizeWith(app, unsigned))).toMatchObject({ error: 'invalid_request_object' });
    const keyed = await keyedApp();
    const assertion = await clientAssertion(keyed.keyFile, keyed.app.clientId, server.url);
    const pushed = await postForm(`${server.url}/oauth/v2/par`, {
      client_id: keyed.app.clientId,
      client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer',
      client_assertion: assertion,
      request: new UnsecuredJWT(claims(keyed.app)).setIssuedAt().setExpirationTime('1m').encode(),
    });
    expect(pushed.status).toBe(400);
    expect(pushed.json.error).toBe('invalid_request_object');
  });

  it('a request object signed with a key the app did not register, or with its client secret, is refused', async () => {
    const { app, keyFile } = await keyedApp();
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const rogue = await new SignJWT(claims(app))
      .setProtectedHeader({ alg: 'RS256', kid: keyFile.keyId })
      .setIssuedAt()
      .setExpirationTime('1m')
      .sign(privateKey);
    expect(await authorizeError(authorizeWith(app, rogue))).toMatchObject({ error: 'invalid_request_object' });
    // the app's own key signs an accepted one (the refusal above is the key's, not the claims')
    const good = await new SignJWT(claims(app))
      .setProtectedHeader({ alg: 'RS256', kid: keyFile.keyId })
      .setIssuedAt()
      .setExpirationTime('1m')
      .sign(createPrivateKey(keyFile.key));
    expect((await fetch(authorizeWith(app, good), { redirect: 'manual' })).status).toBe(303);
    // HS256 with the client secret: no symmetric algorithm is accepted
    const secretApp = await createOidcApp(server, { authMethod: 'basic' });
    const hs = await new SignJWT(claims(secretApp))
      .setProtectedHeader({ alg: 'HS256' })
      .setIssuedAt()
      .setExpirationTime('1m')
      .sign(new TextEncoder().encode(secretApp.clientSecret!));
    expect(await authorizeError(authorizeWith(secretApp, hs))).toMatchObject({ error: 'invalid_request_object' });
    // nor with the secret's stored hash, which is the key the library would verify HS256 with if it were allowed
    const { rows } = await server.db.query<{ secret_hash: string }>('SELECT secret_hash FROM apps WHERE id = $1', [
      secretApp.appId,
    ]);
    const hashed = await new SignJWT(claims(secretApp))
      .setProtectedHeader({ alg: 'HS256' })
      .setIssuedAt()
      .setExpirationTime('1m')
      .sign(new TextEncoder().encode(rows[0]!.secret_hash));
    expect(await authorizeError(authorizeWith(secretApp, hashed))).toMatchObject({ error: 'invalid_request_object' });
  });

  it('a request_uri that is not a pushed one is refused, and never fetched', async () => {
    let fetched = 0;
    const site = createServer((_req, res) => {
      fetched++;
      res.end('x');
    });
    await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
    try {
      const app = await createOidcApp(server, { authMethod: 'basic' });
      const { port } = site.address() as { port: number };
      const { url } = await pkceAuthorization(server, app.clientId, {
        request_uri: `http://127.0.0.1:${port}/request.jwt`,
      });
      expect(await authorizeError(url)).toMatchObject({ error: 'request_uri_not_supported' });
      expect(fetched).toBe(0);
    } finally {
      site.close();
    }
  });

  it('require PAR (per app): a plain authorization request is refused, a pushed one is served', async () => {
    const app = await createOidcApp(server, { authMethod: 'basic' });
    const { rows } = await server.db.query<{ org_id: string }>('SELECT org_id FROM projects WHERE id = $1', [
      app.projectId,
    ]);
    await setAppRequiresPar(
      server.db,
      { orgId: rows[0]!.org_id, projectId: app.projectId, appId: app.appId },
      true,
      'test',
    );
    const { url } = await pkceAuthorization(server, app.clientId);
    expect(await authorizeError(url)).toMatchObject({ error: 'invalid_request' });
    const config = await rpConfig(server, app.clientId, client.ClientSecretBasic(app.clientSecret!));
    const { tokens } = await codeFlow(config, (params) => client.buildAuthorizationUrlWithPAR(config, params));
    expect(tokens.access_token).toEqual(expect.any(String));
  });
});

/** A private_key_jwt client assertion (RFC 7523 §3) for the PAR endpoint. */
async function clientAssertion(keyFile: { keyId: string; key: string }, clientId: string, issuer: string) {
  return new SignJWT({})
    .setProtectedHeader({ alg: 'RS256', kid: keyFile.keyId })
    .setIssuer(clientId)
    .setSubject(clientId)
    .setAudience(issuer)
    .setJti(crypto.randomUUID())
    .setIssuedAt()
    .setExpirationTime('1m')
    .sign(createPrivateKey(keyFile.key));
}

describe('GATEHOUSE_REQUIRE_PAR', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ env: { GATEHOUSE_REQUIRE_PAR: 'true' } });
  });
  afterAll(async () => server?.stop());

  it('every app must push; discovery says so; the built-in console still signs in', async () => {
    const d = (await (await fetch(`${server.url}/.well-known/openid-configuration`)).json()) as Record<string, unknown>;
    expect(d.require_pushed_authorization_requests).toBe(true);
    const app = await createOidcApp(server, { authMethod: 'basic' });
    const { url } = await pkceAuthorization(server, app.clientId);
    const plain = new URL((await fetch(url, { redirect: 'manual' })).headers.get('location') ?? '', server.url);
    expect(plain.searchParams.get('error_description')).toBe('Pushed Authorization Request must be used');
    const config = await rpConfig(server, app.clientId, client.ClientSecretBasic(app.clientSecret!));
    const pushed = await client.buildAuthorizationUrlWithPAR(config, { redirect_uri: CALLBACK, scope: 'openid' });
    const callback = await new Browser(server).authorize(pushed);
    expect(callback.searchParams.get('code')).toEqual(expect.any(String));
    // the console's own sign-in is a plain authorization request of a built-in client (account-client.ts)
    const console = await new Browser(server).follow(`${server.url}/ui/console`);
    expect(console.url).toContain('/ui/login/');
  });
});

/** A form posted from a given local address (Linux routes all of 127/8 to lo), bounded in time. */
function postFrom(
  url: string,
  localAddress: string,
  form: Record<string, string>,
  headers: Record<string, string> = {},
) {
  return new Promise<{ status: number; retryAfter?: string; json: Record<string, unknown> }>((resolve, reject) => {
    const body = String(new URLSearchParams(form));
    const req = httpRequest(
      url,
      {
        method: 'POST',
        localAddress,
        agent: false,
        timeout: 10_000,
        headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          text += chunk;
        });
        res.on('end', () =>
          resolve({ status: res.statusCode!, retryAfter: res.headers['retry-after'], json: JSON.parse(text || '{}') }),
        );
      },
    );
    req.on('timeout', () => req.destroy(new Error(`POST ${url} timed out`)));
    req.on('error', reject);
    req.end(body);
  });
}

// Loopback is exempt from every limit in tests (test/helpers/server.ts): here nothing is, and each case sends from
// its own 127/8 address so the per-address budgets of one case never spend another's.
describe('push rate limits', () => {
  const PER_CLIENT = 3;
  const PER_ADDRESS_UNAUTHENTICATED = 2;
  const PER_ADDRESS = 6;
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({
      env: {
        GATEHOUSE_RATE_LIMIT_EXEMPT: '',
        GATEHOUSE_RATE_LIMIT_PER_CLIENT: String(PER_CLIENT),
        GATEHOUSE_AUTHORIZE_PER_IP: String(PER_ADDRESS_UNAUTHENTICATED),
        GATEHOUSE_RATE_LIMIT_PER_IP: String(PER_ADDRESS),
      },
    });
  });
  afterAll(async () => server?.stop());

  // PKCE, which a public client must use (RFC 9700 §2.1.1)
  const request = {
    response_type: 'code',
    redirect_uri: CALLBACK,
    scope: 'openid',
    code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
    code_challenge_method: 'S256',
  };
  const push = (from: string, app: TestApp, secret = app.clientSecret) =>
    postFrom(
      `${server.url}/oauth/v2/par`,
      from,
      { ...request, client_id: app.clientId },
      secret ? { authorization: basic(app.clientId, secret) } : {},
    );

  it("per client: a client's successful pushes are limited; pushes naming it without its secret do not count", async () => {
    const [a, b] = [
      await createOidcApp(server, { authMethod: 'basic' }),
      await createOidcApp(server, { authMethod: 'basic' }),
    ];
    for (let i = 0; i < PER_CLIENT; i++) expect((await push('127.9.2.1', b, 'wrong')).status).toBe(401);
    for (let i = 0; i < PER_CLIENT; i++) expect((await push('127.9.2.2', a)).status).toBe(201);
    const limited = await push('127.9.2.3', a); // from another address too: the budget is the client's
    expect(limited).toMatchObject({ status: 429, json: { error: 'temporarily_unavailable' } });
    expect(Number(limited.retryAfter)).toBeGreaterThan(0);
    expect((await push('127.9.2.1', b)).status).toBe(201);
  });

  it('per address: guessing secrets at /par is limited as at the token endpoint', async () => {
    const app = await createOidcApp(server, { authMethod: 'basic' });
    for (let i = 0; i < PER_ADDRESS; i++) expect((await push('127.9.2.4', app, `guess-${i}`)).status).toBe(401);
    expect((await push('127.9.2.4', app)).status).toBe(429); // even with the right secret now
    expect((await push('127.9.2.5', app)).status).toBe(201);
  });

  it("per address: pushes without client authentication (a public client's) count as authorization requests", async () => {
    const app = await createOidcApp(server, { authMethod: 'none' });
    for (let i = 0; i < PER_ADDRESS_UNAUTHENTICATED; i++) expect((await push('127.9.2.6', app)).status).toBe(201);
    const limited = await push('127.9.2.6', app);
    expect(limited).toMatchObject({ status: 429, json: { error: 'temporarily_unavailable' } });
    expect((await push('127.9.2.7', app)).status).toBe(201); // another address, the same client, within its budget
  });
});
