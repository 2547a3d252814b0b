// The role, metadata and org claims, in ZITADEL's names and shapes: the roles of the user's grants, the user's metadata
// and the org named by an org scope. Roles and metadata cost a query only when the token asks for them (a role scope,
// urn:zitadel:iam:org:projects:roles, urn:zitadel:iam:user:metadata) or its project has projectRoleAssertion; every
// other token is answered without one (the fast paths' statement budget).
import type { Queryable } from '../platform/db.ts';
import { grantedRoles, type GrantedRoles } from '../grants/service.ts';
import { metadataClaim } from '../metadata/service.ts';
import { findActiveUser } from '../users/lookup.ts';
import {
  METADATA_SCOPE,
  ORG_DOMAIN_PREFIX,
  ORG_ID_PREFIX,
  PROJECT_ROLE_PREFIX,
  PROJECTS_ROLES_SCOPE,
  RESOURCE_OWNER_SCOPE,
  requestedProjects,
  scopeValues,
} from './scopes.ts';

export const ROLES_CLAIM = 'urn:zitadel:iam:org:project:roles';
export const projectRolesClaim = (projectId: string) => `urn:zitadel:iam:org:project:${projectId}:roles`;

/** Where the roles come from: the token's project and whether it asserts roles without being asked. */
export interface RoleSource {
  projectId?: string | undefined;
  projectRoleAssertion: boolean;
  /** Introspection answers for the caller's project only (ZITADEL's currentProjectOnly). */
  currentProjectOnly?: boolean;
}

/** The projects whose roles are asked for, and the role keys asked for by name (ZITADEL's prepareRoles). */
export function roleRequest(scopes: ReadonlySet<string>, source: RoleSource): { projects: string[]; keys: string[] } {
  const keys = scopeValues(scopes, PROJECT_ROLE_PREFIX);
  const asked = keys.length > 0 || scopes.has(PROJECTS_ROLES_SCOPE);
  const projects = asked && !source.currentProjectOnly ? requestedProjects(scopes) : [];
  if ((asked || source.projectRoleAssertion) && source.projectId && !projects.includes(source.projectId))
    projects.push(source.projectId);
  return { projects, keys };
}

/** {roleKey: {orgId: orgPrimaryDomain}} per project; only the keys asked for when some were named. */
export function roleClaims(grants: GrantedRoles[], keys: string[], projectId: string | undefined) {
  const projects = new Map<string, Record<string, Record<string, string>>>();
  for (const grant of grants) {
    for (const key of grant.role_keys) {
      if (keys.length && !keys.includes(key)) continue;
      const roles = projects.get(grant.project_id) ?? {};
      roles[key] = { ...roles[key], [grant.org_id]: grant.org_domain };
      projects.set(grant.project_id, roles);
    }
  }
  const claims: Record<string, unknown> = {};
  if (projectId && projects.has(projectId)) claims[ROLES_CLAIM] = projects.get(projectId);
  for (const [id, roles] of projects) claims[projectRolesClaim(id)] = roles;
  return claims;
}

/** The user as these claims need it. */
export interface ClaimsUser {
  id: string;
  org_id: string;
  org_name: string;
  primary_domain: string;
}

/** Whether the claims below need the database for this token (tests hold the fast paths to it). */
export function needsQuery(scopes: ReadonlySet<string>, source: RoleSource, roles: boolean): boolean {
  return scopes.has(METADATA_SCOPE) || (roles && roleRequest(scopes, source).projects.length > 0);
}

/**
 * Org scope claims, metadata and (when `roles`: userinfo, introspection, the ID token with idTokenRoleAssertion,
 * a JWT access token with accessTokenRoleAssertion) the role claims, read now: a changed grant shows in the next
 * answer for the same token.
 */
export async function tokenClaims(
  db: Queryable,
  user: ClaimsUser,
  scopes: ReadonlySet<string>,
  source: RoleSource,
  roles: boolean,
): Promise<Record<string, unknown>> {
  const claims: Record<string, unknown> = {};
  // Only the user's own org is ever claimed: sign-in admits no one else (sign-in-checks.ts), and a machine grant,
  // which signs no one in, must not make a token claim an org its user does not belong to.
  const [orgId] = scopeValues(scopes, ORG_ID_PREFIX);
  const [orgDomain] = scopeValues(scopes, ORG_DOMAIN_PREFIX);
  if (orgDomain && orgDomain.toLowerCase() === user.primary_domain.toLowerCase())
    claims['urn:zitadel:iam:org:domain:primary'] = user.primary_domain;
  if (orgId === user.org_id) {
    // ZITADEL adds the resource owner claims with the org ID scope.
    claims['urn:zitadel:iam:org:id'] = orgId;
    claims[`${RESOURCE_OWNER_SCOPE}:id`] = user.org_id;
    claims[`${RESOURCE_OWNER_SCOPE}:name`] = user.org_name;
    claims[`${RESOURCE_OWNER_SCOPE}:primary_domain`] = user.primary_domain;
  }
  if (!needsQuery(scopes, source, roles)) return claims;
  const request = roleRequest(scopes, source);
  const [grants, metadata] = await Promise.all([
    roles && request.projects.length ? grantedRoles(db, user.id, request.projects) : [],
    scopes.has(METADATA_SCOPE) ? metadataClaim(db, user.id) : undefined,
  ]);
  if (metadata) claims['urn:zitadel:iam:user:metadata'] = metadata;
  return { ...claims, ...roleClaims(grants, request.keys, source.projectId) };
}

/** The same claims for a token being issued (ID token, JWT access token), where only the user's ID is at hand: the
 *  user is read only when a claim needs it. */
export async function issuedTokenClaims(
  db: Queryable,
  userId: string,
  scopes: ReadonlySet<string>,
  source: RoleSource,
  roles: boolean,
): Promise<Record<string, unknown>> {
  const orgScope = [...scopes].some((s) => s.startsWith(ORG_ID_PREFIX) || s.startsWith(ORG_DOMAIN_PREFIX));
  if (!orgScope && !needsQuery(scopes, source, roles)) return {};
  const user = await findActiveUser(db, userId);
  return user ? tokenClaims(db, user, scopes, source, roles) : {};
}

/** The claims for a user, the token's scopes and its client's settings (client metadata, provider/clients.ts). */
export type IssuedClaims = (
  userId: string,
  scopes: ReadonlySet<string>,
  client: Record<string, unknown>,
  use: 'id_token' | 'access_token',
) => Promise<Record<string, unknown>>;

/** Issued tokens' claims: roles only with the app's idTokenRoleAssertion / accessTokenRoleAssertion. */
export function issuedClaims(db: Queryable): IssuedClaims {
  return (userId, scopes, client, use) =>
    issuedTokenClaims(
      db,
      userId,
      scopes,
      {
        projectId: typeof client.project_id === 'string' ? client.project_id : undefined,
        projectRoleAssertion: client.project_role_assertion === true,
      },
      client[use === 'id_token' ? 'id_token_role_assertion' : 'access_token_role_assertion'] === true,
    );
}
