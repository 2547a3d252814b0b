// Single-use codes (RFC 6749 §4.1.2), N parallel redemptions of one code: exactly one succeeds, the rest get
// invalid_grant, no 5xx, and the winner's tokens are revoked afterwards. Concurrent refreshes of one refresh token
// likewise.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as client from 'openid-client';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { basic, Browser, CALLBACK, createOidcApp, postForm, userTokens } from '../helpers/oidc.ts';

describe('redemption races', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(async () => server?.stop());

  it("10 parallel redemptions of one code: one winner, nine invalid_grant, and the winner's tokens die", async () => {
    const app = await createOidcApp(server, { authMethod: 'basic' });
    const verifier = client.randomPKCECodeVerifier();
    const url = new URL(`${server.url}/oauth/v2/authorize`);
    for (const [k, v] of Object.entries({
      client_id: app.clientId,
      redirect_uri: CALLBACK,
      response_type: 'code',
      scope: 'openid offline_access',
      code_challenge: await client.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
    }))
      url.searchParams.set(k, v);
    const code = (await new Browser(server).authorize(url)).searchParams.get('code')!;
    const results = await Promise.all(
      Array.from({ length: 10 }, () =>
        postForm(
          `${server.url}/oauth/v2/token`,
          { grant_type: 'authorization_code', code, redirect_uri: CALLBACK, code_verifier: verifier },
          { authorization: basic(app.clientId, app.clientSecret!) },
        ),
      ),
    );
    const statuses = results.map((r) => r.status);
    expect(statuses.filter((s) => s >= 500)).toEqual([]);
    const winners = results.filter((r) => r.status === 200);
    expect(winners).toHaveLength(1);
    expect(results.filter((r) => r.status === 400).map((r) => r.json.error)).toEqual(Array(9).fill('invalid_grant'));
    const won = winners[0]!.json;
    expect(await server.app.oidc.verifyAccessToken(won.access_token)).toBeUndefined();
    const refresh = await postForm(
      `${server.url}/oauth/v2/token`,
      { grant_type: 'refresh_token', refresh_token: won.refresh_token },
      { authorization: basic(app.clientId, app.clientSecret!) },
    );
    expect(refresh.json.error).toBe('invalid_grant');
  });

  it('parallel refreshes of one refresh token: at most one succeeds, no 5xx', async () => {
    const app = await createOidcApp(server, { authMethod: 'basic' });
    const tokens = await userTokens(server, app, 'openid offline_access');
    const results = await Promise.all(
      Array.from({ length: 6 }, () =>
        postForm(
          `${server.url}/oauth/v2/token`,
          { grant_type: 'refresh_token', refresh_token: tokens.refresh_token! },
          { authorization: basic(app.clientId, app.clientSecret!) },
        ),
      ),
    );
    expect(results.filter((r) => r.status >= 500)).toEqual([]);
    expect(results.filter((r) => r.status === 200).length).toBeLessThanOrEqual(1);
    for (const r of results.filter((x) => x.status !== 200)) expect(r.json.error).toBe('invalid_grant');
  });
});
