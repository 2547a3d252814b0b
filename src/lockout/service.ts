// Time-based lockout of password logins, per account and per client address (security.md §16): after too many
// failures in a window the key is locked for a while (answered 429 with Retry-After), never permanently. The
// counters live in Postgres, so all instances agree. Account keys are user IDs, or the typed login name when no
// user has it, so an unknown name locks exactly like a real one and the answer reveals nothing (§17).
import type { Config } from '../config.ts';
import type { Db } from '../platform/db.ts';
import { addFailure, deleteFailures, findLocks, purgeStaleFailures, type LockKey } from './queries.ts';

export interface LoginSubject {
  /** The user ID, or the lower-cased login name when it names no user. */
  account: string;
  ip: string;
}

const keysOf = (s: LoginSubject): LockKey[] => [{ scope: 'account', key: s.account }, { scope: 'ip', key: s.ip }];

export interface LockState {
  /** Seconds the subject must wait before the next attempt; 0 when it may try now. */
  wait: number;
  /** Failures of the account are on record, so a success has something to clear. */
  accountFailures: boolean;
}

export async function checkLock(db: Db, subject: LoginSubject): Promise<LockState> {
  const rows = await findLocks(db, keysOf(subject));
  return { wait: Math.max(0, ...rows.map((r) => r.seconds)), accountFailures: rows.some((r) => r.scope === 'account') };
}

/** Records a failed attempt; returns the seconds of a lock it started (0 when none). */
export async function recordFailure(db: Db, policy: Config['lockout'], subject: LoginSubject): Promise<number> {
  const locked = await db.tx(async (tx) => {
    const account = await addFailure(tx, { scope: 'account', key: subject.account }, policy.maxAttempts, policy.seconds);
    const ip = await addFailure(tx, { scope: 'ip', key: subject.ip }, policy.ipMaxAttempts, policy.seconds);
    return Math.max(account, ip);
  });
  await purgeStaleFailures(db, policy.seconds);
  return locked;
}

/** A successful login clears the account's failures; the address's stay, so one valid account cannot reset a
 *  guessing run against others. `lock` is the check made before this attempt: with nothing on record (the common
 *  case) there is nothing to delete, and the login saves a write. */
export async function recordSuccess(db: Db, subject: LoginSubject, lock: LockState): Promise<void> {
  if (lock.accountFailures) await deleteFailures(db, { scope: 'account', key: subject.account });
}
