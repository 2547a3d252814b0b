import { describe, expect, it } from 'vitest';
import { recordFailure, recordSuccess, reserveLoginAttempt, type LoginSubject } from '../../src/lockout/service.ts';
import { useTestDb } from '../helpers/database.ts';

describe('lockout service', () => {
  const db = useTestDb();
  const policy = { maxAttempts: 3, ipMaxAttempts: 5, seconds: 2 };
  const reserve = (subject: LoginSubject) => reserveLoginAttempt(db, policy, subject);
  /** One attempt that fails: its lock seconds, or the wait when it was refused before any check (negative). */
  const fail = async (subject: LoginSubject) => {
    const wait = await reserve(subject);
    return wait > 0 ? -wait : recordFailure(db, policy, subject);
  };
  const failures = async (scope: string, key: string) =>
    (
      await db.query<{ failures: number }>('SELECT failures FROM login_failures WHERE scope = $1 AND key = $2', [
        scope,
        key,
      ])
    ).rows[0]?.failures;

  it('locks an account after the configured failures, for the configured time, then lets it try again', async () => {
    const subject = { account: 'user-1', ip: '10.0.0.1' };
    expect(await fail(subject)).toBe(0);
    expect(await fail(subject)).toBe(0);
    expect(await fail(subject)).toBe(2);
    const wait = await reserve(subject);
    expect(wait).toBeGreaterThan(0);
    expect(wait).toBeLessThanOrEqual(2);
    // Another address is locked out of this account too; the same address may still try other accounts.
    expect(await reserve({ account: 'user-1', ip: '10.0.0.2' })).toBeGreaterThan(0);
    expect(await reserve({ account: 'user-2', ip: '10.0.0.1' })).toBe(0);
    await new Promise((r) => setTimeout(r, 2100));
    // After the lock a fresh window starts: one failure does not lock again.
    expect(await fail(subject)).toBe(0);
    expect(await failures('account', 'user-1')).toBe(1);
  });

  it('counts parallel attempts before they are checked: never more than the maximum between them', async () => {
    const outcomes = await Promise.all(
      Array.from({ length: 12 }, (_, i) => reserve({ account: 'race-1', ip: `10.1.0.${i}` })),
    );
    expect(outcomes.filter((wait) => wait === 0)).toHaveLength(3);
    // a key spent by attempts still being checked answers with the full lock time
    expect(outcomes.filter((wait) => wait === 2)).toHaveLength(9);
    expect(await failures('account', 'race-1')).toBe(3);
    // and the same for one address across many accounts (password spraying)
    const spray = await Promise.all(
      Array.from({ length: 12 }, (_, i) => reserve({ account: `race-spray-${i}`, ip: '10.1.1.1' })),
    );
    expect(spray.filter((wait) => wait === 0)).toHaveLength(5);
    expect(await failures('ip', '10.1.1.1')).toBe(5);
    // a refused attempt is counted nowhere: the accounts refused by the address gave their attempt back
    const counted = await db.query<{ n: number }>(
      `SELECT coalesce(sum(failures), ` +
        `0)::int AS n FROM login_failures WHERE scope = 'account' AND key LIKE 'race-spray-%'`,
    );
    expect(counted.rows[0]!.n).toBe(5);
  });

  it('locks an address that fails across many accounts', async () => {
    for (let i = 0; i < 4; i++) expect(await fail({ account: `spray-${i}`, ip: '10.0.0.9' })).toBe(0);
    expect(await fail({ account: 'spray-4', ip: '10.0.0.9' })).toBe(2);
    expect(await reserve({ account: 'never-tried', ip: '10.0.0.9' })).toBeGreaterThan(0);
  });

  it('a success clears the account failures and gives its attempt back, but keeps the address failures', async () => {
    const subject = { account: 'user-3', ip: '10.0.0.3' };
    await fail(subject);
    await fail(subject);
    expect(await reserve(subject)).toBe(0);
    await recordSuccess(db, subject);
    expect(await failures('account', 'user-3')).toBeUndefined();
    expect(await failures('ip', '10.0.0.3')).toBe(2);
    expect(await fail(subject)).toBe(0);
    expect(await fail(subject)).toBe(0);
    expect(await fail(subject)).toBe(2);
    // five failures on the address: it is locked, so the success did not clear it
    expect(await reserve({ account: 'someone-else', ip: '10.0.0.3' })).toBeGreaterThan(0);
  });

  it('second-factor failures have their own counter: a password success keeps them, their lock locks the password', async () => {
    const password = { account: 'user-6', ip: '10.0.0.6' };
    const factor = { ...password, counter: 'factor' as const };
    expect(await fail(factor)).toBe(0);
    expect(await fail(factor)).toBe(0);
    expect(await reserve(password)).toBe(0);
    await recordSuccess(db, password);
    expect(await failures('factor', 'user-6')).toBe(2);
    // the third failure locks the factor counter and, with it, the password's
    expect(await fail(factor)).toBe(2);
    expect(await reserve(password)).toBeGreaterThan(0);
    expect(await reserve(factor)).toBeGreaterThan(0);
    // after the lock, a correct second factor clears its counter only
    await new Promise((r) => setTimeout(r, 2100));
    expect(await fail(factor)).toBe(0);
    expect(await reserve(factor)).toBe(0);
    await recordSuccess(db, factor);
    expect(await failures('factor', 'user-6')).toBeUndefined();
  });

  it('a success with no failures on record leaves nothing behind, in two statements', async () => {
    const subject = { account: 'user-4', ip: '10.0.0.4' };
    await fail({ account: 'user-5', ip: subject.ip });
    const before = db.stats.queries;
    expect(await reserve(subject)).toBe(0);
    await recordSuccess(db, subject);
    expect(db.stats.queries - before).toBe(2);
    expect(await failures('account', 'user-4')).toBeUndefined();
    // the address's failure (from another account) is still counted, this success is not
    expect(await failures('ip', '10.0.0.4')).toBe(1);
  });
});
