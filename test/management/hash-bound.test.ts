// SetUpOrg and ImportHumanUser hash the first user's password: through the same bounded hashing queue as the login
// pages (issue 26 §6), with the calling principal in place of a client address.
import { AdminService } from '@zitadel/proto/zitadel/admin_pb.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestServer } from '../helpers/server.ts';
import { callApi, type Encoding, type Outcome } from '../helpers/management.ts';
import { calls } from '../helpers/provisioning.ts';
import { startServerWithAdminKey } from '../helpers/tokens.ts';

describe('management calls that hash share the bounded queue', () => {
  let server: TestServer;
  let token: string;
  beforeAll(async () => {
    ({ server, adminToken: token } = await startServerWithAdminKey({ GATEHOUSE_HASH_PER_ADDRESS: '2' }));
  });
  afterAll(async () => server?.stop());

  const hashesRun = async () => Number(/^gatehouse_password_hashes_total\{outcome="run"\} (\d+)/m.exec(await (await fetch(`${server.url}/metrics`)).text())?.[1]);

  it('20 parallel calls of one caller: what is over its bound is refused UNAVAILABLE (REST 503) without hashing or writing', async () => {
    const before = await hashesRun();
    const users = async () => (await server.db.query('SELECT count(*)::int AS n FROM users')).rows[0]!.n as number;
    const usersBefore = await users();
    const encodings: Encoding[] = ['rest', 'grpc'];
    const results = await Promise.all(Array.from({ length: 20 }, async (_, i) => {
      const encoding = encodings[i % 2]!;
      const n = `${Date.now().toString(36)}-${i}`;
      const outcome: Outcome = await (i % 4 < 2
        ? callApi(server.url, encoding, calls.importHumanUser(), { token })
        : callApi(server.url, encoding, {
          service: AdminService, method: 'SetUpOrg', rest: ['POST', '/admin/v1/orgs/_setup'],
          body: { org: { name: `Bound Org ${n}` }, human: { userName: `bound-${n}`, profile: { firstName: 'B', lastName: 'O' }, email: { email: 'b@example.com' }, password: 'Bound-Password-1' } },
        }, { token }));
      return { encoding, outcome };
    }));
    const ok = results.filter((r) => r.outcome.ok);
    const refused = results.filter((r) => !r.outcome.ok);
    expect(ok.length).toBeGreaterThanOrEqual(2);
    expect(refused.length).toBeGreaterThan(0);
    for (const { encoding, outcome } of refused) {
      expect(outcome).toMatchObject({ ok: false, code: 14, message: 'Too many password checks in progress; retry shortly (USER-hash-busy)' });
      if (encoding === 'rest') expect(outcome.status).toBe(503);
    }
    expect(await hashesRun() - before).toBe(ok.length);
    expect(await users() - usersBefore).toBe(ok.length);
  });
});
