// Memberships (compat.md §1): roles of a user on the instance (IAM_*) or on one org (ORG_*), the one way to grant
// them (createMember: AddIAMMember, `admin create`, SetUpOrg's and the first start's first users), and the roles a
// user holds, which the management API's permission checks read (§4).
import type { Db, Queryable } from '../platform/db.ts';
import { appendEvent, type WrittenEvent } from '../events/log.ts';
import { alreadyExists } from '../platform/errors.ts';
import { findMemberships, insertNewMembership, type ResourceType } from './queries.ts';

/** Grants the roles in the caller's transaction, with its `<resource>.member.added` event; a user who is already a
 *  member of the resource is refused (ALREADY_EXISTS). */
export async function createMember(
  tx: Queryable,
  resource: { type: ResourceType; id: string },
  userId: string,
  roles: readonly string[],
  creator: string,
): Promise<WrittenEvent> {
  const event = await appendEvent(tx, {
    aggregateType: resource.type,
    aggregateId: resource.id,
    eventType: `${resource.type}.member.added`,
    payload: { userId, roles },
    resourceOwner: resource.id,
    creator,
  });
  const membership = { userId, resourceType: resource.type, resourceId: resource.id, roles: [...new Set(roles)] };
  if (!(await insertNewMembership(tx, membership))) throw alreadyExists('Member already exists', 'IAM-sdgQ4');
  return event;
}

export interface Roles {
  instance: ReadonlySet<string>;
  orgs: ReadonlyMap<string, ReadonlySet<string>>;
}

export async function rolesOf(db: Db, userId: string): Promise<Roles> {
  const instance = new Set<string>();
  const orgs = new Map<string, Set<string>>();
  for (const m of await findMemberships(db, userId)) {
    if (m.resource_type === 'instance') for (const r of m.roles) instance.add(r);
    else orgs.set(m.resource_id, new Set(m.roles));
  }
  return { instance, orgs };
}
