// The one authentication and permission layer of every encoding (compat.md §3, §4): a Bearer access token issued
// by Gatehouse, checked like introspection (active, not revoked, user active) and carrying the management API
// audience; roles from memberships; the org in context from `x-zitadel-orgid`. 401 comes before 403.
import type { Db } from '../platform/db.ts';
import { AppError, permissionDenied, unauthenticated } from '../platform/errors.ts';
import { getOrgById } from '../orgs/service.ts';
import { rolesFrom } from '../members/service.ts';
import { IAM_OWNER } from '../members/roles.ts';
import { MANAGEMENT_API_SCOPE } from '../oidc/scopes.ts';
import type { Oidc } from '../oidc/plugin.ts';
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

/** The org a call acts on: the one asked for (`x-zitadel-orgid`), else the caller's own. */
const contextOrgId = (principal: Principal, orgIdHeader: string | undefined) => orgIdHeader?.trim() || principal.orgId;

export function createAuthorizer(db: Db, verifyBearer: VerifyBearer) {
  async function authenticate(
    permission: Permission,
    { authorization, orgIdHeader }: RequestCredentials,
  ): Promise<{ principal: Principal; knownOrg: KnownOrg }> {
    if (!authorization) throw unauthenticated('auth header missing', 'AUTH-7mr9s');
    const match = /^Bearer +(\S+) *$/i.exec(authorization);
    if (!match) throw unauthenticated('invalid auth header', 'AUTH-7fs1e');
    // The org asked for is read with the token (one statement, issue 21's lookups); text with NUL matches no row
    // and would fail the shared statement, so such a header is left to authorizePrincipal's own lookup.
    const asked = permission.kind === 'org' ? orgIdHeader?.trim() || undefined : undefined;
    // active, not revoked, of an active user (oidc/access-tokens.ts); roles and the org read at once, every call
    const token = await verifyBearer(match[1]!, asked?.includes('\0') ? undefined : asked);
    if (!token?.scopes.has(MANAGEMENT_API_SCOPE)) throw invalidToken();
    const principal = { userId: token.userId, orgId: token.orgId, roles: rolesFrom(token.memberships) };
    return {
      principal: token.projectId ? { ...principal, projectId: token.projectId } : principal,
      knownOrg: token.contextOrg,
    };
  }

  /** 401, then 403: the caller as the operation sees it. */
  return async (permission: Permission, credentials: RequestCredentials): Promise<Caller> => {
    const { principal, knownOrg } = await authenticate(permission, credentials);
    return authorizePrincipal(db, principal, permission, credentials.orgIdHeader, knownOrg);
  };
}

export type Authorize = ReturnType<typeof createAuthorizer>;

/** The permission check of an authenticated principal (403), also used by the console (src/console/). */
export async function authorizePrincipal(
  db: Db,
  principal: Principal,
  permission: Permission,
  orgIdHeader: string | undefined,
  knownOrg?: KnownOrg,
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
      const orgId = contextOrgId(principal, orgIdHeader);
      // An org that does not exist is answered like one the caller may not see (compat.md §1).
      const exists =
        knownOrg?.id === orgId
          ? knownOrg.exists
          : await getOrgById(db, orgId).then(
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
