import { describe, expect, it } from 'vitest';
import { checkLock, recordFailure, recordSuccess, type LoginSubject } from '../../src/lockout/service.ts';
import { useTestDb } from '../helpers/database.ts';

describe('lockout service (security.md §16)', () => {
  const db = useTestDb();
  const policy = { maxAttempts: 3, ipMaxAttempts: 5, seconds: 2 };
  const lockedFor = async (subject: LoginSubject) => (await checkLock(db, subject)).wait;


  it('locks an account after the configured failures, for the configured time, then lets it try again', async () => {
    const subject = { account: 'user-1', ip: '10.0.0.1' };
    expect(await recordFailure(db, policy, subject)).toBe(0);
    expect(await recordFailure(db, policy, subject)).toBe(0);
    expect(await lockedFor(subject)).toBe(0);
    expect(await recordFailure(db, policy, subject)).toBe(2);
    const wait = await lockedFor(subject);
    expect(wait).toBeGreaterThan(0);
    expect(wait).toBeLessThanOrEqual(2);
    // Another address is locked out of this account too; the same address may still try other accounts.
    expect(await lockedFor({ account: 'user-1', ip: '10.0.0.2' })).toBeGreaterThan(0);
    expect(await lockedFor({ account: 'user-2', ip: '10.0.0.1' })).toBe(0);
    await new Promise((r) => setTimeout(r, 2100));
    expect(await lockedFor(subject)).toBe(0);
    // After the lock a fresh window starts: one failure does not lock again.
    expect(await recordFailure(db, policy, subject)).toBe(0);
    expect(await lockedFor(subject)).toBe(0);
  });

  it('locks an address that fails across many accounts', async () => {
    for (let i = 0; i < 4; i++) expect(await recordFailure(db, policy, { account: `spray-${i}`, ip: '10.0.0.9' })).toBe(0);
    expect(await recordFailure(db, policy, { account: 'spray-4', ip: '10.0.0.9' })).toBe(2);
    expect(await lockedFor({ account: 'never-tried', ip: '10.0.0.9' })).toBeGreaterThan(0);
  });

  it('a success clears the account failures but not the address failures', async () => {
    const subject = { account: 'user-3', ip: '10.0.0.3' };
    await recordFailure(db, policy, subject);
    await recordFailure(db, policy, subject);
    await recordSuccess(db, subject, await checkLock(db, subject));
    expect(await recordFailure(db, policy, subject)).toBe(0);
    expect(await recordFailure(db, policy, subject)).toBe(0);
    expect(await recordFailure(db, policy, subject)).toBe(2);
    const ip = await db.query<{ failures: number }>(`SELECT failures FROM login_failures WHERE scope = 'ip' AND key = '10.0.0.3'`);
    // five failures on the address: its lock started and its count was reset, so the success did not clear it
    expect(ip.rows[0]!.failures).toBe(0);
    expect(await lockedFor({ account: 'someone-else', ip: '10.0.0.3' })).toBeGreaterThan(0);
  });

  it('a success with no failures of the account on record writes nothing', async () => {
    const subject = { account: 'user-4', ip: '10.0.0.4' };
    await recordFailure(db, policy, { account: 'user-5', ip: subject.ip });
    const lock = await checkLock(db, subject);
    expect(lock).toEqual({ wait: 0, accountFailures: false });
    const before = db.stats.queries;
    await recordSuccess(db, subject, lock);
    expect(db.stats.queries).toBe(before);
    // the address's failure (from another account) is still counted
    const ip = await db.query<{ failures: number }>(`SELECT failures FROM login_failures WHERE scope = 'ip' AND key = '10.0.0.4'`);
    expect(ip.rows[0]!.failures).toBe(1);
    expect(await checkLock(db, { account: 'user-5', ip: '10.0.0.40' })).toEqual({ wait: 0, accountFailures: true });
  });
});
