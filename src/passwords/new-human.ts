// A new human's password, checked and hashed one way for every caller that creates one: ImportHumanUser and
// AddHumanUser, the CLI's `user import` and `admin create`, SetUpOrg (instance/set-up-org.ts). Self-registration
// (register.ts) checks the same, in its own order. The user row itself is users/'s (human-service.ts createHuman);
// the policy a password must pass is this folder's, so the workflow that joins the two sits here, above users/.
import type { Db, Queryable } from '../platform/db.ts';
import { createdDetails, type Details } from '../events/details.ts';
import type { AppError } from '../platform/errors.ts';
import { hashPassword } from '../users/passwords.ts';
import { createHuman } from '../users/human-service.ts';
import type { NewHuman } from '../users/queries.ts';
import { checkUserName } from '../users/user-name.ts';
import { getPasswordPolicy } from './current.ts';
import { type PasswordProblem, PasswordPolicyError, passwordProblem } from './policy.ts';
import { setPasswordChangeRequired } from './queries.ts';

/** A human user as the API creates one: the stored fields and a password to hash (empty, as in ZITADEL, means
 *  the user is created without one and cannot log in until one is set). */
export interface HumanInput extends Omit<NewHuman, 'id' | 'orgId' | 'sequence' | 'passwordHash'> {
  password: string;
}

export interface ImportHumanInput extends HumanInput {
  orgId: string;
  /** The user chooses a new password at the next sign-in. */
  passwordChangeRequired?: boolean;
}

/** How a caller hashes: the management API through its bounded queue (users/passwords.ts), the CLI unbounded. */
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

/** The checks of a new human's password (the instance's policy, policy.ts) and user name, then the slow part
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
