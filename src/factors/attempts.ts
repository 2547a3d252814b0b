// A factor check is a login attempt (issue 17: wrong codes count toward the lockout, security.md §16): counted on
// the account and the client address before the check, settled by its outcome like a password's.
import type { Config } from '../config.ts';
import type { Db } from '../platform/db.ts';
import { recordFailure, recordSuccess, reserveLoginAttempt } from '../lockout/service.ts';
import type { FactorCheck } from './kind.ts';

export async function countedCheck(
  db: Db,
  lockout: Config['lockout'],
  subject: { userId: string; ip: string },
  check: () => Promise<boolean>,
): Promise<FactorCheck> {
  const who = { account: subject.userId, ip: subject.ip };
  const wait = await reserveLoginAttempt(db, lockout, who);
  if (wait > 0) return { ok: false, retryAfter: wait };
  if (await check()) {
    await recordSuccess(db, who);
    return { ok: true };
  }
  const locked = await recordFailure(db, lockout, who);
  return locked > 0 ? { ok: false, retryAfter: locked } : { ok: false };
}
