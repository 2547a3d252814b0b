// Memberships, as ZITADEL holds roles: roles of a user on the instance (IAM_*) or on one org (ORG_*), the one way to
// grant them (createMember: AddIAMMember, `admin create`, SetUpOrg's and the first start's first users), and the roles
// a user holds, which the management API's permission checks read.
import type { Db, Queryable } from '../platform/db.ts';
import { appendEvent, type WrittenEvent } from '../events/log.ts';
import { EVENT } from '../events/types.ts';
import { alreadyExists, failedPrecondition } from '../platform/errors.ts';
import { MEMBER_ERROR_IDS } from './errors.ts';
import { findMemberships, insertNewMembership, lockIamOwners, type MembershipRow, type Resource } from './queries.ts';

/** A resource members are held on, with its resource owner (the org of a project; else the resource itself). */
export type MemberResource = Resource & { owner?: string };

/** Grants the roles in the caller's transaction, with its `<resource>.member.added` event; a user who is already a
 *  member of the resource is refused (ALREADY_EXISTS). */
export async function createMember(
  tx: Queryable,
  resource: MemberResource,
  userId: string,
  roles: readonly string[],
  creator: string,
): Promise<WrittenEvent> {
  const event = await appendEvent(tx, {
    aggregateType: resource.type,
    aggregateId: resource.id,
    eventType: EVENT[resource.type].memberAdded,
    payload: { userId, roles },
    resourceOwner: resource.owner ?? resource.id,
    creator,
  });
  const membership = {
    userId,
    resourceType: resource.type,
    resourceId: resource.id,
    roles: [...new Set(roles)],
    sequence: event.sequence,
  };
  if (!(await insertNewMembership(tx, membership)))
    throw alreadyExists('Member already exists', MEMBER_ERROR_IDS[resource.type].exists);
  return event;
}

/** A project membership: its project's org (the org in context of a project member) and the roles. */
export interface ProjectRoles {
  orgId: string;
  roles: ReadonlySet<string>;
}

export interface Roles {
  instance: ReadonlySet<string>;
  /** ORG_* roles by org id. */
  orgs: ReadonlyMap<string, ReadonlySet<string>>;
  /** PROJECT_* roles by project id. */
  projects: ReadonlyMap<string, ProjectRoles>;
}

/** Read once per request: a removed or changed membership counts from the next request on. */
export async function rolesOf(db: Db, userId: string): Promise<Roles> {
  return rolesFrom(await findMemberships(db, userId));
}

/** The roles a user's memberships give (the management API's bearer check reads them with the token). */
export function rolesFrom(memberships: readonly MembershipRow[]): Roles {
  const instance = new Set<string>();
  const orgs = new Map<string, Set<string>>();
  const projects = new Map<string, ProjectRoles>();
  for (const m of memberships) {
    if (m.resource_type === 'instance') for (const r of m.roles) instance.add(r);
    else if (m.resource_type === 'org') orgs.set(m.resource_id, new Set(m.roles));
    else if (m.project_org_id) projects.set(m.resource_id, { orgId: m.project_org_id, roles: new Set(m.roles) });
  }
  return { instance, orgs, projects };
}

/**
 * Refuses a change after which no user holds IAM_OWNER (the last one cannot be removed or demoted), so the instance
 * always keeps an administrator. `losing` tells which holders the change takes it from.
 */
export async function keepAnIamOwner(
  tx: Queryable,
  losing: string | ((owner: { user_id: string; org_id: string }) => boolean),
): Promise<void> {
  const loses = typeof losing === 'string' ? (o: { user_id: string }) => o.user_id === losing : losing;
  const owners = await lockIamOwners(tx);
  if (owners.some(loses) && owners.every(loses)) {
    throw failedPrecondition('The last IAM_OWNER cannot be removed or demoted', 'IAM-L4stOw');
  }
}
