// GetMyOrg, AddProject, AddOIDCApp, AddAPIApp, GetAppByID, UpdateOIDCAppConfig and AddAppKey on REST, gRPC and
// gRPC-Web: response shapes, org scoping, permissions, validation and unknown ids.
import { createPublicKey } from 'node:crypto';
import { expect, it } from 'vitest';
import {
  calls,
  describeEachEncoding,
  decodeKeyDetails,
  expectChangedDetails,
  expectCreatedDetails,
  expectError,
  ok,
} from '../helpers/provisioning.ts';

describeEachEncoding('provisioning: org, projects and apps', ({ encoding, p, call }) => {
  const db = () => p.server.db;

  it("GetMyOrg returns the org in context: the caller's own, or x-zitadel-orgid for IAM_OWNER", async () => {
    const own = await ok(p.server, encoding, calls.getMyOrg(), p.orgOwnerToken);
    expect(own.org).toMatchObject({
      id: p.firstOrgId,
      name: 'Gatehouse',
      state: 'ORG_STATE_ACTIVE',
      primaryDomain: expect.any(String),
    });
    expect(own.org.details.resourceOwner).toBe(p.firstOrgId);
    const other = await ok(p.server, encoding, calls.getMyOrg(), p.adminToken, p.otherOrgId);
    expect(other.org.id).toBe(p.otherOrgId);
    expectError(
      await call(calls.getMyOrg(), p.orgOwnerToken, p.otherOrgId),
      encoding,
      7,
      'No matching permissions found (AUTH-5mWD2)',
    );
    expectError(await call(calls.getMyOrg(), p.adminToken, '999999'), encoding, 7);
  });

  it('AddProject creates a project in the org in context with Details; duplicate names 409; empty name 400', async () => {
    const name = `Project ${encoding} ${Date.now()}`;
    const added = await ok(p.server, encoding, calls.addProject(name), p.adminToken, p.otherOrgId);
    expect(Object.keys(added).sort()).toEqual(['details', 'id']);
    expectCreatedDetails(added.details, p.otherOrgId);
    expect((await db().query('SELECT org_id, name FROM projects WHERE id = $1', [added.id])).rows[0]).toEqual({
      org_id: p.otherOrgId,
      name,
    });
    const event = (await db().query('SELECT event_type FROM events WHERE sequence = $1', [added.details.sequence]))
      .rows[0];
    expect(event).toEqual({ event_type: 'project.added' });
    expectError(
      await call(calls.addProject(name.toUpperCase()), p.adminToken, p.otherOrgId),
      encoding,
      6,
      'Project already exists (PROJECT-3M9sd)',
    );
    expectError(
      await call(calls.addProject(''), p.orgOwnerToken),
      encoding,
      3,
      'invalid AddProjectRequest.Name: value length must be between 1 and 200 runes, inclusive',
    );
    expectError(await call(calls.addProject(), p.orgOwnerToken, p.otherOrgId), encoding, 7);
  });

  it('AddOIDCApp returns client id and a secret shown once and stored hashed; GetAppByID reads it back', async () => {
    const { id: projectId } = await ok(p.server, encoding, calls.addProject(), p.orgOwnerToken);
    const added = await ok(
      p.server,
      encoding,
      calls.addOidcApp(projectId, {
        postLogoutRedirectUris: ['https://rp.example.com/bye'],
        grantTypes: ['OIDC_GRANT_TYPE_AUTHORIZATION_CODE', 'OIDC_GRANT_TYPE_REFRESH_TOKEN'],
        accessTokenType: 'OIDC_TOKEN_TYPE_JWT',
        idTokenUserinfoAssertion: true,
      }),
      p.orgOwnerToken,
    );
    expect(Object.keys(added).sort()).toEqual(['appId', 'clientId', 'clientSecret', 'details']);
    expect(added.clientId).toBe(`${added.appId}@${projectId}`);
    expect(added.clientSecret.length).toBeGreaterThanOrEqual(32);
    expectCreatedDetails(added.details, p.firstOrgId);
    const stored = (await db().query('SELECT secret_hash FROM apps WHERE id = $1', [added.appId])).rows[0]!
      .secret_hash as string;
    expect(stored).not.toContain(added.clientSecret);
    expect(p.server.logs.join('')).not.toContain(added.clientSecret);

    const read = await ok(p.server, encoding, calls.getApp(projectId, added.appId), p.orgOwnerToken);
    expect(read.app).toEqual({
      id: added.appId,
      state: 'APP_STATE_ACTIVE',
      name: expect.any(String),
      details: {
        sequence: added.details.sequence,
        creationDate: expect.any(String),
        changeDate: expect.any(String),
        resourceOwner: p.firstOrgId,
      },
      oidcConfig: {
        clientId: added.clientId,
        redirectUris: ['https://rp.example.com/callback'],
        postLogoutRedirectUris: ['https://rp.example.com/bye'],
        responseTypes: ['OIDC_RESPONSE_TYPE_CODE'],
        grantTypes: ['OIDC_GRANT_TYPE_AUTHORIZATION_CODE', 'OIDC_GRANT_TYPE_REFRESH_TOKEN'],
        accessTokenType: 'OIDC_TOKEN_TYPE_JWT',
        idTokenUserinfoAssertion: true,
      },
    });
  });

  it('AddOIDCApp reports compliance problems (http redirect outside dev mode) and a public app gets no secret', async () => {
    const { id: projectId } = await ok(p.server, encoding, calls.addProject(), p.orgOwnerToken);
    const http = await ok(
      p.server,
      encoding,
      calls.addOidcApp(projectId, { redirectUris: ['http://rp.example.com/cb'] }),
      p.orgOwnerToken,
    );
    expect(http.noneCompliant).toBe(true);
    expect(http.complianceProblems.map((c) => c.key)).toEqual([
      'Application.OIDC.V1.NotCompliant',
      'Application.OIDC.V1.Code.RedirectUris.HttpOnlyForDevMode',
    ]);
    expect(http.complianceProblems[1]!.localizedMessage).toMatch(/only used in dev mode/);
    const read = await ok(p.server, encoding, calls.getApp(projectId, http.appId), p.orgOwnerToken);
    expect(read.app.oidcConfig).toMatchObject({ noneCompliant: true, complianceProblems: http.complianceProblems });
    const dev = await ok(
      p.server,
      encoding,
      calls.addOidcApp(projectId, { redirectUris: ['http://rp.example.com/cb'], devMode: true }),
      p.orgOwnerToken,
    );
    expect(dev.noneCompliant).toBeUndefined();
    const spa = await ok(
      p.server,
      encoding,
      calls.addOidcApp(projectId, {
        appType: 'OIDC_APP_TYPE_USER_AGENT',
        authMethodType: 'OIDC_AUTH_METHOD_TYPE_NONE',
      }),
      p.orgOwnerToken,
    );
    expect(spa.clientSecret).toBeUndefined();
    expect(spa.noneCompliant).toBeUndefined();
  });

  it('AddOIDCApp validates fields, scopes the project to the org and needs ORG_OWNER of the org in context', async () => {
    const { id: projectId } = await ok(p.server, encoding, calls.addProject(), p.orgOwnerToken);
    expectError(
      await call(calls.addOidcApp(projectId, { name: '' }), p.orgOwnerToken),
      encoding,
      3,
      'invalid AddOIDCAppRequest.Name: value length must be between 1 and 200 runes, inclusive',
    );
    expectError(
      await call(calls.addOidcApp(projectId, { redirectUris: [] }), p.orgOwnerToken),
      encoding,
      3,
      /^invalid AddOIDCAppRequest\.RedirectUris: /,
    );
    expectError(
      await call(calls.addOidcApp(projectId, { redirectUris: ['not a uri'] }), p.orgOwnerToken),
      encoding,
      3,
      /^invalid AddOIDCAppRequest\.RedirectUris\[?.*is not an absolute URI/,
    );
    expectError(
      await call(calls.addOidcApp(projectId, { grantTypes: ['OIDC_GRANT_TYPE_DEVICE_CODE'] }), p.orgOwnerToken),
      encoding,
      3,
      /^invalid AddOIDCAppRequest\.GrantTypes: /,
    );
    expectError(
      await call(calls.addOidcApp(projectId, { authMethodType: 7 }), p.orgOwnerToken),
      encoding,
      3,
      'invalid AddOIDCAppRequest.AuthMethodType: value must be one of the defined enum values',
    );
    expectError(
      await call(calls.addOidcApp('404404'), p.orgOwnerToken),
      encoding,
      5,
      'Project not found (PROJECT-ggr9s)',
    );
    // a project of another org is not found in the caller's org, and the ORG_OWNER may not act in that org
    const { id: otherProject } = await ok(p.server, encoding, calls.addProject(), p.adminToken, p.otherOrgId);
    expectError(await call(calls.addOidcApp(otherProject), p.orgOwnerToken), encoding, 5);
    expectError(await call(calls.addOidcApp(otherProject), p.orgOwnerToken, p.otherOrgId), encoding, 7);
    expect(
      (await ok(p.server, encoding, calls.addOidcApp(otherProject), p.adminToken, p.otherOrgId)).appId,
    ).toBeTruthy();
    expect(
      (await db().query('SELECT count(*)::int AS n FROM apps WHERE project_id = $1', [projectId])).rows[0]!.n,
    ).toBe(0);
  });

  it('AddAPIApp: basic gets a secret, private_key_jwt none; GetAppByID shows apiConfig', async () => {
    const { id: projectId } = await ok(p.server, encoding, calls.addProject(), p.orgOwnerToken);
    const basic = await ok(p.server, encoding, calls.addApiApp(projectId), p.orgOwnerToken);
    expect(Object.keys(basic).sort()).toEqual(['appId', 'clientId', 'clientSecret', 'details']);
    expectCreatedDetails(basic.details, p.firstOrgId);
    const jwt = await ok(
      p.server,
      encoding,
      calls.addApiApp(projectId, { authMethodType: 'API_AUTH_METHOD_TYPE_PRIVATE_KEY_JWT' }),
      p.orgOwnerToken,
    );
    expect(jwt.clientSecret).toBeUndefined();
    const read = await ok(p.server, encoding, calls.getApp(projectId, jwt.appId), p.orgOwnerToken);
    expect(read.app.apiConfig).toEqual({
      clientId: jwt.clientId,
      authMethodType: 'API_AUTH_METHOD_TYPE_PRIVATE_KEY_JWT',
    });
    expectError(
      await call(calls.addApiApp(projectId, { name: '' }), p.orgOwnerToken),
      encoding,
      3,
      'invalid AddAPIAppRequest.Name: value length must be between 1 and 200 runes, inclusive',
    );
    expectError(await call(calls.addApiApp('404404'), p.orgOwnerToken), encoding, 5);
    expectError(await call(calls.addApiApp(projectId), p.orgOwnerToken, p.otherOrgId), encoding, 7);
  });

  it("GetAppByID: 404 for unknown ids, another project's path or another org; 403 for another org's owner", async () => {
    const { id: projectId } = await ok(p.server, encoding, calls.addProject(), p.orgOwnerToken);
    const { id: secondProject } = await ok(p.server, encoding, calls.addProject(), p.orgOwnerToken);
    const { appId } = await ok(p.server, encoding, calls.addOidcApp(projectId), p.orgOwnerToken);
    expectError(
      await call(calls.getApp(projectId, '404404'), p.orgOwnerToken),
      encoding,
      5,
      'App not found (APP-D5gs2)',
    );
    expectError(
      await call(calls.getApp(secondProject, appId), p.orgOwnerToken),
      encoding,
      5,
      'App not found (APP-D5gs2)',
    );
    expectError(await call(calls.getApp(projectId, appId), p.adminToken, p.otherOrgId), encoding, 5);
    expectError(await call(calls.getApp(projectId, appId), p.orgOwnerToken, p.otherOrgId), encoding, 7);
  });

  it('UpdateOIDCAppConfig replaces the configuration with changed Details; validation; 404; 403', async () => {
    const { id: projectId } = await ok(p.server, encoding, calls.addProject(), p.orgOwnerToken);
    const { appId } = await ok(p.server, encoding, calls.addOidcApp(projectId), p.orgOwnerToken);
    const updated = await ok(
      p.server,
      encoding,
      calls.updateOidcConfig(projectId, appId, { devMode: true }),
      p.orgOwnerToken,
    );
    expect(Object.keys(updated)).toEqual(['details']);
    expectChangedDetails(updated.details, p.firstOrgId);
    const read = await ok(p.server, encoding, calls.getApp(projectId, appId), p.orgOwnerToken);
    expect(read.app.oidcConfig).toMatchObject({ redirectUris: ['https://rp.example.com/other'], devMode: true });
    expect(read.app.details.sequence).toBe(updated.details.sequence);
    expectError(
      await call(calls.updateOidcConfig(projectId, appId, { redirectUris: ['https://x/#frag'] }), p.orgOwnerToken),
      encoding,
      3,
      /^invalid UpdateOIDCAppConfigRequest\.RedirectUris: /,
    );
    expectError(await call(calls.updateOidcConfig(projectId, '404404'), p.orgOwnerToken), encoding, 5);
    expectError(await call(calls.updateOidcConfig(projectId, appId), p.orgOwnerToken, p.otherOrgId), encoding, 7);
  });

  it('AddAppKey returns the application key file; only the public key is stored', async () => {
    const { id: projectId } = await ok(p.server, encoding, calls.addProject(), p.orgOwnerToken);
    const app = await ok(
      p.server,
      encoding,
      calls.addApiApp(projectId, { authMethodType: 'API_AUTH_METHOD_TYPE_PRIVATE_KEY_JWT' }),
      p.orgOwnerToken,
    );
    const expirationDate = new Date(Date.now() + 86_400_000).toISOString();
    const key = await ok(
      p.server,
      encoding,
      calls.addAppKey(projectId, app.appId, { expirationDate }),
      p.orgOwnerToken,
    );
    expect(Object.keys(key).sort()).toEqual(['details', 'id', 'keyDetails']);
    expectCreatedDetails(key.details, p.firstOrgId);
    const file = decodeKeyDetails(key.keyDetails);
    expect(file).toMatchObject({ type: 'application', keyId: key.id, appId: app.appId, clientId: app.clientId });
    expect(file.key).toMatch(/^-----BEGIN RSA PRIVATE KEY-----/);
    const stored = (
      await db().query<{ public_jwk: { d?: string; n?: string }; expires_at: Date }>(
        'SELECT public_jwk, expires_at FROM app_keys WHERE id = $1',
        [key.id],
      )
    ).rows[0]!;
    expect(stored.public_jwk.d).toBeUndefined();
    expect(stored.public_jwk.n).toBe(createPublicKey(file.key!).export({ format: 'jwk' }).n);
    expect(stored.expires_at.toISOString()).toBe(expirationDate);
    expectError(
      await call(calls.addAppKey(projectId, app.appId, { type: 'KEY_TYPE_UNSPECIFIED' }), p.orgOwnerToken),
      encoding,
      3,
      /^invalid AddAppKeyRequest\.Type: /,
    );
    expectError(
      await call(calls.addAppKey(projectId, app.appId, { expirationDate: '2001-01-01T00:00:00Z' }), p.orgOwnerToken),
      encoding,
      3,
      /ExpirationDate/,
    );
    expectError(await call(calls.addAppKey(projectId, '404404'), p.orgOwnerToken), encoding, 5);
    expectError(await call(calls.addAppKey(projectId, app.appId), p.orgOwnerToken, p.otherOrgId), encoding, 7);
  });
});
