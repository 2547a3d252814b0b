// DeactivateUser (compat.md §1): the user can no longer log in, and its sessions, grants and tokens end in the
// same transaction, so the next request on any process sharing the database sees them inactive.
import type { Db } from '../platform/db.ts';
import { appendEvent } from '../events/log.ts';
import { changedDetails, type Details } from '../events/details.ts';
import { failedPrecondition } from '../platform/errors.ts';
import { deleteOidcArtifactsOfUser, lockUser, setUserState } from './queries.ts';
import { userNotFound, type UserRef } from './service.ts';

/** `ref.orgId`: the org in context; a user of another org is not found (getOrgUser). */
export async function deactivateUser(db: Db, ref: UserRef, creator: string): Promise<Details> {
  const { userId } = ref;
  return db.tx(async (tx) => {
    const user = await lockUser(tx, userId);
    if (user?.org_id !== ref.orgId) throw userNotFound();
    if (user.state !== 'active') throw failedPrecondition('User is not active', 'COMMAND-5M0sf');
    const event = await appendEvent(tx, {
      aggregateType: 'user',
      aggregateId: userId,
      eventType: 'user.deactivated',
      resourceOwner: user.org_id,
      creator,
    });
    await setUserState(tx, userId, 'inactive', event.sequence, event.createdAt);
    await deleteOidcArtifactsOfUser(tx, userId);
    return changedDetails(event);
  });
}
