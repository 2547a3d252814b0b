// Housekeeping: expired codes, sessions, tokens and replay entries are removed in bounded batches in the background,
// and the sweep is visible in /metrics.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { until } from '../helpers/load.ts';

describe('background sweep of expired OIDC rows', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ env: { GATEHOUSE_OIDC_SWEEP_INTERVAL_MS: '200' } });
  });
  afterAll(async () => server?.stop());

  it('removes expired rows of every model, keeps live ones, and counts them in /metrics', async () => {
    const models = ['AuthorizationCode', 'Session', 'AccessToken', 'RefreshToken', 'ReplayDetection', 'Interaction'];
    for (const [i, model] of models.entries()) {
      await server.db.query(
        `INSERT INTO oidc_payloads (model, id, payload, expires_at) VALUES ($1, $2, '{}', ` +
          `now() - interval '1 hour'), ($1, $3, '{}', now() + interval '1 hour')`,
        [model, `expired-${i}`, `live-${i}`],
      );
    }
    await until(
      async () =>
        (await server.db.query("SELECT count(*)::int AS n FROM oidc_payloads WHERE id LIKE 'expired-%'")).rows[0]!.n ===
        0,
      10_000,
      'expired rows swept',
    );
    expect(
      (await server.db.query("SELECT count(*)::int AS n FROM oidc_payloads WHERE id LIKE 'live-%'")).rows[0]!.n,
    ).toBe(models.length);
    const metrics = await (await fetch(`${server.url}/metrics`)).text();
    const swept = Number(/gatehouse_swept_rows_total\{model="oidc"\} (\d+)/.exec(metrics)?.[1]);
    expect(swept).toBeGreaterThanOrEqual(models.length);
  });
});
