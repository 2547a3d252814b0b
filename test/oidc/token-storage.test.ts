// No bearer value in the database, so a read of it or of a backup yields nothing that works (src/oidc/payloads.ts
// storedPayload): tokens of every kind are issued through real flows, then every column of every table is read as text
// and none of the values is there, while all of them still work. Also: rows written by older versions (a jti in the
// payload) still work, and migration 0046 takes the values out of them.
import { readFileSync } from 'node:fs';
import { decodeJwt } from 'jose';
import * as client from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashId } from '../../src/oidc/payloads.ts';
import { MIGRATIONS_DIR } from '../../src/platform/migrate.ts';
import {
  ADMIN_PASSWORD,
  assertion,
  basic,
  Browser,
  CALLBACK,
  createMachine,
  createOidcApp,
  postForm,
  type TestApp,
} from '../helpers/oidc.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';

/** Every row of every table of the schema, each as text. */
async function dumpDatabase(server: TestServer): Promise<string> {
  const { rows: tables } = await server.db.query<{ name: string }>(
    `SELECT table_name AS name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type ` +
      `= 'BASE TABLE' ORDER BY 1`,
  );
  expect(tables.map((t) => t.name)).toEqual(expect.arrayContaining(['oidc_payloads', 'users', 'events', 'apps']));
  const parts: string[] = [];
  for (const { name } of tables) {
    const { rows } = await server.db.query<{ row: string }>(`SELECT t::text AS row FROM "${name}" t`);
    parts.push(...rows.map((r) => `${name}: ${r.row}`));
  }
  return parts.join('\n');
}

describe('token values in the database', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(async () => server?.stop());

  /** An authorization URL with PKCE; the verifier to redeem its code. */
  async function authorizeUrl(app: TestApp, extra: Record<string, string> = {}) {
    const verifier = client.randomPKCECodeVerifier();
    const url = new URL(`${server.url}/oauth/v2/authorize`);
    const params = {
      client_id: app.clientId,
      redirect_uri: CALLBACK,
      response_type: 'code',
      scope: 'openid profile offline_access',
      code_challenge: await client.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      ...extra,
    };
    for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
    return { url, verifier };
  }

  async function redeem(app: TestApp, code: string, verifier: string) {
    const res = await postForm(
      `${server.url}/oauth/v2/token`,
      { grant_type: 'authorization_code', code, redirect_uri: CALLBACK, code_verifier: verifier },
      { authorization: basic(app.clientId, app.clientSecret!) },
    );
    expect(res.status).toBe(200);
    return res.json as { access_token: string; refresh_token: string; id_token: string };
  }

  const userinfo = (accessToken: string) =>
    fetch(`${server.url}/oidc/v1/userinfo`, { headers: { authorization: `Bearer ${accessToken}` } }).then(
      (r) => r.status,
    );

  it('holds none of the values of codes, tokens, sessions and interactions, of every kind, and all of them work', async () => {
    const values = new Map<string, string>(); // what → value
    const opaqueApp = await createOidcApp(server);
    const jwtApp = await createOidcApp(server, { accessTokenType: 'jwt' });

    // code flow with offline_access through the login pages: the interaction's id is in its URL
    const browser = new Browser(server);
    const first = await authorizeUrl(opaqueApp);
    const loginPage = await browser.follow(String(first.url));
    const interactionUid = /\/ui\/login\/([^/?]+)/.exec(loginPage.url)![1]!;
    values.set('interaction uid (completed)', interactionUid);
    const callback = new URL((await browser.submitLogin(loginPage.url, 'admin', ADMIN_PASSWORD)).url);
    const code = callback.searchParams.get('code')!;
    values.set('authorization code', code);
    const tokens = await redeem(opaqueApp, code, first.verifier);
    values.set('ID token', tokens.id_token);
    const refreshed = await postForm(
      `${server.url}/oauth/v2/token`,
      { grant_type: 'refresh_token', refresh_token: tokens.refresh_token },
      { authorization: basic(opaqueApp.clientId, opaqueApp.clientSecret!) },
    );
    expect(refreshed.status).toBe(200);
    values.set('access token (code flow, opaque)', tokens.access_token);
    values.set('refresh token (rotated)', tokens.refresh_token);
    values.set('access token (refresh, opaque)', refreshed.json.access_token);
    values.set('refresh token', refreshed.json.refresh_token);

    // the same browser session, for an app with JWT access tokens (no second login)
    const second = await authorizeUrl(jwtApp);
    const sso = new URL((await browser.follow(String(second.url))).url);
    const jwtTokens = await redeem(jwtApp, sso.searchParams.get('code')!, second.verifier);
    values.set('access token (code flow, JWT)', jwtTokens.access_token);
    values.set('JWT access token id', String(decodeJwt(jwtTokens.access_token).jti));
    values.set('refresh token (JWT app)', jwtTokens.refresh_token);

    // interactions left open: one with the browser's session (it records the session's cookie value), one without
    const open = await browser.follow(String((await authorizeUrl(opaqueApp, { prompt: 'login' })).url));
    values.set('interaction uid (signed in)', /\/ui\/login\/([^/?]+)/.exec(open.url)![1]!);
    const anonymous = await new Browser(server).follow(String((await authorizeUrl(opaqueApp)).url));
    values.set('interaction uid (anonymous)', /\/ui\/login\/([^/?]+)/.exec(anonymous.url)![1]!);
    for (const [name, value] of browser.cookies) if (!name.endsWith('.sig')) values.set(`cookie ${name}`, value);
    expect([...values.keys()]).toEqual(expect.arrayContaining(['cookie _gh_session', 'cookie _gh_interaction']));

    // machine users: client_credentials (opaque and JWT) and the JWT-profile grant
    const token = `${server.url}/oauth/v2/token`;
    const opaqueMachine = await createMachine(server, 'opaque');
    const jwtMachine = await createMachine(server, 'jwt');
    const cc = await postForm(
      token,
      { grant_type: 'client_credentials', scope: 'openid' },
      { authorization: basic(opaqueMachine.userName, opaqueMachine.clientSecret) },
    );
    const ccJwt = await postForm(
      token,
      { grant_type: 'client_credentials', scope: 'openid' },
      { authorization: basic(jwtMachine.userName, jwtMachine.clientSecret) },
    );
    const profile = await postForm(token, {
      grant_type: JWT_BEARER,
      assertion: await assertion(opaqueMachine.keyFile, server.url),
      scope: 'openid profile',
    });
    expect([cc.status, ccJwt.status, profile.status]).toEqual([200, 200, 200]);
    values.set('client_credentials access token (opaque)', cc.json.access_token);
    values.set('client_credentials access token (JWT)', ccJwt.json.access_token);
    values.set('client_credentials JWT access token id', String(decodeJwt(ccJwt.json.access_token).jti));
    values.set('JWT-profile access token', profile.json.access_token);

    // and the credentials these were issued on (stored as hashes since before)
    values.set('app client secret', opaqueApp.clientSecret!);
    values.set('machine client secret', opaqueMachine.clientSecret);
    values.set('admin password', ADMIN_PASSWORD);

    for (const [what, value] of values) expect(value.length, what).toBeGreaterThanOrEqual(16);
    const dump = await dumpDatabase(server);
    // the scan sees the token rows: they are there under the hashes of the values
    for (const what of [
      'access token (refresh, opaque)',
      'client_credentials access token (opaque)',
      'JWT-profile access token',
      'cookie _gh_session',
    ]) {
      expect(dump, what).toContain(hashId(values.get(what)!));
    }
    expect([...values].filter(([, value]) => dump.includes(value)).map(([what]) => what)).toEqual([]);

    // and every value still works where it is presented
    for (const accessToken of [
      refreshed.json.access_token,
      jwtTokens.access_token,
      cc.json.access_token,
      ccJwt.json.access_token,
      profile.json.access_token,
    ]) {
      expect(await userinfo(accessToken)).toBe(200);
    }
    const again = await postForm(
      token,
      { grant_type: 'refresh_token', refresh_token: refreshed.json.refresh_token },
      { authorization: basic(opaqueApp.clientId, opaqueApp.clientSecret!) },
    );
    expect(again.status).toBe(200);
    // the session (by its cookie) signs in silently; the open interaction (by its URL and cookie) still shows its page
    const silent = await authorizeUrl(opaqueApp, { prompt: 'none' });
    expect(new URL((await browser.follow(String(silent.url))).url).searchParams.get('code')).toBeTruthy();
    const page = await browser.request(open.url);
    expect(page.status).toBe(200);
    // introspection reports an opaque token's jti as its hash, a JWT's as printed
    const api = { clientId: opaqueApp.clientId, secret: opaqueApp.clientSecret! };
    const introspected = await postForm(
      `${server.url}/oauth/v2/introspect`,
      { token: refreshed.json.access_token },
      { authorization: basic(api.clientId, api.secret) },
    );
    expect(introspected.json).toMatchObject({ active: true, jti: hashId(refreshed.json.access_token) });
  });

  it('rows written by older versions (the jti in the payload) still work, and migration 0046 takes the values out', async () => {
    const browser = new Browser(server);
    const app = await createOidcApp(server);
    const { url, verifier } = await authorizeUrl(app);
    const open = await browser.follow(String(url));
    const done = new URL((await browser.submitLogin(open.url, 'admin', ADMIN_PASSWORD)).url);
    const tokens = await redeem(app, done.searchParams.get('code')!, verifier);
    const pending = await browser.follow(String((await authorizeUrl(app, { prompt: 'login' })).url));
    const uid = /\/ui\/login\/([^/?]+)/.exec(pending.url)![1]!;
    const sessionId = browser.cookies.get('_gh_session')!;

    // as an older version wrote them: the id in the payload, the interaction's resume URL and session cookie in full
    const old = async (model: string, id: string, extra = `'{}'::jsonb`) =>
      server.db.query(
        `UPDATE oidc_payloads SET payload = payload || jsonb_build_object('jti', ` +
          `$3::text) || ${extra} WHERE model = $1 AND id = $2`,
        [model, hashId(id), id],
      );
    await old('AccessToken', tokens.access_token);
    await old('RefreshToken', tokens.refresh_token);
    await old('Session', sessionId);
    await old(
      'Interaction',
      uid,
      `jsonb_build_object('returnTo', replace(payload->>'returnTo', '{id}', $3::text), 'session', ` +
        `payload->'session' || jsonb_build_object('cookie', '${sessionId}'))`,
    );
    expect(await dumpDatabase(server)).toContain(tokens.refresh_token);

    expect(await userinfo(tokens.access_token)).toBe(200);
    expect((await browser.request(pending.url)).status).toBe(200);

    const migration = readFileSync(`${MIGRATIONS_DIR}/0046_oidc_payloads_without_token_values.sql`, 'utf8');
    await server.db.query(migration);
    const dump = await dumpDatabase(server);
    expect([tokens.access_token, tokens.refresh_token, sessionId, uid].filter((value) => dump.includes(value))).toEqual(
      [],
    );

    expect(await userinfo(tokens.access_token)).toBe(200);
    const refreshed = await postForm(
      `${server.url}/oauth/v2/token`,
      { grant_type: 'refresh_token', refresh_token: tokens.refresh_token },
      { authorization: basic(app.clientId, app.clientSecret!) },
    );
    expect(refreshed.status).toBe(200);
    // the interaction resumes: signing in on its page goes back through its stored resume URL to the callback
    const resumed = new URL((await browser.submitLogin(pending.url, 'admin', ADMIN_PASSWORD)).url);
    expect(resumed.origin + resumed.pathname).toBe(CALLBACK);
    expect(resumed.searchParams.get('code')).toBeTruthy();
  });
});
