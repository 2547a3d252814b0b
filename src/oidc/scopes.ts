// Scopes Gatehouse understands, ZITADEL's reserved ones among them. Other requested scopes are dropped, not rejected.

/** Puts the management API in the token's audience; exactly ZITADEL's string, which its SDKs send. */
export const MANAGEMENT_API_SCOPE = 'urn:zitadel:iam:org:project:id:zitadel:aud';
/** Adds the user's organization claims. */
export const RESOURCE_OWNER_SCOPE = 'urn:zitadel:iam:user:resourceowner';
/** The roles of every project in the token's audience. */
export const PROJECTS_ROLES_SCOPE = 'urn:zitadel:iam:org:projects:roles';
/** The user's metadata (urn:zitadel:iam:user:metadata claim). */
export const METADATA_SCOPE = 'urn:zitadel:iam:user:metadata';
/** urn:zitadel:iam:org:project:role:{roleKey}: asks for one role (only granted ones come back). */
export const PROJECT_ROLE_PREFIX = 'urn:zitadel:iam:org:project:role:';
/** urn:zitadel:iam:org:id:{orgId} and urn:zitadel:iam:org:domain:primary:{domain}: only that org's users sign in. */
export const ORG_ID_PREFIX = 'urn:zitadel:iam:org:id:';
export const ORG_DOMAIN_PREFIX = 'urn:zitadel:iam:org:domain:primary:';
/** urn:zitadel:iam:org:idp:id:{idpId}: sign in with that identity provider straight away. */
export const IDP_ID_PREFIX = 'urn:zitadel:iam:org:idp:id:';

/** The scopes of a personal access token: ZITADEL's (openid, metadata, resource owner; management/user.go
 *  AddPersonalAccessToken) and the management API's audience, which ZITADEL grants its PATs without a scope. */
export const PERSONAL_ACCESS_TOKEN_SCOPES = ['openid', METADATA_SCOPE, RESOURCE_OWNER_SCOPE, MANAGEMENT_API_SCOPE];

export const SUPPORTED_SCOPES = [
  'openid',
  'profile',
  'email',
  'phone',
  'address',
  'offline_access',
  MANAGEMENT_API_SCOPE,
  RESOURCE_OWNER_SCOPE,
  PROJECTS_ROLES_SCOPE,
  METADATA_SCOPE,
];

const PROJECT_AUDIENCE = /^urn:zitadel:iam:org:project:id:([^:\s]+):aud$/;

/** urn:zitadel:iam:org:project:id:{projectId}:aud: a dynamic scope, which oidc-provider would drop. */
export const isProjectAudience = (scope: string) => PROJECT_AUDIENCE.test(scope) && scope !== MANAGEMENT_API_SCOPE;

const DYNAMIC_PREFIXES = [PROJECT_ROLE_PREFIX, ORG_ID_PREFIX, ORG_DOMAIN_PREFIX, IDP_ID_PREFIX];

/** A scope with a value in it (project audience, role, org), which oidc-provider would drop: kept (provider.ts). */
export const isDynamicScope = (scope: string) =>
  isProjectAudience(scope) ||
  DYNAMIC_PREFIXES.some((prefix) => scope.length > prefix.length && scope.startsWith(prefix) && !/\s/.test(scope));

/** The values of the scopes with the given prefix (role keys, org IDs, org domains). */
export function scopeValues(scopes: Iterable<string>, prefix: string): string[] {
  return [...scopes].filter((s) => s.startsWith(prefix) && s.length > prefix.length).map((s) => s.slice(prefix.length));
}

/** Project IDs requested with urn:zitadel:iam:org:project:id:{projectId}:aud (the management alias excluded). */
export function requestedProjects(scopes: Iterable<string>): string[] {
  const ids: string[] = [];
  for (const scope of scopes) {
    const id = PROJECT_AUDIENCE.exec(scope)?.[1];
    if (id && scope !== MANAGEMENT_API_SCOPE) ids.push(id);
  }
  return ids;
}

/** The requested scopes Gatehouse knows (the supported ones and project audiences), without duplicates. */
function knownScopes(requested: string): string[] {
  return [...new Set(requested.split(' ').filter((s) => SUPPORTED_SCOPES.includes(s) || isDynamicScope(s)))];
}

/** Machine grants issue no refresh tokens, as in ZITADEL, so offline_access is dropped too. */
export function filterMachineScopes(requested: string): string {
  return knownScopes(requested)
    .filter((s) => s !== 'offline_access')
    .join(' ');
}
