// RemoveUser: removal is complete and immediate. The user's row goes, and with it (in the same transaction) its
// sessions, grants and tokens, its memberships, keys, consents, user grants and metadata (the ON DELETE CASCADE
// constraints); its user name is free again at once. The event log keeps its history. It lives with the members
// because the last instance owner may not be removed (service.ts keepAnIamOwner), and members build on users.
import type { Db } from '../platform/db.ts';
import { appendEvent } from '../events/log.ts';
import { EVENT } from '../events/types.ts';
import { changedDetails, type Details } from '../events/details.ts';
import { deleteOidcArtifactsOfUser } from '../users/artifact-queries.ts';
import { deleteUser, lockUser } from '../users/queries.ts';
import { userNotFound, type UserRef } from '../users/service.ts';
import { keepAnIamOwner } from './service.ts';

export async function removeUser(db: Db, ref: UserRef, creator: string): Promise<Details> {
  const { userId } = ref;
  return db.tx(async (tx) => {
    const user = await lockUser(tx, userId);
    if (user?.org_id !== ref.orgId) throw userNotFound();
    await keepAnIamOwner(tx, userId);
    const event = await appendEvent(tx, {
      aggregateType: 'user',
      aggregateId: userId,
      eventType: EVENT.user.removed,
      resourceOwner: user.org_id,
      creator,
    });
    await deleteOidcArtifactsOfUser(tx, userId);
    await deleteUser(tx, userId);
    return changedDetails(event);
  });
}
