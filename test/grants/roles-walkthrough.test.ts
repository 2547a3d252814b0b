// The walkthrough of docs/connecting-apps.md ("Roles and grants"), as written: a project with two roles, an app with
// idTokenRoleAssertion, a user granted one role (all over REST), then the code flow reads the role from the ID token.
import { readFileSync } from 'node:fs';
import { ManagementService } from '@zitadel/proto/zitadel/management_pb.js';
import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callRest, okJson } from '../helpers/management.ts';
import { basic, Browser, pkceAuthorization, postForm } from '../helpers/oidc.ts';
import { startServerWithAdminKey } from '../helpers/tokens.ts';
import type { TestServer } from '../helpers/server.ts';

const REDIRECT = 'http://localhost:3000/callback';
const DOC = readFileSync(new URL('../../docs/connecting-apps.md', import.meta.url), 'utf8');
const WALKTHROUGH = DOC.slice(DOC.indexOf('### Walkthrough'));

describe('the roles walkthrough: roles in the ID token', () => {
  let server: TestServer;
  let token: string;
  beforeAll(async () => ({ server, adminToken: token } = await startServerWithAdminKey()));
  afterAll(async () => server?.stop());

  const post = async <T>(method: string, path: string, body: Record<string, unknown>) =>
    okJson<T>(
      await callRest(
        server.url,
        { service: ManagementService, method, rest: ['POST', `/management/v1${path}`], body },
        { token },
      ),
    );

  it('is the walkthrough the documentation shows', () => {
    const steps = [
      `$API/projects -d '{"name":"Library"}'`,
      '/roles/_bulk',
      '{"key":"reader","displayName":"Reader"},{"key":"librarian","displayName":"Librarian"}',
      '/apps/oidc',
      '"redirectUris":["http://localhost:3000/callback"],"devMode":true,"idTokenRoleAssertion":true',
      '/users/human/_import',
      '"userName":"alice"',
      '"password":"Alice-Password-1"',
      '/grants -d',
      '"roleKeys\\":[\\"reader\\"]',
      'scope=openid%20urn:zitadel:iam:org:projects:roles',
    ];
    for (const step of steps) expect(WALKTHROUGH, step).toContain(step);
  });

  it('creates the project, roles, app, user and grant, and the ID token carries the granted role', async () => {
    const { id: projectId } = await post<{ id: string }>('AddProject', '/projects', { name: 'Library' });
    await post('BulkAddProjectRoles', `/projects/${projectId}/roles/_bulk`, {
      roles: [
        { key: 'reader', displayName: 'Reader' },
        { key: 'librarian', displayName: 'Librarian' },
      ],
    });
    const app = await post<{ clientId: string; clientSecret: string }>(
      'AddOIDCApp',
      `/projects/${projectId}/apps/oidc`,
      {
        name: 'library-web',
        redirectUris: [REDIRECT],
        devMode: true,
        idTokenRoleAssertion: true,
      },
    );
    const { userId } = await post<{ userId: string }>('ImportHumanUser', '/users/human/_import', {
      userName: 'alice',
      profile: { firstName: 'Alice', lastName: 'Smith' },
      email: { email: 'alice@example.com', isEmailVerified: true },
      password: 'Alice-Password-1',
    });
    await post('AddUserGrant', `/users/${userId}/grants`, { projectId, roleKeys: ['reader'] });

    const { url, verifier } = await pkceAuthorization(server, app.clientId, {
      redirect_uri: REDIRECT,
      scope: 'openid urn:zitadel:iam:org:projects:roles',
    });
    const callback = await new Browser(server).authorize(url, 'alice', 'Alice-Password-1');
    const tokens = await postForm(
      `${server.url}/oauth/v2/token`,
      {
        grant_type: 'authorization_code',
        code: callback.searchParams.get('code')!,
        redirect_uri: REDIRECT,
        code_verifier: verifier,
      },
      { authorization: basic(app.clientId, app.clientSecret) },
    );
    const claims = decodeJwt(tokens.json.id_token as string);
    const { rows } = await server.db.query<{ org_id: string; primary_domain: string }>(
      "SELECT u.org_id, o.primary_domain FROM users u JOIN orgs o ON o.id = u.org_id WHERE u.user_name = 'alice'",
    );
    const reader = { reader: { [rows[0]!.org_id]: rows[0]!.primary_domain } };
    expect(claims['urn:zitadel:iam:org:project:roles']).toEqual(reader);
    expect(claims[`urn:zitadel:iam:org:project:${projectId}:roles`]).toEqual(reader);
  });
});
