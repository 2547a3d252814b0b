import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../src/platform/db.ts';
import { registerHuman } from '../../src/passwords/register.ts';
import { registrationSchema } from '../../src/users/schema.ts';
import { findUserByLoginName } from '../../src/users/lookup.ts';
import { verifyPassword } from '../../src/users/passwords.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

describe('registerHuman (prompt=create)', () => {
  let server: TestServer;
  let db: Db;
  beforeAll(async () => {
    server = await startTestServer();
    db = server.db;
  });
  afterAll(async () => server.stop());

  const valid = {
    firstName: 'Ada',
    lastName: 'Lovelace',
    email: 'ada@example.com',
    userName: 'ada',
    password: 'correct horse battery',
  };

  it('creates an active human in the default organization with an argon2id hash and one event, in one transaction', async () => {
    const instance = (await db.query<{ default_org_id: string }>('SELECT default_org_id FROM instance')).rows[0]!;
    const { userId, details } = await registerHuman(db, instance.default_org_id, registrationSchema.parse(valid), 'de');
    expect(details.resourceOwner).toBe(instance.default_org_id);
    const user = (await findUserByLoginName(db, 'ADA'))!;
    expect(user).toMatchObject({
      id: userId,
      type: 'human',
      state: 'active',
      org_id: instance.default_org_id,
      display_name: 'Ada Lovelace',
      preferred_language: 'de',
      email_verified: false,
    });
    expect(user.password_hash).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
    expect(await verifyPassword(valid.password, user.password_hash!)).toBe(true);
    const events = await db.query('SELECT event_type, payload FROM events WHERE aggregate_id = $1', [userId]);
    expect(events.rows).toHaveLength(1);
    expect(events.rows[0]!.event_type).toBe('user.human.selfregistered');
    expect(JSON.stringify(events.rows[0]!.payload)).not.toContain(valid.password);
    // login name with the organization's domain resolves too; another domain does not
    expect((await findUserByLoginName(db, `ada@${user.primary_domain}`))?.id).toBe(userId);
    expect(await findUserByLoginName(db, 'ada@elsewhere.example')).toBeUndefined();
  });

  it('refuses a taken user name (case-insensitive) without writing anything', async () => {
    const instance = (await db.query<{ default_org_id: string }>('SELECT default_org_id FROM instance')).rows[0]!;
    const before = (await db.query('SELECT count(*)::int AS n FROM events')).rows[0]!.n;
    await expect(
      registerHuman(db, instance.default_org_id, registrationSchema.parse({ ...valid, userName: 'ADA' }), 'en'),
    ).rejects.toMatchObject({ name: 'AppError', code: 6 });
    expect((await db.query('SELECT count(*)::int AS n FROM events')).rows[0]!.n).toBe(before);
  });

  it('applies the password policy: at least 8, long passphrases allowed, no composition rules', () => {
    expect(registrationSchema.safeParse({ ...valid, password: 'short12' }).success).toBe(false);
    expect(registrationSchema.safeParse({ ...valid, password: 'abcdefgh' }).success).toBe(true);
    expect(registrationSchema.safeParse({ ...valid, password: 'x'.repeat(200) }).success).toBe(true);
    expect(registrationSchema.safeParse({ ...valid, userName: 'with space' }).success).toBe(false);
    expect(registrationSchema.safeParse({ ...valid, email: 'not-an-email' }).success).toBe(false);
    expect(registrationSchema.safeParse({ ...valid, firstName: 'x'.repeat(201) }).success).toBe(false);
  });
});
