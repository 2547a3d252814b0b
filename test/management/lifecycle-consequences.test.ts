// Removal is complete and immediate, seen by real clients: a locked, deactivated or removed user's tokens are inactive
// at introspection, userinfo answers 401, refresh fails (openid-client) and sign-in fails, and a removed user's name is
// free again; a deactivated or removed app's credentials fail at once, and so do its users' tokens; a machine user's
// removed secret or key stops its grants; a deactivated org's users and a removed org's everything stop. Each change is
// made through the management API, on a different encoding each time.
import { AdminService } from '@zitadel/proto/zitadel/admin_pb.js';
import * as client from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lifecycle } from '../helpers/lifecycle.ts';
import { callApi, type ApiCall, type Encoding } from '../helpers/management.ts';
import {
  assertion,
  basic,
  Browser,
  CALLBACK,
  createApiApp,
  createOidcApp,
  pkceAuthorization,
  postForm,
  rpConfig,
  type TestApp,
} from '../helpers/oidc.ts';
import { calls, ok, startProvisioningServer, unique, type ProvisioningServer } from '../helpers/provisioning.ts';

const PASSWORD = 'Lifecycle-Password-1';

describe('lifecycle: consequences for tokens and credentials', () => {
  let p: ProvisioningServer;
  let app: TestApp;
  let api: TestApp;
  beforeAll(async () => {
    p = await startProvisioningServer();
    app = await createOidcApp(p.server, { authMethod: 'basic' });
    api = await createApiApp(p.server, app.projectId);
  });
  afterAll(async () => p?.server.stop());

  const as = (encoding: Encoding, call: ApiCall, token = p.adminToken, orgId?: string) =>
    ok(p.server, encoding, call, token, orgId);

  async function addUser(orgId?: string): Promise<{ userId: string; userName: string }> {
    const userName = unique('life');
    const { userId } = await as(
      'rest',
      lifecycle.addHumanUser({ userName, initialPassword: PASSWORD }),
      p.adminToken,
      orgId,
    );
    return { userId, userName };
  }

  /** The code flow on the login page with the user's password (throws when the sign-in is refused). */
  async function signIn(userName: string, rp = app) {
    const { url, verifier } = await pkceAuthorization(p.server, rp.clientId, {
      scope: 'openid profile offline_access',
    });
    const callback = await new Browser(p.server).authorize(url, userName, PASSWORD);
    const res = await postForm(
      `${p.server.url}/oauth/v2/token`,
      {
        grant_type: 'authorization_code',
        code: callback.searchParams.get('code')!,
        redirect_uri: CALLBACK,
        code_verifier: verifier,
      },
      { authorization: basic(rp.clientId, rp.clientSecret!) },
    );
    expect(res.status).toBe(200);
    return res.json as { access_token: string; refresh_token: string };
  }

  /** What each client sees of the tokens now (a refresh that succeeds spends the refresh token: once per tokens). */
  async function seen(tokens: { access_token: string; refresh_token: string }, rp = app, introspector = api) {
    const config = await rpConfig(p.server, rp.clientId, client.ClientSecretBasic(rp.clientSecret!));
    const introspection = await postForm(
      `${p.server.url}/oauth/v2/introspect`,
      { token: tokens.access_token },
      { authorization: basic(introspector.clientId, introspector.clientSecret!) },
    );
    const userinfo = await client.fetchUserInfo(config, tokens.access_token, client.skipSubjectCheck).then(
      () => 200,
      (e: { status?: number }) => e.status,
    );
    const refresh = await client.refreshTokenGrant(config, tokens.refresh_token).then(
      () => 'ok',
      // a refused client answers 401 with its error in WWW-Authenticate, which openid-client reports as a challenge
      (e: { error?: string; cause?: { parameters?: { error?: string } }[] }) =>
        e.error ?? (Array.isArray(e.cause) ? e.cause[0]?.parameters?.error : undefined),
    );
    return { active: introspection.json.active, userinfo, refresh };
  }

  const refused = (userName: string, rp = app) =>
    expect(signIn(userName, rp)).rejects.toThrow(/login did not redirect|expected the login page/);

  it('LockUser: tokens inactive, userinfo 401, refresh and sign-in fail; UnlockUser lets the user sign in again', async () => {
    const { userId, userName } = await addUser();
    expect(await seen(await signIn(userName))).toEqual({ active: true, userinfo: 200, refresh: 'ok' });
    const tokens = await signIn(userName);
    await as('grpc', lifecycle.userState(userId, 'lock'));
    expect(await seen(tokens)).toEqual({ active: false, userinfo: 401, refresh: 'invalid_grant' });
    await refused(userName);
    await as('grpc-web', lifecycle.userState(userId, 'unlock'));
    expect((await seen(await signIn(userName))).active).toBe(true);
  });

  it('DeactivateUser and RemoveUser end tokens, refresh and sign-in; a removed user name is free again', async () => {
    const deactivated = await addUser();
    const tokens = await signIn(deactivated.userName);
    await as('rest', calls.deactivateUser(deactivated.userId));
    expect(await seen(tokens)).toEqual({ active: false, userinfo: 401, refresh: 'invalid_grant' });
    await refused(deactivated.userName);

    const removed = await addUser();
    const removedTokens = await signIn(removed.userName);
    await as('grpc', lifecycle.removeUser(removed.userId));
    expect(await seen(removedTokens)).toEqual({ active: false, userinfo: 401, refresh: 'invalid_grant' });
    await refused(removed.userName);
    const again = await as('rest', lifecycle.addHumanUser({ userName: removed.userName, initialPassword: PASSWORD }));
    expect(again.userId).not.toBe(removed.userId);
    expect((await seen(await signIn(removed.userName))).active).toBe(true);
  });

  it("DeactivateApp: the app's credentials and its users' tokens fail at once; ReactivateApp restores them", async () => {
    const rp = await createOidcApp(p.server, { authMethod: 'basic' }, app.projectId);
    const { userName } = await addUser();
    const tokens = await signIn(userName, rp);
    await as('grpc-web', lifecycle.appState(rp.projectId, rp.appId, 'deactivate'));
    expect(await seen(tokens, rp)).toEqual({ active: false, userinfo: 401, refresh: 'invalid_client' });
    // the client cannot start a sign-in either, nor introspect
    await expect(signIn(userName, rp)).rejects.toThrow();
    const apiApp = await createApiApp(p.server, app.projectId);
    await as('rest', lifecycle.appState(apiApp.projectId, apiApp.appId, 'deactivate'));
    const introspection = await postForm(
      `${p.server.url}/oauth/v2/introspect`,
      { token: tokens.access_token },
      { authorization: basic(apiApp.clientId, apiApp.clientSecret!) },
    );
    expect(introspection.status).toBe(401);
    await as('rest', lifecycle.appState(rp.projectId, rp.appId, 'reactivate'));
    expect((await seen(await signIn(userName, rp), rp)).active).toBe(true);
  });

  it('RegenerateOIDCClientSecret and RemoveApp: the old credentials fail at once', async () => {
    const rp = await createOidcApp(p.server, { authMethod: 'basic' }, app.projectId);
    const { userName } = await addUser();
    const tokens = await signIn(userName, rp);
    const { clientSecret } = await as('grpc', lifecycle.regenerateSecret(rp.projectId, rp.appId, 'oidc'));
    expect((await seen(tokens, rp)).refresh).toBe('invalid_client');
    const fresh = { ...rp, clientSecret };
    expect(await seen(tokens, fresh)).toEqual({ active: true, userinfo: 200, refresh: 'ok' });
    const last = await signIn(userName, fresh);
    await as('rest', lifecycle.removeApp(rp.projectId, rp.appId));
    expect(await seen(last, fresh)).toEqual({ active: false, userinfo: 401, refresh: 'invalid_client' });
  });

  it("RemoveMachineSecret and RemoveMachineKey stop the machine user's grants at once", async () => {
    const add = calls.addMachineUser();
    const userName = add.body!.userName as string;
    const { userId } = await as('rest', add);
    const { clientSecret } = await as('rest', calls.generateMachineSecret(userId));
    const key = await as('rest', calls.addMachineKey(userId));
    const keyFile = JSON.parse(Buffer.from(key.keyDetails, 'base64').toString('utf8'));
    const clientCredentials = () =>
      postForm(
        `${p.server.url}/oauth/v2/token`,
        { grant_type: 'client_credentials', scope: 'openid' },
        {
          authorization: basic(userName, clientSecret),
        },
      );
    const jwtProfile = async () =>
      postForm(`${p.server.url}/oauth/v2/token`, {
        grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer',
        assertion: await assertion(keyFile, p.server.config.issuer),
        scope: 'openid',
      });
    expect((await clientCredentials()).status).toBe(200);
    expect((await jwtProfile()).status).toBe(200);
    await as('grpc', lifecycle.removeMachineSecret(userId));
    expect((await clientCredentials()).status).toBe(401);
    await as('grpc-web', lifecycle.removeMachineKey(userId, key.keyId));
    expect((await jwtProfile()).status).toBe(400);
  });

  it("DeactivateOrg: the org's users are signed out and cannot sign in; ReactivateOrg lets them in again", async () => {
    const org = await setUpOrg();
    const tokens = await signIn(org.userName);
    await as('grpc', lifecycle.orgState('deactivate'), p.adminToken, org.orgId);
    expect(await seen(tokens)).toEqual({ active: false, userinfo: 401, refresh: 'invalid_grant' });
    await refused(org.userName);
    await as('rest', lifecycle.orgState('reactivate'), p.adminToken, org.orgId);
    expect((await seen(await signIn(org.userName))).active).toBe(true);
  });

  it('RemoveOrg takes its users, projects and apps; their tokens end; names are free again', async () => {
    const org = await setUpOrg();
    const tokens = await signIn(org.userName);
    const { id: projectId } = await as('rest', calls.addProject(), p.adminToken, org.orgId);
    const orgApp = await as('rest', calls.addOidcApp(projectId), p.adminToken, org.orgId);
    await as('grpc-web', lifecycle.removeOrg(org.orgId));
    expect(await seen(tokens)).toEqual({ active: false, userinfo: 401, refresh: 'invalid_grant' });
    const db = p.server.db;
    const count = async (sql: string, id: string) => Number((await db.query<{ n: string }>(sql, [id])).rows[0]!.n);
    expect(await count('SELECT count(*) AS n FROM users WHERE org_id = $1', org.orgId)).toBe(0);
    expect(await count('SELECT count(*) AS n FROM projects WHERE org_id = $1', org.orgId)).toBe(0);
    expect(await count('SELECT count(*) AS n FROM apps WHERE id = $1', orgApp.appId)).toBe(0);
    expect(await count('SELECT count(*) AS n FROM memberships WHERE resource_id = $1', org.orgId)).toBe(0);
    const gone = await callApi(p.server.url, 'rest', lifecycle.getOrg(org.orgId), { token: p.adminToken });
    expect(gone).toMatchObject({ ok: false, status: 404 });
    await setUpOrg(org.name, org.userName);
  });

  it('RemoveOrg and DeactivateOrg refuse the default org', async () => {
    const outcome = await callApi(p.server.url, 'rest', lifecycle.removeOrg(p.firstOrgId), { token: p.adminToken });
    expect(outcome).toMatchObject({ ok: false, status: 400, code: 9 });
    const deactivate = await callApi(p.server.url, 'grpc', lifecycle.orgState('deactivate'), { token: p.adminToken });
    expect(deactivate).toMatchObject({ ok: false, code: 9 });
  });

  async function setUpOrg(name = unique('Life Org'), userName = unique('life-owner')) {
    const { orgId } = await as('rest', {
      service: AdminService,
      method: 'SetUpOrg',
      rest: ['POST', '/admin/v1/orgs/_setup'],
      body: {
        org: { name },
        human: {
          userName,
          profile: { firstName: 'L', lastName: 'Owner' },
          email: { email: `${userName}@example.com`, isEmailVerified: true },
          password: PASSWORD,
        },
      },
    });
    return { orgId, name, userName };
  }
});
