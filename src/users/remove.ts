// RemoveUser, complete and immediate: the user's row goes, and with it (in the same
// transaction) its sessions, grants and tokens, its memberships, keys, consents, user grants and metadata (the
// ON DELETE CASCADE constraints); its user name is free again at once. The event log keeps its history.
import type { Db } from '../platform/db.ts';
import { appendEvent } from '../events/log.ts';
import { changedDetails, type Details } from '../events/details.ts';
import { keepAnIamOwner } from '../members/service.ts';
import { deleteOidcArtifactsOfUser } from './artifact-queries.ts';
import { deleteUser, lockUser } from './queries.ts';
import { userNotFound, type UserRef } from './service.ts';

export async function removeUser(db: Db, ref: UserRef, creator: string): Promise<Details> {
  const { userId } = ref;
  return db.tx(async (tx) => {
    const user = await lockUser(tx, userId);
    if (user?.org_id !== ref.orgId) throw userNotFound();
    await keepAnIamOwner(tx, userId);
    const event = await appendEvent(tx, {
      aggregateType: 'user',
      aggregateId: userId,
      eventType: 'user.removed',
      resourceOwner: user.org_id,
      creator,
    });
    await deleteOidcArtifactsOfUser(tx, userId);
    await deleteUser(tx, userId);
    return changedDetails(event);
  });
}
