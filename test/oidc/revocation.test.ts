// Revocation (RFC 7009): an access token alone; a refresh token with the access tokens issued from it; 200 for unknown
// and revoked tokens; another client's token is refused.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { basic, Browser, CALLBACK, createOidcApp, postForm, userTokens } from '../helpers/oidc.ts';

describe('revocation', () => {
  let server: TestServer;
  let revoke: string;
  beforeAll(async () => {
    server = await startTestServer();
    revoke = `${server.url}/oauth/v2/revoke`;
  });
  afterAll(async () => server?.stop());

  const active = async (token: string) => (await server.app.oidc.verifyAccessToken(token)) !== undefined;
  const refresh = (app: { clientId: string; clientSecret?: string }, token: string) =>
    postForm(
      `${server.url}/oauth/v2/token`,
      { grant_type: 'refresh_token', refresh_token: token },
      { authorization: basic(app.clientId, app.clientSecret!) },
    );

  for (const accessTokenType of ['opaque', 'jwt'] as const) {
    it(`revoking a ${accessTokenType} access token kills only that token`, async () => {
      const app = await createOidcApp(server, { authMethod: 'basic', accessTokenType });
      const tokens = await userTokens(server, app);
      const sibling = (await refresh(app, tokens.refresh_token!)).json;
      const res = await postForm(
        revoke,
        { token: tokens.access_token },
        { authorization: basic(app.clientId, app.clientSecret!) },
      );
      expect([res.status, res.text]).toEqual([200, '']);
      expect(await active(tokens.access_token)).toBe(false);
      expect(await active(sibling.access_token)).toBe(true);
      expect((await refresh(app, sibling.refresh_token)).status).toBe(200);
      // again: still 200
      expect(
        (
          await postForm(
            revoke,
            { token: tokens.access_token },
            { authorization: basic(app.clientId, app.clientSecret!) },
          )
        ).status,
      ).toBe(200);
    });
  }

  it('revoking a refresh token kills it and the access tokens issued from it', async () => {
    const app = await createOidcApp(server, { authMethod: 'post', accessTokenType: 'jwt' });
    const tokens = await userTokens(server, { ...app, clientSecret: app.clientSecret }, 'openid offline_access');
    const res = await postForm(revoke, {
      token: tokens.refresh_token!,
      token_type_hint: 'refresh_token',
      client_id: app.clientId,
      client_secret: app.clientSecret!,
    });
    expect(res.status).toBe(200);
    expect(await active(tokens.access_token)).toBe(false);
    expect((await refresh(app, tokens.refresh_token!)).json.error).toBe('invalid_grant');
  });

  it("public clients revoke with client_id only; unknown tokens are 200; another client's token is 401 invalid_client", async () => {
    const spa = await createOidcApp(server, { authMethod: 'none', appType: 'user_agent' });
    const other = await createOidcApp(server, { authMethod: 'basic' });
    const tokens = await userTokens(server, spa, 'openid', new Browser(server));
    const foreign = await postForm(
      revoke,
      { token: tokens.access_token },
      { authorization: basic(other.clientId, other.clientSecret!) },
    );
    expect([foreign.status, foreign.json.error]).toEqual([401, 'invalid_client']);
    expect(await active(tokens.access_token)).toBe(true);
    expect((await postForm(revoke, { token: 'unknown-token', client_id: spa.clientId })).status).toBe(200);
    expect((await postForm(revoke, { token: tokens.access_token, client_id: spa.clientId })).status).toBe(200);
    expect(await active(tokens.access_token)).toBe(false);
    const unauthenticated = await postForm(
      revoke,
      { token: tokens.access_token },
      { authorization: basic(other.clientId, 'wrong') },
    );
    expect([unauthenticated.status, unauthenticated.json.error]).toEqual([401, 'invalid_client']);
  });

  // oidc-client-ts (ZITADEL's @zitadel/react) accepts an answer only with a JSON content type or none: an empty body
  // labelled text/plain makes it throw and leave the refresh token alive (test/e2e/spa-revocation-browser.test.ts).
  it('answers without content carry no content type: revocation, CORS preflights, end_session by POST', async () => {
    const confidential = await createOidcApp(server, { authMethod: 'basic' });
    const spa = await createOidcApp(server, { authMethod: 'none', appType: 'user_agent' });
    const origin = new URL(CALLBACK).origin;
    const answers = [
      await postForm(revoke, { token: 'unknown-token' }, { authorization: basic(confidential.clientId, 'x') }),
      await postForm(
        revoke,
        { token: 'unknown-token' },
        { authorization: basic(confidential.clientId, confidential.clientSecret!) },
      ),
      await postForm(revoke, { token: 'unknown-token', client_id: spa.clientId }, { origin }),
    ];
    expect(answers.map((a) => [a.status, a.headers.get('content-type'), a.text])).toEqual([
      [401, 'application/json; charset=utf-8', expect.stringContaining('invalid_client')],
      [200, null, ''],
      [200, null, ''],
    ]);
    expect(answers[2]!.headers.get('access-control-allow-origin')).toBe(origin);

    const preflights = [
      '/oauth/v2/token',
      '/oauth/v2/revoke',
      '/oauth/v2/introspect',
      '/oidc/v1/userinfo',
      '/oauth/v2/keys',
      '/.well-known/openid-configuration',
    ];
    for (const path of preflights) {
      const res = await fetch(`${server.url}${path}`, {
        method: 'OPTIONS',
        headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' },
      });
      expect([path, res.status, res.headers.get('content-type'), await res.text()]).toEqual([path, 204, null, '']);
    }

    const endSession = await fetch(`${server.url}/oidc/v1/end_session`, { method: 'POST', redirect: 'manual' });
    expect([endSession.status, endSession.headers.get('content-type'), await endSession.text()]).toEqual([
      303,
      null,
      '',
    ]);
  });
});
