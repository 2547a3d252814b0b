// DeactivateUser (compat.md §1): the user can no longer log in, and its sessions, grants and tokens end in the
// same transaction, so the next request on any process sharing the database sees them inactive.
import type { Db } from '../platform/db.ts';
import { appendEvent } from '../events/log.ts';
import { changedDetails, type Details } from '../events/details.ts';
import { failedPrecondition, notFound } from '../platform/errors.ts';
import { deleteOidcArtifactsOfUser, lockUser, setUserState } from './queries.ts';

export async function deactivateUser(db: Db, userId: string, creator: string): Promise<Details> {
  return db.tx(async (tx) => {
    const user = await lockUser(tx, userId);
    if (!user) throw notFound('User could not be found', 'COMMAND-3M9ds');
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
