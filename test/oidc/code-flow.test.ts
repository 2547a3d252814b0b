// Authorization code flow through the login pages, with openid-client 6 as the relying party: PKCE, each client
// authentication method at the token endpoint, refresh rotation, reuse and down-scoping, ID token claims.
import { generateKeyPairSync } from 'node:crypto';
import { decodeJwt, importPKCS8 } from 'jose';
import * as client from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import {
  Browser,
  CALLBACK,
  createAppKey,
  createOidcApp,
  postForm,
  rpConfig,
  basic,
  userTokens,
} from '../helpers/oidc.ts';
import { createPrivateKey } from 'node:crypto';

describe('authorization code flow', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({
      env: { GATEHOUSE_REFRESH_TOKEN_REUSE_GRACE: '1', GATEHOUSE_SESSION_IDLE_TTL: '4' },
    });
  });
  afterAll(async () => server?.stop());

  async function codeFlow(
    config: client.Configuration,
    scope = 'openid profile email offline_access',
    extra: Record<string, string> = {},
  ) {
    const verifier = client.randomPKCECodeVerifier();
    const state = client.randomState();
    const nonce = client.randomNonce();
    const url = client.buildAuthorizationUrl(config, {
      redirect_uri: CALLBACK,
      scope,
      state,
      nonce,
      code_challenge: await client.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      ...extra,
    });
    const browser = new Browser(server);
    const callback = await browser.authorize(url);
    const tokens = await client.authorizationCodeGrant(config, callback, {
      pkceCodeVerifier: verifier,
      expectedState: state,
      expectedNonce: nonce,
    });
    return { tokens, callback, browser };
  }

  it('client_secret_basic: code, tokens, userinfo; the ID token has no profile claims next to an access \
token', async () => {
    const app = await createOidcApp(server, { authMethod: 'basic' });
    const config = await rpConfig(server, app.clientId, client.ClientSecretBasic(app.clientSecret!));
    const { tokens, callback } = await codeFlow(config);
    expect(callback.searchParams.get('iss')).toBe(server.url); // RFC 9207
    expect(tokens.token_type).toBe('bearer');
    expect(tokens.refresh_token).toEqual(expect.any(String));
    expect(tokens.scope!.split(' ').sort()).toEqual(['email', 'offline_access', 'openid', 'profile']);
    const claims = tokens.claims()!;
    expect(claims.aud).toBe(app.clientId);
    expect(claims.name).toBeUndefined();
    expect(claims.email).toBeUndefined();
    const info = await client.fetchUserInfo(config, tokens.access_token, claims.sub);
    expect(info).toMatchObject({
      name: 'Gatehouse Admin',
      given_name: 'Gatehouse',
      family_name: 'Admin',
      preferred_username: 'admin@gatehouse.127.0.0.1',
      email: 'admin@127.0.0.1',
      email_verified: true,
      locale: 'en',
    });
    expect(info.gender).toBeUndefined(); // unspecified is omitted
  });

  it('"user info inside ID token" puts the scope claims into the ID token', async () => {
    const app = await createOidcApp(server, { authMethod: 'post', idTokenUserinfoAssertion: true });
    const config = await rpConfig(server, app.clientId, client.ClientSecretPost(app.clientSecret!));
    const { tokens } = await codeFlow(config, 'openid profile email');
    expect(tokens.claims()).toMatchObject({ name: 'Gatehouse Admin', email: 'admin@127.0.0.1' });
    expect(tokens.refresh_token).toBeUndefined(); // no offline_access requested
  });

  it('public client (none): PKCE is required, and the code exchange needs only client_id + verifier', async () => {
    const app = await createOidcApp(server, { authMethod: 'none', appType: 'user_agent' });
    const config = await rpConfig(server, app.clientId, client.None());
    const { tokens } = await codeFlow(config);
    expect(tokens.access_token).toEqual(expect.any(String));
    expect(tokens.refresh_token).toEqual(expect.any(String));

    // without code_challenge: invalid_request at the redirect URI
    const browser = new Browser(server);
    const url = client.buildAuthorizationUrl(config, { redirect_uri: CALLBACK, scope: 'openid', state: 's1' });
    const { url: landed } = await browser.follow(String(url));
    const params = new URL(landed).searchParams;
    expect([params.get('error'), params.get('state')]).toEqual(['invalid_request', 's1']);
    // plain is not S256
    const plain = client.buildAuthorizationUrl(config, {
      redirect_uri: CALLBACK,
      scope: 'openid',
      code_challenge: 'a'.repeat(43),
      code_challenge_method: 'plain',
    });
    expect(new URL((await new Browser(server).follow(String(plain))).url).searchParams.get('error')).toBe(
      'invalid_request',
    );
  });

  it('browser apps: CORS from the redirect URI origin only; refresh with client_id alone', async () => {
    const app = await createOidcApp(server, {
      authMethod: 'none',
      appType: 'user_agent',
      redirectUris: ['https://spa.example.com/cb'],
    });
    const tokens = await userTokens(
      server,
      { ...app },
      'openid offline_access',
      new Browser(server),
      'https://spa.example.com/cb',
    );
    const refresh = (origin: string) =>
      fetch(`${server.url}/oauth/v2/token`, {
        method: 'POST',
        headers: { origin, 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          grant_type: 'refresh_token',
          refresh_token: tokens.refresh_token!,
          client_id: app.clientId,
        }),
      });
    const denied = await refresh('https://evil.example.com');
    expect(denied.headers.get('access-control-allow-origin')).toBeNull();
    const allowed = await refresh('https://spa.example.com');
    expect(allowed.status).toBe(200);
    expect(allowed.headers.get('access-control-allow-origin')).toBe('https://spa.example.com');
    const preflight = await fetch(`${server.url}/oauth/v2/token`, {
      method: 'OPTIONS',
      headers: { origin: 'https://spa.example.com', 'access-control-request-method': 'POST' },
    });
    expect(preflight.status).toBe(204);
  });

  it('a wrong code_verifier, a wrong redirect_uri and a reused code are invalid_grant; reuse revokes the \
tokens', async () => {
    const app = await createOidcApp(server, { authMethod: 'basic' });
    const config = await rpConfig(server, app.clientId, client.ClientSecretBasic(app.clientSecret!));
    const verifier = client.randomPKCECodeVerifier();
    const url = client.buildAuthorizationUrl(config, {
      redirect_uri: CALLBACK,
      scope: 'openid offline_access',
      code_challenge: await client.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
    });
    const callback = await new Browser(server).authorize(url);
    const code = callback.searchParams.get('code')!;
    const redeem = (form: Record<string, string>) =>
      postForm(
        `${server.url}/oauth/v2/token`,
        { grant_type: 'authorization_code', code, redirect_uri: CALLBACK, code_verifier: verifier, ...form },
        { authorization: basic(app.clientId, app.clientSecret!) },
      );
    expect((await redeem({ code_verifier: client.randomPKCECodeVerifier() })).json.error).toBe('invalid_grant');
    expect((await redeem({ redirect_uri: 'https://rp.example.com/other' })).json.error).toBe('invalid_grant');
    const first = await redeem({});
    expect(first.status).toBe(200);
    const again = await redeem({});
    expect([again.status, again.json.error]).toEqual([400, 'invalid_grant']);
    expect(await server.app.oidc.verifyAccessToken(first.json.access_token)).toBeUndefined();
    const refresh = await postForm(
      `${server.url}/oauth/v2/token`,
      { grant_type: 'refresh_token', refresh_token: first.json.refresh_token },
      { authorization: basic(app.clientId, app.clientSecret!) },
    );
    expect(refresh.json.error).toBe('invalid_grant');
  });

  it('codes and refresh tokens are bound to their client; a verifier without a challenge is refused', async () => {
    const app = await createOidcApp(server, { authMethod: 'basic' });
    const other = await createOidcApp(server, { authMethod: 'basic' }, app.projectId);
    const url = new URL(`${server.url}/oauth/v2/authorize`);
    for (const [k, v] of Object.entries({
      client_id: app.clientId,
      redirect_uri: CALLBACK,
      response_type: 'code',
      scope: 'openid offline_access',
    }))
      url.searchParams.set(k, v);
    const code = (await new Browser(server).authorize(url)).searchParams.get('code')!;
    const tokenAt = (who: { clientId: string; clientSecret?: string }, form: Record<string, string>) =>
      postForm(`${server.url}/oauth/v2/token`, form, { authorization: basic(who.clientId, who.clientSecret!) });
    expect((await tokenAt(other, { grant_type: 'authorization_code', code, redirect_uri: CALLBACK })).json.error).toBe(
      'invalid_grant',
    );
    expect(
      (
        await tokenAt(app, {
          grant_type: 'authorization_code',
          code,
          redirect_uri: CALLBACK,
          code_verifier: client.randomPKCECodeVerifier(),
        })
      ).json.error,
    ).toBe('invalid_grant');

    const url2 = new URL(url);
    const tokens = await tokenAt(app, {
      grant_type: 'authorization_code',
      code: (await new Browser(server).authorize(url2)).searchParams.get('code')!,
      redirect_uri: CALLBACK,
    });
    expect(tokens.status).toBe(200);
    expect(
      (await tokenAt(other, { grant_type: 'refresh_token', refresh_token: tokens.json.refresh_token })).json.error,
    ).toBe('invalid_grant');
  });

  it('private_key_jwt with the app key file', async () => {
    const app = await createOidcApp(server, { authMethod: 'private_key_jwt' });
    const keyFile = await createAppKey(server, app.appId);
    expect(keyFile).toMatchObject({ type: 'application', appId: app.appId, clientId: app.clientId });
    const toCryptoKey = (pem: string) =>
      importPKCS8(createPrivateKey(pem).export({ type: 'pkcs8', format: 'pem' }).toString(), 'RS256');
    const config = await rpConfig(
      server,
      app.clientId,
      client.PrivateKeyJwt({ key: await toCryptoKey(keyFile.key), kid: keyFile.keyId }),
    );
    const { tokens } = await codeFlow(config, 'openid');
    expect(tokens.access_token).toEqual(expect.any(String));
    // an unregistered key is refused
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const rogue = await rpConfig(
      server,
      app.clientId,
      client.PrivateKeyJwt({
        key: await toCryptoKey(privateKey.export({ type: 'pkcs1', format: 'pem' }).toString()),
        kid: keyFile.keyId,
      }),
    );
    await expect(client.refreshTokenGrant(rogue, 'whatever')).rejects.toMatchObject({
      error: 'invalid_client',
      status: 401,
    });
  });

  it('refresh: rotates, down-scopes, refuses wider scopes, and reuse of a rotated token revokes the \
grant', async () => {
    const app = await createOidcApp(server, { authMethod: 'basic' });
    const config = await rpConfig(server, app.clientId, client.ClientSecretBasic(app.clientSecret!));
    const { tokens } = await codeFlow(config, 'openid profile email offline_access');
    const second = await client.refreshTokenGrant(config, tokens.refresh_token!);
    expect(second.refresh_token).not.toBe(tokens.refresh_token);
    expect(second.id_token).toEqual(expect.any(String));
    const narrowed = await client.refreshTokenGrant(config, second.refresh_token!, {
      scope: 'openid email offline_access',
    });
    expect(narrowed.scope!.split(' ').sort()).toEqual(['email', 'offline_access', 'openid']);
    const info = await client.fetchUserInfo(config, narrowed.access_token, client.skipSubjectCheck);
    expect(info.email).toBe('admin@127.0.0.1');
    expect(info.name).toBeUndefined();
    await expect(
      client.refreshTokenGrant(config, narrowed.refresh_token!, { scope: 'openid phone' }),
    ).rejects.toMatchObject({ error: 'invalid_scope' });

    // reuse of a rotated refresh token within the grace window: refused, nothing else happens
    await expect(client.refreshTokenGrant(config, tokens.refresh_token!)).rejects.toMatchObject({
      error: 'invalid_grant',
    });
    expect(await server.app.oidc.verifyAccessToken(narrowed.access_token)).toBeDefined();
    // after it (GATEHOUSE_REFRESH_TOKEN_REUSE_GRACE=1): invalid_grant, and the newest tokens die too
    await new Promise((r) => setTimeout(r, 1100));
    await expect(client.refreshTokenGrant(config, tokens.refresh_token!)).rejects.toMatchObject({
      error: 'invalid_grant',
    });
    expect(await server.app.oidc.verifyAccessToken(narrowed.access_token)).toBeUndefined();
    await expect(client.refreshTokenGrant(config, narrowed.refresh_token!)).rejects.toMatchObject({
      error: 'invalid_grant',
    });
  });

  it('SSO: a second authorization in the same browser needs no login; prompt=login and max_age=0 force \
it', async () => {
    const app = await createOidcApp(server, { authMethod: 'basic' });
    const config = await rpConfig(server, app.clientId, client.ClientSecretBasic(app.clientSecret!));
    const { browser } = await codeFlow(config, 'openid');
    const again = await browser.follow(
      String(client.buildAuthorizationUrl(config, { redirect_uri: CALLBACK, scope: 'openid' })),
    );
    expect(new URL(again.url).searchParams.get('code')).toEqual(expect.any(String));
    const none = await browser.follow(
      String(client.buildAuthorizationUrl(config, { redirect_uri: CALLBACK, scope: 'openid', prompt: 'none' })),
    );
    expect(new URL(none.url).searchParams.get('code')).toEqual(expect.any(String));
    for (const extra of [{ prompt: 'login' }, { max_age: '0' }] as Array<Record<string, string>>) {
      const forced = await browser.follow(
        String(client.buildAuthorizationUrl(config, { redirect_uri: CALLBACK, scope: 'openid', ...extra })),
      );
      expect(forced.url).toContain('/ui/login/');
    }
    // prompt=none without a session: login_required at the redirect URI
    const fresh = await new Browser(server).follow(
      String(
        client.buildAuthorizationUrl(config, { redirect_uri: CALLBACK, scope: 'openid', prompt: 'none', state: 'x' }),
      ),
    );
    expect(new URL(fresh.url).searchParams.get('error')).toBe('login_required');
  });

  it('the login session ends after the idle timeout (GATEHOUSE_SESSION_IDLE_TTL=4), and use extends it', async () => {
    const app = await createOidcApp(server, { authMethod: 'basic' });
    const config = await rpConfig(server, app.clientId, client.ClientSecretBasic(app.clientSecret!));
    const { browser } = await codeFlow(config, 'openid');
    const url = String(client.buildAuthorizationUrl(config, { redirect_uri: CALLBACK, scope: 'openid' }));
    await new Promise((r) => setTimeout(r, 2000));
    expect((await browser.follow(url)).url).toContain('code=');
    await new Promise((r) => setTimeout(r, 2500)); // 4.5 s after login, 2.5 s after last use
    expect((await browser.follow(url)).url).toContain('code=');
    await new Promise((r) => setTimeout(r, 4500));
    expect((await browser.follow(url)).url).toContain('/ui/login/');
  });

  it('native apps: loopback redirect with any port, no consent screen, prompt=none works after login', async () => {
    const app = await createOidcApp(server, {
      authMethod: 'none',
      appType: 'native',
      redirectUris: ['http://127.0.0.1/callback'],
    });
    const config = await rpConfig(server, app.clientId, client.None());
    const browser = new Browser(server);
    const verifier = client.randomPKCECodeVerifier();
    const params = {
      redirect_uri: 'http://127.0.0.1:53117/callback',
      scope: 'openid',
      code_challenge: await client.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
    };
    const landed = await browser.authorize(client.buildAuthorizationUrl(config, params));
    expect(landed.origin + landed.pathname).toBe('http://127.0.0.1:53117/callback');
    const silent = await browser.follow(String(client.buildAuthorizationUrl(config, { ...params, prompt: 'none' })));
    expect(new URL(silent.url).searchParams.get('code')).toEqual(expect.any(String));
  });

  it('prompt=select_account, create and consent are requestable and complete through the login', async () => {
    const app = await createOidcApp(server, { authMethod: 'basic' });
    const config = await rpConfig(server, app.clientId, client.ClientSecretBasic(app.clientSecret!));
    const browser = new Browser(server);
    for (const prompt of ['select_account', 'create', 'consent']) {
      const landed = await browser.authorize(
        client.buildAuthorizationUrl(config, { redirect_uri: CALLBACK, scope: 'openid', prompt }),
      );
      expect([prompt, landed.searchParams.get('code')]).toEqual([prompt, expect.any(String)]);
    }
    const withSession = await browser.follow(
      String(
        client.buildAuthorizationUrl(config, { redirect_uri: CALLBACK, scope: 'openid', prompt: 'select_account' }),
      ),
    );
    expect(withSession.url).toContain('/ui/login/'); // requested prompts always show the page
  });

  it('the login refuses wrong passwords and unknown users with the same answer', async () => {
    const app = await createOidcApp(server, { authMethod: 'basic' });
    const config = await rpConfig(server, app.clientId, client.ClientSecretBasic(app.clientSecret!));
    const browser = new Browser(server);
    const page = await browser.follow(
      String(client.buildAuthorizationUrl(config, { redirect_uri: CALLBACK, scope: 'openid', login_hint: 'admin' })),
    );
    expect(page.response.status).toBe(200);
    expect(await page.response.text()).toContain('value="admin"');
    const wrong = await browser.submitLogin(page.url, 'admin', 'wrong-password');
    const unknown = await browser.submitLogin(page.url, 'nobody', 'wrong-password');
    expect(wrong.response.status).toBe(401);
    expect(unknown.response.status).toBe(401);
    // the page shows the name being signed in; everything else is the same
    const strip = (html: string) =>
      html
        .replace(/value="[^"]*"/g, '')
        .replace(/admin|nobody/g, 'NAME')
        .replace(/>[AN]</g, '><');
    expect(strip(await wrong.response.text())).toBe(strip(await unknown.response.text()));
    const ok = await browser.submitLogin(page.url, 'admin@gatehouse.127.0.0.1', 'Admin-Password-1');
    expect(new URL(ok.url).searchParams.get('code')).toEqual(expect.any(String));
    expect(
      decodeJwt(
        (
          await client.authorizationCodeGrant(config, new URL(ok.url), {
            idTokenExpected: true,
            expectedState: client.skipStateCheck,
          })
        ).id_token!,
      ).sub,
    ).toEqual(expect.any(String));
  });
});
