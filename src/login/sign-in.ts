// Password sign-in with lockout (security.md §15-17): the same answer and the same work (one argon2id
// verification) for unknown users, users without a password and wrong passwords; a locked subject gets no
// verification at all. The place in the hashing queue is taken first (in memory, refused at once when the address
// or the queue is full: issue 26 §6), then the attempt is counted (issue 13 §5), then the password is checked.
import type { Config } from '../config.ts';
import type { Db } from '../platform/db.ts';
import { recordFailure, recordSuccess, reserveLoginAttempt, type LoginSubject } from '../lockout/service.ts';
import { findUserByLoginName } from '../users/lookup.ts';
import type { HashAdmission } from '../users/passwords.ts';
import type { UserRow } from '../users/queries.ts';

export type SignInResult =
  | { kind: 'ok'; user: UserRow }
  | { kind: 'invalid' }
  | { kind: 'locked'; retryAfter: number };

export async function signInWithPassword(db: Db, hashing: HashAdmission, lockout: Config['lockout'], input: { loginName: string; password: string; ip: string }): Promise<SignInResult> {
  const found = await findUserByLoginName(db, input.loginName);
  const user = found && found.type === 'human' && found.state === 'active' && found.password_hash ? found : undefined;
  const subject: LoginSubject = { account: found?.id ?? input.loginName.toLowerCase(), ip: input.ip };
  const slot = hashing.admit(input.ip);
  let valid: boolean;
  try {
    const wait = await reserveLoginAttempt(db, lockout, subject);
    if (wait > 0) return { kind: 'locked', retryAfter: wait };
    valid = user ? await slot.verify(input.password, user.password_hash!) : await slot.verifyDecoy(input.password);
  } finally {
    slot.release();
  }
  if (!valid || !user) {
    const locked = await recordFailure(db, lockout, subject);
    return locked > 0 ? { kind: 'locked', retryAfter: locked } : { kind: 'invalid' };
  }
  await recordSuccess(db, subject);
  return { kind: 'ok', user };
}
