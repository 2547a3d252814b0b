// Parallel SetUpOrg with one name: one organization, the others 409, no 5xx, no leftovers.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestServer } from '../helpers/server.ts';
import { startServerWithAdminKey } from '../helpers/tokens.ts';

describe('parallel SetUpOrg with the same name', () => {
  let server: TestServer;
  let token: string;
  // 12 calls of one caller at once: above the default hashing bound per caller, which is not what this race is about.
  beforeAll(async () => {
    ({ server, adminToken: token } = await startServerWithAdminKey({ GATEHOUSE_HASH_PER_ADDRESS: '32' }));
  });
  afterAll(async () => server?.stop());

  it('creates exactly one organization; the rest are ALREADY_EXISTS and write nothing', async () => {
    const before = (
      await server.db.query<{ orgs: number; users: number; events: number }>(
        'SELECT (SELECT count(*) FROM orgs)::int AS orgs, (SELECT count(*) FROM users)::int AS users, ' +
          '(SELECT count(*) FROM events)::int AS events',
      )
    ).rows[0]!;
    const results = await Promise.all(
      Array.from({ length: 12 }, async (_, i) => {
        const res = await fetch(`${server.url}/admin/v1/orgs/_setup`, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: JSON.stringify({
            org: { name: 'Contended Org' },
            human: {
              userName: `contender-${i}`,
              profile: { firstName: 'A', lastName: 'B' },
              email: { email: `c${i}@example.com` },
              password: 'Password-123',
            },
          }),
        });
        return { status: res.status, body: (await res.json()) as { code?: number } };
      }),
    );
    expect(results.filter((r) => r.status >= 500)).toEqual([]);
    expect(results.filter((r) => r.status === 200)).toHaveLength(1);
    expect(results.filter((r) => r.status !== 200).every((r) => r.status === 409 && r.body.code === 6)).toBe(true);
    const after = (
      await server.db.query<{ orgs: number; users: number; events: number }>(
        'SELECT (SELECT count(*) FROM orgs)::int AS orgs, (SELECT count(*) FROM users)::int AS users, ' +
          '(SELECT count(*) FROM events)::int AS events',
      )
    ).rows[0]!;
    expect(after.orgs - before.orgs).toBe(1);
    expect(after.users - before.users).toBe(1);
    expect(after.events - before.events).toBe(4); // org, domain, user, membership of the winner only
  });
});
