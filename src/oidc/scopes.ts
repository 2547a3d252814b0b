// Scopes Gatehouse understands (compat.md §4, §6). Other requested scopes are dropped, not rejected.

/** Puts the management API in the token's audience; exactly ZITADEL's string, which its SDKs send. */
export const MANAGEMENT_API_SCOPE = 'urn:zitadel:iam:org:project:id:zitadel:aud';
/** Adds the user's organization claims. */
export const RESOURCE_OWNER_SCOPE = 'urn:zitadel:iam:user:resourceowner';

export const SUPPORTED_SCOPES = [
  'openid',
  'profile',
  'email',
  'phone',
  'address',
  'offline_access',
  MANAGEMENT_API_SCOPE,
  RESOURCE_OWNER_SCOPE,
];

const PROJECT_AUDIENCE = /^urn:zitadel:iam:org:project:id:([^:\s]+):aud$/;

/** urn:zitadel:iam:org:project:id:{projectId}:aud: a dynamic scope, which oidc-provider would drop. */
export const isProjectAudience = (scope: string) => PROJECT_AUDIENCE.test(scope) && scope !== MANAGEMENT_API_SCOPE;

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
  return [...new Set(requested.split(' ').filter((s) => SUPPORTED_SCOPES.includes(s) || PROJECT_AUDIENCE.test(s)))];
}

/** Machine grants issue no refresh tokens (compat.md §6), so offline_access is dropped too. */
export function filterMachineScopes(requested: string): string {
  return knownScopes(requested)
    .filter((s) => s !== 'offline_access')
    .join(' ');
}
