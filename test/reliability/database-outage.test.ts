// PostgreSQL goes away for 10 s under load: requests fail fast with 503, /readyz turns 503, the process recovers by
// itself, and every write acknowledged with a 2xx before the outage is still there after it.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openDb } from '../../src/platform/db.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/database.ts';
import { isPostgres } from '../helpers/postgres.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.ts';
import { jwtProfileToken } from '../helpers/tokens.ts';
import { sleep, startLoad, until } from '../helpers/load.ts';

const CONNECT_TIMEOUT_MS = 1000;
const STATEMENT_TIMEOUT_MS = 2000;

describe.runIf(isPostgres)('PostgreSQL outage under load', () => {
  let database: TestDatabase;
  let proxy: TcpProxy;
  let server: TestServer;
  afterAll(async () => {
    await server?.close();
    await proxy?.close();
    await database?.drop();
  });

  it('answers 503 fast, reports not ready, recovers by itself and keeps every acknowledged write', async () => {
    database = await createTestDatabase();
    const target = new URL(database.env.DATABASE_URL!);
    proxy = await startTcpProxy(target.hostname, Number(target.port || 5432));
    const viaProxy = new URL(target);
    viaProxy.hostname = '127.0.0.1';
    viaProxy.port = String(proxy.port);
    const keyPath = join(mkdtempSync(join(tmpdir(), 'gatehouse-outage-')), 'admin.json');
    server = await startTestServer({
      database: { ...database, env: { DATABASE_URL: viaProxy.toString() } },
      env: {
        GATEHOUSE_ADMIN_KEY_FILE: keyPath,
        DATABASE_CONNECT_TIMEOUT_MS: String(CONNECT_TIMEOUT_MS),
        DATABASE_STATEMENT_TIMEOUT_MS: String(STATEMENT_TIMEOUT_MS),
        LOG_LEVEL: 'fatal',
      },
    });
    const adminKey = JSON.parse(readFileSync(keyPath, 'utf8'));
    const token = await jwtProfileToken(server, adminKey);

    const acknowledged: string[] = [];
    let without503RetryAfter = 0;
    let n = 0;
    const setUpOrg = async () => {
      const name = `Outage Org ${process.pid} ${n++}`;
      const res = await fetch(`${server.url}/admin/v1/orgs/_setup`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          org: { name },
          human: {
            userName: `outage-${process.pid}-${n}`,
            profile: { firstName: 'A', lastName: 'B' },
            email: { email: 'a@example.com' },
            password: 'Password-123',
          },
        }),
        signal: AbortSignal.timeout(15_000),
      });
      const body = (await res.json()) as { orgId?: string };
      if (res.status === 200) acknowledged.push(body.orgId!);
      if (res.status === 503 && res.headers.get('retry-after') !== '5') without503RetryAfter++;
      return res.status;
    };
    const tokenGrant = async () => {
      const res = await fetch(`${server.url}/oauth/v2/token`, {
        method: 'POST',
        signal: AbortSignal.timeout(15_000),
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: 'grant_type=client_credentials&client_id=nobody&client_secret=x',
      });
      await res.arrayBuffer();
      return res.status;
    };
    const writes = startLoad(3, setUpOrg, { maxSeconds: 40, pauseMs: 20 });
    const tokens = startLoad(2, tokenGrant, { maxSeconds: 40, pauseMs: 20 });
    await sleep(1500);

    const cutAt = Date.now();
    proxy.cut();
    await sleep(1000);
    expect((await fetch(`${server.url}/readyz`)).status).toBe(503);
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
    expect((await fetch(`${server.url}/.well-known/openid-configuration`)).status).toBe(200); // no database needed
    await sleep(9000);
    proxy.restore();
    const restoredAt = Date.now();
    await until(async () => (await fetch(`${server.url}/readyz`)).status === 200, 10_000, 'ready again');
    await until(
      async () => writes.records.some((r) => r.at > restoredAt && r.status === 200),
      10_000,
      'a write succeeds again',
    );
    await writes.stop();
    await tokens.stop();

    const all = [...writes.records, ...tokens.records];
    const during = all.filter((r) => r.at > cutAt + 500 && r.at < restoredAt - 500);
    expect(during.length).toBeGreaterThan(10);
    // fail fast and clearly: only 503 while the database is away, never a 500 or a hang
    expect(new Set(during.map((r) => r.status))).toEqual(new Set([503]));
    expect(without503RetryAfter).toBe(0); // the management API's 503 says when to come back, as the OAuth ones do
    expect(Math.max(...all.map((r) => r.ms))).toBeLessThan(CONNECT_TIMEOUT_MS + STATEMENT_TIMEOUT_MS + 2000);
    expect(all.filter((r) => r.status !== 200 && r.status !== 503 && r.status !== 401)).toEqual([]);
    expect(writes.records.filter((r) => r.at + r.ms < cutAt).every((r) => r.status === 200)).toBe(true);

    // every acknowledged write is there, read straight from the database
    expect(acknowledged.length).toBeGreaterThan(5);
    const direct = await openDb(database.database);
    try {
      const { rows } = await direct.query('SELECT id FROM orgs WHERE id = ANY($1)', [acknowledged]);
      expect(rows.length).toBe(acknowledged.length);
    } finally {
      await direct.close();
    }
  }, 90_000);
});
