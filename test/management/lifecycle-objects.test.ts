// Apps, members, orgs and history on the management API over REST, gRPC and gRPC-Web: ZITADEL's shapes,
// FAILED_PRECONDITION for a change that changes nothing, 404 for ids of other orgs, the last IAM_OWNER kept, the
// history read from the event log.
import { expect, it } from 'vitest';
import { lifecycle } from '../helpers/lifecycle.ts';
import {
  calls,
  describeEachEncoding,
  expectChangedDetails,
  expectCreatedDetails,
  expectError,
  unique,
  type ApiAnswer,
} from '../helpers/provisioning.ts';

describeEachEncoding('lifecycle: apps, members, orgs, history', ({ encoding, p, call, okCall }) => {
  type List = { details: Record<string, string>; result?: ApiAnswer[]; roles?: string[] };

  it('ListApps, UpdateApp, UpdateAPIAppConfig, app state, secrets, keys and RemoveApp', async () => {
    const { id: projectId } = await okCall(calls.addProject());
    const web = await okCall(calls.addOidcApp(projectId, { name: 'web-app' }));
    const api = await okCall(calls.addApiApp(projectId, { name: 'api-app' }));
    const listed = await okCall<List>(lifecycle.listApps(projectId, { query: { limit: 10 } }));
    expect(listed.result!.map((a) => a.id)).toEqual([web.appId, api.appId]);
    expect(listed.details.totalResult).toBe('2');
    const named = await okCall<List>(
      lifecycle.listApps(projectId, {
        queries: [{ nameQuery: { name: 'API', method: 'TEXT_QUERY_METHOD_STARTS_WITH_IGNORE_CASE' } }],
      }),
    );
    expect(named.result!.map((a) => a.name)).toEqual(['api-app']);
    expectError(await call(lifecycle.listApps(projectId), p.adminToken, p.otherOrgId), encoding, 5);

    expectChangedDetails((await okCall(lifecycle.updateApp(projectId, web.appId, 'renamed'))).details, p.firstOrgId);
    expectError(
      await call(lifecycle.updateApp(projectId, web.appId, 'renamed')),
      encoding,
      9,
      'No changes (COMMAND-2m8vx)',
    );
    expectError(
      await call(lifecycle.updateApp(projectId, web.appId, '')),
      encoding,
      3,
      'invalid UpdateAppRequest.Name: value length must be between 1 and 200 runes, inclusive',
    );
    expectError(
      await call(calls.updateOidcConfig(projectId, web.appId, { redirectUris: ['https://rp.example.com/callback'] })),
      encoding,
      9,
      'No changes (COMMAND-1m88i)',
    );

    await okCall(lifecycle.updateApiConfig(projectId, api.appId, 'API_AUTH_METHOD_TYPE_PRIVATE_KEY_JWT'));
    const app = async (id: string) => (await okCall(calls.getApp(projectId, id))).app as ApiAnswer;
    expect((await app(api.appId)).apiConfig).toMatchObject({
      authMethodType: 'API_AUTH_METHOD_TYPE_PRIVATE_KEY_JWT',
    });
    expectError(await call(lifecycle.regenerateSecret(projectId, api.appId, 'api')), encoding, 9);
    const key = await okCall(calls.addAppKey(projectId, api.appId));
    const keys = await okCall<List>(lifecycle.listAppKeys(projectId, api.appId));
    expect(keys.result!.map((k) => k.id)).toEqual([key.id]);
    await okCall(lifecycle.removeAppKey(projectId, api.appId, key.id as string));
    expect((await okCall<List>(lifecycle.listAppKeys(projectId, api.appId))).result).toBe(undefined);
    expectError(await call(lifecycle.removeAppKey(projectId, api.appId, key.id as string)), encoding, 5);
    await okCall(lifecycle.updateApiConfig(projectId, api.appId, 'API_AUTH_METHOD_TYPE_BASIC'));
    const secret = await okCall(lifecycle.regenerateSecret(projectId, api.appId, 'api'));
    expect(secret.clientSecret).toMatch(/^.{32,}$/);
    const oidcSecret = await okCall(lifecycle.regenerateSecret(projectId, web.appId, 'oidc'));
    expect(oidcSecret.clientSecret).not.toBe(secret.clientSecret);
    // the wrong kind of app is INVALID_ARGUMENT, as ZITADEL's ChangeOIDCApplicationSecret answers it
    expectError(
      await call(lifecycle.regenerateSecret(projectId, api.appId, 'oidc')),
      encoding,
      3,
      'App is not an OIDC app (COMMAND-Ghrh3)',
    );

    await okCall(lifecycle.appState(projectId, web.appId, 'deactivate'));
    expect((await app(web.appId)).state).toBe('APP_STATE_INACTIVE');
    expectError(
      await call(lifecycle.appState(projectId, web.appId, 'deactivate')),
      encoding,
      9,
      'App is not active (COMMAND-dsh35)',
    );
    await okCall(lifecycle.appState(projectId, web.appId, 'reactivate'));
    expectError(
      await call(lifecycle.appState(projectId, web.appId, 'reactivate')),
      encoding,
      9,
      'App is not inactive (COMMAND-1n8cM)',
    );
    expectError(await call(lifecycle.removeApp(projectId, web.appId), p.adminToken, p.otherOrgId), encoding, 5);
    await okCall(lifecycle.removeApp(projectId, web.appId));
    expectError(await call(calls.getApp(projectId, web.appId)), encoding, 5, 'App not found (APP-D5gs2)');
  });

  it('org and project members: list, add, update, remove, roles; 404 and 400 as ZITADEL', async () => {
    const { userId } = await okCall(calls.addMachineUser());
    expectCreatedDetails((await okCall(lifecycle.addOrgMember(userId, ['ORG_USER_MANAGER']))).details, p.firstOrgId);
    expectError(
      await call(lifecycle.addOrgMember(userId, ['ORG_OWNER'])),
      encoding,
      6,
      'Member already exists (ORG-poWwe)',
    );
    expectError(
      await call(lifecycle.addOrgMember(userId, ['IAM_OWNER'])),
      encoding,
      3,
      'invalid AddOrgMemberRequest.Roles: unknown role "IAM_OWNER" (IAM-4m9Fs)',
    );
    const members = await okCall<List>(lifecycle.listOrgMembers({ queries: [{ userIdQuery: { userId } }] }));
    expect(members.result).toEqual([
      expect.objectContaining({ userId, roles: ['ORG_USER_MANAGER'], userType: 'TYPE_MACHINE' }),
    ]);
    expect(members.result![0]!.preferredLoginName).toMatch(/@/);
    await okCall(lifecycle.updateOrgMember(userId, ['ORG_OWNER', 'ORG_USER_MANAGER']));
    expectError(
      await call(lifecycle.updateOrgMember(userId, ['ORG_USER_MANAGER', 'ORG_OWNER'])),
      encoding,
      9,
      'Member roles not changed (Org-LiaZi)',
    );
    await okCall(lifecycle.removeOrgMember(userId));
    expectError(await call(lifecycle.removeOrgMember(userId)), encoding, 5, 'Member not found (Org-D8JxR)');
    expect((await okCall<List>(lifecycle.listOrgMemberRoles())).result).toContain('ORG_OWNER');

    const { id: projectId } = await okCall(calls.addProject());
    await okCall(lifecycle.addProjectMember(projectId, userId, ['PROJECT_OWNER']));
    expect((await okCall<List>(lifecycle.listProjectMembers(projectId))).result!.map((m) => m.userId)).toEqual([
      userId,
    ]);
    expectError(await call(lifecycle.listProjectMembers(projectId), p.adminToken, p.otherOrgId), encoding, 5);
    // a user that does not exist is a precondition of the command (FAILED_PRECONDITION), as in ZITADEL
    expectError(
      await call(lifecycle.addProjectMember(projectId, '404404', ['PROJECT_OWNER'])),
      encoding,
      9,
      'User could not be found (COMMAND-uXHNj)',
    );
    await okCall(lifecycle.removeProjectMember(projectId, userId));
    expect((await okCall<List>(lifecycle.listProjectMemberRoles())).result).toContain('PROJECT_OWNER_VIEWER');
  });

  it('IAM members: the last IAM_OWNER can be neither demoted nor removed, nor removed as a user', async () => {
    const iam = await okCall<List>(lifecycle.listIamMembers(), p.adminToken);
    const owners = iam.result!.filter((m) => (m.roles as string[]).includes('IAM_OWNER'));
    expect(owners.length).toBeGreaterThan(0);
    expect((await okCall<List>(lifecycle.listIamMemberRoles(), p.adminToken)).roles).toContain('IAM_OWNER');
    expectError(await call(lifecycle.listIamMembers()), encoding, 7);
    // with every other owner gone, the admin service account is the last one
    const { userId } = await okCall(calls.addMachineUser(), p.adminToken);
    await okCall(calls.addIamMember(userId, ['IAM_OWNER']), p.adminToken);
    await okCall(lifecycle.updateIamMember(userId, ['IAM_OWNER_VIEWER']), p.adminToken);
    await okCall(lifecycle.removeIamMember(userId), p.adminToken);
    const db = p.server.db;
    const { rows } = await db.query<{ user_id: string }>(
      "SELECT user_id FROM memberships WHERE resource_type = 'instance' AND 'IAM_OWNER' = ANY(roles)",
    );
    // the admin service account of the first start (GATEHOUSE_ADMIN_KEY_FILE), whose token the calls carry
    const sa = await db.query<{ id: string }>("SELECT id FROM users WHERE user_name = 'admin-sa'");
    const admin = sa.rows[0]!.id;
    const others = rows.map((r) => r.user_id).filter((id) => id !== admin);
    await db.query(
      "UPDATE memberships SET roles = '{IAM_OWNER_VIEWER}' WHERE user_id = ANY($1) AND resource_type = 'instance'",
      [others],
    );
    try {
      const last = 'The last IAM_OWNER cannot be removed or demoted (IAM-L4stOw)';
      expectError(await call(lifecycle.updateIamMember(admin, ['IAM_OWNER_VIEWER']), p.adminToken), encoding, 9, last);
      expectError(await call(lifecycle.removeIamMember(admin), p.adminToken), encoding, 9, last);
      const adminOrg = (await db.query<{ org_id: string }>('SELECT org_id FROM users WHERE id = $1', [admin])).rows[0]!;
      expectError(await call(lifecycle.removeUser(admin), p.adminToken, adminOrg.org_id), encoding, 9, last);
    } finally {
      await db.query(
        "UPDATE memberships SET roles = '{IAM_OWNER}' WHERE user_id = ANY($1) AND resource_type = 'instance'",
        [others],
      );
    }
  });

  it('ListOrgs (IAM_OWNER only) by name and state, sorted; UpdateOrg', async () => {
    const name = unique('Listed Org');
    const { orgId } = await okCall(
      {
        ...calls.getMyOrg(),
        service: calls.addIamMember('x').service,
        method: 'SetUpOrg',
        rest: ['POST', '/admin/v1/orgs/_setup'],
        body: {
          org: { name },
          human: {
            userName: unique('lo'),
            profile: { firstName: 'L', lastName: 'O' },
            email: { email: 'lo@example.com' },
          },
        },
      },
      p.adminToken,
    );
    const byName = await okCall<List>(
      lifecycle.listOrgs({
        queries: [{ nameQuery: { name: name.toLowerCase(), method: 'TEXT_QUERY_METHOD_EQUALS_IGNORE_CASE' } }],
      }),
      p.adminToken,
    );
    expect(byName.result!.map((o) => o.id)).toEqual([orgId]);
    expect(byName.result![0]).toMatchObject({ name, state: 'ORG_STATE_ACTIVE' });
    const sorted = await okCall<List>(
      lifecycle.listOrgs({ sortingColumn: 'ORG_FIELD_NAME_NAME', query: { asc: true, limit: 1000 } }),
      p.adminToken,
    );
    const names = sorted.result!.map((o) => (o.name as string).toLowerCase());
    expect(names).toEqual([...names].sort());
    expect(Number(sorted.details.totalResult)).toBe(sorted.result!.length);
    expectError(await call(lifecycle.listOrgs()), encoding, 7);

    const renamed = unique('Renamed Org');
    expectChangedDetails((await okCall(lifecycle.updateOrg(renamed), p.adminToken, orgId)).details, orgId);
    expect((await okCall(calls.getMyOrg(), p.adminToken, orgId)).org).toMatchObject({ name: renamed });
    expectError(await call(lifecycle.updateOrg(renamed), p.adminToken, orgId), encoding, 9);
    expectError(await call(lifecycle.updateOrg(renamed), p.orgOwnerToken, orgId), encoding, 7);
  });

  it('history: ListUserChanges, ListAppChanges, ListOrgChanges, ListProjectChanges from the event log', async () => {
    const { userId } = await okCall(lifecycle.addHumanUser());
    await okCall(lifecycle.userState(userId, 'lock'));
    await okCall(lifecycle.userState(userId, 'unlock'));
    type Changes = { result: (ApiAnswer & { eventType: { key: string } })[] };
    const changes = await okCall<Changes>(lifecycle.userChanges(userId, { asc: true }));
    expect(changes.result.map((c) => c.eventType.key)).toEqual([
      'EventTypes.user.human.added',
      'EventTypes.user.locked',
      'EventTypes.user.unlocked',
    ]);
    expect(changes.result[0]).toMatchObject({ resourceOwnerId: p.firstOrgId, editorId: expect.any(String) });
    const newestFirst = await okCall<Changes>(lifecycle.userChanges(userId, { limit: 1 }));
    expect(newestFirst.result.map((c) => c.eventType.key)).toEqual(['EventTypes.user.unlocked']);
    const before = await okCall<Changes>(lifecycle.userChanges(userId, { sequence: newestFirst.result[0]!.sequence }));
    expect(before.result.map((c) => c.eventType.key)).toEqual([
      'EventTypes.user.locked',
      'EventTypes.user.human.added',
    ]);
    expectError(await call(lifecycle.userChanges(userId), p.adminToken, p.otherOrgId), encoding, 5);
    expectError(await call(lifecycle.userChanges(userId, { limit: 1001 })), encoding, 3, /Query.Limit/);

    const { id: projectId } = await okCall(calls.addProject());
    const { appId } = await okCall(calls.addOidcApp(projectId));
    await okCall(lifecycle.updateApp(projectId, appId, unique('app')));
    const appChanges = await okCall<Changes>(lifecycle.appChanges(projectId, appId));
    expect(appChanges.result.map((c) => c.eventType.key)).toEqual([
      'EventTypes.project.application.changed',
      'EventTypes.project.application.added',
    ]);
    const projectChanges = await okCall<Changes>(lifecycle.projectChanges(projectId));
    expect(projectChanges.result.at(-1)!.eventType.key).toBe('EventTypes.project.added');
    const orgChanges = await okCall<Changes>(lifecycle.orgChanges());
    expect(orgChanges.result.length).toBeGreaterThan(0);
  });
});
