import { describe, expect, it } from 'vitest';
import { AppError, Code } from '../../src/platform/errors.ts';
import { addOrgWithHuman, type NewOrgWithHuman } from '../../src/orgs/create.ts';
import { appendEvent } from '../../src/events/log.ts';
import { EVENT } from '../../src/events/types.ts';
import { useTestDb } from '../helpers/database.ts';

const input = (orgName: string, userName: string): NewOrgWithHuman => ({
  org: { name: orgName, domain: `${orgName.toLowerCase()}.example.test` },
  human: {
    userName,
    profile: {
      firstName: 'Ada',
      lastName: 'Lovelace',
      nickName: '',
      displayName: 'Ada Lovelace',
      preferredLanguage: 'en',
      gender: 'GENDER_FEMALE',
    },
    email: 'ada@example.test',
    emailVerified: false,
    phone: null,
    phoneVerified: false,
    passwordHash: null,
  },
  roles: ['ORG_OWNER'],
});

describe('event log', () => {
  const db = useTestDb();

  const count = async (table: string) =>
    (await db.query(`SELECT count(*)::int AS n FROM ${table}`)).rows[0]!.n as number;

  it('is written in the same transaction as the state it describes', async () => {
    const created = await db.tx((tx) => addOrgWithHuman(tx, input('Acme', 'ada'), 'tester'));
    const org = (await db.query('SELECT sequence FROM orgs WHERE id = $1', [created.orgId])).rows[0]!;
    const events = (
      await db.query<{ sequence: string; event_type: string; creator: string; created_at: Date }>(
        'SELECT sequence, event_type, resource_owner, creator, created_at FROM events ' +
          'WHERE resource_owner = $1 ORDER BY sequence',
        [created.orgId],
      )
    ).rows;
    expect(events.map((e) => e.event_type)).toEqual([
      'org.added',
      'org.domain.added',
      'user.human.added',
      'org.member.added',
    ]);
    expect(events[0]!.sequence).toBe(org.sequence);
    expect(events.at(-1)!.sequence).toBe(created.event.sequence);
    expect(new Set(events.map((e) => e.created_at.getTime())).size).toBe(1); // one change, one timestamp
    expect(events.every((e) => e.creator === 'tester')).toBe(true);
  });

  it('a change that fails half-way leaves neither its rows nor its events', async () => {
    const before = {
      orgs: await count('orgs'),
      users: await count('users'),
      events: await count('events'),
      domains: await count('org_domains'),
    };
    // the org and its domain are new, but the user name is taken: the whole change must roll back
    const error = await db.tx((tx) => addOrgWithHuman(tx, input('Globex', 'ADA'), 'tester')).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).code).toBe(Code.AlreadyExists);
    expect({
      orgs: await count('orgs'),
      users: await count('users'),
      events: await count('events'),
      domains: await count('org_domains'),
    }).toEqual(before);
  });

  it('maps a duplicate org name to ALREADY_EXISTS', async () => {
    const error = await db
      .tx((tx) =>
        addOrgWithHuman(tx, { ...input('ACME', 'bob'), org: { name: 'ACME', domain: 'other.example.test' } }, 't'),
      )
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ code: Code.AlreadyExists, id: 'ORG-lapo2m' });
  });

  it('is append-only', async () => {
    await db.tx((tx) =>
      appendEvent(tx, {
        aggregateType: 'org',
        aggregateId: '1',
        eventType: EVENT.org.changed,
        resourceOwner: '1',
        creator: 'c',
      }),
    );
    await expect(db.query("UPDATE events SET event_type = 'forged'")).rejects.toThrow(/append-only/);
    await expect(db.query('DELETE FROM events')).rejects.toThrow(/append-only/);
  });
});
