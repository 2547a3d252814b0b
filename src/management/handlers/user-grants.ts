// User grants: ManagementService's grant operations on the org in context, and
// AuthService's ListMyUserGrants / ListMyProjectOrgs for the caller's own grants.
import type { MessageInitShape } from '@bufbuild/protobuf';
import { AuthService, type UserGrantSchema as MyUserGrantSchema } from '@zitadel/proto/zitadel/auth_pb.js';
import { ManagementService } from '@zitadel/proto/zitadel/management_pb.js';
import { Type, UserGrantState, type UserGrantQuery, type UserGrantSchema } from '@zitadel/proto/zitadel/user_pb.js';
import type { ManagementDeps } from '../deps.ts';
import {
  addUserGrant,
  getUserGrant,
  removeUserGrants,
  setUserGrantState,
  updateUserGrant,
  type UserGrantRow,
} from '../../grants/service.ts';
import {
  listMyUserGrants,
  listProjectOrgs,
  listUserGrants,
  type GrantFilter,
  type ProjectOrgsOf,
} from '../../grants/list.ts';
import { findGrant } from '../../grants/queries.ts';
import { IAM_OWNER } from '../../members/roles.ts';
import { detailsMessage, orgMessage, storedDetails } from '../convert.ts';
import { listDetailsMessage, pageOf, textFilter } from '../list-query.ts';
import {
  authenticated,
  operation,
  orgOwner,
  projectPermission,
  projectWrite,
  type Caller,
  type Operation,
  type ProjectOf,
} from '../operation.ts';
import { activationOperations } from './activation.ts';
import { invalidArgument } from '../../platform/errors.ts';

// The user grants of a project: its PROJECT_OWNER too (ZITADEL's user.grant.*), PROJECT_OWNER_VIEWER reads. The
// project is the grant's (looked up) or, for the list, the one its projectIdQuery names: without one a project
// member is refused, as it may not read the grants of other projects.
const grantProject: ProjectOf = async (req: { grantId: string }, db) => (await findGrant(db, req.grantId))?.project_id;
const queriedProject: ProjectOf = (req: { queries: UserGrantQuery[] }) =>
  req.queries.flatMap(({ query: q }) => (q.case === 'projectIdQuery' ? [q.value.projectId] : []))[0];
const readGrant = projectPermission('read', grantProject);
const writeGrant = projectPermission('write', grantProject);

const grantState = (g: UserGrantRow) => (g.state === 'active' ? UserGrantState.ACTIVE : UserGrantState.INACTIVE);
const userType = (g: UserGrantRow) => (g.user_type === 'human' ? Type.HUMAN : Type.MACHINE);

function grantMessage(g: UserGrantRow): MessageInitShape<typeof UserGrantSchema> {
  return {
    id: g.id,
    details: storedDetails(g, g.org_id),
    roleKeys: g.role_keys,
    state: grantState(g),
    userId: g.user_id,
    userName: g.user_name,
    firstName: g.first_name ?? '',
    lastName: g.last_name ?? '',
    email: g.email ?? '',
    displayName: g.display_name ?? '',
    orgId: g.org_id,
    orgName: g.org_name,
    orgDomain: g.org_domain,
    projectId: g.project_id,
    projectName: g.project_name,
    projectGrantId: g.project_grant_id ?? '',
    preferredLoginName: `${g.user_name}@${g.user_domain}`,
    userType: userType(g),
  };
}

function myGrantMessage(g: UserGrantRow): MessageInitShape<typeof MyUserGrantSchema> {
  return {
    orgId: g.org_id,
    projectId: g.project_id,
    userId: g.user_id,
    roles: g.role_keys,
    roleKeys: g.role_keys,
    orgName: g.org_name,
    orgDomain: g.org_domain,
    grantId: g.id,
    projectName: g.project_name,
    projectGrantId: g.project_grant_id ?? '',
    details: storedDetails(g, g.org_id),
    userType: userType(g),
    state: grantState(g),
  };
}

/** ZITADEL's user grant queries (zitadel.user.v1.UserGrantQuery) as filters; an empty one is 400. */
function grantFilter({ query: q }: UserGrantQuery, i: number): GrantFilter {
  switch (q.case) {
    case 'userIdQuery':
      return { field: 'userId', id: q.value.userId };
    case 'projectIdQuery':
      return { field: 'projectId', id: q.value.projectId };
    case 'projectGrantIdQuery':
      return { field: 'projectGrantId', id: q.value.projectGrantId };
    case 'roleKeyQuery':
      return { field: 'roleKey', roleKey: q.value.roleKey };
    case 'withGrantedQuery':
      return { field: 'withGranted' };
    case 'userTypeQuery':
      if (q.value.type === Type.UNSPECIFIED)
        throw invalidArgument(`invalid ListUserGrantRequest.Queries[${i}].UserTypeQuery.Type: unspecified`);
      return { field: 'userType', type: q.value.type === Type.HUMAN ? 'human' : 'machine' };
    case 'userNameQuery':
      return { field: 'userName', text: textFilter(q.value.userName, q.value.method) };
    case 'firstNameQuery':
      return { field: 'firstName', text: textFilter(q.value.firstName, q.value.method) };
    case 'lastNameQuery':
      return { field: 'lastName', text: textFilter(q.value.lastName, q.value.method) };
    case 'emailQuery':
      return { field: 'email', text: textFilter(q.value.email, q.value.method) };
    case 'displayNameQuery':
      return { field: 'displayName', text: textFilter(q.value.displayName, q.value.method) };
    case 'orgNameQuery':
      return { field: 'orgName', text: textFilter(q.value.orgName, q.value.method) };
    case 'orgDomainQuery':
      return { field: 'orgDomain', text: textFilter(q.value.orgDomain, q.value.method) };
    case 'projectNameQuery':
      return { field: 'projectName', text: textFilter(q.value.projectName, q.value.method) };
    default:
      throw invalidArgument(`invalid ListUserGrantRequest.Queries[${i}]: an empty query`);
  }
}

const ref = (caller: Caller, req: { userId: string; grantId: string }) => ({
  orgId: caller.orgId,
  userId: req.userId,
  grantId: req.grantId,
});

export function userGrantOperations({ db }: ManagementDeps): Operation[] {
  return [
    operation({
      method: ManagementService.method.addUserGrant,
      permission: projectWrite,
      async handle(caller, req) {
        const { grantId, details } = await addUserGrant(
          db,
          {
            orgId: caller.orgId,
            userId: req.userId,
            projectId: req.projectId,
            projectGrantId: req.projectGrantId || undefined,
            roleKeys: req.roleKeys,
          },
          caller.principal.userId,
        );
        return { userGrantId: grantId, details: detailsMessage(details) };
      },
    }),
    operation({
      method: ManagementService.method.getUserGrantByID,
      permission: readGrant,
      async handle(caller, req) {
        return { userGrant: grantMessage(await getUserGrant(db, ref(caller, req))) };
      },
    }),
    operation({
      method: ManagementService.method.listUserGrants,
      permission: projectPermission('read', queriedProject),
      async handle(caller, req) {
        const filters = req.queries.map(grantFilter);
        const result = await listUserGrants(db, caller.orgId, filters, pageOf(req.query, 'ListUserGrantRequest'));
        return { details: listDetailsMessage(result), result: result.rows.map(grantMessage) };
      },
    }),
    operation({
      method: ManagementService.method.updateUserGrant,
      permission: writeGrant,
      async handle(caller, req) {
        const details = await updateUserGrant(
          db,
          ref(caller, req),
          { roleKeys: req.roleKeys },
          caller.principal.userId,
        );
        return { details: detailsMessage(details) };
      },
    }),
    ...activationOperations(
      {
        deactivate: ManagementService.method.deactivateUserGrant,
        reactivate: ManagementService.method.reactivateUserGrant,
      },
      writeGrant,
      (caller, req: { userId: string; grantId: string }, state) =>
        setUserGrantState(db, ref(caller, req), state, caller.principal.userId),
    ),
    operation({
      method: ManagementService.method.removeUserGrant,
      permission: writeGrant,
      async handle(caller, req) {
        const details = await removeUserGrants(
          db,
          { orgId: caller.orgId, userId: req.userId },
          [req.grantId],
          caller.principal.userId,
        );
        return { details: detailsMessage(details!) };
      },
    }),
    operation({
      method: ManagementService.method.bulkRemoveUserGrant,
      permission: orgOwner,
      async handle(caller, req) {
        await removeUserGrants(db, { orgId: caller.orgId }, req.grantId, caller.principal.userId);
        return {};
      },
    }),
    operation({
      method: AuthService.method.listMyProjectOrgs,
      permission: authenticated,
      async handle(caller, req) {
        const { principal } = caller;
        const of: ProjectOrgsOf = principal.projectId
          ? { userId: principal.userId, projectId: principal.projectId }
          : principal.roles.instance.has(IAM_OWNER)
            ? { allOrgs: true }
            : {
                // the orgs of its org memberships and those of its projects (a project owner's)
                memberOf: [
                  ...new Set([
                    ...principal.roles.orgs.keys(),
                    ...[...principal.roles.projects.values()].map((p) => p.orgId),
                  ]),
                ],
              };
        const filters = req.queries.map(({ query: q }) =>
          q.case === 'nameQuery'
            ? { name: textFilter(q.value.name, q.value.method) }
            : q.case === 'domainQuery'
              ? { domain: textFilter(q.value.domain, q.value.method) }
              : {},
        );
        const result = await listProjectOrgs(db, of, filters, pageOf(req.query, 'ListMyProjectOrgsRequest'));
        return { details: listDetailsMessage(result), result: result.rows.map(orgMessage) };
      },
    }),
    operation({
      method: AuthService.method.listMyUserGrants,
      permission: authenticated,
      async handle(caller, req) {
        const page = pageOf(req.query, 'ListMyUserGrantsRequest');
        const result = await listMyUserGrants(db, caller.principal.userId, page);
        return { details: listDetailsMessage(result), result: result.rows.map(myGrantMessage) };
      },
    }),
  ];
}
