// Implicit flow (OIDC Core §3.2): id_token and id_token token, only for apps registered for them, nonce required and
// copied into the ID token; at_hash binds the access token (opaque or JWT).
import { createLocalJWKSet, decodeJwt, jwtVerify, type JSONWebKeySet } from 'jose';
import * as client from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { Browser, CALLBACK, createOidcApp, rpConfig } from '../helpers/oidc.ts';

describe('implicit flow', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(async () => server?.stop());

  const authorize = (clientId: string, params: Record<string, string>) => {
    const url = new URL(`${server.url}/oauth/v2/authorize`);
    for (const [k, v] of Object.entries({
      client_id: clientId,
      redirect_uri: CALLBACK,
      scope: 'openid profile',
      ...params,
    }))
      url.searchParams.set(k, v);
    return url;
  };
  const fragment = (url: URL) => new URLSearchParams(url.hash.slice(1));

  it('id_token token: tokens in the fragment, nonce and at_hash in the ID token, no profile claims in it', async () => {
    const app = await createOidcApp(server, {
      authMethod: 'none',
      appType: 'user_agent',
      responseTypes: ['id_token', 'id_token token'],
      grantTypes: ['implicit'],
    });
    const landed = await new Browser(server).authorize(
      authorize(app.clientId, { response_type: 'id_token token', nonce: 'n-1', state: 's-1' }),
    );
    const f = fragment(landed);
    expect([...f.keys()].sort()).toEqual([
      'access_token',
      'expires_in',
      'id_token',
      'iss',
      'scope',
      'state',
      'token_type',
    ]);
    expect(f.get('state')).toBe('s-1');
    const jwks = (await (await fetch(`${server.url}/oauth/v2/keys`)).json()) as JSONWebKeySet;
    const { payload } = await jwtVerify(f.get('id_token')!, createLocalJWKSet(jwks), {
      issuer: server.url,
      audience: app.clientId,
    });
    expect(payload.nonce).toBe('n-1');
    expect(payload.at_hash).toEqual(expect.any(String));
    expect(payload.name).toBeUndefined();
    const info = await fetch(`${server.url}/oidc/v1/userinfo`, {
      headers: { authorization: `Bearer ${f.get('access_token')}` },
    });
    expect(((await info.json()) as { name?: string }).name).toBe('Gatehouse Admin');
  });

  it('id_token alone carries the profile claims; with JWT access tokens at_hash matches the JWT', async () => {
    const app = await createOidcApp(server, {
      authMethod: 'none',
      appType: 'user_agent',
      responseTypes: ['id_token', 'id_token token'],
      grantTypes: ['implicit'],
      accessTokenType: 'jwt',
    });
    const config = await rpConfig(server, app.clientId, client.None());
    const onlyId = fragment(
      await new Browser(server).authorize(authorize(app.clientId, { response_type: 'id_token', nonce: 'n-2' })),
    );
    expect(onlyId.get('access_token')).toBeNull();
    expect(decodeJwt(onlyId.get('id_token')!)).toMatchObject({ name: 'Gatehouse Admin', nonce: 'n-2' });

    const both = fragment(
      await new Browser(server).authorize(authorize(app.clientId, { response_type: 'id_token token', nonce: 'n-3' })),
    );
    const at = both.get('access_token')!;
    expect(decodeJwt(at)).toMatchObject({ client_id: app.clientId });
    const hash = Buffer.from(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(at)))
      .subarray(0, 16)
      .toString('base64url');
    expect(decodeJwt(both.get('id_token')!).at_hash).toBe(hash);
    expect((await client.fetchUserInfo(config, at, client.skipSubjectCheck)).name).toBe('Gatehouse Admin');
  });

  it('without nonce: invalid_request in the fragment, with state', async () => {
    const app = await createOidcApp(server, {
      authMethod: 'none',
      appType: 'user_agent',
      responseTypes: ['id_token'],
      grantTypes: ['implicit'],
    });
    const { url } = await new Browser(server).follow(
      String(authorize(app.clientId, { response_type: 'id_token', state: 's-4' })),
    );
    const f = fragment(new URL(url));
    expect([f.get('error'), f.get('state')]).toEqual(['invalid_request', 's-4']);
  });

  it('a code-only app may not use implicit: unauthorized_client; dev mode allows http redirect URIs', async () => {
    const app = await createOidcApp(server, { authMethod: 'none', appType: 'user_agent' });
    const { url } = await new Browser(server).follow(
      String(authorize(app.clientId, { response_type: 'id_token', nonce: 'n', state: 's-5' })),
    );
    const landed = new URL(url);
    const params = new URLSearchParams(landed.hash ? landed.hash.slice(1) : landed.search);
    expect([params.get('error'), params.get('state')]).toEqual(['unauthorized_client', 's-5']);

    const dev = await createOidcApp(server, {
      authMethod: 'none',
      appType: 'user_agent',
      responseTypes: ['id_token'],
      grantTypes: ['implicit'],
      devMode: true,
      redirectUris: ['http://localhost:3000/cb'],
    });
    const devLanded = await new Browser(server).authorize(
      authorize(dev.clientId, { response_type: 'id_token', nonce: 'n', redirect_uri: 'http://localhost:3000/cb' }),
    );
    expect(fragment(devLanded).get('id_token')).toEqual(expect.any(String));
  });
});
