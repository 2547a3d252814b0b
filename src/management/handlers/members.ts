// Members of the org in context, of its projects and of the instance: list, add, change roles, remove,
// and the roles each may hold; a user's own memberships (ListUserMemberships). The last IAM_OWNER cannot
// be removed or demoted (members/manage.ts).
import type { DescMessage, DescMethodUnary, MessageInitShape } from '@bufbuild/protobuf';
import { AdminService } from '@zitadel/proto/zitadel/admin_pb.js';
import { ManagementService } from '@zitadel/proto/zitadel/management_pb.js';
import type { SearchQuery, MemberSchema } from '@zitadel/proto/zitadel/member_pb.js';
import { Type, type MembershipQuery, type MembershipSchema } from '@zitadel/proto/zitadel/user_pb.js';
import type { ManagementDeps } from '../deps.ts';
import {
  addMember,
  listMembers,
  MEMBER_ROLES,
  removeMember,
  updateMember,
  type MemberFilter,
  type MemberRow,
} from '../../members/manage.ts';
import type { ResourceType } from '../../members/queries.ts';
import type { MemberResource } from '../../members/service.ts';
import {
  listUserMemberships,
  type UserMembershipFilter,
  type UserMembershipRow,
} from '../../members/user-memberships.ts';
import { invalidArgument } from '../../platform/errors.ts';
import { getProject } from '../../projects/service.ts';
import { detailsMessage, storedDetails } from '../convert.ts';
import { listDetailsMessage, pageOf, textFilter } from '../list-query.ts';
import {
  iamOwner,
  operation,
  orgOwner,
  projectPermission,
  projectRead,
  projectWrite,
  type Caller,
  type Operation,
  type Permission,
} from '../operation.ts';

const projectMembers: MemberPermissions = {
  read: projectRead,
  write: projectWrite,
  roles: projectPermission('read'),
};
const M = ManagementService.method;
const A = AdminService.method;

function memberFilter(query: SearchQuery, i: number, request: string): MemberFilter {
  const q = query.query;
  switch (q.case) {
    case 'userIdQuery':
      return { field: 'userId', userId: q.value.userId };
    case 'emailQuery':
      return { field: 'email', text: textFilter(q.value.email, q.value.method) };
    case 'firstNameQuery':
      return { field: 'firstName', text: textFilter(q.value.firstName, q.value.method) };
    case 'lastNameQuery':
      return { field: 'lastName', text: textFilter(q.value.lastName, q.value.method) };
    default:
      throw invalidArgument(`invalid ${request}.Queries[${i}]: an empty query is not supported`);
  }
}

function memberMessage(m: MemberRow, owner: string): MessageInitShape<typeof MemberSchema> {
  return {
    userId: m.user_id,
    details: storedDetails(m, owner),
    roles: m.roles,
    preferredLoginName: `${m.user_name}@${m.primary_domain}`,
    email: m.email ?? '',
    firstName: m.first_name ?? '',
    lastName: m.last_name ?? '',
    displayName: m.display_name ?? m.machine_name ?? '',
    userType: m.type === 'human' ? Type.HUMAN : Type.MACHINE,
  };
}

/** The four member methods of one kind of resource, and its roles method. */
interface MemberMethods {
  list: DescMethodUnary<DescMessage, DescMessage>;
  add: DescMethodUnary<DescMessage, DescMessage>;
  update: DescMethodUnary<DescMessage, DescMessage>;
  remove: DescMethodUnary<DescMessage, DescMessage>;
  roles: DescMethodUnary<DescMessage, DescMessage>;
  prefix: string;
}

// The requests of one kind share their members (projectId only for projects); these are what the handlers read.
interface MemberRequest {
  projectId?: string;
  userId: string;
  roles: string[];
  query?: Parameters<typeof pageOf>[0];
  queries: SearchQuery[];
}

/** Who may list members, change them, and list the roles members may hold. */
interface MemberPermissions {
  read: Permission;
  write: Permission;
  roles: Permission;
}

const alike = (permission: Permission): MemberPermissions => ({
  read: permission,
  write: permission,
  roles: permission,
});

function memberOperations(
  { db }: ManagementDeps,
  type: ResourceType,
  methods: MemberMethods,
  permissions: MemberPermissions,
  resourceOf: (caller: Caller, req: MemberRequest) => Promise<MemberResource>,
): Operation[] {
  const op =
    (permission: Permission) => (method: DescMethodUnary<DescMessage, DescMessage>, handle: Operation['handle']) =>
      operation({ method, permission, handle });
  const [read, write, roles] = [op(permissions.read), op(permissions.write), op(permissions.roles)];
  const { prefix } = methods;
  return [
    read(methods.list, async (caller, request) => {
      const req = request as unknown as MemberRequest;
      const resource = await resourceOf(caller, req);
      const name = `List${prefix}MembersRequest`;
      const filters = req.queries.map((q, i) => memberFilter(q, i, name));
      const result = await listMembers(db, resource, filters, pageOf(req.query, name));
      const owner = resource.owner ?? resource.id;
      return { details: listDetailsMessage(result), result: result.rows.map((m) => memberMessage(m, owner)) };
    }),
    // adding and changing a member take the same request members and check the roles alike
    ...(
      [
        [methods.add, addMember, 'Add'],
        [methods.update, updateMember, 'Update'],
      ] as const
    ).map(([method, setRoles, verb]) =>
      write(method, async (caller, request) => {
        const req = request as unknown as MemberRequest;
        const resource = await resourceOf(caller, req);
        const name = `${verb}${prefix}MemberRequest`;
        const details = await setRoles(db, resource, req.userId, req.roles, caller.principal.userId, name);
        return { details: detailsMessage(details) };
      }),
    ),
    write(methods.remove, async (caller, request) => {
      const req = request as unknown as MemberRequest;
      const resource = await resourceOf(caller, req);
      return { details: detailsMessage(await removeMember(db, resource, req.userId, caller.principal.userId)) };
    }),
    roles(methods.roles, async () => ({
      // ListIAMMemberRoles names its list `roles`, the others `result`
      [type === 'instance' ? 'roles' : 'result']: [...MEMBER_ROLES[type]],
      ...(type === 'org' ? {} : { details: { totalResult: BigInt(MEMBER_ROLES[type].length) } }),
    })),
  ];
}

const methods = (m: Record<string, DescMethodUnary<DescMessage, DescMessage>>, prefix: string): MemberMethods => ({
  list: m[`list${prefix}Members`]!,
  add: m[`add${prefix}Member`]!,
  update: m[`update${prefix}Member`]!,
  remove: m[`remove${prefix}Member`]!,
  roles: m[`list${prefix}MemberRoles`]!,
  prefix,
});

function userMembershipFilter(query: MembershipQuery, i: number): UserMembershipFilter {
  const q = query.query;
  switch (q.case) {
    case 'iamQuery':
      return { field: 'instance' };
    case 'orgQuery':
      return { field: 'org', id: q.value.orgId };
    case 'projectQuery':
      return { field: 'project', id: q.value.projectId };
    case 'projectGrantQuery':
      return { field: 'none' };
    default:
      throw invalidArgument(`invalid ListUserMembershipsRequest.Queries[${i}]: an empty query is not supported`);
  }
}

function membershipMessage(userId: string, m: UserMembershipRow): MessageInitShape<typeof MembershipSchema> {
  const type =
    m.resource_type === 'instance'
      ? { case: 'iam' as const, value: true }
      : m.resource_type === 'org'
        ? { case: 'orgId' as const, value: m.resource_id }
        : { case: 'projectId' as const, value: m.resource_id };
  return {
    userId,
    details: storedDetails(m, m.resource_owner),
    roles: m.roles,
    displayName: m.display_name,
    type,
  };
}

export function memberOperationLists(deps: ManagementDeps): Operation[] {
  const M_ = M as unknown as Record<string, DescMethodUnary<DescMessage, DescMessage>>;
  const A_ = A as unknown as Record<string, DescMethodUnary<DescMessage, DescMessage>>;
  return [
    ...memberOperations(deps, 'org', methods(M_, 'Org'), alike(orgOwner), async (caller) => ({
      type: 'org',
      id: caller.orgId,
    })),
    // ZITADEL's PROJECT_OWNER manages its project's members (project.member.*), PROJECT_OWNER_VIEWER reads them
    ...memberOperations(deps, 'project', methods(M_, 'Project'), projectMembers, async (caller, req) => {
      const project = await getProject(deps.db, caller.orgId, req.projectId ?? '');
      return { type: 'project', id: project.id, owner: project.org_id };
    }),
    ...memberOperations(deps, 'instance', methods(A_, 'IAM'), alike(iamOwner), async () => ({
      type: 'instance',
      id: deps.instance.id,
    })),
    operation({
      method: M.listUserMemberships,
      permission: orgOwner,
      async handle(caller, req) {
        const filters = req.queries.map(userMembershipFilter);
        const page = pageOf(req.query, 'ListUserMembershipsRequest');
        const ref = { orgId: caller.orgId, userId: req.userId };
        const result = await listUserMemberships(deps.db, ref, filters, page);
        return {
          details: listDetailsMessage(result),
          result: result.rows.map((m) => membershipMessage(req.userId, m)),
        };
      },
    }),
  ];
}
