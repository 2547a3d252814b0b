// Users' own operations (UpdateMyProfile) and the reads the management API needs.
import type { Db, Queryable } from '../platform/db.ts';
import { appendEvent } from '../events/log.ts';
import { EVENT } from '../events/types.ts';
import { changedDetails, type Details } from '../events/details.ts';
import { failedPrecondition, notFound } from '../platform/errors.ts';
import { batchedStatement } from '../platform/batch.ts';
import { findUserById, updateHumanProfile, USERS_BY_ID_SQL, type HumanProfile, type UserRow } from './queries.ts';

export async function getUserById(db: Queryable, id: string): Promise<UserRow> {
  const user = await findUserById(db, id);
  if (!user) throw userNotFound();
  return user;
}

/** A user as the management API names it: by the org in context and its ID. */
export interface UserRef {
  orgId: string;
  userId: string;
}

/** A user that does not exist, and one of another org alike (so ids of other orgs cannot be probed). */
export const userNotFound = () => notFound('User could not be found', 'QUERY-Dfbg2');

/** The user, which must belong to the org given. */
export async function getOrgUser(db: Queryable, ref: UserRef): Promise<UserRow> {
  return inOrg(await findUserById(db, ref.userId), ref);
}

/** getOrgUser for GetUserByID, a hot lookup: concurrent calls share one statement (platform/batch.ts). */
export function orgUserGetter(db: Queryable): (ref: UserRef) => Promise<UserRow> {
  const lookup = batchedStatement<[string], UserRow>(db, USERS_BY_ID_SQL);
  return async (ref) => inOrg(await lookup([ref.userId]), ref);
}

function inOrg(user: UserRow | undefined, ref: UserRef): UserRow {
  if (user?.org_id !== ref.orgId) throw userNotFound();
  return user;
}

export async function updateMyProfile(db: Db, userId: string, profile: HumanProfile): Promise<Details> {
  return db.tx(async (tx) => {
    const user = await findUserById(tx, userId);
    if (!user) throw notFound('User could not be found', 'COMMAND-2M0dsf');
    if (user.type !== 'human') throw failedPrecondition('User is not a human user', 'COMMAND-2M9fs');
    const changed = changedFields(user, profile);
    if (Object.keys(changed).length === 0) throw failedPrecondition('Profile not changed', 'COMMAND-2M0fs');
    const event = await appendEvent(tx, {
      aggregateType: 'user',
      aggregateId: userId,
      eventType: EVENT.user.profileChanged,
      payload: changed,
      resourceOwner: user.org_id,
      creator: userId,
    });
    await updateHumanProfile(tx, userId, profile, event.sequence, event.createdAt);
    return changedDetails(event);
  });
}

/** The profile fields that differ from the stored ones (an empty result: nothing to change). */
export function changedFields(user: UserRow, p: HumanProfile): Partial<HumanProfile> {
  const current: HumanProfile = {
    firstName: user.first_name ?? '',
    lastName: user.last_name ?? '',
    nickName: user.nick_name ?? '',
    displayName: user.display_name ?? '',
    preferredLanguage: user.preferred_language ?? '',
    gender: user.gender ?? 'GENDER_UNSPECIFIED',
  };
  const keys = Object.keys(current) as (keyof HumanProfile)[];
  return Object.fromEntries(keys.filter((k) => current[k] !== p[k]).map((k) => [k, p[k]]));
}
