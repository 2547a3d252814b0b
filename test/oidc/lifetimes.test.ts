// Lifetimes (RFC 6749 §4.1.2, RFC 9700 §4.14), shortened by configuration: the authorization code, the refresh token's
// idle and absolute lifetimes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as client from 'openid-client';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { basic, Browser, CALLBACK, createOidcApp, postForm, userTokens } from '../helpers/oidc.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('lifetimes', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({
      env: {
        GATEHOUSE_AUTH_CODE_TTL: '2',
        GATEHOUSE_REFRESH_TOKEN_IDLE_TTL: '3',
        GATEHOUSE_REFRESH_TOKEN_ABSOLUTE_TTL: '6',
      },
    });
  });
  afterAll(async () => server?.stop());

  it('an authorization code expires after GATEHOUSE_AUTH_CODE_TTL', async () => {
    const app = await createOidcApp(server, { authMethod: 'basic' });
    const verifier = client.randomPKCECodeVerifier();
    const url = new URL(`${server.url}/oauth/v2/authorize`);
    for (const [k, v] of Object.entries({
      client_id: app.clientId,
      redirect_uri: CALLBACK,
      response_type: 'code',
      scope: 'openid',
      code_challenge: await client.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
    }))
      url.searchParams.set(k, v);
    const code = (await new Browser(server).authorize(url)).searchParams.get('code')!;
    // 2 s rather than 1: the later test's logins must redeem their codes in time on a loaded machine
    await sleep(2600);
    const res = await postForm(
      `${server.url}/oauth/v2/token`,
      { grant_type: 'authorization_code', code, redirect_uri: CALLBACK, code_verifier: verifier },
      { authorization: basic(app.clientId, app.clientSecret!) },
    );
    expect([res.status, res.json.error]).toEqual([400, 'invalid_grant']);
  });

  it('refresh tokens: idle lifetime renewed by each rotation, capped by the absolute lifetime', async () => {
    const app = await createOidcApp(server, { authMethod: 'basic' });
    const refresh = (token: string) =>
      postForm(
        `${server.url}/oauth/v2/token`,
        { grant_type: 'refresh_token', refresh_token: token },
        { authorization: basic(app.clientId, app.clientSecret!) },
      );
    const idle = await userTokens(server, app, 'openid offline_access');
    await sleep(3500);
    expect((await refresh(idle.refresh_token!)).json.error).toBe('invalid_grant'); // idle for longer than 3 s

    let current = (await userTokens(server, app, 'openid offline_access')).refresh_token!;
    // token times are whole seconds (a token may live up to 1 s less than its lifetime): used every 1.5 s
    for (let i = 0; i < 3; i++) {
      await sleep(1500);
      const res = await refresh(current);
      expect([i, res.status, res.json.error_description]).toEqual([i, 200, undefined]);
      current = res.json.refresh_token;
    }
    await sleep(2000); // 6.5 s after the first token: past the absolute lifetime, not past the last idle one
    expect((await refresh(current)).json.error).toBe('invalid_grant');
  });
});
