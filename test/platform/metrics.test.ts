import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isPostgres } from '../helpers/postgres.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { createMachine, createOidcApp, basic, postForm, userTokens } from '../helpers/oidc.ts';

describe('/metrics', () => {
  let server: TestServer;
  beforeAll(async () => { server = await startTestServer(); });
  afterAll(async () => { await server.stop(); });

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
    expect(text).toMatch(/gatehouse_http_request_duration_seconds_bucket\{le="0\.005",method="GET",route="\/healthz",status="200"\}/);
    expect(text).toMatch(/gatehouse_db_pool_connections\{state="total"\} \d+/);
    const { rows } = await server.db.query('SELECT max(sequence)::text AS s FROM events');
    expect(text).toContain(`gatehouse_event_log_sequence ${rows[0]!.s}`);
    expect(text).toMatch(/gatehouse_process_resident_memory_bytes \d+/);
  });

  it('counts password logins by result and tokens by grant', async () => {
    await userTokens(server, await createOidcApp(server), 'openid');
    const machine = await createMachine(server);
    await postForm(`${server.url}/oauth/v2/token`, { grant_type: 'client_credentials', scope: 'openid' }, { authorization: basic(machine.userName, machine.clientSecret) });
    const text = await (await fetch(`${server.url}/metrics`)).text();
    expect(text).toMatch(/gatehouse_logins_total\{result="success"\} 1/);
    expect(text).toMatch(/gatehouse_tokens_issued_total\{grant="authorization_code"\} 1/);
    expect(text).toMatch(/gatehouse_tokens_issued_total\{grant="client_credentials"\} 1/);
    // routes handed to oidc-provider are counted too (the authorization code and the client_credentials token)
    expect(text).toMatch(/gatehouse_http_requests_total\{method="POST",route="\/oauth\/v2\/token",status="200"\} 2/);
    expect(text).toMatch(/gatehouse_http_request_duration_seconds_count\{method="GET",route="\/oauth\/v2\/authorize",status="303"\} 1/);
  });
});

describe('health checks do not wait behind business requests', () => {
  it.runIf(isPostgres)('/readyz answers 200 while every pool connection is taken', async () => {
    const server = await startTestServer({ env: { DATABASE_POOL_SIZE: '1' } });
    let release!: () => void;
    const holding = server.db.tx(() => new Promise<void>((r) => { release = r; }));
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
