// Refresh token rotation under concurrency and reuse (RFC 9700 §4.14.2): one winner among parallel refreshes; reuse
// within the grace window is refused but keeps the session; reuse after it revokes the whole grant.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { basic, createOidcApp, postForm, userTokens, type TestApp } from '../helpers/oidc.ts';
import { sleep } from '../helpers/load.ts';

const GRACE_SECONDS = 2;

describe('refresh token reuse', () => {
  let server: TestServer;
  let app: TestApp;
  beforeAll(async () => {
    server = await startTestServer({ env: { GATEHOUSE_REFRESH_TOKEN_REUSE_GRACE: String(GRACE_SECONDS) } });
    app = await createOidcApp(server, { authMethod: 'basic' });
  });
  afterAll(async () => server?.stop());

  const refresh = (refreshToken: string) =>
    postForm(
      `${server.url}/oauth/v2/token`,
      { grant_type: 'refresh_token', refresh_token: refreshToken },
      { authorization: basic(app.clientId, app.clientSecret!) },
    );

  it('20 parallel refreshes of one token: exactly one winner, the rest invalid_grant, and the winner keeps working', async () => {
    const tokens = await userTokens(server, app, 'openid offline_access');
    const results = await Promise.all(Array.from({ length: 20 }, () => refresh(tokens.refresh_token!)));
    expect(results.filter((r) => r.status >= 500)).toEqual([]);
    const winners = results.filter((r) => r.status === 200);
    expect(winners).toHaveLength(1);
    expect(new Set(results.filter((r) => r.status !== 200).map((r) => r.json.error))).toEqual(
      new Set(['invalid_grant']),
    );
    // the losers were inside the grace window: the session goes on
    const next = await refresh(winners[0]!.json.refresh_token);
    expect(next.status).toBe(200);
  });

  it('reuse after the grace window revokes the grant: the newest refresh and access tokens die too', async () => {
    const tokens = await userTokens(server, app, 'openid offline_access');
    const rotated = await refresh(tokens.refresh_token!);
    expect(rotated.status).toBe(200);
    await sleep(GRACE_SECONDS * 1000 + 500);
    const reused = await refresh(tokens.refresh_token!);
    expect(reused.json.error).toBe('invalid_grant');
    expect((await refresh(rotated.json.refresh_token)).json.error).toBe('invalid_grant');
    expect(await server.app.oidc.verifyAccessToken(rotated.json.access_token)).toBeUndefined();
  });

  it('reuse within the grace window is refused without ending the session', async () => {
    const tokens = await userTokens(server, app, 'openid offline_access');
    const rotated = await refresh(tokens.refresh_token!);
    const reused = await refresh(tokens.refresh_token!);
    expect(reused.json.error).toBe('invalid_grant');
    expect(await server.app.oidc.verifyAccessToken(rotated.json.access_token)).toBeDefined();
    expect((await refresh(rotated.json.refresh_token)).status).toBe(200);
  });
});
