// Password sign-in with lockout: the same answer and the same work (one argon2id verification) for unknown users,
// users without a password and wrong passwords, so no user name leaks; a locked subject gets no verification at
// all. The caller has taken the request's place in the hashing queue; the attempt is counted before the password
// is checked, so parallel guesses cannot outrun the lockout.
import type { Config } from '../config.ts';
import type { Db } from '../platform/db.ts';
import { countedAttemptOfName, recordFailure, recordSuccessWithRequest } from '../lockout/service.ts';
import { isActive } from '../users/lookup.ts';
import type { HashSlot } from '../users/passwords.ts';
import type { SignInUserRow } from '../users/queries.ts';

export type SignInResult =
  | { kind: 'ok'; user: SignInUserRow }
  | { kind: 'invalid' }
  | { kind: 'locked'; retryAfter: number };

export async function signInWithPassword(
  db: Db,
  slot: HashSlot,
  lockout: Config['lockout'],
  input: { loginName: string; password: string; ip: string },
): Promise<SignInResult> {
  // counted ahead with the interaction's read (password-read-ahead.ts), else now
  const { user: found, subject, wait } = await countedAttemptOfName(db, lockout, input.loginName, input.ip);
  // With allowUsernamePassword off a password is checked as if the user had none: the same answer and
  // work as for an unknown user, so the policy reveals no names either.
  const user =
    found && found.type === 'human' && isActive(found) && found.password_hash && found.policy_allow_password
      ? found
      : undefined;
  if (wait > 0) return { kind: 'locked', retryAfter: wait };
  const valid = user ? await slot.verify(input.password, user.password_hash!) : await slot.verifyDecoy(input.password);
  if (!valid || !user) {
    const locked = await recordFailure(db, lockout, subject);
    return locked > 0 ? { kind: 'locked', retryAfter: locked } : { kind: 'invalid' };
  }
  await recordSuccessWithRequest(db, subject);
  return { kind: 'ok', user };
}
