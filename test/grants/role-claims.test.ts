// Roles and org claims in tokens, with openid-client as the relying party: the role claims by scope and by
// projectRoleAssertion, in userinfo, introspection, the ID token (idTokenRoleAssertion) and JWT access tokens
// (accessTokenRoleAssertion), read at request time; metadata; the org scopes; projectRoleCheck and hasProjectCheck.
import { decodeJwt } from 'jose';
import * as client from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import {
  Browser,
  CALLBACK,
  createApiApp,
  createOidcApp,
  basic,
  createMachine,
  createOrg,
  defaultOrgId,
  postForm,
  rpConfig,
  type TestApp,
} from '../helpers/oidc.ts';
import { addProjectRoles, removeProjectRole } from '../../src/projects/roles.ts';
import { updateProject } from '../../src/projects/service.ts';
import { addUserGrant, setUserGrantState, updateUserGrant } from '../../src/grants/service.ts';
import { setUserMetadata } from '../../src/metadata/service.ts';
import { addProjectGrant } from '../../src/grants/project-grants.ts';
import { setUpOrg } from '../../src/instance/set-up-org.ts';

const ROLES = 'urn:zitadel:iam:org:project:roles';

describe('roles and org claims in tokens', () => {
  let server: TestServer;
  let orgId: string;
  let adminId: string;
  let domain: string;
  beforeAll(async () => {
    server = await startTestServer();
    orgId = await defaultOrgId(server);
    const { rows } = await server.db.query<{ id: string; primary_domain: string }>(
      "SELECT u.id, o.primary_domain FROM users u JOIN orgs o ON o.id = u.org_id WHERE u.user_name = 'admin'",
    );
    adminId = rows[0]!.id;
    domain = rows[0]!.primary_domain;
  });
  afterAll(async () => server?.stop());

  /** An app whose project has the roles reader and writer; the admin holds reader. */
  async function appWithGrant(config: Parameters<typeof createOidcApp>[1] = {}) {
    const app = await createOidcApp(server, { authMethod: 'basic', ...config });
    const ref = { orgId, projectId: app.projectId };
    const roles = [
      { key: 'reader', displayName: 'Reader' },
      { key: 'writer', displayName: 'Writer' },
    ];
    await addProjectRoles(server.db, ref, { roles }, 'BulkAddProjectRolesRequest', 'test');
    const { grantId } = await addUserGrant(
      server.db,
      { orgId, userId: adminId, projectId: app.projectId, roleKeys: ['reader'] },
      'test',
    );
    return { app, ref, grantId };
  }

  async function signIn(app: TestApp, scope: string, loginName = 'admin', password?: string) {
    const config = await rpConfig(server, app.clientId, client.ClientSecretBasic(app.clientSecret!));
    const verifier = client.randomPKCECodeVerifier();
    const url = client.buildAuthorizationUrl(config, {
      redirect_uri: CALLBACK,
      scope,
      code_challenge: await client.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
    });
    const callback = await new Browser(server).authorize(url, loginName, password);
    const tokens = await client.authorizationCodeGrant(config, callback, { pkceCodeVerifier: verifier });
    return { config, tokens };
  }

  it('a role scope returns the granted role in userinfo, shaped {roleKey: {orgId: domain}}, read at request time', async () => {
    const { app, grantId } = await appWithGrant();
    const { config, tokens } = await signIn(app, 'openid urn:zitadel:iam:org:project:role:reader');
    const sub = tokens.claims()!.sub;
    const expected = { reader: { [orgId]: domain } };
    let info = await client.fetchUserInfo(config, tokens.access_token, sub);
    expect(info[ROLES]).toEqual(expected);
    expect(info[`urn:zitadel:iam:org:project:${app.projectId}:roles`]).toEqual(expected);
    expect(tokens.claims()![ROLES]).toBeUndefined(); // no idTokenRoleAssertion
    // only granted keys asked for come back; a changed grant shows in the next answer for the same token
    await updateUserGrant(server.db, { orgId, userId: adminId, grantId }, { roleKeys: ['writer'] }, 'test');
    info = await client.fetchUserInfo(config, tokens.access_token, sub);
    expect(info[ROLES]).toBeUndefined();
    await updateUserGrant(server.db, { orgId, userId: adminId, grantId }, { roleKeys: ['reader', 'writer'] }, 'test');
    info = await client.fetchUserInfo(config, tokens.access_token, sub);
    expect(info[ROLES]).toEqual(expected);
    await setUserGrantState(server.db, { orgId, userId: adminId, grantId }, 'inactive', 'test');
    info = await client.fetchUserInfo(config, tokens.access_token, sub);
    expect(info[ROLES]).toBeUndefined();
  });

  it('urn:zitadel:iam:org:projects:roles returns every role of the grant; removing a role takes it out', async () => {
    const { app, ref } = await appWithGrant();
    const { config, tokens } = await signIn(app, 'openid urn:zitadel:iam:org:projects:roles');
    const sub = tokens.claims()!.sub;
    const { grantId } = (
      await server.db.query<{ id: string }>('SELECT id AS "grantId" FROM user_grants WHERE project_id = $1', [
        app.projectId,
      ])
    ).rows[0] as unknown as { grantId: string };
    await updateUserGrant(server.db, { orgId, userId: adminId, grantId }, { roleKeys: ['reader', 'writer'] }, 'test');
    let info = await client.fetchUserInfo(config, tokens.access_token, sub);
    expect(Object.keys(info[ROLES] as object).sort()).toEqual(['reader', 'writer']);
    await removeProjectRole(server.db, ref, 'writer', 'test');
    info = await client.fetchUserInfo(config, tokens.access_token, sub);
    expect(Object.keys(info[ROLES] as object)).toEqual(['reader']);
  });

  it('projectRoleAssertion: roles without a role scope; introspection answers the caller project roles', async () => {
    const { app, ref } = await appWithGrant();
    const { config, tokens } = await signIn(app, 'openid');
    const sub = tokens.claims()!.sub;
    expect((await client.fetchUserInfo(config, tokens.access_token, sub))[ROLES]).toBeUndefined();
    const api = await createApiApp(server, app.projectId);
    const apiConfig = await rpConfig(server, api.clientId, client.ClientSecretBasic(api.clientSecret!));
    expect((await client.tokenIntrospection(apiConfig, tokens.access_token))[ROLES]).toBeUndefined();
    await updateProject(
      server.db,
      ref,
      { name: `p-${app.projectId}`, projectRoleAssertion: true, projectRoleCheck: false, hasProjectCheck: false },
      'test',
    );
    expect((await client.fetchUserInfo(config, tokens.access_token, sub))[ROLES]).toEqual({
      reader: { [orgId]: domain },
    });
    const introspected = await client.tokenIntrospection(apiConfig, tokens.access_token);
    expect(introspected.active).toBe(true);
    expect(introspected[ROLES]).toEqual({ reader: { [orgId]: domain } });
  });

  it('idTokenRoleAssertion puts the roles in the ID token; accessTokenRoleAssertion in a JWT access token', async () => {
    const { app } = await appWithGrant({
      idTokenRoleAssertion: true,
      accessTokenRoleAssertion: true,
      accessTokenType: 'jwt',
    });
    const { tokens } = await signIn(app, 'openid urn:zitadel:iam:org:projects:roles');
    expect(tokens.claims()![ROLES]).toEqual({ reader: { [orgId]: domain } });
    expect(decodeJwt(tokens.access_token)[ROLES]).toEqual({ reader: { [orgId]: domain } });
    const plain = (await appWithGrant({ accessTokenType: 'jwt' })).app;
    const other = await signIn(plain, 'openid urn:zitadel:iam:org:projects:roles');
    expect(other.tokens.claims()![ROLES]).toBeUndefined();
    expect(decodeJwt(other.tokens.access_token)[ROLES]).toBeUndefined();
  });

  it('the fast paths: no query for roles or metadata unless the scopes or projectRoleAssertion ask for them', async () => {
    const { app } = await appWithGrant();
    const api = await createApiApp(server, app.projectId);
    const plain = (await signIn(app, 'openid profile')).tokens.access_token;
    const asked = (await signIn(app, 'openid urn:zitadel:iam:org:projects:roles urn:zitadel:iam:user:metadata')).tokens
      .access_token;
    const queriesOf = async (request: () => Promise<Response>) => {
      const counts: number[] = [];
      for (let i = 0; i < 3; i++) {
        const before = server.db.stats.queries;
        expect((await request()).status).toBe(200);
        counts.push(server.db.stats.queries - before);
      }
      return Math.min(...counts); // a background job (key reload, sweep) cannot count
    };
    const userinfo = (token: string) => () =>
      fetch(`${server.url}/oidc/v1/userinfo`, { headers: { authorization: `Bearer ${token}` } });
    const introspect = (token: string) => () =>
      fetch(`${server.url}/oauth/v2/introspect`, {
        method: 'POST',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          authorization: `Basic ${Buffer.from(`${api.clientId}:${api.clientSecret}`).toString('base64')}`,
        },
        body: new URLSearchParams({ token }),
      });
    expect(await queriesOf(userinfo(plain))).toBe(1);
    expect(await queriesOf(introspect(plain))).toBe(1);
    expect(await queriesOf(userinfo(asked))).toBe(3); // the token, the grants, the metadata
    expect(await queriesOf(introspect(asked))).toBe(3);
  });

  it('urn:zitadel:iam:user:metadata returns the metadata, base64url encoded', async () => {
    const app = await createOidcApp(server, { authMethod: 'basic' });
    await setUserMetadata(
      server.db,
      { orgId, userId: adminId },
      { metadata: [{ key: 'team', value: new TextEncoder().encode('blue?>') }] },
      'SetUserMetadataRequest',
      'test',
    );
    const { config, tokens } = await signIn(app, 'openid urn:zitadel:iam:user:metadata');
    const info = await client.fetchUserInfo(config, tokens.access_token, tokens.claims()!.sub);
    expect(info['urn:zitadel:iam:user:metadata']).toEqual({ team: Buffer.from('blue?>').toString('base64url') });
    expect(tokens.claims()!['urn:zitadel:iam:user:metadata']).toEqual({
      team: Buffer.from('blue?>').toString('base64url'),
    });
  });

  it('an org ID scope of the user adds the org claims; of another org it refuses with access_denied', async () => {
    const app = await createOidcApp(server, { authMethod: 'basic' });
    const { config, tokens } = await signIn(app, `openid urn:zitadel:iam:org:id:${orgId}`);
    const info = await client.fetchUserInfo(config, tokens.access_token, tokens.claims()!.sub);
    expect(info['urn:zitadel:iam:org:id']).toBe(orgId);
    expect(info['urn:zitadel:iam:user:resourceowner:id']).toBe(orgId);
    expect(info['urn:zitadel:iam:user:resourceowner:primary_domain']).toBe(domain);
    const otherOrg = await createOrg(server);
    await expect(signIn(app, `openid urn:zitadel:iam:org:id:${otherOrg}`)).rejects.toThrow(
      /access_denied|login did not/,
    );
  });

  it('a project grant: hasProjectCheck admits the granted org users, whose roles name the granted org', async () => {
    const userName = `partner-${Date.now()}`;
    const partner = await setUpOrg(
      server.db,
      server.config.instanceDomain,
      {
        org: { name: `Partner ${Date.now()}`, domain: '' },
        human: {
          userName,
          profile: {
            firstName: 'P',
            lastName: 'Artner',
            nickName: '',
            displayName: '',
            preferredLanguage: '',
            gender: 'GENDER_UNSPECIFIED',
          },
          email: 'partner@example.com',
          emailVerified: true,
          phone: null,
          phoneVerified: false,
          password: 'Partner-Password-1',
        },
        roles: [],
      },
      'test',
    );
    const { rows } = await server.db.query<{ primary_domain: string }>(
      'SELECT primary_domain FROM orgs WHERE id = $1',
      [partner.orgId],
    );
    const { app, ref } = await appWithGrant({ idTokenRoleAssertion: true });
    await updateProject(
      server.db,
      ref,
      { name: `p-${app.projectId}`, projectRoleAssertion: false, projectRoleCheck: false, hasProjectCheck: true },
      'test',
    );
    const scope = 'openid urn:zitadel:iam:org:projects:roles';
    await expect(signIn(app, scope, userName, 'Partner-Password-1')).rejects.toThrow(/login did not redirect: 403/);
    const { grantId } = await addProjectGrant(
      server.db,
      { orgId, projectId: app.projectId, grantedOrgId: partner.orgId, roleKeys: ['reader'] },
      'test',
    );
    await addUserGrant(
      server.db,
      {
        orgId: partner.orgId,
        userId: partner.userId,
        projectId: app.projectId,
        projectGrantId: grantId,
        roleKeys: ['reader'],
      },
      'test',
    );
    const { tokens } = await signIn(app, scope, userName, 'Partner-Password-1');
    expect(tokens.claims()![ROLES]).toEqual({ reader: { [partner.orgId]: rows[0]!.primary_domain } });
  });

  it('a machine token never claims an org its user does not belong to', async () => {
    const machine = await createMachine(server);
    const other = await createOrg(server);
    const claimsOf = async (org: string) => {
      const token = await postForm(
        `${server.url}/oauth/v2/token`,
        { grant_type: 'client_credentials', scope: `openid urn:zitadel:iam:org:id:${org}` },
        { authorization: basic(machine.userName, machine.clientSecret) },
      );
      const info = await fetch(`${server.url}/oidc/v1/userinfo`, {
        headers: { authorization: `Bearer ${token.json.access_token}` },
      });
      return (await info.json()) as Record<string, unknown>;
    };
    expect((await claimsOf(other))['urn:zitadel:iam:org:id']).toBeUndefined();
    expect((await claimsOf(orgId))['urn:zitadel:iam:org:id']).toBe(orgId);
  });
});
