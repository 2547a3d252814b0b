// The account page's and the console's built-in clients (src/oidc/account-client.ts) sign people in through the
// authorization endpoint, but their codes are never redeemed: whoever starts their flow with PKCE values of their own
// gets a code and no tokens, by any grant (SECURITY.md, Account pages).
import * as client from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACCOUNT_CALLBACK_PATH, CONSOLE_CALLBACK_PATH } from '../../src/oidc/account-client.ts';
import { addMachineUser, generateMachineSecret } from '../../src/users/machine-service.ts';
import {
  basic,
  Browser,
  createOidcApp,
  defaultOrgId,
  pkceAuthorization,
  postForm,
  rpConfig,
  secrets,
} from '../helpers/oidc.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

const BUILT_IN = [
  { clientId: 'gatehouse-account', callbackPath: ACCOUNT_CALLBACK_PATH },
  { clientId: 'gatehouse-console', callbackPath: CONSOLE_CALLBACK_PATH },
];

describe('built-in clients give no one tokens', () => {
  let server: TestServer;
  let browser: Browser;
  beforeAll(async () => {
    server = await startTestServer();
    // a signed-in browser: the built-in clients' requests below pass by SSO, as the account page's own do
    browser = new Browser(server);
    const app = await createOidcApp(server, { authMethod: 'basic' });
    await browser.authorize((await pkceAuthorization(server, app.clientId)).url);
  });
  afterAll(async () => server?.stop());

  /** Follows the authorization request's redirects up to the first one to `callback`, which is not requested. */
  async function landAt(url: URL, callback: string): Promise<URL> {
    let next = String(url);
    for (let i = 0; i < 10; i++) {
      const response = await browser.request(next);
      const location = response.headers.get('location');
      if (!location) throw new Error(`no redirect: ${response.status} ${next}`);
      next = new URL(location, next).toString();
      if (next.startsWith(callback)) return new URL(next);
    }
    throw new Error(`never reached ${callback}`);
  }

  const tokensOf = async (clientId: string) =>
    Number(
      (
        await server.db.query<{ n: string }>(
          `SELECT count(*) AS n FROM oidc_payloads
            WHERE model IN ('AccessToken', 'RefreshToken', 'ClientCredentials') AND payload->>'clientId' = $1`,
          [clientId],
        )
      ).rows[0]!.n,
    );

  for (const { clientId, callbackPath } of BUILT_IN) {
    it(`${clientId}: a code requested with one's own PKCE values is refused at the token endpoint`, async () => {
      const callback = `${server.config.issuer}${callbackPath}`;
      const config = await rpConfig(server, clientId, client.None(), { redirect_uris: [callback] });
      const verifier = client.randomPKCECodeVerifier();
      const state = client.randomState();
      const url = client.buildAuthorizationUrl(config, {
        redirect_uri: callback,
        scope: 'openid profile email offline_access',
        state,
        code_challenge: await client.calculatePKCECodeChallenge(verifier),
        code_challenge_method: 'S256',
      });
      const landed = await landAt(url, callback);
      expect(landed.searchParams.get('code')).toEqual(expect.any(String));
      // the reproduction with openid-client: the code is refused before anything is issued
      await expect(
        client.authorizationCodeGrant(config, landed, { pkceCodeVerifier: verifier, expectedState: state }),
      ).rejects.toMatchObject({ error: 'unauthorized_client' });
      // the same request from a browser's origin (the provider's path, not the fast path): refused too
      const crossOrigin = await postForm(
        `${server.url}/oauth/v2/token`,
        {
          grant_type: 'authorization_code',
          code: landed.searchParams.get('code')!,
          redirect_uri: callback,
          code_verifier: verifier,
          client_id: clientId,
        },
        { origin: server.config.issuer },
      );
      expect([crossOrigin.status, crossOrigin.json.error, crossOrigin.json.access_token]).toEqual([
        400,
        'unauthorized_client',
        undefined,
      ]);
      expect(await tokensOf(clientId)).toBe(0);
    });

    it(`${clientId}: no implicit, refresh or client_credentials tokens either`, async () => {
      const callback = `${server.config.issuer}${callbackPath}`;
      const implicit = await pkceAuthorization(server, clientId, {
        redirect_uri: callback,
        response_type: 'id_token token',
        nonce: 'n-1',
      });
      const landed = await landAt(implicit.url, callback);
      const answer = new URLSearchParams(landed.hash.slice(1) || landed.search.slice(1));
      expect([answer.get('error'), answer.get('access_token'), answer.get('id_token')]).toEqual([
        'unauthorized_client',
        null,
        null,
      ]);

      const refresh = await postForm(`${server.url}/oauth/v2/token`, {
        grant_type: 'refresh_token',
        refresh_token: 'any-refresh-token',
        client_id: clientId,
      });
      expect([refresh.status, refresh.json.error]).toEqual([400, 'unauthorized_client']);

      // a machine user that bears the built-in client's name gets no client_credentials token under that name
      const orgId = await defaultOrgId(server);
      const { userId } = await addMachineUser(
        server.db,
        { orgId, userName: clientId, name: 'Look-alike', accessTokenType: 'opaque' },
        'test',
      );
      const { clientSecret } = await generateMachineSecret(server.db, secrets, { orgId, userId }, 'test');
      for (const headers of [{}, { origin: server.config.issuer }] as Record<string, string>[]) {
        const machine = await postForm(
          `${server.url}/oauth/v2/token`,
          { grant_type: 'client_credentials', scope: 'openid' },
          { authorization: basic(clientId, clientSecret), ...headers },
        );
        expect([machine.status, machine.json.access_token]).toEqual([expect.any(Number), undefined]);
        expect(machine.status).toBeGreaterThanOrEqual(400);
      }
      expect(await tokensOf(clientId)).toBe(0);
    });
  }
});
