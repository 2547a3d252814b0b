// ListUserMemberships (the console's user page) over REST, gRPC and gRPC-Web: a user's roles on the instance, the org
// in context and its projects, narrowed by ZITADEL's membership queries; memberships on another org's resources are
// not listed (ZITADEL's resource-owner filter), a user of another org is 404, an empty query 400.
import { expect, it } from 'vitest';
import { lifecycle } from '../helpers/lifecycle.ts';
import { calls, describeEachEncoding, expectError, SEQUENCE, unique, type ApiAnswer } from '../helpers/provisioning.ts';

describeEachEncoding('ListUserMemberships', ({ encoding, p, call, okCall }) => {
  type List = { details: Record<string, string>; result?: ApiAnswer[] };

  it("lists the user's memberships of the instance, the org and its projects, and only those", async () => {
    const { userId } = await okCall(calls.addMachineUser());
    expect((await okCall<List>(lifecycle.listUserMemberships(userId))).result).toBe(undefined);
    await okCall(lifecycle.addOrgMember(userId, ['ORG_USER_MANAGER']));
    const projectName = unique('Membership project');
    const { id: projectId } = await okCall(calls.addProject(projectName));
    await okCall(lifecycle.addProjectMember(projectId, userId, ['PROJECT_OWNER_VIEWER']));
    await okCall(calls.addIamMember(userId, ['IAM_OWNER_VIEWER']), p.adminToken);
    // a membership on the other org's resource: never shown to the first org's owner
    await okCall(lifecycle.addOrgMember(userId, ['ORG_OWNER_VIEWER']), p.adminToken, p.otherOrgId);

    const list = await okCall<List>(lifecycle.listUserMemberships(userId));
    expect(list.details.totalResult).toBe('3');
    expect(list.details.processedSequence).toMatch(SEQUENCE);
    const byKind = Object.fromEntries(list.result!.map((m) => [m.iam ? 'iam' : m.orgId ? 'org' : 'project', m]));
    expect(byKind.org).toMatchObject({ userId, orgId: p.firstOrgId, roles: ['ORG_USER_MANAGER'] });
    expect(byKind.org!.details.resourceOwner).toBe(p.firstOrgId);
    expect(byKind.org!.displayName).toBeTruthy();
    expect(byKind.project).toMatchObject({
      projectId,
      roles: ['PROJECT_OWNER_VIEWER'],
      displayName: projectName,
    });
    expect(byKind.project!.details.resourceOwner).toBe(p.firstOrgId);
    expect(byKind.iam).toMatchObject({ iam: true, roles: ['IAM_OWNER_VIEWER'] });
    // in the order the memberships were made
    expect(list.result!.map((m) => (m.iam ? 'iam' : m.orgId ? 'org' : 'project'))).toEqual(['org', 'project', 'iam']);

    const only = async (query: Record<string, unknown>) =>
      (await okCall<List>(lifecycle.listUserMemberships(userId, { queries: [query] }))).result?.map((m) => m.roles);
    expect(await only({ iamQuery: { iam: true } })).toEqual([['IAM_OWNER_VIEWER']]);
    expect(await only({ orgQuery: { orgId: p.firstOrgId } })).toEqual([['ORG_USER_MANAGER']]);
    expect(await only({ orgQuery: { orgId: p.otherOrgId } })).toBe(undefined);
    expect(await only({ projectQuery: { projectId } })).toEqual([['PROJECT_OWNER_VIEWER']]);
    expect(await only({ projectGrantQuery: { projectGrantId: projectId } })).toBe(undefined);
    const paged = await okCall<List>(lifecycle.listUserMemberships(userId, { query: { offset: '1', limit: 1 } }));
    expect(paged.result!.map((m) => m.projectId)).toEqual([projectId]);
    expect(paged.details.totalResult).toBe('3');
  });

  it('a user of another org is 404; an empty query and a limit over 1000 are 400 naming the field', async () => {
    const { userId } = await okCall(calls.addMachineUser());
    expectError(await call(lifecycle.listUserMemberships(userId), p.adminToken, p.otherOrgId), encoding, 5);
    expectError(await call(lifecycle.listUserMemberships('404404')), encoding, 5);
    expectError(
      await call(lifecycle.listUserMemberships(userId, { queries: [{}] })),
      encoding,
      3,
      /ListUserMembershipsRequest\.Queries\[0\]/,
    );
    expectError(
      await call(lifecycle.listUserMemberships(userId, { query: { limit: 1001 } })),
      encoding,
      3,
      /ListUserMembershipsRequest/,
    );
    // an org owner without a role in the other org may not ask there at all
    expectError(await call(lifecycle.listUserMemberships(userId), p.orgOwnerToken, p.otherOrgId), encoding, 7);
  });
});
