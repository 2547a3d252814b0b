// The Postgres adapter's guarantees, which oidc-provider's memory adapter hides: hashed ids, atomic consume, a
// non-unique session uid whose newest row wins, expired rows hidden and swept in bounded batches.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { createAdapterClass } from '../../src/oidc/provider/adapter.ts';
import { sweepExpired } from '../../src/oidc/payload-store.ts';

describe('Postgres adapter', () => {
  let server: TestServer;
  let Adapter: ReturnType<typeof createAdapterClass>;
  beforeAll(async () => {
    server = await startTestServer();
    Adapter = createAdapterClass(
      server.db,
      { findClient: async () => undefined, resolveAccessToken: async (value) => ({ jti: value, jwt: false }) },
      { refreshReuseGrace: 10, interactionTtl: 600 },
    );
  });
  afterAll(async () => server?.stop());

  it('stores hashes of ids, never the token value, in the id or the payload; find puts the value back', async () => {
    const codes = new Adapter('AuthorizationCode');
    await codes.upsert(
      'secret-code-value',
      { jti: 'secret-code-value', grantId: 'g1', kind: 'AuthorizationCode' } as never,
      60,
    );
    const rows = (await server.db.query("SELECT t::text AS row FROM oidc_payloads t WHERE model = 'AuthorizationCode'"))
      .rows;
    expect(rows).toHaveLength(1);
    expect(rows[0]!.row).not.toContain('secret-code-value');
    expect(await codes.find('secret-code-value')).toMatchObject({ jti: 'secret-code-value', grantId: 'g1' });
  });

  it("consume succeeds once; the second consume throws invalid_grant and removes the grant's other rows", async () => {
    const codes = new Adapter('AuthorizationCode');
    const tokens = new Adapter('AccessToken');
    await codes.upsert('code-2', { grantId: 'g2' } as never, 60);
    await tokens.upsert('at-2', { grantId: 'g2' } as never, 60);
    const results = await Promise.allSettled([
      codes.consume('code-2'),
      codes.consume('code-2'),
      codes.consume('code-2'),
    ]);
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    for (const r of results.filter((x) => x.status === 'rejected'))
      expect((r as PromiseRejectedResult).reason).toMatchObject({ error: 'invalid_grant' });
    expect(await codes.find('code-2')).toMatchObject({ consumed: expect.any(Number) });
    expect(await tokens.find('at-2')).toBeUndefined();
  });

  it('session uid is not unique: findByUid returns the newest row', async () => {
    const sessions = new Adapter('Session');
    await sessions.upsert('session-a', { uid: 'u-1', accountId: 'old' } as never, 60);
    await new Promise((r) => setTimeout(r, 5)); // two requests, not one: the embedded clock counts milliseconds
    await sessions.upsert('session-b', { uid: 'u-1', accountId: 'new' } as never, 60);
    expect(await sessions.findByUid('u-1')).toMatchObject({ accountId: 'new' });
  });

  it('sweeps a backlog of expired rows batch after batch in one run, and keeps live ones', async () => {
    await server.db.query(
      `INSERT INTO oidc_payloads (model, id, payload, expires_at)
       SELECT 'AccessToken', 'backlog-' || n, '{}'::jsonb, now() - make_interval(mins => 2 + n % 7)
       FROM generate_series(1, 25) n
       UNION ALL
       SELECT 'AccessToken', 'live-' || n, '{}'::jsonb, now() + interval '1 hour' FROM generate_series(1, 3) n`,
    );
    expect(await sweepExpired(server.db, { until: Date.now() + 10_000, batchSize: 10 })).toBeGreaterThanOrEqual(25);
    const { rows } = await server.db.query<{ id: string }>(
      "SELECT id FROM oidc_payloads WHERE id LIKE 'backlog-%' OR id LIKE 'live-%' ORDER BY id",
    );
    expect(rows.map((r) => r.id)).toEqual(['live-1', 'live-2', 'live-3']);
  });

  it('hides expired rows and sweeps them', async () => {
    const tokens = new Adapter('AccessToken');
    await tokens.upsert('soon-gone', { grantId: 'g3' } as never, 1);
    await server.db.query("UPDATE oidc_payloads SET expires_at = now() - interval '2 minutes' WHERE grant_id = 'g3'");
    expect(await tokens.find('soon-gone')).toBeUndefined();
    expect(await sweepExpired(server.db, { until: Date.now() + 5000, batchSize: 1 })).toBeGreaterThanOrEqual(1);
    expect(
      (await server.db.query("SELECT count(*)::int AS n FROM oidc_payloads WHERE grant_id = 'g3'")).rows[0]!.n,
    ).toBe(0);
  });
});
