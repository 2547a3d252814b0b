// Changes of a user by an org's manager: UpdateUserName, UpdateHumanProfile, UpdateHumanEmail,
// UpdateHumanPhone and UpdateMachine. Each is one transaction with its event; a request that changes nothing is
// FAILED_PRECONDITION with ZITADEL's error ID, and writes nothing.
import type { Db, Queryable } from '../platform/db.ts';
import { appendEvent } from '../events/log.ts';
import { EVENT, type EventType } from '../events/types.ts';
import { changedDetails, type Details } from '../events/details.ts';
import { failedPrecondition, invalidArgument } from '../platform/errors.ts';
import {
  findUserById,
  lockUser,
  updateUserColumns,
  type HumanProfile,
  type UserColumns,
  type UserRow,
} from './queries.ts';
import { changedFields, userNotFound, type UserRef } from './service.ts';
import { checkUserName } from './user-name.ts';

interface UserChange {
  eventType: EventType<'user'>;
  columns: UserColumns;
  payload: Record<string, unknown>;
}

/** The user of the org in context, locked; `change` decides what to write (or throws). */
async function changeUser(
  db: Db,
  ref: UserRef,
  creator: string,
  change: (user: UserRow, tx: Queryable) => Promise<UserChange> | UserChange,
): Promise<Details> {
  return db.tx(async (tx) => {
    const locked = await lockUser(tx, ref.userId);
    if (locked?.org_id !== ref.orgId) throw userNotFound();
    const user = (await findUserById(tx, ref.userId))!;
    const { eventType, columns, payload } = await change(user, tx);
    const event = await appendEvent(tx, {
      aggregateType: 'user',
      aggregateId: user.id,
      eventType,
      payload,
      resourceOwner: user.org_id,
      creator,
    });
    await updateUserColumns(tx, user.id, columns, event.sequence, event.createdAt);
    return changedDetails(event);
  });
}

const notHuman = () => failedPrecondition('User is not a human user', 'COMMAND-2M9fs');

/** The new name must pass the same rules as a new user's (user-name.ts); users_user_name_unique decides a race. */
export function updateUserName(db: Db, ref: UserRef, userName: string, creator: string): Promise<Details> {
  return changeUser(db, ref, creator, async (user, tx) => {
    if (user.user_name === userName) throw failedPrecondition('Username not changed', 'COMMAND-6m9gs');
    await checkUserName(tx, userName, 'UpdateUserNameRequest.UserName');
    return { eventType: EVENT.user.userNameChanged, columns: { user_name: userName }, payload: { userName } };
  });
}

export function updateHumanProfile(db: Db, ref: UserRef, profile: HumanProfile, creator: string): Promise<Details> {
  // as in ZITADEL: a display name not given is first name, space, last name
  const p = { ...profile, displayName: profile.displayName || `${profile.firstName} ${profile.lastName}` };
  return changeUser(db, ref, creator, (user) => {
    if (user.type !== 'human') throw notHuman();
    const changed = changedFields(user, p);
    if (Object.keys(changed).length === 0) throw failedPrecondition('Profile not changed', 'COMMAND-2M0fs');
    return {
      eventType: EVENT.user.profileChanged,
      columns: {
        first_name: p.firstName,
        last_name: p.lastName,
        nick_name: p.nickName,
        display_name: p.displayName,
        preferred_language: p.preferredLanguage,
        gender: p.gender,
      },
      payload: changed,
    };
  });
}

/** E.164 as people type it: `+`, the country code and the number, spaces allowed (the global numbers of RFC 3966). */
const PHONE = /^\+[0-9][0-9 ]{3,30}$/;

export function updateHumanPhone(
  db: Db,
  ref: UserRef,
  input: { phone: string; verified: boolean },
  creator: string,
): Promise<Details> {
  if (!PHONE.test(input.phone))
    throw invalidArgument('invalid UpdateHumanPhoneRequest.Phone: must start with + followed by digits', 'PHONE-so0wa');
  return changeUser(db, ref, creator, (user) => {
    if (user.type !== 'human') throw notHuman();
    if (user.phone === input.phone && user.phone_verified === input.verified)
      throw failedPrecondition('Phone not changed', 'COMMAND-wF94r');
    return {
      eventType: EVENT.user.phoneChanged,
      columns: { phone: input.phone, phone_verified: input.verified },
      payload: { phone: input.phone, verified: input.verified },
    };
  });
}

export function updateMachine(
  db: Db,
  ref: UserRef,
  input: { name: string; description: string; accessTokenType: UserRow['access_token_type'] },
  creator: string,
): Promise<Details> {
  return changeUser(db, ref, creator, (user) => {
    if (user.type !== 'machine') throw failedPrecondition('User is not a machine user', 'COMMAND-2M9fs');
    const columns = {
      machine_name: input.name,
      machine_description: input.description,
      access_token_type: input.accessTokenType,
    };
    if ((Object.keys(columns) as (keyof typeof columns)[]).every((k) => user[k] === columns[k]))
      throw failedPrecondition('User not changed', 'COMMAND-2n8vs');
    return { eventType: EVENT.user.machineChanged, columns, payload: input };
  });
}
