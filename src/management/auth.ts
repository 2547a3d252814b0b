// The one authentication and permission layer of every encoding: a Bearer access token issued
// by Gatehouse, checked like introspection (active, not revoked, user active) and carrying the management API
// audience; roles from memberships; the org in context from `x-zitadel-orgid`. 401 comes before 403.
import type { Db } from '../platform/db.ts';
import type { Message } from '@bufbuild/protobuf';
import { AppError, permissionDenied, unauthenticated } from '../platform/errors.ts';
import { getOrgById } from '../orgs/service.ts';
import { projectNotFound } from '../projects/service.ts';
import { rolesFrom, type ProjectRoles, type Roles } from '../members/service.ts';
import { IAM_OWNER, PROJECT_OWNER, PROJECT_OWNER_VIEWER } from '../members/roles.ts';
import { MANAGEMENT_API_SCOPE } from '../oidc/scopes.ts';
import type { Oidc } from '../oidc/plugin.ts';
import type { Authorize } from './invoke.ts';
import type { Caller, Permission, Principal } from './operation.ts';

/** The OIDC provider's check of a presented access token, with the caller's memberships and the org in context;
 *  undefined when the token is not active. */
export type VerifyBearer = Oidc['verifyBearer'];

export interface RequestCredentials {
  authorization: string | undefined;
  orgIdHeader: string | undefined;
}

/** An org whose existence was read with the caller's token (VerifyBearer). */
interface KnownOrg {
  id: string;
  exists: boolean;
}

const invalidToken = () => unauthenticated('Errors.Token.Invalid', 'AUTH-7fs1e');

export function createAuthorizer(db: Db, verifyBearer: VerifyBearer) {
  async function authenticate(
    permission: Permission,
    { authorization, orgIdHeader }: RequestCredentials,
  ): Promise<{ principal: Principal; knownOrg: KnownOrg }> {
    if (!authorization) throw unauthenticated('auth header missing', 'AUTH-7mr9s');
    const match = /^Bearer +(\S+) *$/i.exec(authorization);
    if (!match) throw unauthenticated('invalid auth header', 'AUTH-7fs1e');
    // The org asked for is read with the token (the same statement, no extra round trip); text with NUL matches no row
    // and would fail the shared statement, so such a header is left to requireOrg's own lookup.
    const asked =
      permission.kind === 'org' || permission.kind === 'project' ? orgIdHeader?.trim() || undefined : undefined;
    // active, not revoked, of an active user (oidc/access-tokens.ts); roles and the org read at once, every call
    const token = await verifyBearer(match[1]!, asked?.includes('\0') ? undefined : asked);
    if (!token?.scopes.has(MANAGEMENT_API_SCOPE)) throw invalidToken();
    const principal: Principal = {
      userId: token.userId,
      orgId: token.orgId,
      roles: rolesFrom(token.memberships),
      ...(token.projectId && { projectId: token.projectId }),
      ...(token.machine && { machine: true }),
      ...(token.authTime !== undefined && { authTime: token.authTime }),
    };
    return {
      principal,
      knownOrg: token.contextOrg,
    };
  }

  const authorize: Authorize<RequestCredentials> = async (permission, credentials, request) => {
    const { principal, knownOrg } = await authenticate(permission, credentials);
    return authorizePrincipal(db, principal, permission, credentials.orgIdHeader, request, knownOrg);
  };
  return authorize;
}

/** The permission check of an authenticated principal (403), also used by the console (src/console/). */
export async function authorizePrincipal(
  db: Db,
  principal: Principal,
  permission: Permission,
  orgIdHeader: string | undefined,
  request: () => Message,
  knownOrg?: KnownOrg,
): Promise<Caller> {
  const header = orgIdHeader?.trim() || undefined;
  const orgId = header ?? principal.orgId;
  switch (permission.kind) {
    case 'authenticated':
      return { principal, orgId: principal.orgId };
    case 'instance':
      if (!principal.roles.instance.has(permission.role)) throw denied();
      return { principal, orgId: principal.orgId };
    case 'org':
      if (!actsForOrg(principal, permission.role, orgId)) throw denied();
      await requireOrg(db, orgId, knownOrg);
      return { principal, orgId };
    case 'project':
      if (actsForOrg(principal, permission.role, orgId)) {
        await requireOrg(db, orgId, knownOrg);
        return { principal, orgId };
      }
      return projectMemberCaller(db, principal, permission, header, request);
  }
}

const denied = () => permissionDenied('No matching permissions found', 'AUTH-5mWD2');

/** Whether the principal holds the org role on the org, or is IAM_OWNER (who may act on every org). */
export const actsForOrg = (principal: Principal, role: string, orgId: string): boolean =>
  principal.roles.instance.has(IAM_OWNER) || Boolean(principal.roles.orgs.get(orgId)?.has(role));

/** An org that does not exist is answered like one the caller may not see (403, as ZITADEL's v1 API does);
 *  read with the token when it is the org asked for (`known`), else on its own. */
async function requireOrg(db: Db, orgId: string, known: KnownOrg | undefined): Promise<void> {
  const exists =
    known?.id === orgId
      ? known.exists
      : await getOrgById(db, orgId).then(
          () => true,
          (error: unknown) => {
            if (error instanceof AppError) return false;
            throw error;
          },
        );
  if (!exists) throw denied();
}

// ZITADEL's PROJECT_OWNER may read and write its project, PROJECT_OWNER_VIEWER only read it (cmd/defaults.yaml).
// The *_GLOBAL roles are for ZITADEL's granted projects, which Gatehouse does not model: they grant nothing here.
const PROJECT_ACCESS = { write: [PROJECT_OWNER], read: [PROJECT_OWNER, PROJECT_OWNER_VIEWER] } as const;

/** The project memberships that give access to their project (the console shows their projects). */
export function projectMemberships(roles: Roles): ReadonlyMap<string, ProjectRoles> {
  return new Map([...roles.projects].filter(([, m]) => PROJECT_ACCESS.read.some((r) => m.roles.has(r))));
}

/**
 * A `project` permission of a caller without the org role: 403 when it holds no project role at all,
 * before the request is read (as for any other refusal); 404 for a project it is no member of (ids of others are
 * not found, as in ZITADEL), also one outside the org named by `x-zitadel-orgid`; 403 for a viewer that writes.
 */
async function projectMemberCaller(
  db: Db,
  principal: Principal,
  permission: Extract<Permission, { kind: 'project' }>,
  header: string | undefined,
  request: () => Message,
): Promise<Caller> {
  const allowed = PROJECT_ACCESS[permission.access];
  const grants = (roles: ReadonlySet<string>) => allowed.some((r) => roles.has(r));
  const held = projectMemberships(principal.roles);
  if (held.size === 0) throw denied();
  if (!permission.projectOf) {
    const orgId = header ?? principal.orgId;
    const projectIds = new Set([...held].filter(([, m]) => m.orgId === orgId && grants(m.roles)).map(([id]) => id));
    if (projectIds.size === 0) throw denied();
    return { principal, orgId, projectIds };
  }
  const projectId = await permission.projectOf(request() as never, db);
  const membership = projectId === undefined ? undefined : held.get(projectId);
  if (!membership || (header !== undefined && header !== membership.orgId)) throw projectNotFound();
  if (!grants(membership.roles)) throw denied();
  return { principal, orgId: membership.orgId, projectIds: new Set([projectId!]) };
}
