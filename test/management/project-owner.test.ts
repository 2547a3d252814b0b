// Who sees what, on the API (REST, gRPC, gRPC-Web): a PROJECT_OWNER manages its project (settings, roles, apps, grants,
// members, user grants) and nothing else; a PROJECT_OWNER_VIEWER only reads it. Other projects of the same org are 404
// (as unknown ids, so none can be probed), org and instance operations 403, and a removed membership counts at once.
import { expect, it } from 'vitest';
import { lifecycle } from '../helpers/lifecycle.ts';
import { createMachine } from '../helpers/oidc.ts';
import { calls, describeEachEncoding, expectError, unique, type ApiAnswer } from '../helpers/provisioning.ts';
import { jwtProfileToken } from '../helpers/tokens.ts';

type List = { result?: ApiAnswer[] };
const ids = (list: List) => (list.result ?? []).map((r) => r.id);

describeEachEncoding('project owners', ({ encoding, p, call, okCall }) => {
  /** Projects A and B of the first org, and a member of A with `role` (added by the org owner) with a token. */
  async function memberOfA(role: string) {
    const { id: a } = await okCall(calls.addProject());
    const { id: b } = await okCall(calls.addProject());
    await okCall(lifecycle.addProjectRole(b, 'b-role'));
    const machine = await createMachine(p.server);
    await okCall(lifecycle.addProjectMember(a, machine.userId, [role]));
    return { a, b, userId: machine.userId, token: await jwtProfileToken(p.server, machine.keyFile) };
  }

  it('a PROJECT_OWNER reads and changes its project: settings, roles, apps, grants, members, user grants', async () => {
    const { a, userId, token } = await memberOfA('PROJECT_OWNER');
    const as = <T = ApiAnswer>(c: Parameters<typeof okCall>[0], orgId?: string) => okCall<T>(c, token, orgId);
    expect((await as(lifecycle.getProject(a))).project).toMatchObject({ id: a });
    const renamed = unique('renamed by its owner');
    await as(lifecycle.updateProject(a, renamed));
    // the org in context may be named, as ZITADEL's clients do: the project's org
    expect((await as(lifecycle.getProject(a), p.firstOrgId)).project).toMatchObject({ name: renamed });
    await as(lifecycle.addProjectRole(a, 'reader'));
    expect((await as<List>(lifecycle.listProjectRoles(a))).result?.map((r) => r.key)).toEqual(['reader']);
    const app = await as(calls.addApiApp(a));
    expect(ids(await as<List>(lifecycle.listApps(a)))).toEqual([app.appId]);
    expect((await as(lifecycle.regenerateSecret(a, app.appId, 'api'))).clientSecret).toMatch(/^.{32,}$/);
    // the receiving org named by its domain, as ZITADEL's console finds it (GetOrgByDomainGlobal)
    const { org } = await okCall(lifecycle.getOrg(p.otherOrgId), p.adminToken);
    expect((await as(lifecycle.orgByDomain(org.primaryDomain as string))).org).toMatchObject({ id: p.otherOrgId });
    expectError(await call(lifecycle.orgByDomain('no-such-domain.example'), token), encoding, 5);
    const { grantId } = await as<{ grantId: string }>(lifecycle.addProjectGrant(a, p.otherOrgId, ['reader']));
    const lent = await as<{ result: { grantId: string }[] }>(lifecycle.listProjectGrants(a));
    expect(lent.result.map((g) => g.grantId)).toEqual([grantId]);
    // its own membership shows in the project's members; it may add another
    const other = await createMachine(p.server);
    await as(lifecycle.addProjectMember(a, other.userId, ['PROJECT_OWNER_VIEWER']));
    const members = await as<{ result: { userId: string }[] }>(lifecycle.listProjectMembers(a));
    expect(members.result.map((m) => m.userId).sort()).toEqual([userId, other.userId].sort());
    // user grants on its project: the org's users are readable to find whom to grant (ZITADEL's user.read)
    expect((await as(calls.getUser(other.userId))).user).toMatchObject({ id: other.userId });
    const { userGrantId } = await as<{ userGrantId: string }>(lifecycle.addUserGrant(other.userId, a, ['reader']));
    expect((await as(lifecycle.getUserGrant(other.userId, userGrantId))).userGrant).toMatchObject({ projectId: a });
    const grants = await as<List>(lifecycle.listUserGrants({ queries: [{ projectIdQuery: { projectId: a } }] }));
    expect(ids(grants)).toEqual([userGrantId]);
    // ListProjects: only its own projects, not the org's others
    expect(ids(await as<List>(lifecycle.listProjects({ query: { limit: 1000 } })))).toEqual([a]);
  });

  it('a PROJECT_OWNER gets 404 for other projects and 403 for the org and the instance', async () => {
    const { a, b, token } = await memberOfA('PROJECT_OWNER');
    const refused = async (c: Parameters<typeof call>[0], code: number, orgId?: string) =>
      expectError(await call(c, token, orgId), encoding, code);
    // another project of the same org: not found, whatever is asked of it
    await refused(lifecycle.getProject(b), 5);
    await refused(lifecycle.updateProject(b, 'taken over'), 5);
    await refused(lifecycle.addProjectRole(b, 'mine'), 5);
    await refused(lifecycle.listProjectRoles(b), 5);
    await refused(calls.addOidcApp(b), 5);
    await refused(lifecycle.listApps(b), 5);
    await refused(lifecycle.addProjectGrant(b, p.otherOrgId, ['b-role']), 5);
    await refused(lifecycle.addProjectMember(b, (await createMachine(p.server)).userId, ['PROJECT_OWNER']), 5);
    // its own project under another org's name is not found either
    await refused(lifecycle.getProject(a), 5, p.otherOrgId);
    // a user grant of project B, looked up by id, is not found
    const user = await createMachine(p.server);
    const { userGrantId } = await okCall<{ userGrantId: string }>(lifecycle.addUserGrant(user.userId, b, ['b-role']));
    await refused(lifecycle.getUserGrant(user.userId, userGrantId), 5);
    // without a project named, the grants of the whole org are not its to read
    await refused(lifecycle.listUserGrants(), 5);
    // the org: neither its members, its settings nor new projects (ZITADEL's PROJECT_OWNER has no org.* or
    // project.create)
    await refused(lifecycle.listOrgMembers(), 7);
    await refused(lifecycle.addOrgMember(user.userId, ['ORG_OWNER']), 7);
    await refused(lifecycle.updateOrg('taken over'), 7);
    await refused(calls.getMyOrg(), 7);
    await refused(calls.addProject(), 7);
    await refused(calls.addMachineUser(), 7);
    await refused(lifecycle.removeUser(user.userId), 7);
    // another org's users and projects: 403, it holds nothing there
    await refused(lifecycle.listUsers(), 7, p.otherOrgId);
    await refused(lifecycle.listProjects(), 7, p.otherOrgId);
    // the instance
    await refused(lifecycle.listIamMembers(), 7);
    await refused(lifecycle.listOrgs(), 7);
    await refused(calls.addIamMember(user.userId), 7);
    expect((await okCall(lifecycle.getProject(b))).project).toMatchObject({ id: b });
  });

  it('403 comes before 400 for a caller without a project role; a project owner reads its request first', async () => {
    const { a, token } = await memberOfA('PROJECT_OWNER');
    const nobody = await jwtProfileToken(p.server, (await createMachine(p.server)).keyFile);
    expectError(await call(lifecycle.updateProject(a, ''), nobody), encoding, 7);
    expectError(await call(lifecycle.updateProject(a, ''), token), encoding, 3, /UpdateProjectRequest\.Name/);
  });

  it('a PROJECT_OWNER_VIEWER reads its project and changes nothing', async () => {
    const { a, b, token } = await memberOfA('PROJECT_OWNER_VIEWER');
    await okCall(lifecycle.addProjectRole(a, 'reader'));
    expect((await okCall(lifecycle.getProject(a), token)).project).toMatchObject({ id: a });
    expect((await okCall<List>(lifecycle.listProjectRoles(a), token)).result?.map((r) => r.key)).toEqual(['reader']);
    expect(ids(await okCall<List>(lifecycle.listProjects(), token))).toEqual([a]);
    await okCall(lifecycle.listApps(a), token);
    await okCall(lifecycle.listProjectGrants(a), token);
    await okCall(lifecycle.listProjectMembers(a), token);
    expectError(await call(lifecycle.orgByDomain('example.com'), token), encoding, 7);
    for (const write of [
      lifecycle.updateProject(a, 'changed by a viewer'),
      lifecycle.addProjectRole(a, 'writer'),
      calls.addOidcApp(a),
      lifecycle.addProjectGrant(a, p.otherOrgId, ['reader']),
      lifecycle.addProjectMember(a, (await createMachine(p.server)).userId, ['PROJECT_OWNER']),
      lifecycle.removeProject(a),
    ])
      expectError(await call(write, token), encoding, 7);
    expectError(await call(lifecycle.getProject(b), token), encoding, 5);
    expect((await okCall(lifecycle.getProject(a))).project).toMatchObject({ state: 'PROJECT_STATE_ACTIVE' });
  });

  it('removing the membership takes effect on the next request of the same token', async () => {
    const { a, userId, token } = await memberOfA('PROJECT_OWNER');
    await okCall(lifecycle.getProject(a), token);
    await okCall(lifecycle.removeProjectMember(a, userId));
    expectError(await call(lifecycle.getProject(a), token), encoding, 7);
    expectError(await call(lifecycle.updateProject(a, 'after removal'), token), encoding, 7);
    expectError(await call(lifecycle.listProjects(), token), encoding, 7);
  });
});
