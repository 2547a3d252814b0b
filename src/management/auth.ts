// The one authentication and permission layer of every encoding (compat.md §3, §4): a Bearer access token issued
// by Gatehouse, checked like introspection (active, not revoked, user active) and carrying the management API
// audience; roles from memberships; the org in context from `x-zitadel-orgid`. 401 comes before 403.
import type { Db } from '../platform/db.ts';
import { AppError, permissionDenied, unauthenticated } from '../platform/errors.ts';
import { getOrgById } from '../orgs/service.ts';
import { rolesOf } from '../members/service.ts';
import { IAM_OWNER } from '../members/roles.ts';
import { MANAGEMENT_API_SCOPE } from '../oidc/scopes.ts';
import type { Oidc } from '../oidc/plugin.ts';
import type { Caller, Permission, Principal } from './operation.ts';

/** The OIDC provider's check of a presented access token; undefined when it is not active. */
export type VerifyAccessToken = Oidc['verifyAccessToken'];

export interface RequestCredentials {
  authorization: string | undefined;
  orgIdHeader: string | undefined;
}

const invalidToken = () => unauthenticated('Errors.Token.Invalid', 'AUTH-7fs1e');

export function createAuthorizer(db: Db, verifyAccessToken: VerifyAccessToken) {
  async function authenticate(authorization: string | undefined): Promise<Principal> {
    if (!authorization) throw unauthenticated('auth header missing', 'AUTH-7mr9s');
    const match = /^Bearer +(\S+) *$/i.exec(authorization);
    if (!match) throw unauthenticated('invalid auth header', 'AUTH-7fs1e');
    // active, not revoked, of an active user (oidc/access-tokens.ts)
    const token = await verifyAccessToken(match[1]!);
    if (!token?.scopes.has(MANAGEMENT_API_SCOPE)) throw invalidToken();
    const principal = { userId: token.userId, orgId: token.orgId, roles: await rolesOf(db, token.userId) };
    return token.projectId ? { ...principal, projectId: token.projectId } : principal;
  }

  /** 401, then 403: the caller as the operation sees it. */
  return async (permission: Permission, credentials: RequestCredentials): Promise<Caller> =>
    authorizePrincipal(db, await authenticate(credentials.authorization), permission, credentials.orgIdHeader);
}

export type Authorize = ReturnType<typeof createAuthorizer>;

/** The permission check of an authenticated principal (403), also used by the console (src/console/). */
export async function authorizePrincipal(
  db: Db,
  principal: Principal,
  permission: Permission,
  orgIdHeader: string | undefined,
): Promise<Caller> {
  const denied = () => permissionDenied('No matching permissions found', 'AUTH-5mWD2');
  const isIamOwner = principal.roles.instance.has(IAM_OWNER);
  switch (permission.kind) {
    case 'authenticated':
      return { principal, orgId: principal.orgId };
    case 'instance':
      if (!principal.roles.instance.has(permission.role)) throw denied();
      return { principal, orgId: principal.orgId };
    case 'org': {
      const orgId = orgIdHeader?.trim() || principal.orgId;
      // An org that does not exist is answered like one the caller may not see (compat.md §1).
      const exists = await getOrgById(db, orgId).then(
        () => true,
        (error: unknown) => {
          if (error instanceof AppError) return false;
          throw error;
        },
      );
      if (!exists) throw denied();
      if (!isIamOwner && !principal.roles.orgs.get(orgId)?.has(permission.role)) throw denied();
      return { principal, orgId };
    }
  }
}
