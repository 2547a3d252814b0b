// SetUpOrg and ImportHumanUser hash the first user's password: through the same bounded hashing queue as the login
// pages, with the calling principal in place of a client address.
import { AdminService } from '@zitadel/proto/zitadel/admin_pb.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestServer } from '../helpers/server.ts';
import { callApi, type ApiCall } from '../helpers/management.ts';
import { calls } from '../helpers/provisioning.ts';
import { startServerWithAdminKey } from '../helpers/tokens.ts';

describe('management calls that hash share the bounded queue', () => {
  let server: TestServer;
  let token: string;
  beforeAll(async () => {
    ({ server, adminToken: token } = await startServerWithAdminKey({ GATEHOUSE_HASH_PER_ADDRESS: '2' }));
  });
  afterAll(async () => server?.stop());

  const hashesRun = async () =>
    Number(
      /^gatehouse_password_hashes_total\{outcome="run"\} (\d+)/m.exec(
        await (await fetch(`${server.url}/metrics`)).text(),
      )?.[1],
    );
  const users = async () => (await server.db.query('SELECT count(*)::int AS n FROM users')).rows[0]!.n as number;

  const setUpOrg = (i: number): ApiCall => {
    const n = `${Date.now().toString(36)}-${i}`;
    return {
      service: AdminService,
      method: 'SetUpOrg',
      rest: ['POST', '/admin/v1/orgs/_setup'],
      body: {
        org: { name: `Bound Org ${n}` },
        human: {
          userName: `bound-${n}`,
          profile: { firstName: 'B', lastName: 'O' },
          email: { email: 'b@example.com' },
          password: 'Bound-Password-1',
        },
      },
    };
  };

  /** One call over REST (its status, Retry-After and body) or gRPC (its code and message). */
  async function call(
    i: number,
  ): Promise<{ ok: boolean; code?: number; message?: string; status?: number; retryAfter?: string | null }> {
    const api = i % 4 < 2 ? calls.importHumanUser() : setUpOrg(i);
    if (i % 2) {
      const outcome = await callApi(server.url, 'grpc', api, { token });
      return outcome.ok ? { ok: true } : { ok: false, code: outcome.code, message: outcome.message };
    }
    const res = await fetch(`${server.url}${api.rest[1]}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(api.body),
    });
    const json = (await res.json()) as { code?: number; message?: string };
    return {
      ok: res.status === 200,
      status: res.status,
      code: json.code,
      message: json.message,
      retryAfter: res.headers.get('retry-after'),
    };
  }

  it('20 parallel calls of one caller: what is over its share is refused RESOURCE_EXHAUSTED (REST 429, Retry-After) without hashing or writing', async () => {
    const before = await hashesRun();
    const usersBefore = await users();
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => call(i)));
    const ok = results.filter((r) => r.ok);
    const refused = results.filter((r) => !r.ok);
    expect(ok.length).toBeGreaterThanOrEqual(2);
    expect(refused.length).toBeGreaterThan(0);
    for (const r of refused) {
      expect(r).toMatchObject({
        code: 8,
        message: 'Too many password checks from this client at once; retry shortly (USER-hash-share)',
      });
      if (r.status !== undefined) expect(r).toMatchObject({ status: 429, retryAfter: '1' });
    }
    expect(refused.some((r) => r.status === 429)).toBe(true);
    expect((await hashesRun()) - before).toBe(ok.length);
    expect((await users()) - usersBefore).toBe(ok.length);
  });
});
