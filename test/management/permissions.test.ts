// The permission kinds of the auth layer, as ZITADEL's v1 API has them, with real tokens from the running server: `org`
// permissions act on the caller's org or the one named by x-zitadel-orgid; an unknown org is 403.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAuthorizer, type RequestCredentials } from '../../src/management/auth.ts';
import type { Authorize } from '../../src/management/invoke.ts';
import { setUpOrg } from '../../src/instance/set-up-org.ts';
import type { AppError } from '../../src/platform/errors.ts';
import { inId, type Permission } from '../../src/management/operation.ts';
import { addProject } from '../../src/projects/service.ts';
import { insertMembership } from '../../src/members/queries.ts';
import { createMachine } from '../helpers/oidc.ts';
import { isPostgres } from '../helpers/postgres.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { defaultOrgId } from '../helpers/oidc.ts';
import { jwtProfileToken, orgOwnerMachine, startServerWithAdminKey } from '../helpers/tokens.ts';

const ORG_OWNER: Permission = { kind: 'org', role: 'ORG_OWNER' };
const PROJECT_WRITE: Permission = { kind: 'project', role: 'ORG_OWNER', access: 'write', projectOf: inId };

describe('permissions', () => {
  let server: TestServer;
  let authorize: Authorize<RequestCredentials>;
  let admin: string;
  let orgOwner: string;
  let ownOrg: string;
  let otherOrg: string;

  const outcome = (permission: Permission, token: string, orgIdHeader?: string) =>
    authorize(permission, { authorization: `Bearer ${token}`, orgIdHeader }, () => {
      throw new Error('not read');
    }).then(
      (caller) => ({ orgId: caller.orgId }),
      (error: AppError) => ({ code: error.code }),
    );

  beforeAll(async () => {
    const started = await startServerWithAdminKey();
    server = started.server;
    admin = started.adminToken;
    authorize = createAuthorizer(server.db, (token, orgId) => server.app.oidc.verifyBearer(token, orgId));
    ownOrg = await defaultOrgId(server);
    orgOwner = await jwtProfileToken(server, (await orgOwnerMachine(server)).keyFile);
    otherOrg = (
      await setUpOrg(
        server.db,
        'example.test',
        {
          org: { name: 'Other', domain: '' },
          human: {
            userName: 'other-owner',
            profile: {
              firstName: 'O',
              lastName: 'O',
              nickName: '',
              displayName: '',
              preferredLanguage: '',
              gender: 'GENDER_UNSPECIFIED',
            },
            email: 'o@example.test',
            emailVerified: false,
            phone: null,
            phoneVerified: false,
            password: '',
          },
          roles: [],
        },
        'test',
      )
    ).orgId;
  });
  afterAll(async () => server?.stop());

  it('an ORG_OWNER acts on its own org, by default or by header, and nowhere else', async () => {
    expect(await outcome(ORG_OWNER, orgOwner)).toEqual({ orgId: ownOrg });
    expect(await outcome(ORG_OWNER, orgOwner, ownOrg)).toEqual({ orgId: ownOrg });
    expect(await outcome(ORG_OWNER, orgOwner, otherOrg)).toEqual({ code: 7 });
    expect(await outcome(ORG_OWNER, orgOwner, '999999')).toEqual({ code: 7 });
    expect(await outcome({ kind: 'org', role: 'ORG_USER_MANAGER' }, orgOwner)).toEqual({ code: 7 });
  });

  it('IAM_OWNER acts on every existing org; an unknown org is 403', async () => {
    expect(await outcome(ORG_OWNER, admin, otherOrg)).toEqual({ orgId: otherOrg });
    expect(await outcome(ORG_OWNER, admin, '999999')).toEqual({ code: 7 });
    expect(await outcome({ kind: 'instance', role: 'IAM_OWNER' }, admin)).toEqual({ orgId: ownOrg });
    expect(await outcome({ kind: 'instance', role: 'IAM_OWNER' }, orgOwner)).toEqual({ code: 7 });
  });

  it('a project permission costs an ORG_OWNER the statements of an org permission; a project member no more', async () => {
    const { projectId } = await addProject(server.db, { orgId: ownOrg, name: 'Counted' }, 'test');
    const member = await createMachine(server);
    await insertMembership(server.db, {
      userId: member.userId,
      resourceType: 'project',
      resourceId: projectId,
      roles: ['PROJECT_OWNER'],
    });
    const memberToken = await jwtProfileToken(server, member.keyFile);
    const check = (permission: Permission, token: string) =>
      authorize(
        permission,
        { authorization: `Bearer ${token}`, orgIdHeader: undefined },
        () => ({ id: projectId }) as never,
      );
    /** The fewest statements of three checks (a background job of the server may add one to a single run). */
    const statements = async (permission: Permission, token: string) => {
      const counts: number[] = [];
      for (let i = 0; i < 3; i++) {
        const before = server.db.stats.queries;
        await check(permission, token);
        counts.push(server.db.stats.queries - before);
      }
      return Math.min(...counts);
    };
    const orgPath = await statements(ORG_OWNER, orgOwner);
    expect(await statements(PROJECT_WRITE, orgOwner)).toBe(orgPath);
    expect(await statements(PROJECT_WRITE, memberToken)).toBeLessThanOrEqual(orgPath);
    const caller = await check(PROJECT_WRITE, memberToken);
    expect([caller.orgId, [...(caller.projectIds ?? [])]]).toEqual([ownOrg, [projectId]]);
  });
  // The bearer check reads the token, the roles and the org with every call (oidc/queries.ts BEARER_SQL): nothing
  // is kept by a node, so a change made through one node holds on the next call to another.
  it.runIf(isPostgres)(
    'a removed membership is 403 and a deactivated caller 401 on the next call to another node',
    async () => {
      const second: TestServer = await startTestServer({ database: server.database });
      try {
        const caller = await orgOwnerMachine(server);
        const token = await jwtProfileToken(server, caller.keyFile);
        const getUser = async (node: TestServer) =>
          (
            await fetch(`${node.url}/management/v1/users/${caller.userId}`, {
              headers: { authorization: `Bearer ${token}`, 'x-zitadel-orgid': ownOrg },
            })
          ).status;
        const asAdmin = (path: string, method: string) =>
          fetch(`${server.url}${path}`, {
            method,
            headers: { authorization: `Bearer ${admin}`, 'content-type': 'application/json' },
            body: '{}',
          }).then((res) => res.status);
        expect(await getUser(second)).toBe(200);
        expect(await asAdmin(`/management/v1/orgs/me/members/${caller.userId}`, 'DELETE')).toBe(200);
        expect(await getUser(second)).toBe(403);
        expect(await asAdmin(`/management/v1/users/${caller.userId}/_deactivate`, 'POST')).toBe(200);
        expect(await getUser(second)).toBe(401);
      } finally {
        await second.stop();
      }
    },
  );

  it('authentication comes first: a bad token is 401 whatever the header names', async () => {
    expect(await outcome(ORG_OWNER, 'nope', '999999')).toEqual({ code: 16 });
    expect(await outcome({ kind: 'authenticated' }, orgOwner, '999999')).toEqual({ orgId: ownOrg });
  });
});
