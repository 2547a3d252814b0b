// Organization roles of a user (compat.md §1), the one way to grant them: SetUpOrg and the first start
// (orgs/create.ts) give the org's first user its roles this way.
import type { Queryable } from '../platform/db.ts';
import { appendEvent, type WrittenEvent } from '../events/log.ts';
import { insertMembership } from './queries.ts';

/** Adds the roles in the caller's transaction, with their event. */
export async function createOrgMember(
  tx: Queryable,
  orgId: string,
  userId: string,
  roles: readonly string[],
  creator: string,
): Promise<WrittenEvent> {
  const event = await appendEvent(tx, {
    aggregateType: 'org',
    aggregateId: orgId,
    eventType: 'org.member.added',
    payload: { userId, roles },
    resourceOwner: orgId,
    creator,
  });
  await insertMembership(tx, { userId, resourceType: 'org', resourceId: orgId, roles });
  return event;
}
