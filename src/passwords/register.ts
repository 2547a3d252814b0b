// Self-registration of a human in the instance's default organization (prompt=create): the user row, its event
// and, given a mailer, the verification mail of its address in one transaction; the password is hashed with
// argon2id before the transaction, and only once the user name is known to be free (a taken name costs a lookup,
// not a hash; a name taken in between is still refused by users_user_name_unique). A workflow across users/,
// emails/ and this folder's policy, so it sits here, above the two it writes through.
import type { Db } from '../platform/db.ts';
import { createdDetails, type Details } from '../events/details.ts';
import { constraintError } from '../platform/errors.ts';
import { newId } from '../platform/ids.ts';
import { hashPassword } from '../users/passwords.ts';
import { createHuman } from '../users/human-service.ts';
import { userNameTaken } from '../users/queries.ts';
import type { Registration } from '../users/schema.ts';
import { checkUserName } from '../users/user-name.ts';
import { type EmailDeps, queueEmailVerification } from '../emails/service.ts';
import { EVENT } from '../events/types.ts';
import { checkPasswordPolicy } from './current.ts';
import type { HashFn } from './new-human.ts';

export interface Registered {
  userId: string;
  details: Details;
}

/** `hash` is the caller's way to hash: the login pages pass their bounded queue's; the default is unbounded.
 *  The password must pass the instance's policy (PasswordPolicyError naming `password`). */
export async function registerHuman(
  db: Db,
  orgId: string,
  input: Registration,
  preferredLanguage: string,
  hash: HashFn = hashPassword,
  verification?: Pick<EmailDeps, 'secrets' | 'mailer'>,
): Promise<Registered> {
  await checkPasswordPolicy(db, 'password', input.password);
  await checkUserName(db, input.userName, 'userName');
  if (await userNameTaken(db, input.userName)) throw constraintError('users_user_name_unique');
  const passwordHash = await hash(input.password);
  // its own creator: the user ID is known before the insert
  const userId = newId();
  const registered = await db.tx(async (tx) => {
    const { event } = await createHuman(
      tx,
      {
        id: userId,
        orgId,
        userName: input.userName,
        profile: {
          firstName: input.firstName,
          lastName: input.lastName,
          nickName: '',
          displayName: `${input.firstName} ${input.lastName}`,
          preferredLanguage,
          gender: 'GENDER_UNSPECIFIED',
        },
        email: input.email,
        emailVerified: false,
        phone: null,
        phoneVerified: false,
        passwordHash,
      },
      userId,
      EVENT.user.humanSelfRegistered,
    );
    if (verification) {
      const user = {
        id: userId,
        display_name: `${input.firstName} ${input.lastName}`,
        preferred_language: preferredLanguage,
      };
      await queueEmailVerification(tx, verification, user, input.email);
    }
    return { userId, details: createdDetails(event) };
  });
  verification?.mailer.nudge();
  return registered;
}
