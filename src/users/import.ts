// ImportHumanUser (compat.md §1): a human user of an existing org with an optional password (argon2id) and the
// verified flags as given. Shared by the management API and the CLI (`user import`, `admin create`).
import type { Db, Queryable } from '../platform/db.ts';
import { appendEvent, type WrittenEvent } from '../events/log.ts';
import { createdDetails, type Details } from '../events/details.ts';
import { newId } from '../platform/ids.ts';
import { invalidArgument } from '../platform/errors.ts';
import { hashPassword, PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from './passwords.ts';
import { insertHuman, type NewHuman } from './queries.ts';
import { checkUserName } from './user-name.ts';

/** A human user as the API creates one: the stored fields and a password to hash (compat.md §5: empty means the
 *  user is created without one and cannot log in until one is set). */
export interface HumanInput extends Omit<NewHuman, 'id' | 'orgId' | 'sequence' | 'passwordHash'> {
  password: string;
}

export interface ImportHumanInput extends HumanInput {
  orgId: string;
}

/** How a caller hashes: the management API through its bounded queue (issue 26 §6), the CLI unbounded. */
export type HashFn = (password: string) => Promise<string>;

/** The slow part (argon2id) before any transaction: the hash of the password, or null without one. */
export async function importPasswordHash(
  password: string,
  request = 'ImportHumanUserRequest',
  hash: HashFn = hashPassword,
): Promise<string | null> {
  if (!password) return null;
  const length = [...password].length;
  if (length < PASSWORD_MIN_LENGTH || length > PASSWORD_MAX_LENGTH) {
    throw invalidArgument(
      `invalid ${request}.Password: must be between ${PASSWORD_MIN_LENGTH} and ${PASSWORD_MAX_LENGTH} characters`,
      'COMMA-HuJf6',
    );
  }
  return hash(password);
}

/** Inserts the user and its event in the caller's transaction (so other changes can join it). */
export async function insertImportedHuman(
  tx: Queryable,
  input: Omit<ImportHumanInput, 'password'> & { passwordHash: string | null },
  creator: string,
): Promise<{ userId: string; event: WrittenEvent }> {
  await checkUserName(tx, input.userName, 'ImportHumanUserRequest.UserName');
  const userId = newId();
  const { passwordHash, orgId, ...publicFields } = input;
  // interface.md: a display name not given is first name, space, last name
  const profile = {
    ...input.profile,
    displayName: input.profile.displayName || `${input.profile.firstName} ${input.profile.lastName}`,
  };
  const event = await appendEvent(tx, {
    aggregateType: 'user',
    aggregateId: userId,
    eventType: 'user.human.added',
    payload: { ...publicFields, profile, hasPassword: passwordHash !== null },
    resourceOwner: orgId,
    creator,
  });
  await insertHuman(tx, { ...publicFields, id: userId, orgId, profile, passwordHash, sequence: event.sequence });
  return { userId, event };
}

export async function importHumanUser(
  db: Db,
  input: ImportHumanInput,
  creator: string,
  hash: HashFn = hashPassword,
): Promise<{ userId: string; details: Details }> {
  const { password, ...rest } = input;
  const passwordHash = await importPasswordHash(password, undefined, hash);
  return db.tx(async (tx) => {
    const { userId, event } = await insertImportedHuman(tx, { ...rest, passwordHash }, creator);
    return { userId, details: createdDetails(event) };
  });
}
