// Password sign-in with lockout (security.md §15-17): the same answer and the same work (one argon2id
// verification) for unknown users, users without a password and wrong passwords; a locked subject gets no
// verification at all.
import type { Config } from '../config.ts';
import type { Db } from '../platform/db.ts';
import { checkLock, recordFailure, recordSuccess, type LoginSubject } from '../lockout/service.ts';
import { findUserByLoginName } from '../users/lookup.ts';
import { verifyDecoy, verifyPassword } from '../users/passwords.ts';
import type { UserRow } from '../users/queries.ts';

export type SignInResult =
  | { kind: 'ok'; user: UserRow }
  | { kind: 'invalid' }
  | { kind: 'locked'; retryAfter: number };

export async function signInWithPassword(db: Db, lockout: Config['lockout'], input: { loginName: string; password: string; ip: string }): Promise<SignInResult> {
  const found = await findUserByLoginName(db, input.loginName);
  const user = found && found.type === 'human' && found.state === 'active' && found.password_hash ? found : undefined;
  const subject: LoginSubject = { account: found?.id ?? input.loginName.toLowerCase(), ip: input.ip };
  const lock = await checkLock(db, subject);
  if (lock.wait > 0) return { kind: 'locked', retryAfter: lock.wait };
  const valid = user ? await verifyPassword(input.password, user.password_hash!) : await verifyDecoy(input.password);
  if (!valid || !user) {
    const locked = await recordFailure(db, lockout, subject);
    return locked > 0 ? { kind: 'locked', retryAfter: locked } : { kind: 'invalid' };
  }
  await recordSuccess(db, subject, lock);
  return { kind: 'ok', user };
}
