// A user's state: DeactivateUser / ReactivateUser, LockUser / UnlockUser. A user who is
// not active can no longer sign in, and its sessions, grants and tokens end in the same transaction, so the next
// request on any process sharing the database sees them inactive. The hot paths need no query of their own for it:
// every token lookup and machine grant already requires state = 'active' (oidc/queries.ts).
import type { Db, Queryable } from '../platform/db.ts';
import { appendEvent } from '../events/log.ts';
import { EVENT, type EventType } from '../events/types.ts';
import { changedDetails, type Details } from '../events/details.ts';
import { failedPrecondition } from '../platform/errors.ts';
import { deleteOidcArtifactsOfOrgUsers, deleteOidcArtifactsOfUser } from './artifact-queries.ts';
import { lockUser, setUserState, type UserRow } from './queries.ts';
import { userNotFound, type UserRef } from './service.ts';

type State = UserRow['state'];

interface Transition {
  /** The states the user may be in, else FAILED_PRECONDITION with ZITADEL's error. */
  from: readonly State[];
  refused: () => Error;
  to: State;
  eventType: EventType<'user'>;
}

// ZITADEL's preconditions and error IDs (command/user.go).
const TRANSITIONS = {
  deactivate: {
    from: ['active', 'locked'],
    refused: () => failedPrecondition('User is already inactive', 'COMMAND-5M0sf'),
    to: 'inactive',
    eventType: EVENT.user.deactivated,
  },
  reactivate: {
    from: ['inactive'],
    refused: () => failedPrecondition('User is not inactive', 'COMMAND-6M0sf'),
    to: 'active',
    eventType: EVENT.user.reactivated,
  },
  lock: {
    from: ['active'],
    refused: () => failedPrecondition('User should be active', 'COMMAND-3NN8v'),
    to: 'locked',
    eventType: EVENT.user.locked,
  },
  unlock: {
    from: ['locked'],
    refused: () => failedPrecondition('User is not locked', 'COMMAND-4M0ds'),
    to: 'active',
    eventType: EVENT.user.unlocked,
  },
} satisfies Record<string, Transition>;

export type UserStateChange = keyof typeof TRANSITIONS;

/** Lifts the password lockout's hold on a user in the caller's transaction and says whether one was running
 *  (lockout/ sits above users/, so UnlockUser's caller hands it in). */
export type ReleaseAttemptLock = (tx: Queryable, userId: string) => Promise<boolean>;

/** `ref.orgId`: the org in context; a user of another org is not found (getOrgUser). `releaseAttemptLock`, for
 *  'unlock': the user's lock by failed sign-in attempts ends with it, and an active user under such a lock may be
 *  unlocked (ZITADEL locks the user itself after too many failed passwords; Gatehouse's lock is the counter's). */
export async function changeUserState(
  db: Db,
  ref: UserRef,
  change: UserStateChange,
  creator: string,
  releaseAttemptLock?: ReleaseAttemptLock,
): Promise<Details> {
  const t: Transition = TRANSITIONS[change];
  const { userId } = ref;
  return db.tx(async (tx) => {
    const user = await lockUser(tx, userId);
    if (user?.org_id !== ref.orgId) throw userNotFound();
    const released = change === 'unlock' && releaseAttemptLock ? await releaseAttemptLock(tx, userId) : false;
    if (!t.from.includes(user.state) && !(released && user.state === 'active')) throw t.refused();
    const event = await appendEvent(tx, {
      aggregateType: 'user',
      aggregateId: userId,
      eventType: t.eventType,
      resourceOwner: user.org_id,
      creator,
    });
    await setUserState(tx, userId, t.to, event.sequence, event.createdAt);
    if (t.to !== 'active') await deleteOidcArtifactsOfUser(tx, userId);
    return changedDetails(event);
  });
}

/** Ends the sessions, grants and tokens of every user of an org (DeactivateOrg, RemoveOrg), in the caller's
 *  transaction. */
export function endSessionsOfOrgUsers(tx: Queryable, orgId: string): Promise<number> {
  return deleteOidcArtifactsOfOrgUsers(tx, orgId);
}
