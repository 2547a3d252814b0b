import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isPostgres } from '../helpers/postgres.ts';
import { createServer } from 'node:net';
import { createTestDatabase } from '../helpers/database.ts';
import { freePort, startTestServer, type TestServer } from '../helpers/server.ts';
import { createMachine, createOidcApp, basic, postForm, userTokens } from '../helpers/oidc.ts';

describe('/metrics', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(async () => {
    await server.stop();
  });

  it('counts requests per route and status, and reports pool usage and the event-log position', async () => {
    await fetch(`${server.url}/healthz`);
    await fetch(`${server.url}/healthz`);
    await fetch(`${server.url}/no-such-path`);
    const res = await fetch(`${server.url}/metrics`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    const text = await res.text();
    expect(text).toMatch(/gatehouse_http_requests_total\{method="GET",route="\/healthz",status="200"\} 2/);
    expect(text).toMatch(/gatehouse_http_requests_total\{method="GET",route="unmatched",status="404"\} 1/);
    expect(text).toMatch(
      /gatehouse_http_request_duration_seconds_bucket\{le="0\.005",method="GET",route="\/healthz",status="200"\}/,
    );
    expect(text).toMatch(/gatehouse_db_pool_connections\{state="total"\} \d+/);
    const { rows } = await server.db.query('SELECT max(sequence)::text AS s FROM events');
    expect(text).toContain(`gatehouse_event_log_sequence ${rows[0]!.s}`);
    expect(text).toMatch(/gatehouse_process_resident_memory_bytes \d+/);
  });

  it('counts password logins by result and tokens by grant', async () => {
    await userTokens(server, await createOidcApp(server), 'openid');
    const machine = await createMachine(server);
    await postForm(
      `${server.url}/oauth/v2/token`,
      { grant_type: 'client_credentials', scope: 'openid' },
      { authorization: basic(machine.userName, machine.clientSecret) },
    );
    const text = await (await fetch(`${server.url}/metrics`)).text();
    expect(text).toMatch(/gatehouse_logins_total\{result="success"\} 1/);
    expect(text).toMatch(/gatehouse_tokens_issued_total\{grant="authorization_code"\} 1/);
    expect(text).toMatch(/gatehouse_tokens_issued_total\{grant="client_credentials"\} 1/);
    // routes handed to oidc-provider are counted too (the authorization code and the client_credentials token)
    expect(text).toMatch(/gatehouse_http_requests_total\{method="POST",route="\/oauth\/v2\/token",status="200"\} 2/);
    expect(text).toMatch(
      /gatehouse_http_request_duration_seconds_count\{method="GET",route="\/oauth\/v2\/authorize",status="303"\} 1/,
    );
  });
});

describe('GATEHOUSE_METRICS_ADDRESS', () => {
  it('serves /metrics only on its own listener, 404 on the public port, and closes that listener on shutdown', async () => {
    const port = await freePort();
    const metricsUrl = `http://127.0.0.1:${port}`;
    const server = await startTestServer({ env: { GATEHOUSE_METRICS_ADDRESS: `127.0.0.1:${port}` } });
    try {
      expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
      const publicMetrics = await fetch(`${server.url}/metrics`);
      expect(publicMetrics.status).toBe(404);
      expect(await publicMetrics.text()).not.toContain('gatehouse_');
      const res = await fetch(`${metricsUrl}/metrics`);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
      const text = await res.text();
      // the public port's requests are counted, its 404 for /metrics included
      expect(text).toMatch(/gatehouse_http_requests_total\{method="GET",route="\/healthz",status="200"\} 1/);
      expect(text).toMatch(/gatehouse_http_requests_total\{method="GET",route="unmatched",status="404"\} 1/);
      // nothing else is served there
      for (const path of ['/', '/healthz', '/oauth/v2/keys', '/metrics/x'])
        expect((await fetch(`${metricsUrl}${path}`)).status, path).toBe(404);
      expect((await fetch(`${metricsUrl}/metrics`, { method: 'POST' })).status).toBe(404);
    } finally {
      await server.stop();
    }
    await expect(fetch(`${metricsUrl}/metrics`)).rejects.toThrow();
  });

  it('a taken metrics address fails the start', async () => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const { port } = blocker.address() as { port: number };
    const database = await createTestDatabase();
    try {
      await expect(
        startTestServer({ database, env: { GATEHOUSE_METRICS_ADDRESS: `127.0.0.1:${port}` } }),
      ).rejects.toThrow(/EADDRINUSE/);
    } finally {
      blocker.close();
      await database.drop();
    }
  });
});

describe('health checks do not wait behind business requests', () => {
  it.runIf(isPostgres)('/readyz answers 200 while every pool connection is taken', async () => {
    const server = await startTestServer({ env: { DATABASE_POOL_SIZE: '1' } });
    let release!: () => void;
    const holding = server.db.tx(
      () =>
        new Promise<void>((r) => {
          release = r;
        }),
    );
    try {
      await new Promise((r) => setTimeout(r, 100));
      const started = Date.now();
      const res = await fetch(`${server.url}/readyz`);
      expect(res.status).toBe(200);
      expect(Date.now() - started).toBeLessThan(1500);
      expect(server.db.pool.waitingCount).toBe(0);
    } finally {
      release();
      await holding;
      await server.stop();
    }
  });
});
