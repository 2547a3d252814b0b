// Who may sign in to an app: an org scope (urn:zitadel:iam:org:id:{id}, urn:zitadel:iam:org:domain:primary:{domain})
// admits only that org's users; the project's projectRoleCheck admits only users with a grant of the project, its
// hasProjectCheck only users of the org that owns it or holds a project grant of it. The login pages show the refusal
// (login/refused.ts); the provider refuses with access_denied any authorization that would skip them (provider.ts
// loadExistingGrant).
import type { Queryable } from '../platform/db.ts';
import { grantedRoles } from '../grants/service.ts';
import { orgHoldsProjectGrant } from '../grants/project-grants.ts';
import { findActiveUser } from '../users/lookup.ts';
import { ORG_DOMAIN_PREFIX, ORG_ID_PREFIX, scopeValues } from './scopes.ts';

/** The authorization parameter the provider sets when the client's project checks who signs in (provider.ts). */
export const SIGN_IN_CHECKS_PARAM = 'gatehouse_sign_in_checks';

export type SignInRefusal = 'org' | 'project_role' | 'has_project';

/** Said to the app with access_denied (the page says it in the user's language). */
export const REFUSAL_DESCRIPTIONS: Record<SignInRefusal, string> = {
  org: 'the user does not belong to the requested organization',
  project_role: 'the user has no grant of the project',
  has_project: "the user's organization has no access to the project",
};

/** The client metadata these checks read (provider/clients.ts). */
export interface CheckedClient {
  project_id?: unknown;
  project_org_id?: unknown;
  project_role_check?: unknown;
  has_project_check?: unknown;
}

export async function signInRefusal(
  db: Queryable,
  userId: string,
  client: CheckedClient,
  scopes: ReadonlySet<string>,
): Promise<SignInRefusal | undefined> {
  const orgIds = scopeValues(scopes, ORG_ID_PREFIX);
  const domains = scopeValues(scopes, ORG_DOMAIN_PREFIX).map((d) => d.toLowerCase());
  const checksProject = client.project_role_check === true || client.has_project_check === true;
  if (!orgIds.length && !domains.length && !checksProject) return undefined;
  const user = await findActiveUser(db, userId);
  if (!user) return 'org';
  if (orgIds.some((id) => id !== user.org_id)) return 'org';
  if (domains.some((domain) => domain !== user.primary_domain.toLowerCase())) return 'org';
  if (
    client.has_project_check === true &&
    user.org_id !== client.project_org_id &&
    !(typeof client.project_id === 'string' && (await orgHoldsProjectGrant(db, client.project_id, user.org_id)))
  )
    return 'has_project';
  if (client.project_role_check === true && typeof client.project_id === 'string') {
    const grants = await grantedRoles(db, user.id, [client.project_id]);
    if (!grants.length) return 'project_role';
  }
  return undefined;
}
