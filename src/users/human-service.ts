// Human users, created one way for every caller: ImportHumanUser and the CLI's `user import` and
// `admin create` (importHumanUser / createHuman), SetUpOrg and the first start (orgs/create.ts), and
// self-registration (register.ts). `create*` functions write in the caller's transaction, with their event;
// `add*`/`import*` functions are one transaction of their own.
import type { Db, Queryable } from '../platform/db.ts';
import { appendEvent, type WrittenEvent } from '../events/log.ts';
import { createdDetails, type Details } from '../events/details.ts';
import { newId } from '../platform/ids.ts';
import type { AppError } from '../platform/errors.ts';
import { hashPassword } from './passwords.ts';
import { getPasswordPolicy } from '../passwords/current.ts';
import { type PasswordProblem, PasswordPolicyError, passwordProblem } from '../passwords/policy.ts';
import { setPasswordChangeRequired } from '../passwords/queries.ts';
import { insertHuman, type NewHuman } from './queries.ts';
import { checkUserName } from './user-name.ts';

/** A human user as the API creates one: the stored fields and a password to hash (as in ZITADEL, empty means the
 *  user is created without one and cannot log in until one is set). */
export interface HumanInput extends Omit<NewHuman, 'id' | 'orgId' | 'sequence' | 'passwordHash'> {
  password: string;
}

export interface ImportHumanInput extends HumanInput {
  orgId: string;
  /** The user chooses a new password at the next sign-in. */
  passwordChangeRequired?: boolean;
}

/** How a caller hashes: the management API through its bounded queue, the CLI unbounded. */
export type HashFn = (password: string) => Promise<string>;

/** How a request names what it refuses: its user name field, and its password error (ZITADEL's texts differ). */
export interface HumanRequest {
  userNameField: string;
  passwordError(problem: PasswordProblem): AppError;
  /** The domain of an org created in the same request (user-name.ts). */
  newOrgDomain?: string;
}

/** ImportHumanUser's words, also the CLI's. */
export const IMPORT_REQUEST: HumanRequest = {
  userNameField: 'ImportHumanUserRequest.UserName',
  passwordError: (problem) => new PasswordPolicyError('ImportHumanUserRequest.Password', problem),
};

/** The checks of a new human's password (the instance's policy) and user name, then the slow part
 *  (argon2id, through `hash`): before any transaction, and only for input that passed them. The hash of the
 *  password, or null without one. */
export async function hashNewHuman(
  db: Queryable,
  human: { userName: string; password: string },
  request: HumanRequest,
  hash: HashFn,
): Promise<string | null> {
  const problem = human.password ? passwordProblem(await getPasswordPolicy(db), human.password) : undefined;
  if (problem) throw request.passwordError(problem);
  await checkUserName(db, human.userName, request.userNameField, request.newOrgDomain);
  return human.password ? hash(human.password) : null;
}

/** The stored human: `id` when the caller needs it first (self-registration is its own creator). */
export type NewHumanUser = Omit<NewHuman, 'id' | 'sequence'> & { id?: string };

/** Inserts the user and its event (one payload shape per event type) in the caller's transaction. */
export async function createHuman(
  tx: Queryable,
  input: NewHumanUser,
  creator: string,
  eventType: 'user.human.added' | 'user.human.selfregistered' = 'user.human.added',
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

/** AddHumanUser's words: the same user as ImportHumanUser, with an initial password. */
export const ADD_REQUEST: HumanRequest = {
  userNameField: 'AddHumanUserRequest.UserName',
  passwordError: (problem) => new PasswordPolicyError('AddHumanUserRequest.InitialPassword', problem),
};

export async function importHumanUser(
  db: Db,
  input: ImportHumanInput,
  creator: string,
  hash: HashFn = hashPassword,
  request: HumanRequest = IMPORT_REQUEST,
): Promise<{ userId: string; details: Details }> {
  const { password, passwordChangeRequired, ...human } = input;
  const passwordHash = await hashNewHuman(db, input, request, hash);
  return db.tx(async (tx) => {
    const { userId, event } = await createHuman(tx, { ...human, passwordHash }, creator);
    if (passwordChangeRequired && passwordHash) await setPasswordChangeRequired(tx, userId, true);
    return { userId, details: createdDetails(event) };
  });
}
