import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDb, type Db } from '../../src/platform/db.ts';
import { lockedFor, recordFailure, recordSuccess } from '../../src/lockout/service.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/database.ts';

describe('lockout service (security.md §16)', () => {
  let database: TestDatabase;
  let db: Db;
  const policy = { maxAttempts: 3, ipMaxAttempts: 5, seconds: 2 };

  beforeAll(async () => {
    database = await createTestDatabase();
    db = await openDb(database.database);
  });
  afterAll(async () => {
    await db.close();
    await database.drop();
  });

  it('locks an account after the configured failures, for the configured time, then lets it try again', async () => {
    const subject = { account: 'user-1', ip: '10.0.0.1' };
    expect(await recordFailure(db, policy, subject)).toBe(0);
    expect(await recordFailure(db, policy, subject)).toBe(0);
    expect(await lockedFor(db, subject)).toBe(0);
    expect(await recordFailure(db, policy, subject)).toBe(2);
    const wait = await lockedFor(db, subject);
    expect(wait).toBeGreaterThan(0);
    expect(wait).toBeLessThanOrEqual(2);
    // Another address is locked out of this account too; the same address may still try other accounts.
    expect(await lockedFor(db, { account: 'user-1', ip: '10.0.0.2' })).toBeGreaterThan(0);
    expect(await lockedFor(db, { account: 'user-2', ip: '10.0.0.1' })).toBe(0);
    await new Promise((r) => setTimeout(r, 2100));
    expect(await lockedFor(db, subject)).toBe(0);
    // After the lock a fresh window starts: one failure does not lock again.
    expect(await recordFailure(db, policy, subject)).toBe(0);
    expect(await lockedFor(db, subject)).toBe(0);
  });

  it('locks an address that fails across many accounts', async () => {
    for (let i = 0; i < 4; i++) expect(await recordFailure(db, policy, { account: `spray-${i}`, ip: '10.0.0.9' })).toBe(0);
    expect(await recordFailure(db, policy, { account: 'spray-4', ip: '10.0.0.9' })).toBe(2);
    expect(await lockedFor(db, { account: 'never-tried', ip: '10.0.0.9' })).toBeGreaterThan(0);
  });

  it('a success clears the account failures but not the address failures', async () => {
    const subject = { account: 'user-3', ip: '10.0.0.3' };
    await recordFailure(db, policy, subject);
    await recordFailure(db, policy, subject);
    await recordSuccess(db, subject);
    expect(await recordFailure(db, policy, subject)).toBe(0);
    expect(await recordFailure(db, policy, subject)).toBe(0);
    expect(await recordFailure(db, policy, subject)).toBe(2);
    const ip = await db.query<{ failures: number }>(`SELECT failures FROM login_failures WHERE scope = 'ip' AND key = '10.0.0.3'`);
    // five failures on the address: its lock started and its count was reset, so the success did not clear it
    expect(ip.rows[0]!.failures).toBe(0);
    expect(await lockedFor(db, { account: 'someone-else', ip: '10.0.0.3' })).toBeGreaterThan(0);
  });
});
