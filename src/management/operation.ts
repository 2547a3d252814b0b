// What an implemented management method is: its descriptor, who may call it, and a handler that calls one service
// function. Adding an operation means adding one of these to a handler list (handlers/*.ts); every encoding
// (REST, gRPC, gRPC-Web) serves it through the same authentication, permission check and validation (invoke.ts).
import type { DescMessage, DescMethodUnary, MessageInitShape, MessageShape } from '@bufbuild/protobuf';
import { IAM_OWNER, ORG_OWNER } from '../members/roles.ts';
import type { Roles } from '../members/service.ts';
import type { Queryable } from '../platform/db.ts';
import type { HashAdmission } from '../users/passwords.ts';

/** Where a project operation's request names its project: a field, or a lookup (a user grant's project). Each
 *  reads its own request message (`never` here: any request type is accepted). */
export type ProjectOf = (request: never, db: Queryable) => string | undefined | Promise<string | undefined>;

/** Who may call: any authenticated user, an instance role, or a role on the org in context
 *  (`x-zitadel-orgid` or the caller's own org; IAM_OWNER may act on every org).
 *  `project` (ZITADEL's PROJECT_OWNER permissions in cmd/defaults.yaml): the org role as for `org`, or a
 *  membership of the project the request names: PROJECT_OWNER for `write`, PROJECT_OWNER or PROJECT_OWNER_VIEWER
 *  for `read`; the project's org is then the org in context. Without `projectOf` the operation names no one project
 *  (ListProjects, ListUsers, ListProjectMemberRoles): a member of a project of the org in context may call it, and
 *  `Caller.projectIds` holds the projects it may see. */
export type Permission =
  | { kind: 'authenticated' }
  | { kind: 'instance'; role: string }
  | { kind: 'org'; role: string }
  | { kind: 'project'; role: string; access: 'read' | 'write'; projectOf?: ProjectOf };

/** The permissions most operations name: any signed-in caller, the org owner of the org in context, the instance's
 *  owner. */
export const authenticated = { kind: 'authenticated' } as const satisfies Permission;
export const orgOwner = { kind: 'org', role: ORG_OWNER } as const satisfies Permission;
export const iamOwner = { kind: 'instance', role: IAM_OWNER } as const satisfies Permission;

/** An authenticated caller of the management API (auth.ts). */
export interface Principal {
  userId: string;
  /** The organization the user belongs to. */
  orgId: string;
  roles: Roles;
  /** The project of the app the token was issued to, if any (ListMyProjectOrgs). */
  projectId?: string;
  /** The caller is a machine user: its token comes from no login (recent-login.ts). */
  machine?: boolean;
  /** When the login that issued the caller's token authenticated (seconds since the epoch), if the token says. */
  authTime?: number;
}

export interface Caller {
  principal: Principal;
  /** The organization the call acts on: only meaningful for `org` and `project` permissions, else the caller's own. */
  orgId: string;
  /** Set when the caller acts through project memberships (not as ORG_OWNER or IAM_OWNER): the projects of the org
   *  in context it may see; lists of projects show only these. */
  projectIds?: ReadonlySet<string>;
}

export interface Operation<I extends DescMessage = DescMessage, O extends DescMessage = DescMessage> {
  method: DescMethodUnary<I, O>;
  permission: Permission;
  handle(caller: Caller, request: MessageShape<I>): Promise<MessageInitShape<O>>;
}

/** Types an operation by its method's messages; lists of operations hold them untyped. */
export function operation<I extends DescMessage, O extends DescMessage>(op: Operation<I, O>): Operation {
  return op as unknown as Operation;
}

/** A read a client shows that no v1 method serves (ZITADEL's v1 lists an org's apps only per project, and a user's
 *  sessions only to that user): a permission and a handler as an operation has, with no message to decode or
 *  encode, so it names no project (its permission is an org's or the instance's). The console runs it through the
 *  same pipeline as the operations (invoke.ts). */
export interface Read<R, T> {
  permission: Exclude<Permission, { kind: 'project' }>;
  handle(caller: Caller, request: R): Promise<T>;
}

/** Hashing for a call that sets a password (SetUpOrg, ImportHumanUser): through the same bounded queue as the
 *  login pages, with the caller in place of a client address, so one token cannot fill the queue. */
export function callerHash(hashing: HashAdmission, caller: Caller): (password: string) => Promise<string> {
  return (password) => hashing.hash(`caller:${caller.principal.userId}`, password);
}

/** A project operation's permission: ORG_OWNER or IAM_OWNER as for `org`, or a member of the project. */
export const projectPermission = (access: 'read' | 'write', projectOf?: ProjectOf): Permission => ({
  kind: 'project',
  role: ORG_OWNER,
  access,
  ...(projectOf && { projectOf }),
});

/** The project a request names in `projectId` (roles, apps, members, grants) or in `id` (the project methods). */
const inProjectId: ProjectOf = (req: { projectId: string }) => req.projectId;
export const inId: ProjectOf = (req: { id: string }) => req.id;

/** The permissions of the operations whose request names its project in `projectId` (its roles, apps, members,
 *  grants and changes): reading it, and changing it. Its PROJECT_OWNER holds both, its PROJECT_OWNER_VIEWER the first
 *  (ZITADEL's project.role.*, project.app.*, project.member.*, project.grant.*). */
export const projectRead = projectPermission('read', inProjectId);
export const projectWrite = projectPermission('write', inProjectId);
