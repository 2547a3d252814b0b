// Introspection (RFC 7662): basic or private_key_jwt callers only, active only for the token's audience (client or
// project), ZITADEL's members plus username and scope claims.
import { createPrivateKey, randomUUID } from 'node:crypto';
import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import {
  assertion,
  basic,
  createApiApp,
  createAppKey,
  createMachine,
  createOidcApp,
  createProject,
  postForm,
  userTokens,
} from '../helpers/oidc.ts';

describe('introspection', () => {
  let server: TestServer;
  let introspect: string;
  beforeAll(async () => {
    server = await startTestServer();
    introspect = `${server.url}/oauth/v2/introspect`;
  });
  afterAll(async () => server?.stop());

  const asBasic = (token: string, id: string, secret: string) =>
    postForm(introspect, { token }, { authorization: basic(id, secret) });

  it('answers the audience (same app, an API app of the project) with the interface members; others get active:false', async () => {
    const app = await createOidcApp(server, { authMethod: 'basic' });
    const api = await createApiApp(server, app.projectId);
    const stranger = await createApiApp(server, await createProject(server));
    const tokens = await userTokens(server, app, 'openid profile email offline_access');

    const res = await asBasic(tokens.access_token, api.clientId, api.clientSecret!);
    expect(res.status).toBe(200);
    const body = res.json;
    expect(body).toMatchObject({
      active: true,
      client_id: app.clientId,
      token_type: 'Bearer',
      iss: server.url,
      username: 'admin@gatehouse.127.0.0.1',
      name: 'Gatehouse Admin',
      email: 'admin@127.0.0.1',
      email_verified: true,
    });
    expect(body.scope.split(' ').sort()).toEqual(['email', 'offline_access', 'openid', 'profile']);
    for (const member of ['exp', 'iat', 'nbf']) expect(body[member]).toEqual(expect.any(Number));
    expect(body.aud).toEqual(expect.arrayContaining([app.clientId, app.projectId]));
    expect(body.sub).toEqual(expect.any(String));
    expect(body.jti).toEqual(expect.any(String));
    expect(body.jti).not.toBe(tokens.access_token); // never the opaque token itself
    expect(body.phone_number).toBeUndefined();
    expect(body.auth_time).toBeGreaterThan(Math.floor(Date.now() / 1000) - 60);

    expect((await asBasic(tokens.access_token, app.clientId, app.clientSecret!)).json.active).toBe(true);
    expect((await asBasic(tokens.access_token, stranger.clientId, stranger.clientSecret!)).json).toEqual({
      active: false,
    });
    // refresh tokens and garbage are not active access tokens
    expect((await asBasic(tokens.refresh_token!, app.clientId, app.clientSecret!)).json).toEqual({ active: false });
    expect((await asBasic('nonsense', app.clientId, app.clientSecret!)).json).toEqual({ active: false });
  });

  it('JWT access tokens are introspectable, and a project scope puts another project in the audience', async () => {
    const app = await createOidcApp(server, { authMethod: 'basic', accessTokenType: 'jwt' });
    const api = await createApiApp(server, app.projectId);
    const tokens = await userTokens(server, app, 'openid email');
    const res = await asBasic(tokens.access_token, api.clientId, api.clientSecret!);
    expect(res.json).toMatchObject({ active: true, client_id: app.clientId, email: 'admin@127.0.0.1' });
    expect(res.json.name).toBeUndefined();

    const otherProject = await createProject(server);
    const otherApi = await createApiApp(server, otherProject);
    // a user token that asks for the other project's audience (unknown scopes are dropped)
    const forOther = await userTokens(
      server,
      app,
      `openid urn:zitadel:iam:org:project:id:${otherProject}:aud made-up-scope`,
    );
    expect(forOther.scope.split(' ').sort()).toEqual(['openid', `urn:zitadel:iam:org:project:id:${otherProject}:aud`]);
    expect((await asBasic(forOther.access_token, otherApi.clientId, otherApi.clientSecret!)).json.active).toBe(true);
    const machine = await createMachine(server);
    const token = await postForm(`${server.url}/oauth/v2/token`, {
      grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer',
      assertion: await assertion(machine.keyFile, server.url),
      scope: `openid urn:zitadel:iam:org:project:id:${otherProject}:aud`,
    });
    expect((await asBasic(token.json.access_token, otherApi.clientId, otherApi.clientSecret!)).json).toMatchObject({
      active: true,
      sub: machine.userId,
      username: `${machine.userName}@gatehouse.127.0.0.1`,
    });
    expect((await asBasic(token.json.access_token, api.clientId, api.clientSecret!)).json).toEqual({ active: false });
  });

  it('authenticates callers with Basic or private_key_jwt only: post, none, nothing and bad secrets are 401 invalid_client', async () => {
    const app = await createOidcApp(server, { authMethod: 'basic' });
    const tokens = await userTokens(server, app, 'openid');
    const post = await postForm(introspect, {
      token: tokens.access_token,
      client_id: app.clientId,
      client_secret: app.clientSecret!,
    });
    expect([post.status, post.json.error]).toEqual([401, 'invalid_client']);
    const nothing = await postForm(introspect, { token: tokens.access_token });
    expect([nothing.status, nothing.json.error]).toEqual([401, 'invalid_client']);
    const bad = await asBasic(tokens.access_token, app.clientId, 'wrong');
    expect([bad.status, bad.json.error]).toEqual([401, 'invalid_client']);
    const spa = await createOidcApp(server, { authMethod: 'none', appType: 'user_agent' }, app.projectId);
    const none = await postForm(introspect, { token: tokens.access_token, client_id: spa.clientId });
    expect([none.status, none.json.error]).toEqual([401, 'invalid_client']);

    const api = await createApiApp(server, app.projectId, 'private_key_jwt');
    const keyFile = await createAppKey(server, api.appId);
    const clientAssertion = await new SignJWT({})
      .setProtectedHeader({ alg: 'RS256', kid: keyFile.keyId })
      .setIssuer(api.clientId)
      .setSubject(api.clientId)
      .setAudience(server.url)
      .setJti(randomUUID())
      .setIssuedAt()
      .setExpirationTime('1m')
      .sign(createPrivateKey(keyFile.key));
    const pkjwt = await postForm(introspect, {
      token: tokens.access_token,
      client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer',
      client_assertion: clientAssertion,
    });
    expect([pkjwt.status, pkjwt.json.active]).toEqual([200, true]);
  });

  it("a deactivated user's tokens are inactive", async () => {
    const machine = await createMachine(server);
    const project = await createProject(server);
    const api = await createApiApp(server, project);
    const token = await postForm(
      `${server.url}/oauth/v2/token`,
      { grant_type: 'client_credentials', scope: `openid urn:zitadel:iam:org:project:id:${project}:aud` },
      { authorization: basic(machine.userName, machine.clientSecret) },
    );
    expect((await asBasic(token.json.access_token, api.clientId, api.clientSecret!)).json.active).toBe(true);
    await server.db.query("UPDATE users SET state = 'inactive' WHERE id = $1", [machine.userId]);
    expect((await asBasic(token.json.access_token, api.clientId, api.clientSecret!)).json).toEqual({ active: false });
  });
});
