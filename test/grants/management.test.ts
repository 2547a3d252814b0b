// Project roles and grants, and user metadata, on REST, gRPC and gRPC-Web: ZITADEL's paths, shapes and errors (404 for
// another org's ids, 400 naming the field, 409 for duplicates, FAILED_PRECONDITION for an update that changes nothing),
// one transaction per operation.
import { ManagementService } from '@zitadel/proto/zitadel/management_pb.js';
import { AuthService } from '@zitadel/proto/zitadel/auth_pb.js';
import { expect, it } from 'vitest';
import type { ApiCall } from '../helpers/management.ts';
import { humanToken } from '../helpers/tokens.ts';
import {
  calls,
  describeEachEncoding,
  expectChangedDetails,
  expectCreatedDetails,
  expectError,
  unique,
} from '../helpers/provisioning.ts';

const M = ManagementService;
const call = (method: string, rest: [string, string], body: Record<string, unknown> = {}): ApiCall => ({
  service: M,
  method,
  rest,
  body,
});
const P = (id: string) => `/management/v1/projects/${id}`;

describeEachEncoding('project roles, user grants and metadata', ({ encoding, p, call: run, okCall: okay }) => {
  const db = () => p.server.db;

  it('project settings: get, update (nothing changed is FAILED_PRECONDITION), list by name, (de|re)activate', async () => {
    const name = unique('Settings');
    const { id } = await okay(calls.addProject(name));
    const get = call('GetProjectByID', ['GET', P(id)], { id });
    expect((await okay(get)).project).toMatchObject({ id, name, state: 'PROJECT_STATE_ACTIVE' });
    const update = (body: Record<string, unknown>) => call('UpdateProject', ['PUT', P(id)], { id, name, ...body });
    expectError(await run(update({})), encoding, 9, 'Project has not been changed (COMMAND-2M0fs)');
    expectError(await run(update({ name: '' })), encoding, 3, /UpdateProjectRequest\.Name/);
    expectChangedDetails(
      (await okay(update({ projectRoleAssertion: true, projectRoleCheck: true }))).details,
      p.firstOrgId,
    );
    expect((await okay(get)).project).toMatchObject({ projectRoleAssertion: true, projectRoleCheck: true });
    const list = await okay(
      call('ListProjects', ['POST', '/management/v1/projects/_search'], {
        query: { limit: 10 },
        queries: [
          {
            nameQuery: {
              name: name.slice(0, 12).toUpperCase(),
              method: 'TEXT_QUERY_METHOD_STARTS_WITH_IGNORE_CASE',
            },
          },
        ],
      }),
    );
    expect((list.result as { id: string }[]).map((r) => r.id)).toContain(id);
    expect((list.details as Record<string, string>).totalResult).toBeDefined();
    const deactivate = call('DeactivateProject', ['POST', `${P(id)}/_deactivate`], { id });
    expectChangedDetails((await okay(deactivate)).details, p.firstOrgId);
    expectError(await run(deactivate), encoding, 9, 'Project is not active (COMMAND-mki55)');
    expect((await okay(get)).project).toMatchObject({ state: 'PROJECT_STATE_INACTIVE' });
    await okay(call('ReactivateProject', ['POST', `${P(id)}/_reactivate`], { id }));
    // another org's project is not found, not forbidden
    const foreign = await okay(calls.addProject(), p.adminToken, p.otherOrgId);
    expectError(await run(call('GetProjectByID', ['GET', P(foreign.id)], { id: foreign.id })), encoding, 5);
    expectError(await run(call('RemoveProject', ['DELETE', P(foreign.id)], { id: foreign.id })), encoding, 5);
  });

  it('roles: add, bulk add, duplicate 409, list by key, update, remove takes it out of every grant', async () => {
    const { id: projectId } = await okay(calls.addProject());
    const roles = `${P(projectId)}/roles`;
    const add = (roleKey: string) =>
      call('AddProjectRole', ['POST', roles], { projectId, roleKey, displayName: `Role ${roleKey}`, group: 'g' });
    expectCreatedDetails((await okay(add('reader'))).details, p.firstOrgId);
    expectError(await run(add('reader')), encoding, 6, 'Project role already exists (COMMAND-6Rg9W)');
    const bulk = (keys: string[]) =>
      call('BulkAddProjectRoles', ['POST', `${roles}/_bulk`], {
        projectId,
        roles: keys.map((key) => ({ key, displayName: key })),
      });
    expectError(await run(bulk(['a', 'a'])), encoding, 3, /Roles\[1\]\.Key/);
    expectError(await run(bulk(['x', 'reader'])), encoding, 6);
    expect(
      (await db().query('SELECT 1 FROM project_roles WHERE project_id = $1 AND role_key = $2', [projectId, 'x']))
        .rowCount,
    ).toBe(0);
    await okay(bulk(['writer', 'admin']));
    const listed = await okay(
      call('ListProjectRoles', ['POST', `${roles}/_search`], {
        projectId,
        queries: [{ keyQuery: { key: 'WRI', method: 'TEXT_QUERY_METHOD_STARTS_WITH_IGNORE_CASE' } }],
      }),
    );
    expect(listed.result).toEqual([expect.objectContaining({ key: 'writer', displayName: 'writer' })]);
    const update = (displayName: string) =>
      call('UpdateProjectRole', ['PUT', `${roles}/writer`], { projectId, roleKey: 'writer', displayName });
    expectError(await run(update('writer')), encoding, 9);
    await okay(update('Writers'));
    const { userId } = await okay(calls.importHumanUser());
    const { userGrantId } = await okay(
      call('AddUserGrant', ['POST', `/management/v1/users/${userId}/grants`], {
        userId,
        projectId,
        roleKeys: ['reader', 'writer'],
      }),
    );
    await okay(call('RemoveProjectRole', ['DELETE', `${roles}/writer`], { projectId, roleKey: 'writer' }));
    expectError(
      await run(call('RemoveProjectRole', ['DELETE', `${roles}/writer`], { projectId, roleKey: 'writer' })),
      encoding,
      5,
    );
    const grant = await okay(
      call('GetUserGrantByID', ['GET', `/management/v1/users/${userId}/grants/${userGrantId}`], {
        userId,
        grantId: userGrantId,
      }),
    );
    expect((grant.userGrant as { roleKeys: string[] }).roleKeys).toEqual(['reader']);
    await okay(add('writer')); // the key is free again
  });

  it('user grants: unknown role FAILED_PRECONDITION, second active grant 409, update, (de|re)activate, list, remove, bulk remove', async () => {
    const { id: projectId } = await okay(calls.addProject());
    await okay(
      call('BulkAddProjectRoles', ['POST', `${P(projectId)}/roles/_bulk`], {
        projectId,
        roles: [
          { key: 'reader', displayName: 'R' },
          { key: 'writer', displayName: 'W' },
        ],
      }),
    );
    const { userId } = await okay(calls.importHumanUser());
    const grants = `/management/v1/users/${userId}/grants`;
    const add = (roleKeys: string[]) => call('AddUserGrant', ['POST', grants], { userId, projectId, roleKeys });
    expectError(await run(add(['nope'])), encoding, 9, 'Project role "nope" not found on the project (COMMAND-mm9F4)');
    const { userGrantId: grantId, details } = await okay(add(['reader']));
    expectCreatedDetails(details, p.firstOrgId);
    expectError(await run(add(['writer'])), encoding, 6, 'User grant already exists (COMMAND-4M0fs)');
    const path = `${grants}/${grantId}`;
    const get = call('GetUserGrantByID', ['GET', path], { userId, grantId });
    expect((await okay(get)).userGrant).toMatchObject({
      id: grantId,
      userId,
      projectId,
      roleKeys: ['reader'],
      state: 'USER_GRANT_STATE_ACTIVE',
      orgId: p.firstOrgId,
      userType: 'TYPE_HUMAN',
    });
    const update = (roleKeys: string[]) => call('UpdateUserGrant', ['PUT', path], { userId, grantId, roleKeys });
    expectError(await run(update(['reader'])), encoding, 9);
    expectError(await run(update(['ghost'])), encoding, 9, /"ghost" not found on the project \(COMMAND-mm9F4\)/);
    await okay(update(['reader', 'writer']));
    await okay(call('DeactivateUserGrant', ['POST', `${path}/_deactivate`], { userId, grantId }));
    expectError(
      await run(call('DeactivateUserGrant', ['POST', `${path}/_deactivate`], { userId, grantId })),
      encoding,
      9,
    );
    const second = await okay(add(['writer'])); // the first is inactive
    expectError(
      await run(call('ReactivateUserGrant', ['POST', `${path}/_reactivate`], { userId, grantId })),
      encoding,
      6,
    );
    const list = await okay(
      call('ListUserGrants', ['POST', '/management/v1/users/grants/_search'], {
        queries: [{ userIdQuery: { userId } }],
      }),
    );
    expect((list.result as { id: string }[]).map((g) => g.id).sort()).toEqual(
      [grantId, second.userGrantId as string].sort(),
    );
    expect((list.details as { totalResult: string }).totalResult).toBe('2');
    const byRole = await okay(
      call('ListUserGrants', ['POST', '/management/v1/users/grants/_search'], {
        queries: [{ userIdQuery: { userId } }, { roleKeyQuery: { roleKey: 'reader' } }],
      }),
    );
    expect((byRole.result as { id: string }[]).map((g) => g.id)).toEqual([grantId]);
    // another org's owner sees neither
    expectError(await run(get, p.adminToken, p.otherOrgId), encoding, 5);
    await okay(call('RemoveUserGrant', ['DELETE', path], { userId, grantId }));
    expectError(await run(get), encoding, 5);
    const bulk = (ids: string[]): ApiCall => ({
      ...call('BulkRemoveUserGrant', ['DELETE', '/management/v1/user_grants/_bulk'], { grantId: ids }),
      deleteWithBody: true,
    });
    const secondId = second.userGrantId as string;
    expectError(await run(bulk([secondId, '404404'])), encoding, 5);
    expect((await db().query('SELECT 1 FROM user_grants WHERE id = $1', [secondId])).rowCount).toBe(1);
    await okay(bulk([secondId]));
    expect((await db().query('SELECT 1 FROM user_grants WHERE id = $1', [secondId])).rowCount).toBe(0);
  });

  it("ListUserGrants and ListProjectGrants take ZITADEL's queries, an empty one is 400", async () => {
    const projectName = unique('Queried');
    const { id: projectId } = await okay(calls.addProject(projectName));
    await okay(
      call('BulkAddProjectRoles', ['POST', `${P(projectId)}/roles/_bulk`], {
        projectId,
        roles: ['a', 'b'].map((key) => ({ key, displayName: key })),
      }),
    );
    const human = async (orgToken = p.orgOwnerToken, orgId?: string) => {
      const userName = unique('grantee');
      const { userId } = await okay(
        calls.importHumanUser({
          userName,
          profile: { firstName: 'Grace', lastName: userName, displayName: `Display ${userName}` },
          email: { email: `${userName}@example.com`, isEmailVerified: true },
        }),
        orgToken,
        orgId,
      );
      return { userId: userId as string, userName };
    };
    const grant = async (user: { userId: string }, roleKeys: string[], lent?: string, token?: string, org?: string) =>
      (
        await okay(
          call('AddUserGrant', ['POST', `/management/v1/users/${user.userId}/grants`], {
            userId: user.userId,
            projectId,
            roleKeys,
            ...(lent ? { projectGrantId: lent } : {}),
          }),
          token,
          org,
        )
      ).userGrantId as string;
    const first = await human();
    const second = await human();
    const firstGrant = await grant(first, ['a']);
    const secondGrant = await grant(second, ['b']);
    const grants = `${P(projectId)}/grants`;
    const { grantId: lent } = await okay(
      call('AddProjectGrant', ['POST', grants], { projectId, grantedOrgId: p.otherOrgId, roleKeys: ['a'] }),
    );
    const third = await human(p.adminToken, p.otherOrgId);
    const thirdGrant = await grant(third, ['a'], lent as string, p.adminToken, p.otherOrgId);

    const listed = async (queries: unknown[], token = p.orgOwnerToken, orgId?: string) => {
      const list = await okay(
        call('ListUserGrants', ['POST', '/management/v1/users/grants/_search'], { queries }),
        token,
        orgId,
      );
      return ((list.result ?? []) as { id: string }[]).map((g) => g.id).sort();
    };
    const text = (field: string, value: string, method = 'TEXT_QUERY_METHOD_EQUALS') => ({
      [`${field}Query`]: { [field]: value, method },
    });
    const ofProject = { projectIdQuery: { projectId } };
    expect(await listed([ofProject])).toEqual([firstGrant, secondGrant].sort());
    expect(
      await listed([text('userName', first.userName.toUpperCase(), 'TEXT_QUERY_METHOD_EQUALS_IGNORE_CASE')]),
    ).toEqual([firstGrant]);
    expect(await listed([text('email', `${second.userName}@exam`, 'TEXT_QUERY_METHOD_STARTS_WITH')])).toEqual([
      secondGrant,
    ]);
    expect(await listed([text('displayName', `Display ${first.userName}`)])).toEqual([firstGrant]);
    expect(await listed([text('lastName', second.userName)])).toEqual([secondGrant]);
    expect(await listed([ofProject, text('firstName', 'grace', 'TEXT_QUERY_METHOD_EQUALS_IGNORE_CASE')])).toEqual(
      [firstGrant, secondGrant].sort(),
    );
    expect(await listed([text('projectName', projectName)])).toEqual([firstGrant, secondGrant].sort());
    expect(await listed([ofProject, text('orgName', 'no such org')])).toEqual([]);
    expect(await listed([ofProject, { roleKeyQuery: { roleKey: 'b' } }])).toEqual([secondGrant]);
    expect(await listed([ofProject, { userTypeQuery: { type: 'TYPE_MACHINE' } }])).toEqual([]);
    expect(await listed([ofProject, { userTypeQuery: { type: 'TYPE_HUMAN' } }])).toEqual(
      [firstGrant, secondGrant].sort(),
    );
    // the project grant: the receiving org lists its grants under it; the owner sees them with withGranted
    expect(await listed([{ projectGrantIdQuery: { projectGrantId: lent } }], p.adminToken, p.otherOrgId)).toEqual([
      thirdGrant,
    ]);
    expect(await listed([{ projectGrantIdQuery: { projectGrantId: lent } }])).toEqual([]);
    expect(await listed([ofProject, { withGrantedQuery: { withGranted: true } }])).toEqual(
      [firstGrant, secondGrant, thirdGrant].sort(),
    );
    const search = (queries: unknown[]) =>
      run(call('ListUserGrants', ['POST', '/management/v1/users/grants/_search'], { queries }));
    expectError(await search([ofProject, {}]), encoding, 3, /ListUserGrantRequest\.Queries\[1\]/);
    expectError(
      await search([{ userTypeQuery: { type: 'TYPE_UNSPECIFIED' } }]),
      encoding,
      3,
      /ListUserGrantRequest\.Queries\[0\]\.UserTypeQuery\.Type/,
    );

    const lentGrants = async (queries: unknown[]) => {
      const list = await okay(call('ListProjectGrants', ['POST', `${grants}/_search`], { projectId, queries }));
      return ((list.result ?? []) as { grantId: string }[]).map((g) => g.grantId);
    };
    const named = (name: string) => ({ projectNameQuery: { name, method: 'TEXT_QUERY_METHOD_STARTS_WITH' } });
    expect(await lentGrants([named(projectName.slice(0, 7))])).toEqual([lent]);
    expect(await lentGrants([named('Other')])).toEqual([]);
    expect(await lentGrants([{ roleKeyQuery: { roleKey: 'a' } }])).toEqual([lent]);
    expect(await lentGrants([{ roleKeyQuery: { roleKey: 'b' } }])).toEqual([]);
    expectError(
      await run(call('ListProjectGrants', ['POST', `${grants}/_search`], { projectId, queries: [{}] })),
      encoding,
      3,
      /ListProjectGrantsRequest\.Queries\[0\]/,
    );
  });

  it('ListMyUserGrants lists the caller own grants', async () => {
    const { id: projectId } = await okay(calls.addProject());
    await okay(
      call('AddProjectRole', ['POST', `${P(projectId)}/roles`], { projectId, roleKey: 'me', displayName: 'Me' }),
    );
    const { rows } = await db().query<{ user_id: string }>(
      `SELECT user_id FROM memberships WHERE resource_type = 'org' AND resource_id = $1
             AND user_id IN (SELECT id FROM users WHERE type = 'machine') LIMIT 1`,
      [p.firstOrgId],
    );
    const userId = rows[0]!.user_id;
    await db().query('DELETE FROM user_grants WHERE user_id = $1', [userId]);
    await okay(
      call('AddUserGrant', ['POST', `/management/v1/users/${userId}/grants`], {
        userId,
        projectId,
        roleKeys: ['me'],
      }),
    );
    const mine = await okay({
      service: AuthService,
      method: 'ListMyUserGrants',
      rest: ['POST', '/auth/v1/usergrants/me/_search'],
      body: {},
    });
    expect(mine.result).toEqual([
      expect.objectContaining({ projectId, userId, roleKeys: ['me'], roles: ['me'], orgId: p.firstOrgId }),
    ]);
  });

  it('ListMyProjectOrgs: the orgs of the caller grants in the token project, else of its memberships', async () => {
    const myProjectOrgs = (token: string) =>
      okay(
        {
          service: AuthService,
          method: 'ListMyProjectOrgs',
          rest: ['POST', '/auth/v1/global/projectorgs/_search'],
          body: {},
        },
        token,
      ).then((r) => ((r.result ?? []) as { id: string }[]).map((o) => o.id)); // an empty list is omitted
    expect(await myProjectOrgs(p.orgOwnerToken)).toEqual([p.firstOrgId]); // a machine token: its memberships
    expect(await myProjectOrgs(p.adminToken)).toEqual(expect.arrayContaining([p.firstOrgId, p.otherOrgId]));
    const imported = calls.importHumanUser();
    const { userId } = await okay(imported);
    const userName = (imported.body as { userName: string }).userName;
    const token = await humanToken(p.server, userName, 'Imported-Password-1');
    const { rows } = await db().query<{ project_id: string }>(
      'SELECT project_id FROM apps ORDER BY created_at DESC LIMIT 1',
    );
    const projectId = rows[0]!.project_id; // the project of the app humanToken signed in to
    expect(await myProjectOrgs(token)).toEqual([]);
    await okay(
      call('AddProjectRole', ['POST', `${P(projectId)}/roles`], { projectId, roleKey: 'x', displayName: 'X' }),
      p.adminToken,
      p.firstOrgId,
    );
    await okay(
      call('AddUserGrant', ['POST', `/management/v1/users/${userId}/grants`], {
        userId,
        projectId,
        roleKeys: ['x'],
      }),
      p.adminToken,
      p.firstOrgId,
    );
    expect(await myProjectOrgs(token)).toEqual([p.firstOrgId]);
  });

  it('metadata: set, bulk set, get, list, remove; another org user 404; a too long key 400', async () => {
    const { userId } = await okay(calls.importHumanUser());
    const base = `/management/v1/users/${userId}/metadata`;
    const value = Buffer.from('v1').toString('base64');
    const set = await okay(call('SetUserMetadata', ['POST', `${base}/k1`], { id: userId, key: 'k1', value }));
    expect(set.id).toBe(userId);
    // (a key over 100 characters in a REST path is refused by the router with 414 before it reaches us)
    const long = call('BulkSetUserMetadata', ['POST', `${base}/_bulk`], {
      id: userId,
      metadata: [{ key: 'k'.repeat(201), value }],
    });
    expectError(await run(long), encoding, 3, /BulkSetUserMetadataRequest_Metadata\.Key/);
    await okay(
      call('BulkSetUserMetadata', ['POST', `${base}/_bulk`], {
        id: userId,
        metadata: [
          { key: 'k2', value },
          { key: 'k1', value: Buffer.from('v2').toString('base64') },
        ],
      }),
    );
    const got = await okay(call('GetUserMetadata', ['GET', `${base}/k1`], { id: userId, key: 'k1' }));
    expect((got.metadata as { value: string }).value).toBe(Buffer.from('v2').toString('base64'));
    const list = await okay(
      call('ListUserMetadata', ['POST', `${base}/_search`], { id: userId, query: { asc: true } }),
    );
    expect((list.result as { key: string }[]).map((m) => m.key)).toEqual(['k1', 'k2']);
    await okay(call('RemoveUserMetadata', ['DELETE', `${base}/k1`], { id: userId, key: 'k1' }));
    expectError(await run(call('GetUserMetadata', ['GET', `${base}/k1`], { id: userId, key: 'k1' })), encoding, 5);
    expectError(
      await run(call('GetUserMetadata', ['GET', `${base}/k2`], { id: userId, key: 'k2' }), p.adminToken, p.otherOrgId),
      encoding,
      5,
    );
  });

  it('project grants: the owner lends roles to another org, whose owners grant only those to their users', async () => {
    const { id: projectId } = await okay(calls.addProject());
    await okay(
      call('BulkAddProjectRoles', ['POST', `${P(projectId)}/roles/_bulk`], {
        projectId,
        roles: ['a', 'b', 'c'].map((key) => ({ key, displayName: key })),
      }),
    );
    const grants = `${P(projectId)}/grants`;
    const lend = (grantedOrgId: string, roleKeys: string[]) =>
      call('AddProjectGrant', ['POST', grants], { projectId, grantedOrgId, roleKeys });
    expectError(await run(lend(p.otherOrgId, ['z'])), encoding, 9, /"z" not found on the project \(COMMAND-6m9gd\)/);
    expectError(await run(lend(p.firstOrgId, ['a'])), encoding, 9, /\(PROJECT-ckUpbvboAH\)$/);
    const { grantId } = await okay(lend(p.otherOrgId, ['a', 'b']));
    expectError(await run(lend(p.otherOrgId, ['a'])), encoding, 6);
    const path = `${grants}/${grantId}`;
    const get = call('GetProjectGrantByID', ['GET', path], { projectId, grantId });
    expect((await okay(get)).projectGrant).toMatchObject({
      grantId,
      grantedOrgId: p.otherOrgId,
      grantedRoleKeys: ['a', 'b'],
      state: 'PROJECT_GRANT_STATE_ACTIVE',
      projectOwnerId: p.firstOrgId,
    });
    expectError(await run(get, p.adminToken, p.otherOrgId), encoding, 5); // the receiver does not manage it
    const listed = await okay(call('ListProjectGrants', ['POST', `${grants}/_search`], { projectId }));
    expect((listed.result as { grantId: string }[]).map((g) => g.grantId)).toEqual([grantId]);
    // the receiving org: sees the project, grants its own user the lent roles only
    const received = await okay(
      call('ListGrantedProjects', ['POST', '/management/v1/granted_projects/_search'], {}),
      p.adminToken,
      p.otherOrgId,
    );
    expect((received.result as { grantId: string }[]).map((g) => g.grantId)).toContain(grantId);
    const { userId } = await okay(calls.importHumanUser(), p.adminToken, p.otherOrgId);
    const addUserGrant = (roleKeys: string[]) =>
      call('AddUserGrant', ['POST', `/management/v1/users/${userId}/grants`], {
        userId,
        projectId,
        projectGrantId: grantId,
        roleKeys,
      });
    expectError(await run(addUserGrant(['c']), p.adminToken, p.otherOrgId), encoding, 9, /not granted.*COMMAND-mm9F4/);
    // the owner org holds no such project grant: a precondition of the command, as in ZITADEL
    expectError(await run(addUserGrant(['a'])), encoding, 9, 'Project grant not found (COMMAND-huvKF)');
    const { userGrantId } = await okay(addUserGrant(['a', 'b']), p.adminToken, p.otherOrgId);
    const userGrant = call('GetUserGrantByID', ['GET', `/management/v1/users/${userId}/grants/${userGrantId}`], {
      userId,
      grantId: userGrantId,
    });
    expect((await okay(userGrant, p.adminToken, p.otherOrgId)).userGrant).toMatchObject({
      projectGrantId: grantId,
      orgId: p.otherOrgId,
    });
    // narrowing the lent roles narrows the user grants made under it
    await okay(call('UpdateProjectGrant', ['PUT', path], { projectId, grantId, roleKeys: ['b'] }));
    const narrowed = await okay(userGrant, p.adminToken, p.otherOrgId);
    expect((narrowed.userGrant as { roleKeys: string[] }).roleKeys).toEqual(['b']);
    await okay(call('DeactivateProjectGrant', ['POST', `${path}/_deactivate`], { projectId, grantId }));
    expectError(
      await run(call('DeactivateProjectGrant', ['POST', `${path}/_deactivate`], { projectId, grantId })),
      encoding,
      9,
    );
    await okay(call('ReactivateProjectGrant', ['POST', `${path}/_reactivate`], { projectId, grantId }));
    await okay(call('RemoveProjectGrant', ['DELETE', path], { projectId, grantId }));
    expectError(await run(userGrant, p.adminToken, p.otherOrgId), encoding, 5);
  });

  it('RemoveProject takes its apps, roles and grants with it', async () => {
    const { id: projectId } = await okay(calls.addProject());
    await okay(
      call('AddProjectRole', ['POST', `${P(projectId)}/roles`], { projectId, roleKey: 'r', displayName: 'R' }),
    );
    const { appId } = await okay(calls.addOidcApp(projectId));
    const { userId } = await okay(calls.importHumanUser());
    await okay(
      call('AddUserGrant', ['POST', `/management/v1/users/${userId}/grants`], {
        userId,
        projectId,
        roleKeys: ['r'],
      }),
    );
    await okay(call('RemoveProject', ['DELETE', P(projectId)], { id: projectId }));
    for (const table of ['apps', 'project_roles', 'user_grants'])
      expect((await db().query(`SELECT 1 FROM ${table} WHERE project_id = $1`, [projectId])).rowCount).toBe(0);
    expectError(await run(calls.getApp(projectId, appId)), encoding, 5);
  });
});
