// Scopes Gatehouse understands (compat.md §4, §6). Other requested scopes are dropped, not rejected.

/** Puts the management API in the token's audience; exactly ZITADEL's string, which its SDKs send. */
export const MANAGEMENT_API_SCOPE = 'urn:zitadel:iam:org:project:id:zitadel:aud';
/** Adds the user's organization claims. */
export const RESOURCE_OWNER_SCOPE = 'urn:zitadel:iam:user:resourceowner';

export const SUPPORTED_SCOPES = ['openid', 'profile', 'email', 'phone', 'address', 'offline_access', MANAGEMENT_API_SCOPE, RESOURCE_OWNER_SCOPE];

const PROJECT_AUDIENCE = /^urn:zitadel:iam:org:project:id:([^:\s]+):aud$/;

/** Project IDs requested with urn:zitadel:iam:org:project:id:{projectId}:aud (the management alias excluded). */
export function requestedProjects(scopes: Iterable<string>): string[] {
  const ids: string[] = [];
  for (const scope of scopes) {
    const id = PROJECT_AUDIENCE.exec(scope)?.[1];
    if (id && scope !== MANAGEMENT_API_SCOPE) ids.push(id);
  }
  return ids;
}

/** The scopes a machine grant keeps: the supported ones and project audiences. */
export function filterMachineScopes(requested: string): string {
  const kept = requested.split(' ').filter((s) => s && s !== 'offline_access' && (SUPPORTED_SCOPES.includes(s) || PROJECT_AUDIENCE.test(s)));
  return [...new Set(kept)].join(' ');
}
