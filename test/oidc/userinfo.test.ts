// Userinfo (OIDC Core §5.3, §5.4): claims by granted scope, GET and POST, 401 with WWW-Authenticate for missing, bad,
// revoked or expired tokens.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { createOidcApp, userTokens } from '../helpers/oidc.ts';

describe('userinfo', () => {
  let server: TestServer;
  let userinfo: string;
  beforeAll(async () => {
    server = await startTestServer({ env: { GATEHOUSE_ACCESS_TOKEN_TTL: '2' } });
    userinfo = `${server.url}/oidc/v1/userinfo`;
    // a full profile for the admin
    await server.db.query(
      "UPDATE users SET nick_name = 'gate', gender = 'GENDER_FEMALE', phone = '+41 44 000 00 00', " +
        "phone_verified = true WHERE user_name = 'admin'",
    );
  });
  afterAll(async () => server?.stop());

  const get = (token: string) => fetch(userinfo, { headers: { authorization: `Bearer ${token}` } });

  it('returns the claims of the granted scopes only', async () => {
    const app = await createOidcApp(server, { authMethod: 'basic' });
    const expectations: Array<[string, string[]]> = [
      ['openid', ['sub']],
      ['openid email', ['email', 'email_verified', 'sub']],
      ['openid phone', ['phone_number', 'phone_number_verified', 'sub']],
      [
        'openid profile',
        [
          'family_name',
          'gender',
          'given_name',
          'locale',
          'name',
          'nickname',
          'preferred_username',
          'sub',
          'updated_at',
        ],
      ],
      [
        'openid urn:zitadel:iam:user:resourceowner',
        [
          'sub',
          'urn:zitadel:iam:user:resourceowner:id',
          'urn:zitadel:iam:user:resourceowner:name',
          'urn:zitadel:iam:user:resourceowner:primary_domain',
        ],
      ],
    ];
    for (const [scope, claims] of expectations) {
      const tokens = await userTokens(server, app, scope);
      const body = (await (await get(tokens.access_token)).json()) as Record<string, unknown>;
      expect([scope, Object.keys(body).sort()]).toEqual([scope, claims]);
    }
    const profile: unknown = await (await get((await userTokens(server, app, 'openid profile')).access_token)).json();
    expect(profile).toMatchObject({
      gender: 'female',
      nickname: 'gate',
      preferred_username: 'admin@gatehouse.127.0.0.1',
    });
  });

  it('accepts POST with the token in the form body', async () => {
    const app = await createOidcApp(server, { authMethod: 'basic' });
    const tokens = await userTokens(server, app, 'openid email');
    const res = await fetch(userinfo, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ access_token: tokens.access_token }),
    });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { email?: string }).email).toBe('admin@127.0.0.1');
  });

  it('401: no token (invalid_request), bad and expired tokens (invalid_token), always with WWW-Authenticate', async () => {
    const none = await fetch(userinfo);
    expect(none.status).toBe(401);
    expect(((await none.json()) as { error?: string }).error).toBe('invalid_request');
    expect(none.headers.get('www-authenticate')).toMatch(/^Bearer /);
    const bad = await get('not-a-token');
    expect(bad.status).toBe(401);
    expect(((await bad.json()) as { error?: string }).error).toBe('invalid_token');
    expect(bad.headers.get('www-authenticate')).toMatch(/^Bearer .*error="invalid_token"/);

    const app = await createOidcApp(server, { authMethod: 'basic' });
    const tokens = await userTokens(server, app, 'openid');
    expect((await get(tokens.access_token)).status).toBe(200);
    await new Promise((r) => setTimeout(r, 2500)); // GATEHOUSE_ACCESS_TOKEN_TTL=2
    expect((await get(tokens.access_token)).status).toBe(401);
    expect(await server.app.oidc.verifyAccessToken(tokens.access_token)).toBeUndefined();
  });
});
