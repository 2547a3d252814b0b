// End to end: everything an RP needs is created through the management API, then real client libraries use it:
// openid-client logs the imported user in to the new app, @zitadel/node's service-account helper and client_credentials
// get machine tokens, an API app introspects; deactivation ends the user's tokens and logins.
import { ServiceAccount } from '@zitadel/node/dist/credentials/index.js';
import { createManagementClient, createServiceAccountInterceptor } from '@zitadel/node/dist/api/index.js';
import * as client from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { isPostgres } from '../helpers/postgres.ts';
import { Browser, CALLBACK, rpConfig } from '../helpers/oidc.ts';
import {
  calls,
  decodeKeyDetails,
  ok,
  startProvisioningServer,
  unique,
  type ApiAnswer,
  type ProvisioningServer,
} from '../helpers/provisioning.ts';

const PASSWORD = 'Imported-Password-1';

describe('provisioning end to end', () => {
  let p: ProvisioningServer;
  let project: string;
  let app: { appId: string; clientId: string; clientSecret: string };
  let api: { appId: string; clientId: string; clientSecret: string };
  let user: { userId: string; loginName: string };

  beforeAll(async () => {
    p = await startProvisioningServer();
    const rest = <T = ApiAnswer>(c: Parameters<typeof ok>[2]) => ok<T>(p.server, 'rest', c, p.orgOwnerToken);
    project = (await rest(calls.addProject())).id;
    app = await rest(
      calls.addOidcApp(project, {
        grantTypes: ['OIDC_GRANT_TYPE_AUTHORIZATION_CODE', 'OIDC_GRANT_TYPE_REFRESH_TOKEN'],
      }),
    );
    api = await rest(calls.addApiApp(project));
    const human = calls.importHumanUser();
    const { userId } = await rest(human);
    user = { userId, loginName: (human.body as { userName: string }).userName };
  });
  afterAll(async () => p?.server.stop());

  async function logIn(browser = new Browser(p.server), redirectUri = CALLBACK) {
    const config = await rpConfig(p.server, app.clientId, client.ClientSecretBasic(app.clientSecret));
    const verifier = client.randomPKCECodeVerifier();
    const state = client.randomState();
    const url = client.buildAuthorizationUrl(config, {
      redirect_uri: redirectUri,
      scope: 'openid profile email offline_access',
      state,
      code_challenge: await client.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
    });
    const callback = await browser.authorize(url, user.loginName, PASSWORD);
    const tokens = await client.authorizationCodeGrant(config, callback, {
      pkceCodeVerifier: verifier,
      expectedState: state,
    });
    return { config, tokens, browser };
  }

  const introspect = async (token: string) => {
    const config = await rpConfig(p.server, api.clientId, client.ClientSecretBasic(api.clientSecret));
    return client.tokenIntrospection(config, token);
  };

  it('an imported user logs in to an app created through the API (openid-client) and an API app introspects the token', async () => {
    const { config, tokens } = await logIn();
    expect(tokens.claims()!.sub).toBe(user.userId);
    const info = await client.fetchUserInfo(config, tokens.access_token, user.userId);
    expect(info).toMatchObject({ sub: user.userId, given_name: 'Ada', family_name: 'Lovelace', email_verified: true });
    const introspection = await introspect(tokens.access_token);
    expect(introspection).toMatchObject({ active: true, sub: user.userId, client_id: app.clientId });
  });

  it("a machine user with a key gets a token through @zitadel/node's service-account helper and calls the API over gRPC", async () => {
    const { userId } = await ok(p.server, 'grpc', calls.addMachineUser(), p.orgOwnerToken);
    const key = await ok(p.server, 'grpc', calls.addMachineKey(userId), p.orgOwnerToken);
    const account = ServiceAccount.fromJson(decodeKeyDetails(key.keyDetails) as never);
    const token = await account.authenticate(p.server.config.issuer, { apiAccess: true });
    const config = await rpConfig(p.server, api.clientId, client.ClientSecretBasic(api.clientSecret));
    expect((await client.fetchUserInfo(config, token, userId)).sub).toBe(userId);
    // with IAM_OWNER (AddIAMMember) its own SDK client may call the management API
    await ok(p.server, 'rest', calls.addIamMember(userId), p.adminToken);
    const management = createManagementClient(
      p.server.url,
      createServiceAccountInterceptor(p.server.config.issuer, account, { apiAccess: true }),
    );
    const org = await management.getMyOrg({});
    expect(org.org?.id).toBe(p.firstOrgId);
    // provisioning through ZITADEL's own client (ts-proto messages on @grpc/grpc-js): enums, repeated enums, bytes
    const added = await management.addProject({ name: unique('sdk-project') });
    const oidcApp = await management.addOIDCApp({
      projectId: added.id,
      name: 'sdk-web',
      redirectUris: ['https://sdk.example.com/cb'],
      responseTypes: [0],
      grantTypes: [0, 2],
      appType: 0,
      authMethodType: 0,
      postLogoutRedirectUris: [],
      devMode: false,
      accessTokenType: 1,
    } as never);
    expect(oidcApp.clientSecret).toBeTruthy();
    const read = await management.getAppByID({ projectId: added.id, appId: oidcApp.appId });
    expect(read.app?.oidcConfig).toMatchObject({ clientId: oidcApp.clientId, grantTypes: [0, 2], accessTokenType: 1 });
    const machine = await management.addMachineUser({ userName: unique('sdk-svc'), name: 'SDK service' } as never);
    const sdkKey = await management.addMachineKey({ userId: machine.userId, type: 1 } as never);
    expect(JSON.parse(Buffer.from(sdkKey.keyDetails).toString('utf8'))).toMatchObject({
      type: 'serviceaccount',
      userId: machine.userId,
      keyId: sdkKey.keyId,
    });
    const missing = await management.getUserByID({ id: '404404' }).catch((e: unknown) => e);
    expect(missing).toMatchObject({ code: 5 });
  });

  it('a machine user with a secret gets a client_credentials token (client_id = user name)', async () => {
    const userName = unique('svc');
    const { userId } = await ok(p.server, 'grpc-web', calls.addMachineUser({ userName }), p.orgOwnerToken);
    const secret = await ok(p.server, 'grpc-web', calls.generateMachineSecret(userId), p.orgOwnerToken);
    const config = await rpConfig(p.server, secret.clientId, client.ClientSecretBasic(secret.clientSecret));
    const tokens = await client.clientCredentialsGrant(config, { scope: 'openid' });
    expect(tokens.refresh_token).toBeUndefined();
    expect((await client.fetchUserInfo(config, tokens.access_token, userId)).sub).toBe(userId);
  });

  it('a changed redirect URI is used by the very next authorization request', async () => {
    const { id: projectId } = await ok(p.server, 'rest', calls.addProject(), p.orgOwnerToken);
    const created = await ok(p.server, 'rest', calls.addOidcApp(projectId), p.orgOwnerToken);
    const authorize = (redirectUri: string) =>
      new Browser(p.server).follow(
        `${p.server.url}/oauth/v2/authorize?${new URLSearchParams({
          client_id: created.clientId,
          redirect_uri: redirectUri,
          response_type: 'code',
          scope: 'openid',
          code_challenge: 'x'.repeat(43),
          code_challenge_method: 'S256',
        })}`,
      );
    expect((await authorize(CALLBACK)).url).toContain('/ui/login/');
    await ok(
      p.server,
      'rest',
      calls.updateOidcConfig(projectId, created.appId, { redirectUris: ['https://rp.example.com/new'] }),
      p.orgOwnerToken,
    );
    expect((await authorize('https://rp.example.com/new')).url).toContain('/ui/login/');
    const old = await authorize(CALLBACK);
    expect(old.response.status).toBe(400); // an error page on the server, never a redirect (RFC 6749 §4.1.2.1)
    // an http redirect URI outside dev mode is reported as non-compliant and never used
    await ok(
      p.server,
      'rest',
      calls.updateOidcConfig(projectId, created.appId, { redirectUris: ['http://rp.example.com/cb'] }),
      p.orgOwnerToken,
    );
    expect((await authorize('http://rp.example.com/cb')).response.status).toBe(400);
    await ok(
      p.server,
      'rest',
      calls.updateOidcConfig(projectId, created.appId, { redirectUris: ['http://rp.example.com/cb'], devMode: true }),
      p.orgOwnerToken,
    );
    expect((await authorize('http://rp.example.com/cb')).url).toContain('/ui/login/');
  });

  it("DeactivateUser: the user's tokens are inactive at once, its session ends and it cannot log in again", async () => {
    const { config, tokens, browser } = await logIn();
    expect((await introspect(tokens.access_token)).active).toBe(true);
    await ok(p.server, 'grpc', calls.deactivateUser(user.userId), p.orgOwnerToken);

    expect(await introspect(tokens.access_token)).toEqual({ active: false });
    await expect(client.fetchUserInfo(config, tokens.access_token, user.userId)).rejects.toMatchObject({ status: 401 });
    await expect(client.refreshTokenGrant(config, tokens.refresh_token!)).rejects.toMatchObject({
      error: 'invalid_grant',
    });
    const left = (
      await p.server.db.query("SELECT count(*)::int AS n FROM oidc_payloads WHERE payload->>'accountId' = $1", [
        user.userId,
      ])
    ).rows[0]!.n;
    expect(left).toBe(0);
    // the browser's SSO session is gone: the login page again, where the password no longer works
    await expect(logIn(browser)).rejects.toThrow(/login did not redirect: 401/);
  });

  it.runIf(isPostgres)('a second instance on the same database sees changes with the next request', async () => {
    const second: TestServer = await startTestServer({ database: p.server.database });
    try {
      const { id: projectId } = await ok(p.server, 'rest', calls.addProject(), p.orgOwnerToken);
      const created = await ok(p.server, 'rest', calls.addOidcApp(projectId), p.orgOwnerToken);
      const authorize = (redirectUri: string) =>
        new Browser(second).follow(
          `${second.url}/oauth/v2/authorize?${new URLSearchParams({
            client_id: created.clientId,
            redirect_uri: redirectUri,
            response_type: 'code',
            scope: 'openid',
            code_challenge: 'x'.repeat(43),
            code_challenge_method: 'S256',
          })}`,
        );
      expect((await authorize(CALLBACK)).url).toContain('/ui/login/');
      await ok(
        p.server,
        'rest',
        calls.updateOidcConfig(projectId, created.appId, { redirectUris: ['https://rp.example.com/moved'] }),
        p.orgOwnerToken,
      );
      expect((await authorize('https://rp.example.com/moved')).url).toContain('/ui/login/');
      expect((await authorize(CALLBACK)).response.status).toBe(400);

      const { userId } = await ok(p.server, 'rest', calls.addMachineUser(), p.orgOwnerToken);
      const secret = await ok(p.server, 'rest', calls.generateMachineSecret(userId), p.orgOwnerToken);
      const config = await rpConfig(second, secret.clientId, client.ClientSecretBasic(secret.clientSecret));
      const tokens = await client.clientCredentialsGrant(config, { scope: 'openid' });
      expect((await client.fetchUserInfo(config, tokens.access_token, userId)).sub).toBe(userId);
      await ok(p.server, 'rest', calls.deactivateUser(userId), p.orgOwnerToken);
      await expect(client.fetchUserInfo(config, tokens.access_token, userId)).rejects.toMatchObject({ status: 401 });
      // the machine user is no longer a client: 401 invalid_client (with a Basic challenge)
      await expect(client.clientCredentialsGrant(config, { scope: 'openid' })).rejects.toMatchObject({ status: 401 });
    } finally {
      await second.close();
    }
  });
});
