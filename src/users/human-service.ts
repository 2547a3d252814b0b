// Human users, written one way for every caller: ImportHumanUser, AddHumanUser and the CLI (through
// passwords/new-human.ts, which checks and hashes the password first), SetUpOrg and the first start
// (orgs/create.ts), self-registration (passwords/register.ts) and federated sign-up (idps/links.ts). createHuman
// writes in the caller's transaction, with its event.
import type { Queryable } from '../platform/db.ts';
import { appendEvent, type WrittenEvent } from '../events/log.ts';
import { EVENT } from '../events/types.ts';
import { newId } from '../platform/ids.ts';
import { insertHuman, type NewHuman } from './queries.ts';

/** The stored human: `id` when the caller needs it first (self-registration is its own creator). */
export type NewHumanUser = Omit<NewHuman, 'id' | 'sequence'> & { id?: string };

/** Inserts the user and its event (one payload shape per event type) in the caller's transaction. */
export async function createHuman(
  tx: Queryable,
  input: NewHumanUser,
  creator: string,
  eventType: (typeof EVENT.user)['humanAdded' | 'humanSelfRegistered'] = EVENT.user.humanAdded,
): Promise<{ userId: string; event: WrittenEvent }> {
  const { id: userId = newId(), orgId, passwordHash, ...publicFields } = input;
  // as in ZITADEL: a display name not given is first name, space, last name
  const profile = {
    ...input.profile,
    displayName: input.profile.displayName || `${input.profile.firstName} ${input.profile.lastName}`,
  };
  const event = await appendEvent(tx, {
    aggregateType: 'user',
    aggregateId: userId,
    eventType,
    payload: { ...publicFields, profile, hasPassword: passwordHash !== null },
    resourceOwner: orgId,
    creator,
  });
  await insertHuman(tx, { ...publicFields, id: userId, orgId, profile, passwordHash, sequence: event.sequence });
  return { userId, event };
}
