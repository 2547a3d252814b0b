// A factor check is a login attempt (wrong codes count toward the lockout, so codes cannot be guessed): counted on
// the user and the client address before the check, settled by its outcome like a password's. Second factors count
// on their own counter: a correct password does not reset it, a correct code does. A password
// confirmed this way (the account pages) counts on the password's.
import type { Config } from '../config.ts';
import type { Db } from '../platform/db.ts';
import { recordFailure, recordSuccess, reserveLoginAttempt } from '../lockout/service.ts';
import type { UserScope } from '../lockout/queries.ts';

/** A check refused: a wrong answer, or one not tried while the lockout holds (`retryAfter`: its seconds left). */
export interface CheckRefused {
  ok: false;
  retryAfter?: number;
}

export async function countedCheck(
  db: Db,
  lockout: Config['lockout'],
  subject: { userId: string; ip: string },
  check: () => Promise<boolean>,
  counter: UserScope = 'factor',
): Promise<{ ok: true } | CheckRefused> {
  const who = { account: subject.userId, ip: subject.ip, counter };
  const wait = await reserveLoginAttempt(db, lockout, who);
  if (wait > 0) return { ok: false, retryAfter: wait };
  if (await check()) {
    await recordSuccess(db, who);
    return { ok: true };
  }
  const locked = await recordFailure(db, lockout, who);
  return locked > 0 ? { ok: false, retryAfter: locked } : { ok: false };
}
